# The KOORDINATOR_SRC path of build.sh: the shim built against a local
# Koordinator tree (a checkout newer than the release the proxy serves, or one
# with a pull request's files laid over it). Sourced by build.sh after
# ../lib.sh, in the shim's folder.
#
# The tree is copied to build/koordinator-local (the overlay in _upstream/ is
# laid over the copy, never over the tree), and the shim is built in
# build/local-shim from a copy of its sources and a module file made of the
# shim's requirements and the tree's own replace block (the tree may pin other
# k8s.io versions than the release did). `go mod tidy` completes that file
# through the module proxy; it and its go.sum stay in build/, uncommitted, as
# they describe a tree that is not in the proxy.
#
#   KOORDINATOR_SHIM_VERSION  the version hello reports (default: git describe
#                             of the tree, else "local")
#   KOORDINATOR_SHIM_COMMIT   the commit(s) the tree was made of, for the hello's
#                             source (default: git rev-parse HEAD of the tree)
#   KOORDINATOR_SHIM_OUT      the binary (default: bin/local/koordinator-shim)
#   KOORDINATOR_SHIM_TAGS     build tags, for API differences between the
#                             release and the tree

build_local_tree() {
	local src copy work out version commit tags here
	here=$(pwd)
	src=$(cd "$1" && pwd)
	if ! grep -q '^module github.com/koordinator-sh/koordinator$' "$src/go.mod" 2>/dev/null; then
		echo "build.sh: KOORDINATOR_SRC=$src is not a github.com/koordinator-sh/koordinator tree" >&2
		exit 1
	fi
	version=${KOORDINATOR_SHIM_VERSION:-$(git -C "$src" describe --tags --always --dirty 2>/dev/null || echo local)}
	commit=${KOORDINATOR_SHIM_COMMIT:-$(git -C "$src" rev-parse HEAD 2>/dev/null || true)}
	out=${KOORDINATOR_SHIM_OUT:-$here/bin/local/koordinator-shim}
	tags=${KOORDINATOR_SHIM_TAGS:-}
	copy=$here/build/koordinator-local
	work=$here/build/local-shim

	rm -rf "$copy" "$work"
	mkdir -p "$copy" "$work" "$(dirname "$out")"
	(cd "$src" && tar --exclude=.git -cf - .) | tar -xf - -C "$copy"
	(cd _upstream && find . -type f) | while read -r f; do
		mkdir -p "$copy/$(dirname "$f")"
		cp "_upstream/$f" "$copy/$f"
	done
	cp ./*.go vocabulary.txt "$work/"

	# The shim's requirements without the release's replace block, then the
	# tree's replace block, the copy and the shared protocol module.
	{
		awk '/^replace \($/ {skip = 1} !skip && !/^replace / && !/^\/\/ (build.sh|The protocol)/ {print} skip && /^\)$/ {skip = 0}' go.mod
		sed -n '/^replace (/,/^)/p' "$src/go.mod"
		echo "replace github.com/koordinator-sh/koordinator => $copy"
		echo "replace topoconf/shims/protocol => $here/../protocol"
	} > "$work/go.mod"
	(cd "$work" && GOFLAGS=-mod=mod go mod tidy)

	(cd "$work" && go build -trimpath -tags "$tags" \
		-ldflags "-X main.upstreamVersion=$version -X 'main.upstreamCommit=$commit'" -o "$out.tmp" .)
	mv "$out.tmp" "$out"
	echo "build.sh: built $out against the tree $src ($version)"
}
