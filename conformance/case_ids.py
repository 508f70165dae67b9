"""The case ids a fixture file writes, read without loading its cases.

Validating one file checks its ids against every other file of the corpus;
reading only ids keeps that as quick as parsing the YAML. A file that cannot be
read contributes no id: its own validation reports it.
"""

from __future__ import annotations

from pathlib import Path

from conformance import yamlload


def written(path: Path) -> list[tuple[str, int | None]]:
    """(id, line of the case) for each case of the file, as written (before a
    matrix derives row ids from it)."""
    try:
        doc = yamlload.load_file(path)
    except (OSError, ValueError):
        return []
    cases = doc.get("cases") if isinstance(doc, dict) else None
    if not isinstance(cases, list):
        return []
    return [(case["id"], yamlload.line_of(doc, ["cases", index])) for index, case in enumerate(cases)
            if isinstance(case, dict) and isinstance(case.get("id"), str)]
