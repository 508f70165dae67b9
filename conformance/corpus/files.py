"""Which files make up a corpus, its hash, and the ids a file writes.

Folders starting with `_` (staged, generated files) and the `features/` and
`blocks/` folders hold no fixtures.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from conformance import schemas, yamlload


def corpus_hash(root: Path, extra: Sequence[Path] = ()) -> str:
    """sha256 over the corpus, the schemas and any extra folders, so a report names
    exactly what ran. Without extra folders the hash is what it always was."""
    digest = hashlib.sha256()
    for index, base in enumerate((root, schemas.schemas_dir(), *extra)):
        if index >= 2:
            # Marks where one extra folder starts, so moving a file between two
            # folders changes the hash.
            digest.update(b"\0extra\0")
        # Folders starting with "_" are not part of the corpus (staged, generated files).
        for path in sorted(p for p in base.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml", ".json")
                           and not any(part.startswith("_") for part in p.relative_to(base).parts)):
            digest.update(path.relative_to(base).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return "sha256:" + digest.hexdigest()


def fixture_files(root: Path, paths: list[Path] | None = None, extra: Sequence[Path] = ()) -> list[Path]:
    """The fixture files under root and the extra folders (or under the given
    paths), in a stable order."""
    roots = [root.resolve(), *(Path(e).resolve() for e in extra)]
    selected: list[Path] = []
    for base in paths or roots:
        base = base.resolve()
        candidates = [base] if base.is_file() else sorted(base.rglob("*.y*ml"))
        for path in candidates:
            if path.suffix not in (".yaml", ".yml"):
                continue
            owner = next((r for r in roots if r in path.parents), None)
            if owner is None:
                selected.append(path)
                continue
            parts = path.relative_to(owner).parts
            if parts[0] in ("features", "blocks") or any(p.startswith("_") for p in parts):
                continue
            selected.append(path)
    # The bundled corpus first, then the extra folders in the order given: a
    # duplicate is reported in the folder that came last, the user's.
    def order(path: Path) -> tuple[int, Path]:
        return next((i for i, r in enumerate(roots) if r in path.parents), len(roots)), path

    return sorted(dict.fromkeys(selected), key=order)


def written_ids(path: Path) -> list[tuple[str, int | None]]:
    """(id, line of the case) for each case of the file, as written (before a
    matrix derives row ids from it), read without loading its cases.

    Validating one file checks its ids against every other file of the corpus;
    reading only ids keeps that as quick as parsing the YAML. A file that cannot
    be read contributes no id: its own validation reports it."""
    try:
        doc = yamlload.load_file(path)
    except (OSError, ValueError):
        return []
    cases = doc.get("cases") if isinstance(doc, dict) else None
    if not isinstance(cases, list):
        return []
    return [(case["id"], yamlload.line_of(doc, ["cases", index])) for index, case in enumerate(cases)
            if isinstance(case, dict) and isinstance(case.get("id"), str)]
