"""A known difference as a differential run applies it: the corpus case it is
counted under and a predicate over a generated input and the implementation's
answer. conformance/fuzz/known.py builds them from the expectations files."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class KnownDifference:
    case: str  # the corpus case pinning it; its expectations entry says why
    implementation: str
    version: str
    component: str
    operation: str
    # (input, the implementation's result, or {"error": message} for an error answer)
    applies: Callable[[dict[str, Any], dict[str, Any]], bool]


def claimed_by(known: tuple[KnownDifference, ...], data: dict[str, Any],
               result: dict[str, Any]) -> KnownDifference | None:
    for difference in known:
        if difference.applies(data, result):
            return difference
    return None
