"""Memory manager, Static policy: memory and hugepages per NUMA node for
Guaranteed pods, with its multi-NUMA groups."""

from __future__ import annotations

from ... import quantity
from ...numa import bitmask
from .. import pod_level as level
from ..hints import TopologyHint, utilisation_score
from ..node import NodeState
from ..pods import MEMORY, Container, Pod, is_memory_resource, pod_level
from . import AllocationError, EmptyPodSharedPoolError


def requested(c: Container) -> dict[str, int]:
    return {name: quantity.value(q) for name, q in c.requests.items() if is_memory_resource(name)}


def not_whole_bytes(c: Container) -> bool:
    """Upstream reads memory and hugepages requests with Quantity.AsInt64,
    which fails on a fraction of a byte (`100m` of memory): the provider then
    gives no hints and its Allocate fails."""
    return any(q.denominator != 1 for name, q in c.requests.items() if is_memory_resource(name))


INT64_FAILURE = "[memorymanager] failed to represent quantity as int64"


class MemoryManager:
    name = "memory"

    def __init__(self, state: NodeState, static: bool = True, pod_level_managers: bool = False):
        self.state = state
        self.static = static
        # PodLevelResourceManagers (see CPUManager)
        self.pod_level_managers = pod_level_managers
        # a pod-level pod's budget: pod -> (mask, memory type -> NUMA node -> bytes reserved)
        self.pod_budgets: dict[str, tuple[int, dict[str, dict[int, int]]]] = {}
        # (pod, container) -> memory type -> NUMA node -> bytes, inside a pod-level budget
        self.shares: dict[tuple[str, str], dict[str, dict[int, int]]] = {}
        self.nodes = sorted(state.nodes)
        # (pod, container) -> memory type -> NUMA node -> bytes
        self.blocks: dict[tuple[str, str], dict[str, dict[int, int]]] = {}
        # (pod, container) -> the mask its blocks were placed on
        self.block_masks: dict[tuple[str, str], int] = {}
        # (pod, container) -> memory type -> NUMA node -> bytes newly reserved
        self.fresh: dict[tuple[str, str], dict[str, dict[int, int]]] = {}
        # pod -> mask -> memory type -> bytes an app container may reuse
        self.reusable: dict[str, dict[int, dict[str, int]]] = {}
        # regular init containers whose memory went back to the node when the pod started
        self.exited: set[tuple[str, str]] = set()

    def _reusable(self, pod: Pod, mask: int, kind: str) -> int:
        return self.reusable.get(pod.name, {}).get(mask, {}).get(kind, 0)

    def _requested(self, pod: Pod, c: Container) -> dict[str, int]:
        if level.managed(pod, self.pod_level_managers):
            return level.container_memory(pod, c)
        return requested(c)

    # --- hints ----------------------------------------------------------
    # A pod with pod-level resources is left alone while
    # PodLevelResourceManagers is off: no hints, nothing allocated.
    def hints(self, pod: Pod, c: Container):
        if not self.static or not pod.guaranteed or level.ignored(pod, self.pod_level_managers):
            return None
        if not_whole_bytes(c):
            return None
        request = self._requested(pod, c)
        if not request:
            return None
        return self._calculate(pod, request)

    def pod_hints(self, pod: Pod):
        if not self.static or not pod.guaranteed or level.ignored(pod, self.pod_level_managers):
            return None
        if level.managed(pod, self.pod_level_managers):
            budget = level.pod_memory(pod)
            if level.empty_memory_pool(pod):
                # no possible affinity for any type of the budget
                return {kind: [] for kind in budget}
            return self._calculate(pod, budget) if budget else None
        if any(not_whole_bytes(c) for c in [*pod.init_containers, *pod.containers]):
            return None
        return self._calculate(pod, self.pod_request(pod))

    @staticmethod
    def pod_request(pod: Pod) -> dict[str, int]:
        demand = pod_level(pod, requested)
        app_kinds = {k for c in pod.containers for k in requested(c)}
        return {k: v for k, v in demand.items() if k in app_kinds}

    def _calculate(self, pod: Pod, request: dict[str, int]) -> dict[str, list[TopologyHint]]:
        st = self.state
        min_size = len(self.nodes)
        found: list[int] = []
        for mask in bitmask.iterate_masks(self.nodes):
            members = bitmask.bits(mask)
            single = len(members) == 1
            if any(sum(st.memory[n][k].allocatable if k in st.memory[n] else 0 for n in members) < size
                   for k, size in request.items()):
                continue
            if len(members) < min_size:
                min_size = len(members)
            if single and len(st.cells[members[0]]) > 1:
                continue
            if not single and any(
                st.assignments[n] > 0 and (len(st.cells[n]) == 1 or set(st.cells[n]) != set(members)) for n in members
            ):
                continue
            if any(
                sum(st.memory[n][k].free if k in st.memory[n] else 0 for n in members) + self._reusable(pod, mask, k) < size
                for k, size in request.items()
            ):
                continue
            found.append(mask)
        out: dict[str, list[TopologyHint]] = {}
        for kind in request:
            hints = []
            for mask in found:
                members = bitmask.bits(mask)
                reserved = sum(st.memory[n][kind].reserved for n in members if kind in st.memory[n])
                allocatable = sum(st.memory[n][kind].allocatable for n in members if kind in st.memory[n])
                hints.append(TopologyHint(mask, mask.bit_count() == min_size, utilisation_score(reserved, allocatable)))
            if hints:
                out[kind] = hints
        return out

    # --- allocation -----------------------------------------------------
    def _satisfies(self, mask: int, request: dict[str, int]) -> bool:
        members = bitmask.bits(mask)
        st = self.state
        return all(sum(st.memory[n][k].free if k in st.memory[n] else 0 for n in members) >= size
                   for k, size in request.items())

    def _violates(self, mask: int) -> bool:
        members = bitmask.bits(mask)
        if len(members) == 1:
            return False
        st = self.state
        return any(st.assignments[n] > 0 and (len(st.cells[n]) == 1 or set(st.cells[n]) != set(members)) for n in members)

    @staticmethod
    def _best(hints: list[TopologyHint]) -> TopologyHint:
        for h in hints:
            if h.preferred:
                return h
        return hints[0]

    def allocate(self, pod: Pod, c: Container, hint: TopologyHint) -> None:
        if not self.static or not pod.guaranteed or level.ignored(pod, self.pod_level_managers):
            return
        key = (pod.name, c.name)
        if key in self.blocks:
            return
        for other in [p for p in self.reusable if p != pod.name]:
            del self.reusable[other]
        if not_whole_bytes(c):
            raise AllocationError(INT64_FAILURE)
        request = self._requested(pod, c)
        if not request:
            return
        best = self._resolve(pod, hint, request)
        members = bitmask.bits(best.mask)
        placed: dict[str, dict[int, int]] = {}
        fresh: dict[str, dict[int, int]] = {}
        for kind, size in request.items():
            reuse = min(size, self._reusable(pod, best.mask, kind))
            per_node = self._reserve(members, kind, size - reuse)
            fresh[kind] = dict(per_node)
            if reuse:
                self._take_over(pod, c, best.mask, kind, reuse, fresh[kind])
            if reuse:
                # reused bytes already sit on the mask; show them on its first node
                per_node[members[0]] = per_node.get(members[0], 0) + reuse
            placed[kind] = {n: per_node[n] for n in sorted(per_node)}
        self.blocks[key] = placed
        self.fresh[key] = fresh
        self.block_masks[key] = best.mask
        self._update_reusable(pod, c, best.mask, request)

    def _reserve(self, members: list[int], kind: str, remaining: int) -> dict[int, int]:
        """One block of a memory type on a mask: every node of the mask counts
        one more assignment and joins the group; the bytes come from the
        nodes in id order, as much as each has free."""
        st = self.state
        per_node: dict[int, int] = {}
        for n in members:
            st.assignments[n] += 1
            st.cells[n] = tuple(members)
            cell = st.memory[n].get(kind)
            if remaining == 0 or cell is None or cell.free <= 0:
                continue
            take = min(cell.free, remaining)
            cell.reserved += take
            remaining -= take
            per_node[n] = per_node.get(n, 0) + take
        return per_node

    def _resolve(self, pod: Pod, hint: TopologyHint, request: dict[str, int]) -> TopologyHint:
        """The mask a request is placed on: the stored hint, or the default
        hint when it is nil, extended when it does not hold the request."""
        best = hint
        if best.mask is None:
            hints = self._calculate(pod, request)
            if not hints:
                raise AllocationError(
                    "[memorymanager] failed to get the default NUMA affinity, no NUMA nodes with enough memory is available"
                )
            default = self._best(hints.get(MEMORY) or next(iter(hints.values())))
            if not default.preferred and hint.preferred:
                raise AllocationError("[memorymanager] failed to find the default preferred hint")
            best = default
        if not self._satisfies(best.mask, request):
            hints = self._calculate(pod, request)
            candidates = [h for h in hints.get(MEMORY, []) if h.mask & best.mask == best.mask]
            if not candidates:
                raise AllocationError("[memorymanager] failed to find NUMA nodes to extend the current topology hint")
            extended = self._best(candidates)
            if not extended.preferred and best.preferred:
                raise AllocationError("[memorymanager] failed to find the extended preferred hint")
            best = extended
        if self._violates(best.mask):
            raise AllocationError("[memorymanager] preferred hint violates NUMA node allocation")
        return best

    def _take_over(self, pod: Pod, c: Container, mask: int, kind: str, amount: int, into: dict[int, int]) -> None:
        """Bytes a container reuses stop belonging to the earlier regular init
        containers on the same mask (first declared first) and become its own,
        so the node's reserved total stays the sum of the pod's live blocks."""
        for init in pod.init_containers:
            if init.name == c.name or amount == 0:
                break
            key = (pod.name, init.name)
            if not init.regular_init or self.block_masks.get(key) != mask:
                continue
            held = self.fresh.get(key, {}).get(kind, {})
            for n in sorted(held):
                moved = min(held[n], amount)
                held[n] -= moved
                into[n] = into.get(n, 0) + moved
                amount -= moved
                if amount == 0:
                    break

    def allocate_pod(self, pod: Pod, hint: TopologyHint) -> None:
        """AllocatePod: the pod's whole memory budget reserved at once on the
        hint (default or extended as for a container), then shared out as
        blocks on the same mask: an init container with memory of its own
        gets its requests, a regular one without gets the budget minus the
        restartable init containers before it; app containers with memory of
        their own get their requests, and every other container the budget
        minus all restartable init and those app containers (the shared
        pool). The blocks inside a budget reserve nothing more."""
        if not self.static or not pod.guaranteed or not level.managed(pod, self.pod_level_managers):
            return
        reason = level.empty_memory_pool(pod)
        if reason:
            raise EmptyPodSharedPoolError(reason)
        budget = level.pod_memory(pod)
        best = self._resolve(pod, hint, budget)
        members = bitmask.bits(best.mask)
        reserved = {kind: self._reserve(members, kind, size) for kind, size in sorted(budget.items())}
        self.pod_budgets[pod.name] = (best.mask, reserved)
        own: dict[str, dict[str, int]] = {}
        sidecars: dict[str, int] = {}
        for c in pod.init_containers:
            request = level.container_memory(pod, c)
            if not request:
                if not c.restartable:
                    own[c.name] = {k: v - sidecars.get(k, 0) for k, v in budget.items()}
                continue
            own[c.name] = dict(request)
            if c.restartable:
                for k, v in request.items():
                    sidecars[k] = sidecars.get(k, 0) + v
        pool = {k: v - sidecars.get(k, 0) for k, v in budget.items()}
        for c in pod.containers:
            request = level.container_memory(pod, c)
            if request:
                own[c.name] = dict(request)
                for k, v in request.items():
                    pool[k] = pool.get(k, 0) - v
        for c in pod.all_containers:
            sizes = own.get(c.name, pool)
            # a block spanning several nodes records only its size: shown on the mask's first node
            self.shares[(pod.name, c.name)] = {k: {members[0]: v} for k, v in sorted(sizes.items()) if v > 0}

    def start(self, pod: Pod) -> None:
        """The admitted pod's containers start: regular init containers have
        run to completion, so what they still hold goes back to the node
        (upstream memorymanager AddContainer removes them)."""
        st = self.state
        for init in pod.init_containers:
            key = (pod.name, init.name)
            if not init.regular_init or key not in self.blocks or key in self.exited:
                continue
            members = bitmask.bits(self.block_masks[key])
            self._release_blocks(self.fresh.pop(key, {}), members)
            self.fresh[key] = {}
            for _ in self.blocks[key]:
                for n in members:
                    st.assignments[n] = max(0, st.assignments[n] - 1)
            self.exited.add(key)
        for n in self.nodes:
            if st.assignments[n] == 0:
                st.cells[n] = (n,)

    def _update_reusable(self, pod: Pod, c: Container, mask: int, request: dict[str, int]) -> None:
        table = self.reusable.setdefault(pod.name, {})
        if c.regular_init:
            per_mask = table.setdefault(mask, {})
            for kind, size in request.items():
                if size > per_mask.get(kind, 0):
                    per_mask[kind] = size
            return
        for kind, size in request.items():
            have = table.get(mask, {}).get(kind, 0)
            if have:
                table[mask][kind] = 0 if size >= have else have - size

    def _release_blocks(self, held: dict[str, dict[int, int]], members: list[int]) -> None:
        """Give a container's memory back as upstream's static policy does: it
        keeps only each block's size and mask, so the size is taken off the
        mask's nodes in id order, as much as each still has reserved, wherever
        the bytes were first placed (on a multi-NUMA group the per-node split
        can drift from the one allocation made)."""
        for kind, per_node in held.items():
            remaining = sum(per_node.values())
            for n in members:
                cell = self.state.memory[n].get(kind)
                if remaining == 0:
                    break
                if cell is None or cell.reserved == 0:
                    continue
                released = min(cell.reserved, remaining)
                cell.reserved -= released
                remaining -= released

    def release(self, pod_name: str) -> None:
        st = self.state
        for key in [k for k in self.blocks if k[0] == pod_name]:
            placed = self.blocks.pop(key)
            members = bitmask.bits(self.block_masks.pop(key))
            self._release_blocks(self.fresh.pop(key), members)
            if key in self.exited:
                self.exited.discard(key)
                continue
            for _ in placed:
                for n in members:
                    st.assignments[n] = max(0, st.assignments[n] - 1)
        if pod_name in self.pod_budgets:
            mask, reserved = self.pod_budgets.pop(pod_name)
            members = bitmask.bits(mask)
            self._release_blocks(reserved, members)
            for _ in reserved:
                for n in members:
                    st.assignments[n] = max(0, st.assignments[n] - 1)
            for key in [k for k in self.shares if k[0] == pod_name]:
                del self.shares[key]
        for n in self.nodes:
            if st.assignments[n] == 0:
                st.cells[n] = (n,)
        self.reusable.pop(pod_name, None)

    def container_memory(self, pod_name: str, container: str) -> dict[str, dict[int, int]]:
        return self.blocks.get((pod_name, container)) or self.shares.get((pod_name, container), {})
