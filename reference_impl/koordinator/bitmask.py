"""NUMA affinities as integer bitmasks (bit i = NUMA node i), with the comparison
and iteration order the scheduler-side topology manager uses."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import combinations


def from_ids(ids: Iterable[int]) -> int:
    mask = 0
    for i in ids:
        if i < 0 or i > 63:
            raise ValueError(f"NUMA node id {i} outside 0..63")
        mask |= 1 << i
    return mask


def ids(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def count(mask: int) -> int:
    return bin(mask).count("1")


def is_narrower(a: int, b: int) -> bool:
    """Fewer NUMA nodes wins; at equal width the lower mask value wins."""
    ca, cb = count(a), count(b)
    if ca == cb:
        return a < b
    return ca < cb


def iterate(node_ids: Iterable[int]) -> Iterator[int]:
    """Every non-empty mask over `node_ids`: all single nodes, then all pairs in
    lexicographic order of the sorted ids, and so on."""
    ordered = sorted(set(node_ids))
    for width in range(1, len(ordered) + 1):
        for combo in combinations(ordered, width):
            yield from_ids(combo)


def render(mask: int | None) -> str:
    """Upstream's binary rendering used in reason texts: zero-padded to an even
    width of at least two digits."""
    if mask is None:
        return "<nil>"
    for shift in range(62, 0, -2):
        if mask > (1 << shift):
            return format(mask, f"0{shift + 2}b")
    return format(mask, "02b")
