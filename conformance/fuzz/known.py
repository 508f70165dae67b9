"""Differences an implementation is known to have, for generated inputs.

A disagreement the fuzzer found is resolved either by fixing the reference or by
a corpus case plus an expectations entry that says why the implementation
answers otherwise. Once resolved the second way, the same difference would stop
every later run at its first occurrence and hide whatever else there is to find.
So each one is also declared here: the corpus case that pins it (its
expectations entry carries the reason and the upstream file) and a predicate
that recognises the generated inputs it concerns. A disagreement on such an
input is counted under that case instead of failing the run.

The predicate must be narrow: it is applied only when the two answers already
differ, but any input it claims is one the run no longer looks at. The tests
check that every declared case exists and is expected to fail for the release
named.
"""

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
    applies: Callable[[dict[str, Any]], bool]


KNOWN: list[KnownDifference] = []


def register(difference: KnownDifference) -> KnownDifference:
    KNOWN.append(difference)
    return difference


def for_operation(implementation: str, version: str, component: str, operation: str) -> tuple[KnownDifference, ...]:
    return tuple(k for k in KNOWN if (k.implementation, k.version, k.component, k.operation)
                 == (implementation, version, component, operation))


def claimed_by(known: tuple[KnownDifference, ...], data: dict[str, Any]) -> KnownDifference | None:
    for difference in known:
        if difference.applies(data):
            return difference
    return None
