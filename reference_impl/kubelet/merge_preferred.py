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

from .hint_columns import HintColumns
from .hints import TopologyHint
from .merge import HintList, MergeSettings, compare_masks, merge_permutation
from .merge_select import merge_lists


def merge_preferred(settings: MergeSettings, lists: Sequence[HintList]) -> TopologyHint:
    default = settings.default_affinity
    preferred_lists = []
    for resource, hints in lists:
        columns = HintColumns.of(hints)
        preferred_lists.append([(resource, columns[j]) for j in columns.preferred_indices])
    best: TopologyHint | None = None
    picks: list = [None] * len(lists)
    depth_total = len(lists)

    def walk(depth: int, common: int | None) -> None:
        nonlocal best
        if depth == depth_total:
            merged = merge_permutation(settings, default, picks)
            # `compare` between two preferred hints: an empty mask never
            # enters, the first one found does, then `compare_masks` decides
            # (the width target it takes for non-preferred pairs is not read)
            if merged.preferred and merged.mask.bit_count() != 0:
                best = merged if best is None else compare_masks(settings, best, merged)
            return
        for entry in preferred_lists[depth]:
            m = entry[1].mask
            if m is not None and common is not None and m != common:
                continue
            picks[depth] = entry
            walk(depth + 1, common if m is None else m)

    walk(0, None)
    if best is not None:
        return best
    return merge_lists(settings, lists)
