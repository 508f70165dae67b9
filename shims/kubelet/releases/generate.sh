#!/usr/bin/env bash
# Write releases/<release>/go.mod for a k8s.io/kubernetes release the Go module
# proxy serves: the shim's module requiring that release, with every staging
# module the release's own go.mod replaces by ./staging/src/k8s.io/<name>
# pinned to its published v0.<minor>.<patch> (a module outside the main
# repository cannot follow those local replaces). build.sh completes the file
# and writes its go.sum on the first build; both are then committed, so later
# builds resolve exactly the same modules.
#
#   shims/kubelet/releases/generate.sh v1.35.6
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
release="${1:?usage: generate.sh v1.N.P}"
if [[ ! "$release" =~ ^v1\.([0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?)$ ]]; then
  echo "generate.sh: release $release is not of the form v1.N.P" >&2
  exit 2
fi
staging_version="v0.${BASH_REMATCH[1]}"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOWORK=off GOFLAGS=-mod=mod

# The release's go.mod, through the module proxy (this also tells whether the
# proxy serves it).
info="$(cd /tmp && go mod download -json "k8s.io/kubernetes@$release" 2>&1 || true)"
upstream_mod="$(sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p' <<<"$info")"
problem="$(sed -n 's/^\t"Error": "\(.*\)",\{0,1\}$/\1/p' <<<"$info" | sed 's/\\u003e/>/g; s/\\n\\t/ /g')"
if [[ -n "$problem" || -z "$upstream_mod" || ! -f "$upstream_mod" ]]; then
  echo "generate.sh: cannot use k8s.io/kubernetes@$release: ${problem:-the Go module proxy does not serve it}" >&2
  exit 1
fi
# The shim's own floor is go 1.26.0; a release asking for more keeps its
# own, so a toolchain too old for it fails at once.
go_directive="$(printf '%s\n' "$(sed -n 's/^go //p' "$upstream_mod")" 1.26.0 | sort -V | tail -n1)"
mapfile -t staging < <(sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => \./staging/src/k8s.io/.*#\1#p' "$upstream_mod" | sort -u)
if (( ${#staging[@]} == 0 )); then
  echo "generate.sh: found no staging replaces in $upstream_mod" >&2
  exit 1
fi

mkdir -p "$here/$release"
{
  echo "module topoconf/shims/kubelet"
  echo
  echo "go $go_directive"
  echo
  echo "require ("
  echo "	k8s.io/kubernetes $release"
  echo "	topoconf/shims/protocol v0.0.0"
  echo ")"
  echo
  echo "// Every staging module of k8s.io/kubernetes $release pinned to its published $staging_version."
  echo "replace ("
  for m in "${staging[@]}"; do echo "	$m => $m $staging_version"; done
  echo ")"
  echo
  echo "// The protocol loop the shims share, from this tree (relative to shims/kubelet)."
  echo "replace topoconf/shims/protocol => ../protocol"
} > "$here/$release/go.mod"
rm -f "$here/$release/go.sum"
echo "generate.sh: wrote $here/$release/go.mod (${#staging[@]} staging modules at $staging_version, go $go_directive)"
