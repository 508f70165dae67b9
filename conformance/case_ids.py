"""The case ids a fixture file defines, read without loading its cases.

Validating one file checks its ids against every other file of the corpus;
reading only ids (matrix rows included) keeps that as quick as parsing the YAML.
A file that cannot be read contributes no id: its own validation reports it.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from conformance import yamlload


def defined(path: Path) -> list[tuple[str, int | None]]:
    """(id, line of the case) for each case of the file, one per matrix row."""
    try:
        doc = yamlload.load(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    cases = doc.get("cases") if isinstance(doc, dict) else None
    if not isinstance(cases, list):
        return []
    found = []
    for index, case in enumerate(cases):
        if not isinstance(case, dict) or not isinstance(case.get("id"), str):
            continue
        line = yamlload.line_of(doc, ["cases", index])
        found.extend((case["id"] + label, line) for label in _labels(case.get("matrix")))
    return found


def _labels(matrix: Any) -> list[str]:
    """The id suffix of each matrix row, as the loader derives it."""
    from conformance.corpus import _label  # the loader's own naming, so both agree

    if matrix is None:
        return [""]
    if isinstance(matrix, dict) and matrix and all(isinstance(v, list) and v for v in matrix.values()):
        keys = list(matrix)
        labels = []
        for positions in itertools.product(*(range(len(matrix[k])) for k in keys)):
            params = {k: matrix[k][i] for k, i in zip(keys, positions, strict=True)}
            labels.append(_label(params, {k: i + 1 for k, i in zip(keys, positions, strict=True)}))
        return labels
    if isinstance(matrix, list) and matrix and all(isinstance(r, dict) and list(r) == list(matrix[0]) for r in matrix):
        return [_label(row, dict.fromkeys(row, i)) for i, row in enumerate(matrix, 1)]
    return [""]
