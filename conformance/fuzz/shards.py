"""One fuzzing budget split into shards, so that pytest-xdist workers (on this
machine, `-n`, or on others, `--tx`) share it, and the shards' reports merged
back into one run.

Each shard of an operation gets its part of the budget and a seed of its own,
derived from the run's one seed, the operation and the shard's index: the same
command gives the same generated inputs whichever worker runs which shard. A
run of one shard keeps the run's seed as given (None: derandomised), so it
generates what an unsharded run always did.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from typing import Any

from conformance.fuzz.differential import Disagreement, OperationReport


def split(examples: int, shards: int) -> list[int]:
    """The examples of each shard: as even as it goes, the first shards one more."""
    return [examples // shards + (1 if index < examples % shards else 0) for index in range(shards)]


def seed_of(seed: int | None, component: str, operation: str, index: int, shards: int) -> int | None:
    if shards == 1:
        return seed
    # Derandomised shards would all draw the same inputs; each needs its own
    # seed, still fixed by the command line.
    base = "derandomized" if seed is None else str(seed)
    digest = hashlib.sha256(f"{base}\0{component}.{operation}\0{index}/{shards}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def to_json(report: OperationReport) -> dict[str, Any]:
    """An operation's report as plain JSON, to travel from a worker to the controller."""
    return asdict(report)


def from_json(data: dict[str, Any]) -> OperationReport:
    found = data.get("disagreement")
    return OperationReport(**{**data, "disagreement": Disagreement(**found) if found else None})


def merge(reports: list[OperationReport]) -> list[OperationReport]:
    """One report per operation, in component and operation order: the shards'
    counts and seconds added up, their known differences counted together. When
    several shards disagree, the row keeps the smallest shrunk input; every
    disagreement is still written as a fixture by the caller."""
    merged: dict[tuple[str, str, bool], OperationReport] = {}
    for one in reports:
        key = (one.component, one.operation, one.invalid_inputs)
        into = merged.setdefault(key, OperationReport(one.component, one.operation, one.invalid_inputs))
        into.examples += one.examples
        into.unsupported += one.unsupported
        into.seconds += one.seconds
        for case, count in one.known.items():
            into.known[case] = into.known.get(case, 0) + count
        into.oracle_failure = into.oracle_failure or one.oracle_failure
        if one.disagreement is not None and (into.disagreement is None
                                             or _size(one.disagreement) < _size(into.disagreement)):
            into.disagreement = one.disagreement
    return [merged[key] for key in sorted(merged)]


def _size(found: Disagreement) -> tuple[int, str]:
    # The digest breaks ties, so the row does not depend on which worker finished first.
    return len(repr(found.input)), found.digest
