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
#
#   KOORDINATOR_SRC=/path/to/koordinator shims/koordinator/build.sh
#       builds against a local Koordinator tree instead (local_tree.sh: the
#       tree's own dependency versions, fetched through the module proxy)
#       -> bin/local/koordinator-shim; KOORDINATOR_SHIM_VERSION names the
#       version hello reports, KOORDINATOR_SHIM_OUT the binary's path.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
# shellcheck source=../lib.sh
source ../lib.sh

KOORD_VERSION=v1.8.0
KOORD_SUM='h1:CEMaFv6qru+arNhcdhkLP2Shxw77Heb6PSaXjHZ/t0I='

# The feature vocabulary hello declares from (hello.go says what is left out).
shim_vocabulary koordinator vocabulary.txt

if [[ -n "${KOORDINATOR_SRC:-}" ]]; then
	# shellcheck source=local_tree.sh
	source ./local_tree.sh
	build_local_tree "$KOORDINATOR_SRC"
	exit 0
fi

pinned=$(awk '$1 == "require" && $2 == "github.com/koordinator-sh/koordinator" {print $3; exit}' go.mod)
shim_check_pin github.com/koordinator-sh/koordinator "$pinned" "$KOORD_VERSION"
stamp=$(shim_stamp "$KOORD_VERSION" "$KOORD_SUM")
if shim_is_current koordinator-shim "$stamp"; then
	echo "build.sh: bin/koordinator-shim is up to date (github.com/koordinator-sh/koordinator $KOORD_VERSION)"
	exit 0
fi

upstream_copy github.com/koordinator-sh/koordinator "$KOORD_VERSION" "$KOORD_SUM" build/koordinator
shim_build koordinator-shim "$stamp"
echo "build.sh: built bin/koordinator-shim against github.com/koordinator-sh/koordinator $KOORD_VERSION"
