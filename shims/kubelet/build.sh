#!/usr/bin/env bash
# Build the kubelet shim, linking the real upstream kubelet.
#
#   shims/kubelet/build.sh                      the pinned release (go.mod)
#                                               -> bin/kubelet-shim and bin/<release>/kubelet-shim
#   shims/kubelet/build.sh v1.35.6              another served release
#   KUBELET_RELEASE=v1.35.6 shims/kubelet/build.sh
#                                               the same; module files in releases/<release>/
#                                               -> bin/<release>/kubelet-shim
#   KUBERNETES_SRC=/path/to/kubernetes shims/kubelet/build.sh
#                                               a local checkout instead (with KUBELET_RELEASE:
#                                               the release the checkout is based on, which
#                                               decides the module file and the API tags)
#   KUBELET_SHIM_TAGS=kep6007 ...               extra build tags (kep6007: a branch
#                                               carrying the KEP-6007 API)
#   KUBELET_SHIM_OUT=/path/to/kubelet-shim ...  where to put the binary instead
#   KUBELET_SHIM_VERSION=pr142226-x ...         the version hello reports for a local
#                                               tree (default: git describe of it)
#   KUBELET_SHIM_MINOR=38 ...                   the Kubernetes minor a local tree answers
#                                               for (default: from the version, else the
#                                               release it is based on)
#
# The first build of a release fetches the modules through the Go module
# proxy and compiles the kubelet packages (minutes on 2 cores); later builds
# reuse Go's caches, and a build whose inputs have not changed is skipped. A
# release whose signatures differ from the ones the shim drives fails to
# compile (signatures*.go and api_v1_*.go name them). The binary downloads
# nothing when it runs.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
# shellcheck source=../vocabulary.sh
source ../vocabulary.sh
pinned="$(sed -n 's/^\tk8s.io\/kubernetes \(v[^ ]*\)$/\1/p' go.mod | head -n1)"
release="${1:-${KUBELET_RELEASE:-$pinned}}"
src="${KUBERNETES_SRC:-}"
extra_tags="${KUBELET_SHIM_TAGS:-}"

export GOWORK=off
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
# A release that asks for a newer Go than the machine's must fail here, not
# download a toolchain.
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"

if ! command -v go >/dev/null 2>&1; then
  echo "build.sh: the Go toolchain is not on PATH (go.mod asks for $(sed -n 's/^go //p' go.mod))" >&2
  exit 1
fi
if [[ ! "$release" =~ ^v1\.([0-9]+)\.[0-9]+(-[0-9A-Za-z.]+)?$ ]]; then
  echo "build.sh: release $release is not of the form v1.N.P" >&2
  exit 2
fi
minor="${BASH_REMATCH[1]}"

# Which form of the upstream API the release exports (api_v1_*.go and the
# cadvisorapi package pick theirs by tag); v1.37 and later need no tag.
api_tags=""
case "$minor" in
  34|35|36) api_tags="kubelet_pre137,kubelet_v1_$minor" ;;
  *)
    if (( minor < 34 )); then
      echo "build.sh: release $release is older than the oldest the shim drives (v1.34)" >&2
      exit 2
    fi ;;
esac
tags="$(echo "$api_tags,$extra_tags" | sed 's/^,*//; s/,*$//')"

# The module file: go.mod for the pinned release, releases/<release>/go.mod
# (generated on first use, then committed) for the others.
modfile="$here/go.mod"
if [[ "$release" != "$pinned" ]]; then
  modfile="$here/releases/$release/go.mod"
  if [[ ! -f "$modfile" ]]; then
    "$here/releases/generate.sh" "$release"
  fi
fi
if [[ -z "$src" ]] && ! grep -q "^[[:space:]]*k8s.io/kubernetes $release\$" "$modfile"; then
  echo "build.sh: $modfile does not require k8s.io/kubernetes $release" >&2
  exit 2
fi

default_out="$here/bin/$release/kubelet-shim"
[[ -n "$src" ]] && default_out="$here/bin/kubelet-shim"
out="${KUBELET_SHIM_OUT:-$default_out}"
mkdir -p "$(dirname "$out")"
stamp="$(dirname "$out")/.build-stamp-$(basename "$out")"

