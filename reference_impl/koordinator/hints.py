"""The NUMA topology hint every provider emits, and the merged result."""

from __future__ import annotations

from dataclasses import dataclass

from ..numa import bitmask


@dataclass(frozen=True)
class Hint:
    affinity: int | None          # bitmask; None is "no preference"
    preferred: bool
    score: int = 0
    unsatisfied: bool = False

    def to_json(self) -> dict:
        return {
            "affinity": None if self.affinity is None else bitmask.bits(self.affinity),
            "preferred": self.preferred,
            "score": self.score,
            "unsatisfied": self.unsatisfied,
        }


# A provider's answer: resource name -> hint list. None (or {}) means the provider
# has no opinion; a None list is "don't care"; an empty list is "cannot satisfy".
ProviderHints = dict[str, list[Hint] | None] | None
