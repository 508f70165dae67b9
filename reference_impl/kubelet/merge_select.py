"""Which merge answers a policy: the exhaustive fold while the permutation
space is small, `merge_fast` above that (the same answer; it declines the lists
it cannot prove equal, and those are enumerated after all)."""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

from .hints import TopologyHint
from .merge import HintList, MergeSettings, merge_exhaustive
from .merge_fast import merge_fast

# The fold costs tens of microseconds a permutation in Python; `merge_fast`
# (held equal to it by the property tests) costs about the same for any count,
# so the fold is kept only where it is as cheap: a few dozen permutations.
EXHAUSTIVE_LIMIT = 64


def permutation_count(lists: Sequence[HintList]) -> int:
    return prod(len(hints) for _, hints in lists)


def merge_lists(settings: MergeSettings, lists: Sequence[HintList]) -> TopologyHint:
    if permutation_count(lists) > EXHAUSTIVE_LIMIT:
        hint = merge_fast(settings, lists)
        if hint is not None:
            return hint
    return merge_exhaustive(settings, lists)
