"""Who holds which CPU, and what a pod may take from that: CPUs shared by up to a
maximum number of holders, and preferred CPUs (those a reservation or an earlier
allocation keeps for the pod) taken before any other.

Upstream v1.8.0 keeps one hold count per CPU (`nodenumaresource` node_allocation.go
`addPodAllocation`, `getAvailableCPUs`) and hands preferred CPUs to the
accumulator first (cpu_accumulator.go `takePreferredCPUs`); the seeds are silent
on both."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .cpu_accumulator import CPUAllocationError, take_cpus
from .topology import CPUTopology


@dataclass
class CPUHolds:
    """Hold counts per CPU and the exclusive policy each CPU was last placed with."""

    counts: dict[int, int] = field(default_factory=dict)
    policies: dict[int, str] = field(default_factory=dict)

    @classmethod
    def of(cls, holders: Sequence[tuple[Iterable[int], str]]) -> CPUHolds:
        """Holders in the order they were placed: a CPU listed by several counts
        once per holder, and keeps the exclusive policy of the last one, as
        upstream's allocation record overwrites it."""
        holds = cls()
        for cpus, policy in holders:
            for c in cpus:
                holds.counts[c] = holds.counts.get(c, 0) + 1
                holds.policies[c] = policy or "None"
        return holds

    def give_back(self, cpus: Iterable[int]) -> CPUHolds:
        """One hold of each of `cpus` released: the pod's preferred CPUs are held on
        its own behalf (its reservation, its earlier allocation), so that hold
        does not stand in its way. A CPU left with no holder is forgotten, its
        exclusive policy with it."""
        counts, policies = dict(self.counts), dict(self.policies)
        for c in set(cpus):
            if c in counts:
                counts[c] -= 1
                if counts[c] == 0:
                    del counts[c]
                    del policies[c]
        return CPUHolds(counts, policies)

    def available(self, topology: CPUTopology, max_ref_count: int, reserved: Iterable[int]) -> set[int]:
        """CPUs held fewer than `max_ref_count` times, less the reserved ones."""
        full = {c for c, n in self.counts.items() if n >= max_ref_count}
        return set(topology.cpus) - full - set(reserved)


def take_preferred_cpus(topology: CPUTopology, available: Iterable[int], preferred: Iterable[int],
                        holds: CPUHolds, need: int, bind_policy: str, exclusive: str, strategy: str,
                        max_ref_count: int = 1) -> list[int]:
    """The available preferred CPUs are chosen from first, as a selection of their
    own; whatever they cannot give comes from a second, separate selection over
    the other available CPUs. Each selection starts afresh: the CPUs the first
    took neither draw the second towards their socket nor count for the pod's
    own exclusivity there."""
    available = set(available)
    wanted = available & set(preferred)
    result: list[int] = []
    if wanted:
        result = take_cpus(topology, wanted, holds.policies, min(need, len(wanted)), bind_policy, exclusive,
                           strategy, holds.counts, max_ref_count)
        need -= len(result)
        available -= wanted
    if need > 0:
        result += take_cpus(topology, available, holds.policies, need, bind_policy, exclusive, strategy,
                            holds.counts, max_ref_count)
    return sorted(result)


__all__ = ["CPUAllocationError", "CPUHolds", "take_preferred_cpus"]
