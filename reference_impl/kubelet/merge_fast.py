"""The exhaustive merge's answer without enumerating permutations.

Why this is the same fold (see `merge.compare`):

* A preferred candidate always beats a non-preferred one and is never replaced
  by one, so if any permutation merges to a preferred, non-empty mask the
  answer is the fold over the preferred candidates alone; otherwise the fold
  over all (then non-preferred) candidates.
* Within either group, candidates of different widths are ordered by width
  alone, whichever is the incumbent: narrower wins among preferred ones; among
  non-preferred ones the width equal to `best_non_preferred` wins, then the
  widest below it, then the narrowest above it. So only the best width class
  matters.
* Within one width, `compare_masks` is a total order on distinct masks when
  scores do not take part (numeric, or average distance then numeric), and an
  exact tie is an equal mask, which keeps the incumbent: the first permutation
  in nested-loop order that produced it, i.e. the lexicographically smallest
  index tuple. With scores taking part, the order is (average distance,
  score by strategy, numeric) provided every candidate is scored or every one
  is unscored; that holds when each list is homogeneous (all masks nil or all
  non-nil, all scores zero or all positive), because then every permutation
  has the same contributors and the same weight total. Otherwise `merge_fast`
  declines (returns None) and the caller enumerates.

The search works per resulting mask: a forward pass over the lists keeps, for
each partial intersection, the smallest index prefix (or the best weighted
score sum) that reaches it; there are at most 2^n partial intersections.
"""

from __future__ import annotations

from collections.abc import Sequence

from .hint_columns import HintColumns
from .hints import TopologyHint
from .merge import HintList, MergeSettings, max_of_min_affinity_counts, merge_permutation
from .options import MOST_ALLOCATED


def _uniform_contributors(settings: MergeSettings, lists: Sequence[HintList]) -> tuple[bool, list[int]]:
    """Whether every permutation has the same contributors; the weight each
    list contributes with (0 when it never contributes)."""
    weights = []
    for resource, hints in lists:
        nil_kinds, scored_kinds = HintColumns.of(hints).kinds()
        if len(nil_kinds) > 1 or len(scored_kinds) > 1:
            return False, []
        contributes = nil_kinds == {False} and scored_kinds == {True}
        w = settings.weight(resource) if contributes else 0
        weights.append(max(w, 0))
    return True, weights


def _width_rank(width: int, best_non_preferred: int | None, preferred: bool) -> tuple:
    # preferred candidates rank by width alone: best_non_preferred is not read
    if preferred:
        return (0, width)
    b = best_non_preferred
    if width == b:
        return (0, 0)
    if width < b:
        return (1, -width)
    return (2, width)


def _pick(settings: MergeSettings, masks: Sequence[int], score_of, best_non_preferred: int | None,
          preferred: bool) -> int:
    best_rank = min(_width_rank(m.bit_count(), best_non_preferred, preferred) for m in masks)
    same = [m for m in masks if _width_rank(m.bit_count(), best_non_preferred, preferred) == best_rank]

    def key(m: int):
        parts = []
        if settings.prefer_closest:
            parts.append(settings.numa.average_distance(m))
        if score_of is not None:
            s = score_of(m)
            parts.append(-s if settings.strategy == MOST_ALLOCATED else s)
        parts.append(m)
        return tuple(parts)

    return min(same, key=key)


