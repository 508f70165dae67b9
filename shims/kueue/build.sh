#!/usr/bin/env bash
# Builds bin/kueue-shim against the Kueue release pinned in go.mod.
#
# The release's source comes from the Go module cache (`go mod download`,
# checked against the pinned h1: sum below). It is copied to build/kueue and
# _upstream/ is laid over the copy: one file that exposes the unexported TAS
# cache entry points to the shim. go.mod replaces sigs.k8s.io/kueue with that
# copy. Nothing of upstream is kept in this tree; build/ and bin/ are ignored.
#
# KUEUE_SRC=/path/to/kueue builds against a local Kueue tree instead
# (build-local.sh: bin/<version>/kueue-shim).
#
# A second run with unchanged inputs does nothing. Signature changes in a new
# release show up as compile errors here, never at run time; the binary
# downloads nothing when it runs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
# shellcheck source=../lib.sh
source ../lib.sh

KUEUE_VERSION=v0.17.0
KUEUE_SUM='h1:7hzb38M4eKGzYW+CFv2s1L+swzzacUCHOCXxZmAV90I='

pinned=$(awk '$1 == "sigs.k8s.io/kueue" && $2 ~ /^v/ {print $2; exit}' go.mod)
shim_check_pin sigs.k8s.io/kueue "$pinned" "$KUEUE_VERSION"
# The feature vocabulary hello declares from (hello.go says what is left out).
shim_vocabulary kueue vocabulary.txt

# KUEUE_SRC=/path/to/kueue: a local Kueue tree instead (see build-local.sh).
if [[ -n "${KUEUE_SRC:-}" ]]; then
	exec bash ./build-local.sh "$KUEUE_SRC"
fi
stamp=$(shim_stamp "$KUEUE_VERSION" "$KUEUE_SUM")
if shim_is_current kueue-shim "$stamp"; then
	echo "build.sh: bin/kueue-shim is up to date (sigs.k8s.io/kueue $KUEUE_VERSION)"
	exit 0
fi

upstream_copy sigs.k8s.io/kueue "$KUEUE_VERSION" "$KUEUE_SUM" build/kueue
# The Topology and ResourceFlavor CRDs the binary embeds.
mkdir -p build/crds
cp build/kueue/config/components/crd/bases/kueue.x-k8s.io_topologies.yaml \
	build/kueue/config/components/crd/bases/kueue.x-k8s.io_resourceflavors.yaml build/crds/
shim_build kueue-shim "$stamp"
echo "build.sh: built bin/kueue-shim against sigs.k8s.io/kueue $KUEUE_VERSION"
