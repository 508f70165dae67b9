"""The Topology Manager's hint merge, with KEP-6007's score step.

`merge_exhaustive` is the upstream algorithm as written: every permutation of
the providers' hints, merged and folded through `compare` in nested-loop order
(first list outermost). Ties between equal masks keep the incumbent, so the
order matters and is preserved. The policies call `merge_select.merge_lists`,
which for large permutation spaces answers through `merge_fast` instead (the
same fold without enumerating permutations).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product

from ..numa.numa_info import NUMAInfo
from .hint_columns import HintColumns
from .hints import TopologyHint
from .options import LEAST_ALLOCATED, MOST_ALLOCATED

# One (provider, resource) hint list with the resource name its score is
# weighted by; "" for a provider that expressed no preference at all.
HintList = tuple[str, Sequence[TopologyHint]]

NO_PREFERENCE = (TopologyHint(None, True),)
NO_POSSIBLE_AFFINITY = (TopologyHint(None, False),)


@dataclass(frozen=True)
class MergeSettings:
    numa: NUMAInfo
    # prefer-closest as the merge applies it (single-numa-node ignores it)
    prefer_closest: bool = False
    # most-allocated / least-allocated when scoring is active, else None
    strategy: str | None = None
    # weights in effect for the aggregate (empty when the alpha gate is off)
    weights: Mapping[str, int] = field(default_factory=dict)

    @property
    def default_affinity(self) -> int:
        return self.numa.default_affinity()

    def weight(self, resource: str) -> int:
        return self.weights.get(resource, 1)


def filter_providers_hints(providers: Sequence[Mapping[str, Sequence[TopologyHint] | None] | None]) -> list[HintList]:
    """One list per (provider, resource): a nil or empty provider map means no
    preference; a nil resource list no preference for it; an empty resource
    list no possible affinity. Each list as columns, which the merges share."""
    out: list[HintList] = []
    for provider in providers:
        if not provider:
            out.append(("", HintColumns.of(NO_PREFERENCE)))
            continue
        for resource, hints in provider.items():
            if hints is None:
                out.append((resource, HintColumns.of(NO_PREFERENCE)))
            elif len(hints) == 0:
                out.append((resource, HintColumns.of(NO_POSSIBLE_AFFINITY)))
            else:
                out.append((resource, HintColumns.of(hints)))
    return out


def filter_single_numa_hints(lists: Sequence[HintList]) -> list[HintList]:
    """single-numa-node keeps only preferred hints that are nil or one node wide."""
    out = []
    for resource, hints in lists:
        columns = HintColumns.of(hints)
        kept = [j for j in columns.preferred_indices if (m := columns.mask(j)) is None or m.bit_count() == 1]
        out.append((resource, columns.select(kept)))
    return out


def max_of_min_affinity_counts(lists: Sequence[HintList]) -> int:
    best = 0
    for _, hints in lists:
        # only the narrowest mask's width counts, whichever mask has it
        width = HintColumns.of(hints).min_width()
        if width is not None:
            best = max(best, width)
    return best


def aggregate(settings: MergeSettings, contributions: Sequence[tuple[str, TopologyHint]]) -> int:
    """sum(w * score) / sum(w), truncated, over contributors with a non-nil
    mask, a score and a non-zero weight; 0 (unscored) when none remains."""
    total = 0
    weight_sum = 0
    for resource, h in contributions:
        if h.mask is None or h.score <= 0:
            continue
        w = settings.weight(resource)
        if w <= 0:
            continue
        total += w * h.score
        weight_sum += w
    return total // weight_sum if weight_sum else 0


def merge_permutation(settings: MergeSettings, default: int, permutation: Sequence[tuple[str, TopologyHint]]) -> TopologyHint:
    preferred = True
    mask = default
    first = None
    for _, h in permutation:
        m = h.mask
        if m is not None:
            mask &= m
            if first is None:
                first = m
            elif m != first:
                preferred = False
        if not h.preferred:
            preferred = False
    return TopologyHint(mask, preferred, aggregate(settings, permutation))


def structurally_equal(settings: MergeSettings, a: int, b: int) -> bool:
    if a.bit_count() != b.bit_count():
        return False
    if settings.prefer_closest:
        return settings.numa.average_distance(a) == settings.numa.average_distance(b)
    return True


def compare_masks(settings: MergeSettings, current: TopologyHint, candidate: TopologyHint) -> TopologyHint:
    """Structure first (narrowest, or closest), then KEP-6007's score among
    structurally equal masks, then the pre-KEP tie-break."""
    cm, km = current.mask, candidate.mask
    strategy = settings.strategy
    if (
        strategy is not None
        and current.score > 0
        and candidate.score > 0
        and current.score != candidate.score
        and structurally_equal(settings, cm, km)
    ):
        if strategy == MOST_ALLOCATED:
            return candidate if candidate.score > current.score else current
        return candidate if candidate.score < current.score else current
    if cm == km:
        return current
    best = settings.numa.closest(cm, km) if settings.prefer_closest else settings.numa.narrowest(cm, km)
    return current if best == cm else candidate


def compare(settings: MergeSettings, best_non_preferred: int, current: TopologyHint | None, candidate: TopologyHint) -> TopologyHint | None:
    k = candidate.mask.bit_count()
    if k == 0:
        return current
    if current is None:
        return candidate
    if current.preferred != candidate.preferred:
        return candidate if candidate.preferred else current
    if current.preferred:
        return compare_masks(settings, current, candidate)
    # Both non-preferred: prefer the width closest to, but not above, the
    # widest minimal width any single resource needs.
    b = best_non_preferred
    c = current.mask.bit_count()
    if c > b:
        return compare_masks(settings, current, candidate)
    if c == b:
        return current if k != b else compare_masks(settings, current, candidate)
    if k > b:
        return current
    if k == b:
        return candidate
    if k > c:
        return candidate
    if k < c:
        return current
    return compare_masks(settings, current, candidate)


def merge_exhaustive(settings: MergeSettings, lists: Sequence[HintList]) -> TopologyHint:
    default = settings.default_affinity
    b = max_of_min_affinity_counts(lists)
    expanded = [[(resource, h) for h in hints] for resource, hints in lists]
    best = None
    for permutation in product(*expanded):
        best = compare(settings, b, best, merge_permutation(settings, default, permutation))
    if best is None:
        return TopologyHint(default, False)
    return best


__all__ = [
    "HintList",
    "MergeSettings",
    "MOST_ALLOCATED",
    "LEAST_ALLOCATED",
    "aggregate",
    "compare",
    "compare_masks",
    "filter_providers_hints",
    "filter_single_numa_hints",
    "max_of_min_affinity_counts",
    "merge_exhaustive",
    "merge_permutation",
]
