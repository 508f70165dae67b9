"""The four Topology Manager policies: how each merges and what it admits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..numa.numa_info import NUMAInfo
from .hints import TopologyHint
from .merge import (
    MergeSettings,
    filter_providers_hints,
    filter_single_numa_hints,
)
from .merge_preferred import merge_preferred
from .merge_select import merge_lists
from .options import PolicyOptions

NONE = "none"
BEST_EFFORT = "best-effort"
RESTRICTED = "restricted"
SINGLE_NUMA_NODE = "single-numa-node"
POLICIES = (NONE, BEST_EFFORT, RESTRICTED, SINGLE_NUMA_NODE)

FULL = "full"
PREFERRED_FIRST = "preferred-first"

ProviderHints = Mapping[str, Sequence[TopologyHint] | None] | None


@dataclass(frozen=True)
class MergeOutcome:
    hint: TopologyHint
    admit: bool
    # the selected mask differs from what strategy none would have selected
    score_decided: bool


@dataclass(frozen=True)
class Policy:
    name: str
    numa: NUMAInfo
    options: PolicyOptions
    scoring_active: bool
    # weights in effect: the parsed ones only while the alpha gate is on
    weights: Mapping[str, int]
    algorithm: str = FULL

    def settings(self, with_scores: bool) -> MergeSettings:
        return MergeSettings(
            numa=self.numa,
            prefer_closest=self.options.prefer_closest and self.name != SINGLE_NUMA_NODE,
            strategy=self.options.strategy if (with_scores and self.scoring_active) else None,
            weights=self.weights,
        )

    def _run(self, settings: MergeSettings, lists) -> TopologyHint:
        if self.algorithm == PREFERRED_FIRST:
            return merge_preferred(settings, lists)
        return merge_lists(settings, lists)

    def merge(self, providers: Sequence[ProviderHints]) -> MergeOutcome:
        if self.name == NONE:
            return MergeOutcome(TopologyHint(None, False), True, False)
        lists = filter_providers_hints(providers)
        if self.name == SINGLE_NUMA_NODE:
            lists = filter_single_numa_hints(lists)
        hint = self._run(self.settings(True), lists)
        decided = False
        if self.scoring_active:
            baseline = self._run(self.settings(False), lists)
            decided = baseline.mask != hint.mask
        if self.name == SINGLE_NUMA_NODE and hint.mask == self.numa.default_affinity():
            hint = TopologyHint(None, hint.preferred, hint.score)
        admit = True if self.name == BEST_EFFORT else hint.preferred
        return MergeOutcome(hint, admit, decided)


def admits(policy_name: str, hint: TopologyHint) -> bool:
    """The policy's admit rule for a merged hint."""
    if policy_name in (NONE, BEST_EFFORT):
        return True
    return hint.preferred
