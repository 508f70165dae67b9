"""NUMA node bitmasks, held as plain non-negative ints (bit i = NUMA node i).

An int keeps masks hashable and cheap to combine in the merge's inner loop; a
"nil" mask (no NUMA preference) is `None` at the call sites, never 0: the
empty mask 0 is a real mask with count 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import combinations

MAX_BITS = 64


class BitMaskError(ValueError):
    pass


def from_bits(bits: Iterable[int]) -> int:
    mask = 0
    for bit in bits:
        # the exact-type test first: a provider writing out every mask sends
        # hundreds of thousands of ids, and the general test is the slow part
        if type(bit) is not int and (not isinstance(bit, int) or isinstance(bit, bool)) or bit < 0 or bit >= MAX_BITS:
            raise BitMaskError(f"bit number must be in range 0-{MAX_BITS - 1}, got {bit!r}")
        mask |= 1 << bit
    return mask


def bits(mask: int) -> list[int]:
    """Set bits in ascending order."""
    out = []
    i = 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return out


def count(mask: int) -> int:
    return mask.bit_count()


def is_set(mask: int, bit: int) -> bool:
    return bool(mask >> bit & 1)


def any_set(mask: int, bit_list: Iterable[int]) -> bool:
    return any(mask >> b & 1 for b in bit_list)


def and_all(first: int, *masks: int) -> int:
    for m in masks:
        first &= m
    return first


def is_less_than(a: int, b: int) -> bool:
    """Numeric comparison of the underlying 64-bit words, as upstream does."""
    return a < b


def is_narrower_than(a: int, b: int) -> bool:
    """Fewer bits set, or as many and numerically lower.

    Numeric order, not "lowest set bit": {1,2} (6) is narrower than {0,3} (9).
    """
    ca, cb = a.bit_count(), b.bit_count()
    return ca < cb or (ca == cb and a < b)


def iterate_masks(nodes: Iterable[int]) -> Iterator[int]:
    """Every non-empty subset of `nodes`, by size, then lexicographically by
    the position of the members in `nodes`."""
    node_list = list(nodes)
    for size in range(1, len(node_list) + 1):
        for combo in combinations(node_list, size):
            m = 0
            for b in combo:
                m |= 1 << b
            yield m


def to_string(mask: int | None) -> str:
    if mask is None:
        return "nil"
    return "{" + ",".join(str(b) for b in bits(mask)) + "}"
