"""CPU set selection inside a node: which logical CPUs a CPU-bound pod gets, given
the bind policy, the exclusive policy and the NUMA allocate strategy.

The search order (NUMA node, then socket, then whole sockets, then anything) and
the sort keys follow upstream's accumulator. A CPU may be held by up to
`max_ref_count` pods; when that is above 1, the CPUs held fewest times are taken
first among otherwise equal candidates (`ref_counts`: holds per CPU)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .topology import CPUTopology

FULL_PCPUS, SPREAD_BY_PCPUS, DEFAULT = "FullPCPUs", "SpreadByPCPUs", "Default"
EXCL_NONE, EXCL_PCPU, EXCL_NUMA = "None", "PCPULevel", "NUMANodeLevel"
MOST_ALLOCATED, LEAST_ALLOCATED, DISTRIBUTE_EVENLY = "MostAllocated", "LeastAllocated", "DistributeEvenly"


class CPUAllocationError(Exception):
    pass


class _Accumulator:
    def __init__(self, topology: CPUTopology, available: Iterable[int], allocated: Mapping[int, str],
                 need: int, exclusive: str, strategy: str,
                 ref_counts: Mapping[int, int] | None = None, max_ref_count: int = 1):
        self.topo = topology
        # Hold counts only order candidates when CPUs may be shared at all.
        self.refs = dict(ref_counts or {}) if max_ref_count > 1 else {}
        self.sharing = max_ref_count > 1
        self.free = {c: topology.cpus[c] for c in available if c in topology.cpus}
        self.need = need
        self.exclusive = exclusive
        self.most = strategy == MOST_ALLOCATED
        self.excl_cores = {topology.cpus[c].core for c, p in allocated.items() if p == EXCL_PCPU and c in topology.cpus}
        self.excl_nodes = {topology.cpus[c].node for c, p in allocated.items() if p == EXCL_NUMA and c in topology.cpus}
        self.result: list[int] = []

    # -- bookkeeping
    def take(self, cpus: Iterable[int]) -> None:
        for c in cpus:
            info = self.free.pop(c)
            self.result.append(c)
            self.need -= 1
            if self.exclusive == EXCL_PCPU:
                self.excl_cores.add(info.core)
            elif self.exclusive == EXCL_NUMA:
                self.excl_nodes.add(info.node)

    def satisfied(self) -> bool:
        return self.need < 1

    def _pcpu_excluded(self, info) -> bool:
        return self.exclusive == EXCL_PCPU and info.core in self.excl_cores

    def _numa_excluded(self, info) -> bool:
        return self.exclusive == EXCL_NUMA and info.node in self.excl_nodes

    def _order(self, free_count: int) -> int:
        # MostAllocated prefers the fewest free CPUs (bin-pack), otherwise the most.
        return free_count if self.most else -free_count

    def _ref(self, cpu: int) -> int:
        return self.refs.get(cpu, 0)

    def _core_ref(self, core: int) -> int:
        """Holds on the core's CPUs that are still candidates (0 when nothing is shared)."""
        if not self.sharing:
            return 0
        return sum(self._ref(c) for c, info in self.free.items() if info.core == core)

    def _by_ref(self, cpus: list[int]) -> list[int]:
        return sorted(cpus, key=lambda c: (self._ref(c), c)) if self.sharing else sorted(cpus)

    # -- candidate lists
    def _cores_sorted(self, cores: list[int], cpus_in_core: Mapping[int, list[int]]) -> list[int]:
        return sorted(cores, key=lambda core: (-len(cpus_in_core[core]), self._core_ref(core), core))

    def free_cores_in_node(self, filter_exclusive: bool) -> list[list[int]]:
        cpus_in_core: dict[int, list[int]] = {}
        socket_free: dict[int, int] = {}
        for info in self.free.values():
            if filter_exclusive and self._numa_excluded(info):
                continue
            cpus_in_core.setdefault(info.core, []).append(info.id)
            socket_free[info.socket] = socket_free.get(info.socket, 0) + 1
        per_core = self.topo.cpus_per_core()
        cores_in_node: dict[int, list[int]] = {}
        for core, cpus in cpus_in_core.items():
            if len(cpus) != per_core:
                continue
            cores_in_node.setdefault(self.topo.cpus[cpus[0]].node, []).append(core)
        lists: dict[int, list[int]] = {}
        for node, cores in cores_in_node.items():
            lists[node] = [c for core in self._cores_sorted(cores, cpus_in_core) for c in sorted(cpus_in_core[core])]
        order = sorted(lists, key=lambda n: (self._order(len(lists[n])),
                                             self._order(socket_free[self.topo.cpus[lists[n][0]].socket]), n))
        return [lists[n] for n in order]

    def free_cores_in_socket(self) -> list[list[int]]:
        cpus_in_core: dict[int, list[int]] = {}
        for info in self.free.values():
            cpus_in_core.setdefault(info.core, []).append(info.id)
        per_core = self.topo.cpus_per_core()
        cores_in_socket: dict[int, list[int]] = {}
        for core, cpus in cpus_in_core.items():
            if len(cpus) != per_core:
                continue
            cores_in_socket.setdefault(self.topo.cpus[cpus[0]].socket, []).append(core)
        lists = {s: [c for core in self._cores_sorted(cores, cpus_in_core) for c in sorted(cpus_in_core[core])]
                 for s, cores in cores_in_socket.items()}
        order = sorted(lists, key=lambda s: (self._order(len(lists[s])), s))
        return [lists[s] for s in order]

    def _one_per_core(self, cpus: list[int]) -> list[int]:
        seen: set[int] = set()
        out = []
        for c in cpus:
            core = self.topo.cpus[c].core
            if core not in seen:
                seen.add(core)
                out.append(c)
        return out

    def free_cpus_in_node(self, filter_exclusive: bool) -> list[list[int]]:
        lists: dict[int, list[int]] = {}
        node_free: dict[int, int] = {}
        socket_free: dict[int, int] = {}
        for info in self.free.values():
            if filter_exclusive and (self._pcpu_excluded(info) or self._numa_excluded(info)):
                continue
            lists.setdefault(info.node, []).append(info.id)
            node_free[info.node] = node_free.get(info.node, 0) + 1
            socket_free[info.socket] = socket_free.get(info.socket, 0) + 1
        for node in lists:
            lists[node] = self._by_ref(lists[node])
            if filter_exclusive:
                lists[node] = self._one_per_core(lists[node])
        order = sorted(lists, key=lambda n: (self._order(node_free[n]),
                                             self._order(socket_free[self.topo.cpus[lists[n][0]].socket]), n))
        return [lists[n] for n in order]

    def free_cpus_in_socket(self, filter_exclusive: bool) -> list[list[int]]:
        lists: dict[int, list[int]] = {}
        for info in self.free.values():
            if filter_exclusive and self._pcpu_excluded(info):
                continue
            lists.setdefault(info.socket, []).append(info.id)
        for s in lists:
            lists[s] = self._by_ref(lists[s])
            if filter_exclusive:
                lists[s] = self._one_per_core(lists[s])
        order = sorted(lists, key=lambda s: (self._order(len(lists[s])), s))
        return [lists[s] for s in order]

    def free_cpus(self, filter_exclusive: bool) -> list[int]:
        cpus_in_core: dict[int, list[int]] = {}
        core_socket: dict[int, int] = {}
        core_node: dict[int, int] = {}
        node_free: dict[int, int] = {}
        socket_free: dict[int, int] = {}
        for info in self.free.values():
            if filter_exclusive and (self._pcpu_excluded(info) or self._numa_excluded(info)):
                continue
            cpus_in_core.setdefault(info.core, []).append(info.id)
            core_socket[info.core] = info.socket
            core_node[info.core] = info.node
            node_free[info.node] = node_free.get(info.node, 0) + 1
            socket_free[info.socket] = socket_free.get(info.socket, 0) + 1
        taken_in_socket = {s: sum(1 for c in self.result if self.topo.cpus[c].socket == s) for s in socket_free}
        cores = sorted(cpus_in_core, key=lambda core: (
            -taken_in_socket[core_socket[core]],
            self._order(socket_free[core_socket[core]]),
            self._order(node_free[core_node[core]]),
            len(cpus_in_core[core]),
            core_socket[core],
            self._core_ref(core),
            core,
        ))
        return [c for core in cores for c in self._by_ref(cpus_in_core[core])]

    def spread(self, cpus: list[int]) -> list[int]:
        """Round-robin over cores: first one CPU of every core, then the second..."""
        if len(cpus) <= self.topo.cpus_per_core():
            return list(cpus)
        out: list[int] = []
        pending = list(cpus)
        while pending:
            seen: set[int] = set()
            rest = []
            for c in pending:
                core = self.topo.cpus[c].core
                if core in seen:
                    rest.append(c)
                else:
                    seen.add(core)
                    out.append(c)
            pending = rest
        return out


