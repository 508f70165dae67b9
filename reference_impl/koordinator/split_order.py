"""The order in which a NUMA split visits the NUMA nodes of a multi-NUMA hint.

Every node but the last gets at most an even share of what is left, so the
order decides whether a split that needs one node to take more than its share
comes out whole. The document's order is the nodes by their own free amount of
the resource, fewest first, ties by id; the reference always splits that way.

v1.8.0 sorts the hint's nodes with a comparison that reads the free amount of
the NUMA node whose id equals the slice position being compared, not of the
node at that position (nodenumaresource resource_manager.go,
tryBestToDistributeEvenly). The amounts compared stay with the positions while
the nodes move, so even a hint of nodes 0..k-1 can come out misordered.
`slice_position_v1_8` computes that order, so that a run
against v1.8.0 can recognise the difference in an answer
(conformance/fuzz/known.py); docs/operations/koordinator.md lists it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

# (the hint's NUMA nodes in id order, free amount of the resource per NUMA node) -> visiting order
SplitOrder = Callable[[Sequence[int], Mapping[int, int]], list[int]]


def by_availability(nodes: Sequence[int], free: Mapping[int, int]) -> list[int]:
    return sorted(nodes, key=lambda n: (free.get(n, 0), n))


# Go's sort.Slice sorts up to this many elements by insertion sort; beyond it
# the order of a position-keyed comparison depends on pattern-defeating
# quicksort's pivots, which is not modelled.
GO_INSERTION_SORT_LIMIT = 12


class OrderNotModelled(ValueError):
    pass


def slice_position_v1_8(nodes: Sequence[int], free: Mapping[int, int]) -> list[int]:
    if len(nodes) > GO_INSERTION_SORT_LIMIT:
        raise OrderNotModelled(f"{len(nodes)} NUMA nodes in one hint")
    order = list(nodes)
    # The comparison's keys stay with the positions while the elements move.
    for i in range(1, len(order)):
        j = i
        while j > 0 and free.get(j, 0) < free.get(j - 1, 0):
            order[j], order[j - 1] = order[j - 1], order[j]
            j -= 1
    return order


_ORDER: ContextVar[SplitOrder] = ContextVar("koordinator_split_order", default=by_availability)


def current() -> SplitOrder:
    return _ORDER.get()


@contextmanager
def using(order: SplitOrder) -> Iterator[None]:
    token = _ORDER.set(order)
    try:
        yield
    finally:
        _ORDER.reset(token)
