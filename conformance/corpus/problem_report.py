"""Problems as a reader wants them: one per base case, not one per matrix row,
and in file and line order.

A matrix case expands to many cases; a mistake outside the matrix (a misspelt
key, an unknown feature) shows in every row. Problems that differ only in the
row they were found in become one problem naming the rows it affects.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from conformance.model import Problem


def split_id(case_id: str) -> tuple[str, str]:
    """(base id, row label): ids hold no `[`, so a label starts at the first one."""
    base, bracket, rest = case_id.partition("[")
    return base, bracket + rest


def condense(problems: Iterable[Problem], row_counts: dict[str, int] | None = None) -> list[Problem]:
    """Merge the rows of each problem and sort by file, line, pointer and rule.

    row_counts (base id -> number of rows) lets a problem shared by every row say
    so instead of listing them all."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for problem in problems:
        base, label = split_id(problem.case_id) if problem.case_id else (None, "")
        message = problem.message
        if label:
            # A message naming the row's own id (a duplicate id) is the same
            # message for every row once it names the base.
            message = message.replace(repr(problem.case_id), repr(base))
        key = (problem.file, problem.line, base, problem.pointer, problem.rule, message)
        if label not in groups[key]:
            groups[key].append(label)
    merged = []
    for (file, line, base, pointer, rule, message), labels in groups.items():
        if labels == [""]:
            merged.append(Problem(file, line, base, pointer, rule, message))
            continue
        rows = tuple(label for label in labels if label)
        total = (row_counts or {}).get(base or "")
        merged.append(Problem(file, line, base, pointer, rule, message, rows=rows,
                              all_rows=total is not None and total > 1 and len(rows) == total))
    return sorted(merged, key=lambda p: (p.file, p.line or 0, p.pointer, p.rule, p.case_id or "", p.message, p.rows))


def row_counts(case_ids: Iterable[str]) -> dict[str, int]:
    """Base id -> how many rows it expanded to."""
    counts: dict[str, int] = defaultdict(int)
    for case_id in case_ids:
        base, label = split_id(case_id)
        if label:
            counts[base] += 1
    return dict(counts)
