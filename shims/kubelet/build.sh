#!/usr/bin/env bash
# Build the kubelet shim: bin/kubelet-shim, linking the real upstream kubelet.
#
#   shims/kubelet/build.sh                      the pinned release (go.mod)
#   KUBERNETES_SRC=/path/to/kubernetes shims/kubelet/build.sh
#                                               a local checkout instead
#   KUBELET_SHIM_TAGS=kep6007 ...               build tags (kep6007: a branch
#                                               carrying the KEP-6007 API)
#
# The first build of the pinned release fetches the modules through the Go
# module proxy and compiles the kubelet packages (minutes on 2 cores); later
# builds reuse Go's caches, and a build whose inputs have not changed is
# skipped. A release whose signatures differ from the ones the shim drives
# fails to compile (signatures.go names them). The binary downloads nothing
# when it runs.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
out="$here/bin/kubelet-shim"
stamp="$here/bin/.build-stamp"
tags="${KUBELET_SHIM_TAGS:-}"
src="${KUBERNETES_SRC:-}"
mkdir -p "$here/bin"

export GOWORK=off
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"

if ! command -v go >/dev/null 2>&1; then
  echo "build.sh: the Go toolchain is not on PATH (go.mod asks for $(sed -n 's/^go //p' go.mod))" >&2
  exit 1
fi

modargs=()
ldflags=""
if [[ -n "$src" ]]; then
  src="$(cd "$src" && pwd)"
  if [[ ! -f "$src/go.mod" ]] || ! grep -q '^module k8s.io/kubernetes$' "$src/go.mod"; then
    echo "build.sh: KUBERNETES_SRC=$src is not a k8s.io/kubernetes checkout" >&2
    exit 1
  fi
  local_dir="$here/bin/local"
  mkdir -p "$local_dir"
  cp go.mod "$local_dir/go.mod"
  cp go.sum "$local_dir/go.sum"
  # The checkout itself and every staging module it carries.
  edits=(-replace "k8s.io/kubernetes=$src")
  for dir in "$src"/staging/src/k8s.io/*/; do
    name="$(basename "$dir")"
    [[ -f "$dir/go.mod" ]] && edits+=(-replace "k8s.io/$name=$dir")
  done
  go mod edit -modfile="$local_dir/go.mod" "${edits[@]}"
  modargs=(-modfile="$local_dir/go.mod" -mod=mod)
  described="$(git -C "$src" describe --tags --always --dirty 2>/dev/null || echo local)"
  ldflags="-X main.upstreamVersion=${described}"
fi

# Skip the build when nothing it depends on has changed (the shared protocol
# module, ../protocol, included).
inputs="$( { go version; echo "tags=$tags src=$src"; cat go.mod go.sum *.go ../protocol/go.mod ../protocol/*.go;
             if [[ -n "$src" ]]; then git -C "$src" rev-parse HEAD 2>/dev/null; git -C "$src" status --porcelain 2>/dev/null; fi; } | sha256sum | cut -d' ' -f1)"
if [[ -x "$out" && -f "$stamp" && "$(cat "$stamp")" == "$inputs" ]]; then
  echo "build.sh: $out is up to date"
  exit 0
fi

start=$(date +%s)
if ! go build "${modargs[@]}" -tags "$tags" -trimpath -ldflags "$ldflags" -o "$out.tmp" . ; then
  rm -f "$out.tmp"
  echo "build.sh: FAILED to build the kubelet shim against ${src:-the pinned release}." >&2
  echo "build.sh: if the errors are in signatures.go, upstream changed an entry point the shim drives." >&2
  exit 1
fi
mv "$out.tmp" "$out"
echo "$inputs" > "$stamp"
echo "build.sh: built $out in $(( $(date +%s) - start ))s ($("$out" --version 2>/dev/null || true))"
