#!/usr/bin/env bash
# Builds the shim against a local Kueue tree (a checkout or an unpacked
# snapshot of the main branch) instead of the pinned release:
#
#   KUEUE_SRC=/tmp/kueue-main shims/kueue/build.sh
#   shims/kueue/build-local.sh /tmp/kueue-main      the same
#
# The tree is copied to build/local/kueue (its vendor/ left out: a replaced
# module's vendor folder is never read) and _upstream/ is laid over the copy,
# then _upstream-main/ over that for the files whose unexported entry points
# moved after v0.17.0. The module file is a copy of go.mod in build/local with
# sigs.k8s.io/kueue replaced by the copy; the tree's own requirements raise
# the shared ones (k8s.io/*, controller-runtime) by minimal version selection
# and `-mod=mod` fetches them through the module proxy on the first build.
# The build tag kueue_main selects the shim files written for the tree's API.
#
# The binary goes to bin/<version>/kueue-shim, where <version> is
# KUEUE_SHIM_VERSION or the tree's `git describe` (an unpacked snapshot has
# none: then the tree's .kueue-version file, written by whoever unpacked it).
# hello reports that version and KUEUE_SHIM_COMMIT (or the tree's HEAD) as its
# source. Nothing of the tree is kept in the project: build/ and bin/ are
# ignored.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
# shellcheck source=../lib.sh
source ../lib.sh

src="${1:?usage: build-local.sh /path/to/kueue}"
src="$(cd "$src" && pwd)"
if [[ ! -f "$src/go.mod" ]] || ! grep -q '^module sigs.k8s.io/kueue$' "$src/go.mod"; then
	echo "build-local.sh: $src is not a sigs.k8s.io/kueue tree" >&2
	exit 1
fi
version="${KUEUE_SHIM_VERSION:-}"
commit="${KUEUE_SHIM_COMMIT:-}"
if [[ -z "$version" ]]; then
	version="$(git -C "$src" describe --tags --always --dirty 2>/dev/null || cat "$src/.kueue-version" 2>/dev/null || true)"
fi
if [[ -z "$commit" ]]; then
	commit="$(git -C "$src" rev-parse HEAD 2>/dev/null || cat "$src/.kueue-commit" 2>/dev/null || true)"
fi
if [[ -z "$version" ]]; then
	echo "build-local.sh: no version for $src: set KUEUE_SHIM_VERSION (or write $src/.kueue-version)" >&2
	exit 1
fi

work="$here/build/local"
copy="$work/kueue"
mkdir -p "$work"
rm -rf "$copy"
mkdir -p "$copy"
tar -C "$src" --exclude=./vendor --exclude=./.git --exclude=./site -cf - . | tar -C "$copy" -xf -
for overlay in _upstream _upstream-main; do
	[[ -d "$overlay" ]] || continue
	(cd "$overlay" && find . -type f) | while read -r f; do
		mkdir -p "$copy/$(dirname "$f")"
		cp "$overlay/$f" "$copy/$f"
	done
done
mkdir -p build/crds
cp "$copy/config/components/crd/bases/kueue.x-k8s.io_topologies.yaml" \
	"$copy/config/components/crd/bases/kueue.x-k8s.io_resourceflavors.yaml" build/crds/

cp go.mod "$work/go.mod"
cp go.sum "$work/go.sum"
go mod edit -modfile="$work/go.mod" -replace "sigs.k8s.io/kueue=$copy" -replace "topoconf/shims/protocol=$here/../protocol" \
	-go="$(sed -n 's/^go //p' "$src/go.mod")"

# Modules the tree requires at a version the module proxy does not serve:
# their packages come from the tree's own vendor/ folder (the tree's
# modules.txt names the version), each given a go.mod of its own so a replace
# can point at it.
vendored="${KUEUE_VENDORED-github.com/ray-project/kuberay/ray-operator}"
for module in $vendored; do
	if [[ ! -d "$src/vendor/$module" ]]; then
		echo "build-local.sh: $module is not in $src/vendor" >&2
		exit 1
	fi
	dir="$work/vendored/$module"
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -R "$src/vendor/$module/." "$dir/"
	printf 'module %s\n\ngo %s\n' "$module" "$(sed -n 's/^go //p' "$src/go.mod")" > "$dir/go.mod"
	go mod edit -modfile="$work/go.mod" -replace "$module=$dir"
done

out="$here/bin/$version/kueue-shim"
mkdir -p "$(dirname "$out")"
start=$(date +%s)
ldflags="-X main.upstreamVersion=$version -X main.upstreamCommit=$commit"
if ! go build -modfile="$work/go.mod" -mod=mod -tags kueue_main -trimpath -ldflags "$ldflags" -o "$out.tmp" .; then
	rm -f "$out.tmp"
	echo "build-local.sh: FAILED to build the kueue shim against $src ($version)" >&2
	exit 1
fi
mv "$out.tmp" "$out"
echo "build-local.sh: built $out in $(( $(date +%s) - start ))s"
