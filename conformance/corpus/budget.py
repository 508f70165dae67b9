"""How much one fixture file may expand to: its blocks, shared input and matrix
rows are copied into every case, so a few lines can multiply into millions of
values. Each file has a budget of values built and of cases made
(conformance/bounds.py); a file that passes it is refused where it does, rule
`expansion-limit`, before it can take the harness's memory."""

from __future__ import annotations

import math
from typing import Any

from conformance import bounds
from conformance.corpus.blocks import EXPANSION_LIMIT, BlockError
from conformance.model import Problem

RULE = EXPANSION_LIMIT


def matrix_rows(matrix: Any) -> int:
    """How many cases a matrix makes, counted before any is made."""
    if isinstance(matrix, dict):
        return math.prod(len(values) for values in matrix.values())
    return len(matrix) if isinstance(matrix, list) else 1


class Budget:
    """What one file has spent so far."""

    def __init__(self) -> None:
        self.spent = 0
        self.made = 0
        # Once the budget is passed the rest of the file is not loaded; its
        # problem is reported once.
        self.stopped = False

    def charge(self, amount: int, rel: str, line: int | None, case_id: str | None, pointer: str) -> None:
        self.spent += amount
        if self.spent > bounds.MAX_FILE_VALUES:
            self.stopped = True
            raise BlockError(rel, line, case_id, pointer, RULE,
                             f"the cases of this file expand to more than {bounds.MAX_FILE_VALUES} values "
                             "(each use of a block, of shared input and of a matrix parameter is a copy)")

    def charge_row(self, sizes: dict[str, int], rel: str, line: int | None, case_id: str, pointer: str,
                   name: str | None) -> None:
        """A value built by substituting a row: one node, or a copy of the named parameter."""
        self.charge(1 if name is None else sizes[name], rel, line, case_id, pointer)

    def make_cases(self, count: int, rel: str, line: int | None, case_id: str | None, pointer: str) -> Problem | None:
        """Count a case's rows; the problem when they pass the limit."""
        self.made += count
        if self.made <= bounds.MAX_FILE_CASES:
            return None
        self.stopped = True
        return Problem(rel, line, case_id, pointer, RULE,
                       f"the file makes more than {bounds.MAX_FILE_CASES} cases (each matrix row is one)")
