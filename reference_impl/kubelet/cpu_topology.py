"""The CPU topology the static CPU policy sees (sockets, NUMA nodes, cores
and their hardware threads) and its packed choice of CPUs.

`take_packed` follows the order upstream's topology-aware best fit
(`takeByTopologyNUMAPacked` in cpumanager/cpu_assignment.go) documents: whole
NUMA nodes and sockets first, then whole cores, then single threads, each
level visited from the fullest (fewest free CPUs) to the emptiest, ties by id.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class CPUTopology:
    numa: dict[int, int]      # cpu id -> NUMA node
    socket: dict[int, int]    # cpu id -> socket
    core: dict[int, int]      # cpu id -> core id (the core's lowest thread id)
    threads_per_core: int

    def cpus_in(self, table: dict[int, int], ident: int) -> list[int]:
        return [c for c, v in table.items() if v == ident]

    @property
    def numa_first(self) -> bool:
        """NUMA nodes are the outer level when there are at least as many
        sockets as NUMA nodes (a NUMA node holds whole sockets)."""
        return len(set(self.socket.values())) >= len(set(self.numa.values()))


class _Accumulator:
    def __init__(self, topo: CPUTopology, available: Iterable[int], n: int):
        self.topo = topo
        self.free = set(available)
        self.needed = n
        self.result: list[int] = []

    # --- counts over what is still free --------------------------------
    def _count(self, table: dict[int, int], ident: int) -> int:
        return sum(1 for c in self.free if table[c] == ident)

    def _ids(self, table: dict[int, int], among: Iterable[int] | None = None) -> list[int]:
        cpus = self.free if among is None else set(among) & self.free
        return sorted({table[c] for c in cpus})

    def _sorted(self, table: dict[int, int], ids: Iterable[int]) -> list[int]:
        return sorted(ids, key=lambda i: (self._count(table, i), i))

    def numa_order(self) -> list[int]:
        t = self.topo
        if t.numa_first:
            return self._sorted(t.numa, self._ids(t.numa))
        out = []
        for s in self.socket_order():
            out += self._sorted(t.numa, self._ids(t.numa, t.cpus_in(t.socket, s)))
        return out

    def socket_order(self) -> list[int]:
        t = self.topo
        if not t.numa_first:
            return self._sorted(t.socket, self._ids(t.socket))
        out = []
        for n in self.numa_order():
            out += self._sorted(t.socket, self._ids(t.socket, t.cpus_in(t.numa, n)))
        return out

    def core_order(self) -> list[int]:
        t = self.topo
        out = []
        if t.numa_first:
            for s in self.socket_order():
                out += self._sorted(t.core, self._ids(t.core, t.cpus_in(t.socket, s)))
        else:
            for n in self.numa_order():
                out += self._sorted(t.core, self._ids(t.core, t.cpus_in(t.numa, n)))
        return out

    # --- taking ----------------------------------------------------------
    def _take(self, cpus: list[int]) -> None:
        self.result += cpus
        self.free.difference_update(cpus)
        self.needed -= len(cpus)

    def _take_whole(self, table: dict[int, int], order: list[int]) -> None:
        # a unit is free when every CPU of it is still free (the contract's
        # reading of a free socket too; see docs/operations/kubelet.md)
        units = [u for u in order if self._count(table, u) == len(self.topo.cpus_in(table, u))]
        for u in units:
            cpus = self.topo.cpus_in(table, u)
            if self.needed >= len(cpus):
                self._take(sorted(cpus))

    def take_full_numa(self) -> None:
        self._take_whole(self.topo.numa, self.numa_order())

    def take_full_sockets(self) -> None:
        self._take_whole(self.topo.socket, self.socket_order())

    def take_full_cores(self) -> None:
        self._take_whole(self.topo.core, self.core_order())

    def take_threads(self) -> None:
        order = [c for core in self.core_order() for c in sorted(x for x in self.free if self.topo.core[x] == core)]
        for cpu in order:
            if self.needed < 1:
                return
            self._take([cpu])


def take_packed(topo: CPUTopology, available: Iterable[int], n: int) -> list[int]:
    """n CPUs of `available` (the caller has checked there are enough)."""
    acc = _Accumulator(topo, available, n)
    if n <= 0:
        return []
    steps = ([acc.take_full_numa, acc.take_full_sockets] if topo.numa_first
             else [acc.take_full_sockets, acc.take_full_numa])
    for step in steps + [acc.take_full_cores, acc.take_threads]:
        step()
        if acc.needed < 1:
            break
    return sorted(acc.result)
