"""CPU manager, static policy: exclusive CPUs for Guaranteed pods' containers
with integer CPU requests."""

from __future__ import annotations

from ...numa import bitmask
from .. import pod_level
from ..cpu_options import CPUPolicyOptions
from ..cpu_topology import take_distributed, take_packed
from ..hints import TopologyHint, mask_hints
from ..node import NodeState
from ..pods import Container, Pod, guaranteed_cpus
from . import AllocationError, EmptyPodSharedPoolError

SMT_ALIGNMENT_ERROR = "SMTAlignmentError"


class SMTAlignmentError(AllocationError):
    """full-pcpus-only refuses a request that does not fill whole cores; the
    kubelet reports it under its own reason, not as an unexpected error."""

    reason = SMT_ALIGNMENT_ERROR

RESOURCE = "cpu"


class CPUManager:
    name = "cpu"

    def __init__(self, state: NodeState, static: bool = True, options: CPUPolicyOptions | None = None,
                 pod_level_managers: bool = False):
        self.state = state
        self.static = static
        self.options = options or CPUPolicyOptions()
        # PodLevelResourceManagers: whether pods with pod-level resources are
        # handled (else the manager leaves them alone)
        self.pod_level_managers = pod_level_managers
        self.assignments: dict[tuple[str, str], list[int]] = {}
        # the CPUs a pod-level pod holds as a whole, per pod
        self.pod_cpus: dict[str, list[int]] = {}
        self.reusable: dict[str, set[int]] = {}
        # NUMA nodes the CPU topology knows: those that have CPUs
        self.nodes = sorted(n for n in state.nodes if state.cpus_by_node[n])

    def _request(self, pod: Pod, c: Container) -> int:
        if pod_level.ignored(pod, self.pod_level_managers):
            return 0
        if pod_level.managed(pod, self.pod_level_managers):
            return pod_level.container_cpus(pod, c)
        return guaranteed_cpus(pod, c)

    # --- hints ----------------------------------------------------------
    def hints(self, pod: Pod, c: Container):
        if not self.static:
            return None
        request = self._request(pod, c)
        if request == 0:
            return None
        return {RESOURCE: self._generate(self.reusable.get(pod.name, set()), request)}

    def pod_hints(self, pod: Pod):
        if not self.static or pod_level.ignored(pod, self.pod_level_managers):
            return None
        if pod_level.managed(pod, self.pod_level_managers):
            request = pod_level.pod_cpus(pod)
            if request and pod_level.empty_shared_pool(pod):
                # no possible affinity: the policies that need one reject the pod
                return {RESOURCE: []}
        else:
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
        n = self._request(pod, c)
        if n == 0:
            return
        key = (pod.name, c.name)
        if key in self.assignments:
            return
        self._check_smt(n)
        for other in [p for p in self.reusable if p != pod.name]:
            del self.reusable[other]
        reusable = self.reusable.setdefault(pod.name, set())
        taken = self._allocate_cpus(n, hint, reusable)
        self.assignments[key] = taken
        if c.regular_init:
            reusable.update(taken)
        else:
            # app containers and sidecars keep what they took
            reusable.difference_update(taken)

    def allocate_pod(self, pod: Pod, hint: TopologyHint) -> None:
        """AllocatePod: the pod's whole budget taken at once on the hint (the
        hint stored for its first container), then shared out inside it. An
        init container with CPUs of its own takes them from what the
        restartable init containers before it left; a regular one without
        runs on all of that. App containers take theirs one after another
        from what the restartable init containers left; every other
        container runs on what remains (the pod's shared pool)."""
        if not self.static or not pod_level.managed(pod, self.pod_level_managers):
            return
        total = pod_level.pod_cpus(pod)
        if total == 0:
            return
        # checked again here: best-effort admits the empty hint list
        reason = pod_level.empty_shared_pool(pod)
        if reason:
            raise EmptyPodSharedPoolError(reason)
        self._check_smt(total)
        bubble = self._allocate_cpus(total, hint, set())
        self.pod_cpus[pod.name] = bubble
        own: dict[str, list[int]] = {}
        sidecars: set[int] = set()
        for c in pod.init_containers:
            runnable = [cpu for cpu in bubble if cpu not in sidecars]
            n = pod_level.container_cpus(pod, c)
            if n:
                own[c.name] = sorted(self._take(runnable, n))
                if c.restartable:
                    sidecars.update(own[c.name])
            elif not c.restartable:
                own[c.name] = runnable
        shared = [cpu for cpu in bubble if cpu not in sidecars]
        for c in pod.containers:
            n = pod_level.container_cpus(pod, c)
            if n:
                own[c.name] = sorted(self._take(shared, n))
                shared = [cpu for cpu in shared if cpu not in set(own[c.name])]
        for c in pod.all_containers:
            self.assignments[(pod.name, c.name)] = own.get(c.name, shared)

    def _allocate_cpus(self, n: int, hint: TopologyHint, reusable: set[int]) -> list[int]:
        """n CPUs from the free and reusable ones, the hint's NUMA nodes
        first; they leave the free set."""
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
        return taken

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
        # a pod-level pod's budget goes back whole, shared pool included
        self.state.free_cpus.update(self.pod_cpus.pop(pod_name, []))
        self.reusable.pop(pod_name, None)

    def container_cpus(self, pod_name: str, container: str) -> list[int]:
        return self.assignments.get((pod_name, container), [])
