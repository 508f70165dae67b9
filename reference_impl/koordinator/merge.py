"""The scheduler-side topology manager: merge of provider hints under one
NUMATopologyPolicy, the SingleNUMANodeExclusive check, and admit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product

from ..numa import bitmask
from .hints import Hint, ProviderHints
from .reason_text import render_mask
from .seams import CONTRACT, Seams

NONE, BEST_EFFORT, RESTRICTED, SINGLE_NUMA_NODE = "None", "BestEffort", "Restricted", "SingleNUMANode"
POLICIES = (NONE, BEST_EFFORT, RESTRICTED, SINGLE_NUMA_NODE)

EXCLUSIVE_PREFERRED, EXCLUSIVE_REQUIRED = "Preferred", "Required"
IDLE, SHARED, SINGLE = "idle", "shared", "single"


@dataclass
class MergeOutcome:
    hint: Hint
    admit: bool
    reasons: list[str] = field(default_factory=list)
    # Set when the policy refused and no provider list was empty.
    unaligned: bool = False


def exclusive_ok(affinity: int | None, exclusive: str | None, statuses: Mapping[int, str]) -> bool:
    """Whether a merged affinity may be used under SingleNUMANodeExclusive."""
    if affinity is None:
        return False
    if exclusive != EXCLUSIVE_REQUIRED:
        return True
    nodes = bitmask.bits(affinity)
    if len(nodes) > 1:
        return not any(statuses.get(n, IDLE) == SINGLE for n in nodes)
    return statuses.get(nodes[0], IDLE) != SHARED


def _filter_providers(providers: Sequence[ProviderHints]):
    lists: list[list[Hint]] = []
    reasons: list[str] = []
    summary: list[str] = []
    for provider in providers:
        if not provider:
            lists.append([Hint(None, True)])
            continue
        for resource, resource_hints in provider.items():
            if resource_hints is None:
                lists.append([Hint(None, True)])
            elif len(resource_hints) == 0:
                lists.append([Hint(None, False, 0, True)])
                reasons.append(f"Unsatisfied NUMA {resource}")
            else:
                lists.append(list(resource_hints))
                # An unsatisfied hint is named in neither list, even when marked preferred.
                possible = [h for h in resource_hints if not h.unsatisfied]
                preferred = " ".join(render_mask(h.affinity) for h in possible if h.preferred)
                among = " ".join(render_mask(h.affinity) for h in possible)
                summary.append(f"{resource} prefer [{preferred}] among [{among}]")
    summary.sort()
    return lists, reasons, summary


def _merge_permutation(all_nodes: int, permutation: Sequence[Hint]) -> Hint:
    affinities = [h.affinity for h in permutation if h.affinity is not None]
    preferred = all(h.preferred for h in permutation)
    if affinities and any(a != affinities[0] for a in affinities):
        preferred = False
    merged = all_nodes
    for a in affinities:
        merged &= a
    unsatisfied = any(h.unsatisfied for h in permutation)
    if affinities and bitmask.count(merged) != max(bitmask.count(a) for a in affinities):
        unsatisfied = True
    return Hint(merged, preferred, 0, unsatisfied)


def _merge_filtered(all_nodes: int, lists: list[list[Hint]], exclusive, statuses, seams: Seams) -> Hint:
    best = Hint(all_nodes, False, 0, False)
    for permutation in product(*lists):
        merged = _merge_permutation(all_nodes, permutation)
        if bitmask.count(merged.affinity) == 0:
            continue
        preferred = merged.preferred and exclusive_ok(merged.affinity, exclusive, statuses)
        score = sum(h.score for h in permutation if h.affinity is not None and h.affinity == merged.affinity)
        merged = Hint(merged.affinity, preferred, score, merged.unsatisfied)
        if merged.preferred and not best.preferred:
            best = merged
        elif not merged.preferred and best.preferred:
            continue
        elif bitmask.count(merged.affinity) < bitmask.count(best.affinity):
            best = merged
        elif bitmask.count(merged.affinity) == bitmask.count(best.affinity):
            if seams.replaces_at_equal_width(merged, best):
                best = merged
    return best


def merge(policy: str, numa_nodes: Sequence[int], providers: Sequence[ProviderHints],
          exclusive: str | None = None, statuses: Mapping[int, str] | None = None,
          seams: Seams = CONTRACT) -> MergeOutcome:
    statuses = statuses or {}
    all_nodes = bitmask.from_bits(numa_nodes)
    if policy == NONE:
        return MergeOutcome(Hint(None, False), True)
    lists, reasons, summary = _filter_providers(providers)
    if policy == BEST_EFFORT:
        best = _merge_filtered(all_nodes, lists, exclusive, statuses, seams)
        if best.unsatisfied:
            best = Hint(all_nodes, False, 0, False)
        return MergeOutcome(best, True)
    if policy == RESTRICTED:
        if reasons:
            return MergeOutcome(Hint(all_nodes, False), False, reasons)
        best = _merge_filtered(all_nodes, lists, exclusive, statuses, seams)
        if best.preferred:
            return MergeOutcome(best, True)
        return MergeOutcome(best, False, ["Unaligned NUMA Hint cause " + " & ".join(summary)], True)
    if policy == SINGLE_NUMA_NODE:
        if reasons:
            return MergeOutcome(Hint(None, False), False, reasons)
        single = [[h for h in hl if h.preferred and (h.affinity is None or bitmask.count(h.affinity) == 1)]
                  for hl in lists]
        best = _merge_filtered(all_nodes, single, exclusive, statuses, seams)
        if best.affinity == all_nodes:
            # Upstream rebuilds the hint from its preferred flag alone: the score and
            # the unsatisfied mark of the all-nodes hint do not carry over.
            best = Hint(None, best.preferred)
        if best.preferred:
            return MergeOutcome(best, True)
        return MergeOutcome(best, False, ["Unaligned NUMA Hint cause " + ",".join(summary)], True)
    raise ValueError(f"unknown NUMA topology policy {policy!r}")


def refusal_reason(outcome: MergeOutcome, policy: str, numa_nodes, providers, exclusive, statuses,
                   seams: Seams = CONTRACT) -> str | None:
    """The stable reason code of a refused merge."""
    if outcome.admit:
        return None
    if not outcome.unaligned:
        return "UnsatisfiedNUMAResource"
    if exclusive == EXCLUSIVE_REQUIRED and merge(policy, numa_nodes, providers, None, statuses, seams).admit:
        return "SingleNUMANodeExclusiveConflict"
    return "UnalignedNUMAHint"