modargs=()
[[ "$modfile" != "$here/go.mod" ]] && modargs=(-modfile="$modfile")
# A freshly generated module file lists only k8s.io/kubernetes: let the first
# build complete it (and its go.sum) with what the shim imports.
[[ "$modfile" != "$here/go.mod" && ! -s "${modfile%.mod}.sum" ]] && modargs+=(-mod=mod)
ldflags=""
if [[ -n "$src" ]]; then
  src="$(cd "$src" && pwd)"
  if [[ ! -f "$src/go.mod" ]] || ! grep -q '^module k8s.io/kubernetes$' "$src/go.mod"; then
    echo "build.sh: KUBERNETES_SRC=$src is not a k8s.io/kubernetes checkout" >&2
    exit 1
  fi
  local_dir="$(dirname "$out")/local-$(basename "$out")"
  mkdir -p "$local_dir"
  cp "$modfile" "$local_dir/go.mod"
  cp "${modfile%.mod}.sum" "$local_dir/go.sum"
  # The checkout itself and every staging module it carries.
  edits=(-replace "k8s.io/kubernetes=$src")
  for dir in "$src"/staging/src/k8s.io/*/; do
    name="$(basename "$dir")"
    [[ -f "$dir/go.mod" ]] && edits+=(-replace "k8s.io/$name=$dir")
  done
  go mod edit -modfile="$local_dir/go.mod" "${edits[@]}"
  modargs=(-modfile="$local_dir/go.mod" -mod=mod)
  described="${KUBELET_SHIM_VERSION:-$(git -C "$src" describe --tags --always --dirty 2>/dev/null || echo local)}"
  ldflags="-X main.upstreamVersion=${described} -X main.upstreamBase=${release}"
  if [[ -n "${KUBELET_SHIM_MINOR:-}" ]]; then ldflags+=" -X main.kubernetesMinor=${KUBELET_SHIM_MINOR}"; fi
fi

# The feature vocabulary hello declares from (hello.go and the build-tag files
# say what is left out).
shim_vocabulary kubelet "$here/vocabulary.txt"

# Skip the build when nothing it depends on has changed (the shared protocol
# module, ../protocol, and the vocabulary included).
inputs="$( { go version; echo "tags=$tags src=$src release=$release version=${KUBELET_SHIM_VERSION:-} minor=${KUBELET_SHIM_MINOR:-}"; cat "$modfile" "${modfile%.mod}.sum" 2>/dev/null;
             cat *.go cadvisorapi/*.go vocabulary.txt ../vocabulary.sh ../protocol/go.mod ../protocol/*.go;
             if [[ -n "$src" ]]; then git -C "$src" rev-parse HEAD 2>/dev/null || true; git -C "$src" status --porcelain 2>/dev/null || true; fi; } | sha256sum | cut -d' ' -f1)"
# The pinned release is also bin/kubelet-shim, the path tox, CI and the
# README have always used.
publish_default() {
  if [[ -z "$src" && -z "${KUBELET_SHIM_OUT:-}" && "$release" == "$pinned" ]] && ! cmp -s "$out" "$here/bin/kubelet-shim"; then
    cp "$out" "$here/bin/kubelet-shim.tmp" && mv "$here/bin/kubelet-shim.tmp" "$here/bin/kubelet-shim"
  fi
}
# A tree outside git has no cheap fingerprint: go build itself decides then
# (seconds when nothing changed).
tree_known=1
[[ -n "$src" ]] && ! git -C "$src" rev-parse HEAD >/dev/null 2>&1 && tree_known=0
if [[ "$tree_known" == 1 && -x "$out" && -f "$stamp" && "$(cat "$stamp")" == "$inputs" ]]; then
  publish_default
  echo "build.sh: $out is up to date"
  exit 0
fi

start=$(date +%s)
if ! go build "${modargs[@]}" -tags "$tags" -trimpath -ldflags "$ldflags" -o "$out.tmp" . ; then
  rm -f "$out.tmp"
  echo "build.sh: FAILED to build the kubelet shim against ${src:-k8s.io/kubernetes $release} (tags: ${tags:-none})." >&2
  echo "build.sh: if the errors are in signatures*.go or api_v1_*.go, upstream changed an entry point the shim drives." >&2
  exit 1
fi
shim_check_hello "$out.tmp"
mv "$out.tmp" "$out"
echo "$inputs" > "$stamp"
publish_default
echo "build.sh: built $out in $(( $(date +%s) - start ))s ($("$out" --version 2>/dev/null || true))"
