"""CPU manager, static policy: exclusive CPUs for Guaranteed pods' containers
with integer CPU requests."""

from __future__ import annotations

from ...numa import bitmask
from ..cpu_options import CPUPolicyOptions
from ..cpu_topology import take_distributed, take_packed
from ..hints import TopologyHint, mask_hints
from ..node import NodeState
from ..pods import Container, Pod, guaranteed_cpus
from . import AllocationError

SMT_ALIGNMENT_ERROR = "SMTAlignmentError"


class SMTAlignmentError(AllocationError):
    """full-pcpus-only refuses a request that does not fill whole cores; the
    kubelet reports it under its own reason, not as an unexpected error."""

    reason = SMT_ALIGNMENT_ERROR

RESOURCE = "cpu"


class CPUManager:
    name = "cpu"

    def __init__(self, state: NodeState, static: bool = True, options: CPUPolicyOptions | None = None):
        self.state = state
        self.static = static
        self.options = options or CPUPolicyOptions()
        self.assignments: dict[tuple[str, str], list[int]] = {}
        self.reusable: dict[str, set[int]] = {}
        # NUMA nodes the CPU topology knows: those that have CPUs
        self.nodes = sorted(n for n in state.nodes if state.cpus_by_node[n])

    # --- hints ----------------------------------------------------------
    def hints(self, pod: Pod, c: Container):
        if not self.static:
            return None
        request = guaranteed_cpus(pod, c)
        if request == 0:
            return None
        return {RESOURCE: self._generate(self.reusable.get(pod.name, set()), request)}

    def pod_hints(self, pod: Pod):
        if not self.static:
            return None
        request = self.pod_request(pod)
        if request == 0:
            return None
        reusable = set(self.reusable.get(pod.name, set()))
        for (p, _), cpus in self.assignments.items():
            if p == pod.name:
                reusable.update(cpus)
        return {RESOURCE: self._generate(reusable, request)}

    @staticmethod
    def pod_request(pod: Pod) -> int:
        init_peak = 0
        sidecars = 0
        for c in pod.init_containers:
            n = guaranteed_cpus(pod, c)
            if c.restartable:
                sidecars += n
            elif sidecars + n > init_peak:
                init_peak = sidecars + n
        apps = sum(guaranteed_cpus(pod, c) for c in pod.containers)
        return max(init_peak, apps + sidecars)

    def _generate(self, reusable: set[int], request: int) -> list[TopologyHint]:
        st = self.state
        capacity = {n: len(st.cpus_by_node[n]) for n in self.nodes}
        free = {n: 0 for n in self.nodes}
        for cpu in st.free_cpus:
            free[st.cpu_node[cpu]] += 1
        reusable_nodes = {st.cpu_node[cpu] for cpu in reusable}
        allocatable = {n: st.allocatable_cpus([n]) for n in self.nodes}
        assigned = {n: st.assigned_cpus([n]) for n in self.nodes}
        hints = mask_hints(self.nodes, request, capacity=capacity, free=free, reusable_nodes=reusable_nodes,
                           reusable=len(reusable), used=assigned, allocatable=allocatable)
        if self.options.align_by_socket:
            hints = self._socket_aligned(hints, capacity, request)
        return hints

    def _socket_aligned(self, hints: list[TopologyHint], capacity: dict[int, int], request: int) -> list[TopologyHint]:
        """align-by-socket: a hint is preferred too when its NUMA nodes span
        exactly as many sockets as the narrowest mask needs, counting
        (NUMA nodes / sockets, integer division) NUMA nodes to a socket."""
        topo = self.state.cpu_topology
        sockets_of = {topo.numa[c]: topo.socket[c] for c in topo.numa}
        per_socket = len(self.nodes) // len(set(sockets_of.values()))
        if per_socket == 0:
            return hints
        widths = sorted(capacity.values(), reverse=True)
        min_width = len(self.nodes)
        for k in range(1, len(widths) + 1):
            if sum(widths[:k]) >= request:
                min_width = k
                break
        min_sockets = (min_width + per_socket - 1) // per_socket
        out = []
        for h in hints:
            spanned = {sockets_of[n] for n in bitmask.bits(h.mask)}
            out.append(TopologyHint(h.mask, h.preferred or len(spanned) == min_sockets, h.score))
        return out

    # --- allocation -----------------------------------------------------
    def allocate(self, pod: Pod, c: Container, hint: TopologyHint) -> None:
        if not self.static:
            return
        n = guaranteed_cpus(pod, c)
        if n == 0:
            return
        key = (pod.name, c.name)
        if key in self.assignments:
            return
        self._check_smt(n)
        for other in [p for p in self.reusable if p != pod.name]:
            del self.reusable[other]
        reusable = self.reusable.setdefault(pod.name, set())
        st = self.state
        pool = st.free_cpus | reusable
        taken: list[int] = []
        if hint.mask is not None:
            aligned = [cpu for cpu in pool if hint.mask >> st.cpu_node[cpu] & 1]
            if self.options.align_by_socket:
                # the hint's NUMA nodes widen to their whole sockets
                sockets = {st.cpu_topology.socket[cpu] for cpu in st.cpu_node if hint.mask >> st.cpu_node[cpu] & 1}
                aligned = [cpu for cpu in pool if st.cpu_topology.socket[cpu] in sockets]
            taken = self._take(aligned, min(n, len(aligned)))
        rest = [cpu for cpu in pool if cpu not in set(taken)]
        if n - len(taken) > len(rest):
            # the second take only asks for what the aligned CPUs left over
            raise AllocationError(
                f"not enough cpus available to satisfy request: requested={n - len(taken)}, available={len(rest)}"
            )
        taken += self._take(rest, n - len(taken))
        taken.sort()
        st.free_cpus.difference_update(taken)
        self.assignments[key] = taken
        if c.regular_init:
            reusable.update(taken)
        else:
            # app containers and sidecars keep what they took
            reusable.difference_update(taken)

    def _check_smt(self, n: int) -> None:
        """full-pcpus-only: whole cores only, counted against the free CPUs
        minus every thread of a core that holds a reserved CPU (CPUs an init
        container left for reuse are not free and do not count)."""
        if not self.options.full_pcpus_only:
            return
        st = self.state
        per_core = st.cpu_topology.threads_per_core
        if n % per_core:
            raise SMTAlignmentError(f"SMT Alignment Error: requested {n} cpus not multiple cpus per core = {per_core}")
        reserved_cores = {st.cpu_topology.core[c] for c in st.reserved_cpus}
        available = sum(1 for c in st.free_cpus if st.cpu_topology.core[c] not in reserved_cores)
        if n > available:
            raise SMTAlignmentError(
                "SMT Alignment Error: not enough free physical CPUs: "
                f"available physical CPUs = {available}, requested CPUs = {n}, CPUs per core = {per_core}"
            )

    def _take(self, cpus: list[int], n: int) -> list[int]:
        """Whole NUMA nodes and sockets, then whole cores, then single
        threads, fullest first (see cpu_topology.take_packed). Without
        hyperthreads and with one socket per NUMA node this is: whole free
        NUMA nodes first, the smallest first, then the nodes with the fewest
        candidates, lowest ids first. distribute-cpus-across-numa spreads the
        CPUs over NUMA nodes instead, in whole cores under full-pcpus-only."""
        topo = self.state.cpu_topology
        if self.options.distribute_across_numa:
            group = topo.threads_per_core if self.options.full_pcpus_only else 1
            return take_distributed(topo, cpus, n, group)
        return take_packed(topo, cpus, n)

    def release(self, pod_name: str) -> None:
        for key in [k for k in self.assignments if k[0] == pod_name]:
            cpus = self.assignments.pop(key)
            still_held = {cpu for k, v in self.assignments.items() for cpu in v}
            self.state.free_cpus.update(cpu for cpu in cpus if cpu not in still_held)
        self.reusable.pop(pod_name, None)

    def container_cpus(self, pod_name: str, container: str) -> list[int]:
        return self.assignments.get((pod_name, container), [])
