"""NUMA nodes of a machine and their distance matrix."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from . import bitmask


@dataclass(frozen=True)
class NUMAInfo:
    nodes: tuple[int, ...]
    # distances[i][j] for node ids i, j; None when the topology carries none.
    distances: Mapping[int, Mapping[int, int]] | None = None
    _avg_cache: dict = field(default_factory=dict, compare=False, repr=False, hash=False)

    @classmethod
    def build(cls, nodes: Sequence[int], rows: Sequence[Sequence[int]] | None) -> NUMAInfo:
        nodes = tuple(nodes)
        if rows is None:
            return cls(nodes, None)
        if len(rows) != len(nodes) or any(len(r) != len(nodes) for r in rows):
            raise ValueError("distance matrix must be square with one row per NUMA node")
        dist = {n: {m: rows[i][j] for j, m in enumerate(nodes)} for i, n in enumerate(nodes)}
        return cls(nodes, dist)

    def default_affinity(self) -> int:
        return bitmask.from_bits(self.nodes)

    def average_distance(self, mask: int) -> float:
        """Mean of d[i][j] over all ordered pairs of the mask's nodes, self
        pairs included, summed as floats in ascending bit order so that equal
        means compare equal exactly as upstream's float64 arithmetic does."""
        cached = self._avg_cache.get(mask)
        if cached is not None:
            return cached
        if self.distances is None:
            raise ValueError("no NUMA distances")
        members = bitmask.bits(mask)
        total = 0.0
        pairs = 0
        for i in members:
            row = self.distances[i]
            for j in members:
                total += float(row[j])
                pairs += 1
        avg = total / pairs if pairs else 0.0
        self._avg_cache[mask] = avg
        return avg

    def narrowest(self, m1: int, m2: int) -> int:
        return m1 if bitmask.is_narrower_than(m1, m2) else m2

    def closest(self, m1: int, m2: int) -> int:
        if m1.bit_count() != m2.bit_count():
            return self.narrowest(m1, m2)
        a1 = self.average_distance(m1)
        a2 = self.average_distance(m2)
        if a1 == a2:
            return m1 if m1 < m2 else m2
        return m1 if a1 < a2 else m2
