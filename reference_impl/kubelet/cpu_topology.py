"""The CPU topology the static CPU policy sees (sockets, NUMA nodes, cores
and their hardware threads) and its packed choice of CPUs.

`take_packed` follows the order upstream's topology-aware best fit
(`takeByTopologyNUMAPacked` in cpumanager/cpu_assignment.go) documents: whole
NUMA nodes and sockets first, then whole cores, then single threads, each
level visited from the fullest (fewest free CPUs) to the emptiest, ties by id.
"""

from __future__ import annotations

import itertools
import math
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


def _std_dev(values: list[int]) -> float:
    """Population standard deviation, mean and result rounded to three
    decimals as upstream rounds them (two spreads equal to the third decimal
    are a tie)."""
    mean = round(sum(values) / len(values) * 1000) / 1000
    var = sum((v - mean) ** 2 for v in values) / len(values)
    return round(math.sqrt(var) * 1000) / 1000


def _spread_remainder(after: dict[int, int], subset: tuple[int, ...], remainder: int, group: int) -> dict[int, int] | None:
    """Hand `remainder` CPUs out over `subset` a group at a time, round
    robin; None when a round hands out nothing (upstream would loop there
    for ever; no case reaches it)."""
    left = dict(after)
    while remainder > 0:
        progressed = False
        for numa in subset:
            if remainder == 0:
                break
            if left[numa] < group:
                continue
            left[numa] -= group
            remainder -= group
            progressed = True
        if not progressed:
            return None
    return left


def take_distributed(topo: CPUTopology, available: Iterable[int], n: int, group: int) -> list[int]:
    """n CPUs spread evenly over the fewest NUMA nodes that can share them in
    groups of `group` CPUs (distribute-cpus-across-numa; upstream's
    takeByTopologyNUMADistributed as its documentation states it): for k
    NUMA nodes from the fewest that could hold the request, every k-subset in
    the packed NUMA order gets n // k (in whole groups) from each node, the
    remainder a group at a time from the subset of those nodes that leaves
    the free CPUs of all nodes most even (smallest standard deviation, the
    first found on a tie); the most even k-subset wins. None fits: packed."""
    available = list(available)
    if n <= 0:
        return []
    if n % group:
        return take_packed(topo, available, n)
    acc = _Accumulator(topo, available, n)
    numas = acc.numa_order()
    free = {m: acc._count(topo.numa, m) for m in numas}
    # the fewest and most NUMA nodes that could hold n, as upstream bounds them
    all_numas = set(topo.numa.values())
    groups_total = (len(topo.numa) - 1) // group + 1
    groups_per_numa = (groups_total - 1) // len(all_numas) + 1
    groups_needed = (n - 1) // group + 1
    min_k = (groups_needed - 1) // groups_per_numa + 1
    max_k = min(groups_needed, len(numas))
    for k in range(min_k, max_k + 1):
        best: tuple[float, tuple[int, ...], tuple[int, ...] | None] | None = None
        for combo in itertools.combinations(numas, k):
            if best is not None and best[0] == 0:
                break
            if sum(free[m] for m in combo) < n or sum(free[m] // group for m in combo) * group < n:
                continue
            share = n // k // group * group
            if any(free[m] < share for m in combo):
                continue
            after = dict(free)
            for m in combo:
                after[m] -= share
            remainder = n - share * k
            local: tuple[float, tuple[int, ...] | None] = (math.inf, None)
            if remainder == 0:
                local = (_std_dev(list(after.values())), None)
            candidates = [m for m in combo if after[m] >= group]
            for size in range(len(candidates), 0, -1):
                if remainder <= 0:
                    break
                for subset in itertools.combinations(candidates, size):
                    if sum(after[m] for m in subset) < remainder:
                        continue
                    left = _spread_remainder(after, subset, remainder, group)
                    if left is None:
                        continue
                    balance = _std_dev(list(left.values()))
                    if balance < local[0]:
                        local = (balance, subset)
            if best is None or local[0] < best[0]:
                if local[0] < math.inf:
                    best = (local[0], combo, local[1])
        if best is None:
            continue
        _, combo, remainder_nodes = best
        share = n // len(combo) // group * group
        for m in combo:
            acc._take(take_packed(topo, [c for c in acc.free if topo.numa[c] == m], share))
        remainder = n - share * len(combo)
        while remainder > 0:
            for m in remainder_nodes or ():
                if remainder == 0:
                    break
                pool = [c for c in acc.free if topo.numa[c] == m]
                if len(pool) < group:
                    continue
                acc._take(take_packed(topo, pool, group))
                remainder -= group
        return sorted(acc.result)
    return take_packed(topo, available, n)
