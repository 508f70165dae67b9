"""The topology hint a provider reports and the merge produces."""

from __future__ import annotations

from dataclasses import dataclass

from ..numa import bitmask


@dataclass(frozen=True, slots=True)
class TopologyHint:
    # None is the nil mask ("no NUMA preference"); 0 is a real, empty mask.
    mask: int | None
    preferred: bool
    # KEP-6007: 0 = unscored, otherwise the allocation percentage in [1, 100].
    score: int = 0

    def affinity(self) -> list[int] | None:
        return None if self.mask is None else bitmask.bits(self.mask)

    def __str__(self) -> str:
        return f"{bitmask.to_string(self.mask)}/{'P' if self.preferred else 'np'}/{self.score}"


def utilisation_score(assigned: int, allocatable: int) -> int:
    """KEP-6007's provider score: max(1, assigned * 100 / allocatable), integer
    division. Nothing allocatable on the mask leaves the hint unscored."""
    if allocatable <= 0:
        return 0
    return max(1, assigned * 100 // allocatable)


def mask_hints(nodes: list[int], request: int, *, capacity: dict[int, int], free: dict[int, int],
               reusable_nodes: set[int], reusable: int, used: dict[int, int],
               allocatable: dict[int, int]) -> list[TopologyHint]:
    """The hints the CPU and device managers generate the same way for one
    request of `request` units: one per mask over `nodes` that covers every
    node holding a reusable unit and has room for the request (the `reusable`
    units plus the masks' free ones). A hint is preferred when it is as narrow
    as the narrowest mask whose whole capacity could hold the request, free or
    not, and scored by the share of its allocatable units in use."""
    min_size = len(nodes)
    found: list[int] = []
    for mask in bitmask.iterate_masks(nodes):
        members = bitmask.bits(mask)
        if sum(capacity[n] for n in members) >= request and len(members) < min_size:
            min_size = len(members)
        if any(not mask >> n & 1 for n in reusable_nodes):
            continue
        if reusable + sum(free[n] for n in members) < request:
            continue
        found.append(mask)
    out = []
    for mask in found:
        members = bitmask.bits(mask)
        score = utilisation_score(sum(used[n] for n in members), sum(allocatable[n] for n in members))
        out.append(TopologyHint(mask, mask.bit_count() == min_size, score))
    return out
