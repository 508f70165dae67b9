"""Resource allocation scorers: MostAllocated (bin-pack), LeastAllocated (spread)
and BalancedAllocation, on integer scores 0..100."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from .args import BALANCED, MOST

MAX_SCORE = 100


def least_allocated(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_SCORE // capacity


def most_allocated(requested: int, capacity: int) -> int:
    if capacity == 0:
        return 0
    return min(requested, capacity) * MAX_SCORE // capacity


def score(strategy: str, weights: Sequence[tuple[str, int]], requested: Mapping[str, int],
          capacity: Mapping[str, int], pod: Mapping[str, int]) -> int:
    """`requested` is what is already allocated; the pod's request is added to it."""
    used = [(name, w) for name, w in weights if capacity.get(name, 0) != 0]
    if strategy == BALANCED:
        fractions = [min((requested.get(n, 0) + pod.get(n, 0)) / capacity[n], 1.0) for n, w in used if w > 0]
        if len(fractions) < 2:
            return MAX_SCORE
        mean = sum(fractions) / len(fractions)
        std = math.sqrt(sum((f - mean) ** 2 for f in fractions) / len(fractions))
        # Rounding guards against binary noise in values that are exact on paper.
        return int(math.floor(round((1 - std) * MAX_SCORE, 9)))
    formula = most_allocated if strategy == MOST else least_allocated
    total_weight = sum(w for _, w in used)
    if total_weight == 0:
        return 0
    return sum(formula(requested.get(n, 0) + pod.get(n, 0), capacity[n]) * w for n, w in used) // total_weight