def merge_fast(settings: MergeSettings, lists: Sequence[HintList]) -> TopologyHint | None:
    default = settings.default_affinity
    if any(len(hints) == 0 for _, hints in lists):
        return TopologyHint(default, False)
    columns = [HintColumns.of(hints) for _, hints in lists]

    scoring = False
    weights: list[int] = []
    weight_total = 0
    if settings.strategy is not None:
        uniform, weights = _uniform_contributors(settings, lists)
        if not uniform:
            return None
        weight_total = sum(weights)
        scoring = weight_total > 0

    def hint_from_tuple(indices: Sequence[int]) -> TopologyHint:
        perm = [(lists[i][0], lists[i][1][j]) for i, j in enumerate(indices)]
        return merge_permutation(settings, default, perm)

    most = settings.strategy == MOST_ALLOCATED

    def better_sum(a: int, b_: int) -> bool:
        return a > b_ if most else a < b_

    # --- preferred candidates -------------------------------------------
    # A permutation merges to a preferred hint when every pick is preferred
    # and every non-nil pick has one common mask M (all-nil: the default).
    nil_first: list[int | None] = []
    tables: list[dict[int, tuple[int, int]]] = []  # mask -> (first index, best contribution)
    for li, hints in enumerate(columns):
        w = weights[li] if scoring else 0
        nf = None
        table: dict[int, tuple[int, int]] = {}
        # only preferred hints: a list's other hints are never read on this path
        for j in hints.preferred_indices:
            mask = hints.mask(j)
            if mask is None:
                if nf is None:
                    nf = j
                continue
            contribution = w * hints.scores[j]
            seen = table.get(mask)
            if seen is None:
                table[mask] = (j, contribution)
            elif scoring and better_sum(contribution, seen[1]):
                table[mask] = (seen[0], contribution)
        nil_first.append(nf)
        tables.append(table)

    candidates: dict[int, tuple[tuple[int, ...], int]] = {}

    def offer(x: int, indices: tuple[int, ...], total: int) -> None:
        if x == 0:
            return
        seen = candidates.get(x)
        if seen is None or (better_sum(total, seen[1]) if scoring else indices < seen[0]):
            candidates[x] = (indices, total)

    if all(nf is not None for nf in nil_first):
        offer(default, tuple(nil_first), 0)
    all_masks: set[int] = set()
    for table in tables:
        all_masks.update(table)
    for m in all_masks:
        indices = []
        total = 0
        last_with_m = -1
        feasible = True
        picked_m = False
        for li in range(len(lists)):
            entry = tables[li].get(m)
            nf = nil_first[li]
            if entry is None and nf is None:
                feasible = False
                break
            if entry is not None:
                last_with_m = li
            if entry is not None and (nf is None or entry[0] < nf):
                indices.append(entry[0])
                total += entry[1]
                picked_m = True
            else:
                indices.append(nf)
        if not feasible:
            continue
        if not picked_m:
            # the smallest tuple that still picks M somewhere switches the
            # last list that offers it
            indices[last_with_m] = tables[last_with_m][m][0]
            total += tables[last_with_m][m][1]
        offer(default & m, tuple(indices), total)

    if candidates:
        score_of = (lambda mm: candidates[mm][1] // weight_total) if scoring else None
        x = _pick(settings, list(candidates), score_of, None, True)
        if scoring:
            return TopologyHint(x, True, candidates[x][1] // weight_total)
        return hint_from_tuple(candidates[x][0])

    # --- non-preferred candidates: forward pass over partial intersections --
    b = max_of_min_affinity_counts([(resource, hints) for (resource, _), hints in zip(lists, columns, strict=True)])
    if scoring:
        states: dict[int, int] = {default: 0}
        for li, hints in enumerate(columns):
            w = weights[li]
            best_per_mask: dict[int | None, int] = {}
            for mask, score in zip(hints.masks, hints.scores, strict=True):
                c = w * score if w else 0
                seen = best_per_mask.get(mask)
                if seen is None or better_sum(c, seen):
                    best_per_mask[mask] = c
            nxt: dict[int, int] = {}
            for p, total in states.items():
                for m, c in best_per_mask.items():
                    q = p if m is None else p & m
                    t = total + c
                    seen = nxt.get(q)
                    if seen is None or better_sum(t, seen):
                        nxt[q] = t
            states = nxt
        reachable = [x for x in states if x]
        if not reachable:
            return TopologyHint(default, False)
        x = _pick(settings, reachable, lambda mm: states[mm] // weight_total, b, False)
        return TopologyHint(x, False, states[x] // weight_total)

    first_states: dict[int, tuple[int, ...]] = {default: ()}
    for hints in columns:
        first_per_mask: dict[int | None, int] = {}
        for j, mask in enumerate(hints.masks):
            if mask not in first_per_mask:
                first_per_mask[mask] = j
        nxt_t: dict[int, tuple[int, ...]] = {}
        for p, prefix in first_states.items():
            for m, j in first_per_mask.items():
                q = p if m is None else p & m
                t = prefix + (j,)
                seen = nxt_t.get(q)
                if seen is None or t < seen:
                    nxt_t[q] = t
        first_states = nxt_t
    reachable = [x for x in first_states if x]
    if not reachable:
        return TopologyHint(default, False)
    x = _pick(settings, reachable, None, b, False)
    return hint_from_tuple(first_states[x])
