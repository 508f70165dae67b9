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