def take_cpus(topology: CPUTopology, available: Iterable[int], allocated: Mapping[int, str], need: int,
              bind_policy: str, exclusive: str = EXCL_NONE, strategy: str = MOST_ALLOCATED,
              ref_counts: Mapping[int, int] | None = None, max_ref_count: int = 1) -> list[int]:
    """Choose `need` CPUs out of `available`; `allocated` maps CPUs already held by
    other pods to the exclusive policy they were placed with, `ref_counts` to how
    many pods hold them."""
    acc = _Accumulator(topology, available, allocated, need, exclusive or EXCL_NONE, strategy,
                       ref_counts, max_ref_count)
    if acc.satisfied():
        return []
    if acc.need > len(acc.free):
        raise CPUAllocationError("not enough cpus available to satisfy request")
    per_core = topology.cpus_per_core()
    full = bind_policy == FULL_PCPUS
    if full or per_core == 1:
        if acc.need <= topology.cpus_per_node():
            for filter_exclusive in (True, False):
                for cpus in acc.free_cores_in_node(filter_exclusive):
                    if len(cpus) >= acc.need:
                        acc.take(cpus[:acc.need])
                        return sorted(acc.result)
        if acc.need <= topology.cpus_per_socket():
            for cpus in acc.free_cores_in_socket():
                if len(cpus) >= acc.need:
                    acc.take(cpus[:acc.need])
                    return sorted(acc.result)
        # Larger than a socket, or fragmented: whole sockets' free cores, largest first,
        # then core by core from the smallest remainders.
        lists = sorted(acc.free_cores_in_socket(), key=len, reverse=True)
        leftovers = []
        for cpus in lists:
            if acc.need < len(cpus):
                leftovers.append(cpus)
            else:
                acc.take(cpus)
                if acc.satisfied():
                    return sorted(acc.result)
        if acc.need >= per_core:
            done = False
            for cpus in sorted(leftovers, key=len):
                for i in range(0, len(cpus), per_core):
                    acc.take(cpus[i:i + per_core])
                    if acc.satisfied():
                        return sorted(acc.result)
                    if acc.need < per_core:
                        done = True
                        break
                if done:
                    break
    if not full:
        if acc.need <= topology.cpus_per_node():
            for filter_exclusive in (True, False):
                for cpus in acc.free_cpus_in_node(filter_exclusive):
                    if len(cpus) >= acc.need:
                        acc.take(acc.spread(cpus)[:acc.need])
                        return sorted(acc.result)
        if acc.need <= topology.cpus_per_socket():
            for filter_exclusive in (True, False):
                for cpus in acc.free_cpus_in_socket(filter_exclusive):
                    if len(cpus) >= acc.need:
                        acc.take(acc.spread(cpus)[:acc.need])
                        return sorted(acc.result)
    for filter_exclusive in (True, False):
        for c in acc.spread(acc.free_cpus(filter_exclusive)):
            if acc.need >= 1:
                acc.take([c])
            if acc.satisfied():
                return sorted(acc.result)
    raise CPUAllocationError("failed to allocate cpus")


def filter_by_required(policy: str, available: Iterable[int], topology: CPUTopology) -> set[int]:
    """The CPUs a required bind policy may use: whole free cores for FullPCPUs, the
    lowest free CPU of each core for SpreadByPCPUs."""
    available = set(available)
    by_core: dict[int, list[int]] = {}
    for c in available:
        by_core.setdefault(topology.cpus[c].core, []).append(c)
    per_core = topology.cpus_per_core()
    if policy == FULL_PCPUS:
        return {c for cpus in by_core.values() if len(cpus) == per_core for c in cpus}
    if policy == SPREAD_BY_PCPUS:
        return {min(cpus) for cpus in by_core.values()}
    return available


def satisfies_required(policy: str, cpus: Iterable[int], topology: CPUTopology) -> bool:
    cpus = list(cpus)
    cores = topology.cores_of(cpus)
    if policy == FULL_PCPUS:
        return len(cores) * topology.cpus_per_core() == len(cpus)
    if policy == SPREAD_BY_PCPUS:
        return len(cores) == len(cpus)
    return True
