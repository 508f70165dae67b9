# shim_vocabulary COMPONENT DEST: write the feature names of the corpus's
# vocabulary for COMPONENT (fixtures/features/COMPONENT.yaml) to DEST, one a
# line, for the shim to embed: Go cannot embed a file outside its module, and
# the shims have no YAML decoder. The names are the keys of the file's
# top-level `features:` mapping, two spaces in; protocol.Features refuses a
# line that is not a feature name, and tests/harness/test_shim_vocabulary.py
# checks this reading against the corpus loader's. DEST is rewritten only
# when its content changes. Sourced by the shims' build scripts.
shim_vocabulary() {
	local source names
	source="$(dirname "${BASH_SOURCE[0]}")/../fixtures/features/$1.yaml"
	if [[ ! -f "$source" ]]; then
		echo "build.sh: no vocabulary for $1 at $source" >&2
		exit 1
	fi
	names=$(awk '
		/^features:[[:space:]]*$/ { inside = 1; next }
		/^[^[:space:]#]/ { inside = 0 }
		inside && /^  [^[:space:]#]/ { sub(/^  /, ""); sub(/:.*$/, ""); print }
	' "$source")
	if [[ -z "$names" ]]; then
		echo "build.sh: found no feature names in $source" >&2
		exit 1
	fi
	if [[ ! -f "$2" || "$(cat "$2")" != "$names" ]]; then
		printf '%s\n' "$names" > "$2.tmp" && mv "$2.tmp" "$2"
	fi
}

# shim_check_hello BINARY: stop the build, removing BINARY, unless it answers
# hello; a leave-out that names no vocabulary entry stops the shim at start.
shim_check_hello() {
	if ! printf '{"cmd":"hello","protocol":1}\n{"cmd":"stop"}\n' | "$1" >/dev/null; then
		rm -f "$1"
		echo "build.sh: $1 does not answer hello (its error is above)" >&2
		exit 1
	fi
}
