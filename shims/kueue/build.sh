#!/usr/bin/env bash
# Builds bin/kueue-shim against the Kueue release pinned in go.mod.
#
# The release's source comes from the Go module cache (`go mod download`,
# checked against the pinned h1: sum below). It is copied to build/kueue and
# _upstream/ is laid over the copy: one file that exposes the unexported TAS
# cache entry points to the shim. go.mod replaces sigs.k8s.io/kueue with that
# copy. Nothing of upstream is kept in this tree; build/ and bin/ are ignored.
#
# A second run with unchanged inputs does nothing. Signature changes in a new
# release show up as compile errors here, never at run time; the binary
# downloads nothing when it runs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

KUEUE_VERSION=v0.17.0
KUEUE_SUM='h1:7hzb38M4eKGzYW+CFv2s1L+swzzacUCHOCXxZmAV90I='

export GOTOOLCHAIN=local GOFLAGS=-mod=readonly GOWORK=off
pinned=$(awk '$1 == "sigs.k8s.io/kueue" && $2 ~ /^v/ {print $2; exit}' go.mod)
if [[ "$pinned" != "$KUEUE_VERSION" ]]; then
	echo "build.sh: go.mod requires sigs.k8s.io/kueue $pinned but build.sh pins $KUEUE_VERSION" >&2
	exit 1
fi

stamp_inputs() {
	{
		echo "$KUEUE_VERSION $KUEUE_SUM $(go version)"
		cat build.sh go.mod go.sum ./*.go ../protocol/go.mod ../protocol/*.go
		find _upstream -type f -print0 | sort -z | xargs -0 cat
	} | sha256sum | cut -d' ' -f1
}
stamp=$(stamp_inputs)
if [[ -x bin/kueue-shim && -f bin/.stamp && "$(cat bin/.stamp)" == "$stamp" ]]; then
	echo "build.sh: bin/kueue-shim is up to date (sigs.k8s.io/kueue $KUEUE_VERSION)"
	exit 0
fi

# Fetch (or find in the module cache) the pinned release and check its sum.
info=$(cd /tmp && GOFLAGS= go mod download -json "sigs.k8s.io/kueue@$KUEUE_VERSION")
src=$(printf '%s' "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
sum=$(printf '%s' "$info" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p')
if [[ "$sum" != "$KUEUE_SUM" ]]; then
	echo "build.sh: sigs.k8s.io/kueue@$KUEUE_VERSION has sum $sum, expected $KUEUE_SUM" >&2
	exit 1
fi

copy=build/kueue
if [[ ! -f "$copy/.source" || "$(cat "$copy/.source")" != "$KUEUE_VERSION $KUEUE_SUM" ]]; then
	rm -rf "$copy"
	mkdir -p build
	cp -R "$src" "$copy"
	chmod -R u+w "$copy"
	echo "$KUEUE_VERSION $KUEUE_SUM" > "$copy/.source"
fi
mkdir -p build/crds
cp "$copy"/config/components/crd/bases/kueue.x-k8s.io_topologies.yaml \
	"$copy"/config/components/crd/bases/kueue.x-k8s.io_resourceflavors.yaml build/crds/
(cd _upstream && find . -type f) | while read -r f; do
	mkdir -p "$copy/$(dirname "$f")"
	cp "_upstream/$f" "$copy/$f"
done

mkdir -p bin
go build -trimpath -o bin/kueue-shim .
echo "$stamp" > bin/.stamp
echo "build.sh: built bin/kueue-shim against sigs.k8s.io/kueue $KUEUE_VERSION"
