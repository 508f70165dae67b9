#!/usr/bin/env bash
# Builds bin/koordinator-shim against the Koordinator release pinned in go.mod.
#
# The release's source comes from the Go module cache (`go mod download`,
# checked against the pinned h1: sum below). It is copied to build/koordinator
# and _upstream/ is laid over the copy: one file that exposes the unexported
# CPU accumulator entry points of pkg/scheduler/plugins/nodenumaresource to
# the shim. go.mod replaces the module with that copy and repeats the
# release's own replace block, so the dependency graph is the release's.
# Nothing of upstream is kept in this tree; build/ and bin/ are ignored.
#
# A second run with unchanged inputs does nothing. A release whose signatures
# differ from those the shim calls (signatures.go, the overlay file) fails to
# compile here; the binary downloads nothing when it runs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

KOORD_VERSION=v1.8.0
KOORD_SUM='h1:CEMaFv6qru+arNhcdhkLP2Shxw77Heb6PSaXjHZ/t0I='

export GOTOOLCHAIN=local GOFLAGS=-mod=readonly GOWORK=off
pinned=$(awk '$1 == "require" && $2 == "github.com/koordinator-sh/koordinator" {print $3; exit}' go.mod)
if [[ "$pinned" != "$KOORD_VERSION" ]]; then
	echo "build.sh: go.mod requires github.com/koordinator-sh/koordinator $pinned but build.sh pins $KOORD_VERSION" >&2
	exit 1
fi

stamp=$({
	echo "$KOORD_VERSION $KOORD_SUM $(go version)"
	cat build.sh go.mod go.sum ./*.go ../protocol/go.mod ../protocol/*.go
	find _upstream -type f -print0 | sort -z | xargs -0 cat
} | sha256sum | cut -d' ' -f1)
if [[ -x bin/koordinator-shim && -f bin/.stamp && "$(cat bin/.stamp)" == "$stamp" ]]; then
	echo "build.sh: bin/koordinator-shim is up to date (github.com/koordinator-sh/koordinator $KOORD_VERSION)"
	exit 0
fi

info=$(cd /tmp && GOFLAGS= go mod download -json "github.com/koordinator-sh/koordinator@$KOORD_VERSION")
src=$(printf '%s' "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
sum=$(printf '%s' "$info" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p')
if [[ "$sum" != "$KOORD_SUM" ]]; then
	echo "build.sh: github.com/koordinator-sh/koordinator@$KOORD_VERSION has sum $sum, expected $KOORD_SUM" >&2
	exit 1
fi

copy=build/koordinator
if [[ ! -f "$copy/.source" || "$(cat "$copy/.source")" != "$KOORD_VERSION $KOORD_SUM" ]]; then
	rm -rf "$copy"
	mkdir -p build
	cp -R "$src" "$copy"
	chmod -R u+w "$copy"
	echo "$KOORD_VERSION $KOORD_SUM" > "$copy/.source"
fi
(cd _upstream && find . -type f) | while read -r f; do
	mkdir -p "$copy/$(dirname "$f")"
	cp "_upstream/$f" "$copy/$f"
done

mkdir -p bin
go build -trimpath -o bin/koordinator-shim .
echo "$stamp" > bin/.stamp
echo "build.sh: built bin/koordinator-shim against github.com/koordinator-sh/koordinator $KOORD_VERSION"
