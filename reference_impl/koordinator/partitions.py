"""GPU partition tables (the Device CR annotation, or the built-in Hopper table)
and the choice of a partition for a whole-GPU request."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from .. import quantity
from ..refusal import Refusal
from . import annotations as ann

HOPPER_MODELS = ("H100", "H800", "H20")
_BINPACK_WEIGHT = {8: 10000, 4: 100, 2: 1}


@dataclass(frozen=True)
class Partition:
    minors: tuple[int, ...]
    score: int
    bandwidth: int | None
    link: str | None


# GPU count -> partitions in table order
Table = dict[int, list[Partition]]


def hopper_table() -> Table:
    def part(*minors):
        return Partition(tuple(minors), 1, None, "NVLink")
    return {
        1: [part(i) for i in range(8)],
        2: [part(0, 1), part(2, 3), part(4, 5), part(6, 7)],
        4: [part(0, 1, 2, 3), part(4, 5, 6, 7)],
        8: [part(*range(8))],
    }


def parse_table(raw: str) -> Table:
    def bad(why: str):
        return Refusal("InvalidGPUPartitionTable", f"annotation {ann.GPU_PARTITIONS}: {why}", "Filter")
    try:
        obj = json.loads(raw)
    except (TypeError, ValueError) as exc:
        raise bad(f"not valid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise bad("must be a JSON object keyed by GPU count")
    table: Table = {}
    for key, parts in obj.items():
        try:
            n = int(key)
        except ValueError:
            raise bad(f"key {key!r} is not a GPU count") from None
        if not isinstance(parts, list):
            raise bad(f"the partitions of {key} must be a list")
        out = []
        for p in parts:
            if not isinstance(p, dict) or not isinstance(p.get("minors"), list) or \
                    not all(isinstance(m, int) and not isinstance(m, bool) for m in p["minors"]):
                raise bad(f"a partition of {key} needs a list of integer minors")
            if len(p["minors"]) != n:
                raise bad(f"a partition of {key} lists {len(p['minors'])} minors")
            score = p.get("allocationScore", 0)
            if not isinstance(score, int) or isinstance(score, bool):
                raise bad("allocationScore must be an integer")
            bw = p.get("ringBusBandwidth")
            if bw is not None:
                try:
                    bw = quantity.value(quantity.parse(bw))
                except quantity.QuantityError:
                    raise bad(f"ringBusBandwidth {bw!r} is not a quantity") from None
            out.append(Partition(tuple(p["minors"]), score, bw, p.get("gpuLinkType")))
        table[n] = out
    return table


def highest_score_first(scores: Iterable[int]) -> list[int]:
    """The order the allocationScore groups are tried in: the document's
    BestEffort pursues the higher score, Restricted considers only the highest."""
    return sorted(set(scores), reverse=True)


def _groups(parts: list[Partition], order=highest_score_first) -> list[list[Partition]]:
    """Partitions grouped by allocationScore in `order`, table order within."""
    return [[p for p in parts if p.score == s] for s in order(p.score for p in parts)]


def choose(table: Table | None, count: int, policy: str, bandwidth: int | None,
           free: Iterable[int], unavailable: Iterable[int], order=highest_score_first) -> list[int]:
    """Minors of the chosen partition. `free` are the minors that can take a whole
    GPU now; `unavailable` the minors that are used or out of reach."""
    if table is None:
        raise Refusal("MissingGPUPartitionTable", "node(s) missing GPU Partition Table", "Filter")
    if count not in table or not table[count]:
        raise Refusal("UnsupportedGPUPartitionCount", "node(s) Unsupported number of GPU requests", "Filter")
    free = set(free)
    unavailable = set(unavailable)
    feasible: list[Partition] = []
    for group in _groups(table[count], order):
        for p in group:
            if not set(p.minors) <= free:
                continue
            if bandwidth is not None and (p.bandwidth is None or p.bandwidth < bandwidth):
                continue
            feasible.append(p)
        if feasible or policy == "Restricted":
            break
    if not feasible:
        raise Refusal("InsufficientPartitionedGPUs", "Insufficient Partitioned GPU Devices", "Filter")
    best, best_score = feasible[0], None
    for p in feasible:
        taken = unavailable | set(p.minors)
        score = 0
        for size in (8, 4, 2):
            if size < count or not table.get(size):
                continue
            for q in _groups(table[size], order)[0]:
                if not taken & set(q.minors):
                    score += _BINPACK_WEIGHT[size] * q.score
        if best_score is None or score > best_score:
            best, best_score = p, score
    return list(best.minors)
