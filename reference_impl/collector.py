"""Python's cyclic garbage collector, paused while one answer is computed.

Reading a large input (tens of thousands of nodes) and building the topology
tree from it allocate millions of small containers; every few hundred
allocations CPython's cyclic collector walks the youngest objects, and every
so often all of them, the whole decoded input included. That walking, not the
work itself, was most of the time spent on a 50,000-node cluster, and it finds
nothing to free: the input is alive until the answer is written. The pause is
bounded by one message; what the answer left behind in cycles (the domain
tree's parent and child links) is collected after the collector resumes.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

F = TypeVar("F", bound=Callable)


@contextmanager
def paused() -> Iterator[None]:
    """The collector off for the block, then back as it was (a nested pause
    leaves it off)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def pausing(fn: F) -> F:
    """`fn` with the collector paused for each call."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with paused():
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
