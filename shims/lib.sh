# Steps shared by the build scripts of the shims that build against a copy of
# an upstream release with files of their own laid over it
# (koordinator/build.sh, kueue/build.sh). Sourced, not run: the functions work
# in the sourcing script's folder and stop it (set -e) on failure.

# The committed go.sum is the whole dependency graph, and a release asking for
# a newer Go must fail rather than download a toolchain.
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly GOWORK=off

# shellcheck source=vocabulary.sh
source "$(dirname "${BASH_SOURCE[0]}")/vocabulary.sh"

# shim_check_pin MODULE PINNED VERSION: stop unless go.mod's requirement
# (PINNED) is the release the script pins (VERSION).
shim_check_pin() {
	if [[ "$2" != "$3" ]]; then
		echo "build.sh: go.mod requires $1 $2 but build.sh pins $3" >&2
		exit 1
	fi
}

# shim_stamp VERSION SUM: a fingerprint of everything the build reads (the
# release, this script and the caller's, the module files, the shim's and the
# shared protocol module's sources, the vocabulary, the overlay), so an
# unchanged build can be skipped. Call it after shim_vocabulary.
shim_stamp() {
	{
		echo "$1 $2 $(go version)"
		cat build.sh ../lib.sh ../vocabulary.sh go.mod go.sum ./*.go ../protocol/go.mod ../protocol/*.go vocabulary.txt
		find _upstream -type f -print0 | sort -z | xargs -0 cat
	} | sha256sum | cut -d' ' -f1
}

# shim_is_current BINARY STAMP: whether bin/BINARY was built from inputs
# with fingerprint STAMP.
shim_is_current() {
	[[ -x "bin/$1" && -f bin/.stamp && "$(cat bin/.stamp)" == "$2" ]]
}

# upstream_copy MODULE VERSION SUM COPY: fetch (or find in the module cache)
# MODULE@VERSION, refuse it unless its h1: sum is SUM, copy its source to COPY
# (kept while it is that same release) and lay _upstream/ over the copy.
upstream_copy() {
	local module=$1 version=$2 want=$3 copy=$4 info src sum
	info=$(cd /tmp && GOFLAGS= go mod download -json "$module@$version")
	src=$(printf '%s' "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	sum=$(printf '%s' "$info" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p')
	if [[ "$sum" != "$want" ]]; then
		echo "build.sh: $module@$version has sum $sum, expected $want" >&2
		exit 1
	fi
	if [[ ! -f "$copy/.source" || "$(cat "$copy/.source")" != "$version $want" ]]; then
		rm -rf "$copy"
		mkdir -p "$(dirname "$copy")"
		cp -R "$src" "$copy"
		chmod -R u+w "$copy"
		echo "$version $want" > "$copy/.source"
	fi
	(cd _upstream && find . -type f) | while read -r f; do
		mkdir -p "$copy/$(dirname "$f")"
		cp "_upstream/$f" "$copy/$f"
	done
}

# shim_build BINARY STAMP: build bin/BINARY from the shim's folder, check
# that it answers hello, and record the fingerprint it was built from.
shim_build() {
	mkdir -p bin
	go build -trimpath -o "bin/$1.tmp" .
	shim_check_hello "bin/$1.tmp"
	mv "bin/$1.tmp" "bin/$1"
	echo "$2" > bin/.stamp
}
