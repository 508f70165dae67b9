"""KEP-6007's beta preferred-first merge.

Only permutations made of preferred hints whose non-nil masks all agree can
merge to a preferred hint, and a preferred hint, once found, is never
displaced by a non-preferred one. So the full merge's answer, whenever a
preferred candidate exists, is the fold over exactly those permutations, in
the same nested-loop order. This walks them depth-first, pruning a branch as
soon as a pick disagrees with the mask chosen so far, and falls back to the
full merge only when no preferred candidate exists.
"""

from __future__ import annotations

from collections.abc import Sequence

from .hints import TopologyHint
from .merge import HintList, MergeSettings, compare, max_of_min_affinity_counts, merge_permutation
from .merge_select import merge_lists


def merge_preferred(settings: MergeSettings, lists: Sequence[HintList]) -> TopologyHint:
    default = settings.default_affinity
    b = max_of_min_affinity_counts(lists)
    preferred_lists = [[(resource, h) for h in hints if h.preferred] for resource, hints in lists]
    best: TopologyHint | None = None
    picks: list = [None] * len(lists)
    depth_total = len(lists)

    def walk(depth: int, common: int | None) -> None:
        nonlocal best
        if depth == depth_total:
            merged = merge_permutation(settings, default, picks)
            if merged.preferred:
                best = compare(settings, b, best, merged)
            return
        for entry in preferred_lists[depth]:
            m = entry[1].mask
            if m is not None and common is not None and m != common:
                continue
            picks[depth] = entry
            walk(depth + 1, common if m is None else m)

    walk(0, None)
    if best is not None and best.preferred:
        return best
    return merge_lists(settings, lists)
