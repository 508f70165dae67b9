"""Device manager: device-plugin resources with the NUMA node their devices
report, as a hint provider."""

from __future__ import annotations

from ... import quantity
from ..hints import TopologyHint, mask_hints
from ..node import NodeState
from ..pods import Container, Pod, pod_level
from . import AllocationError


class DeviceManager:
    name = "devices"

    def __init__(self, state: NodeState):
        self.state = state
        self.nodes = sorted(state.nodes)
        # (pod, container) -> resource -> device ids
        self.assignments: dict[tuple[str, str], dict[str, list[str]]] = {}
        self.reusable: dict[str, dict[str, set[str]]] = {}

    def requests(self, c: Container) -> dict[str, int]:
        out = {}
        source = c.limits if c.limits else c.requests
        for name, q in source.items():
            if name in self.state.device_node:
                n = quantity.value(q)
                if n > 0:
                    out[name] = n
        return out

    def has_topology(self, resource: str) -> bool:
        return any(node is not None for node in self.state.device_node[resource].values())

    def available(self, resource: str) -> set[str]:
        return set(self.state.device_node[resource]) - self.state.allocated_devices[resource]

    # --- hints ----------------------------------------------------------
    def hints(self, pod: Pod, c: Container):
        return self._hints_for(pod, self.requests(c))

    def pod_hints(self, pod: Pod):
        return self._hints_for(pod, pod_level(pod, self.requests))

    def _hints_for(self, pod: Pod, request: dict[str, int]):
        out: dict[str, list[TopologyHint] | None] = {}
        for resource, n in request.items():
            if not self.has_topology(resource):
                out[resource] = None
                continue
            available = self.available(resource)
            reusable = self.reusable.get(pod.name, {}).get(resource, set())
            if len(available | reusable) < n:
                out[resource] = []
                continue
            out[resource] = self._generate(resource, available, reusable, n)
        return out

    def _generate(self, resource: str, available: set[str], reusable: set[str], request: int) -> list[TopologyHint]:
        where = self.state.device_node[resource]
        allocated = self.state.allocated_devices[resource]
        total = {n: 0 for n in self.nodes}
        used = {n: 0 for n in self.nodes}
        free = {n: 0 for n in self.nodes}
        for d, node in where.items():
            if node is None:
                continue
            total[node] += 1
            if d in allocated:
                used[node] += 1
            if d in available:
                free[node] += 1
        reusable_nodes = {where[d] for d in reusable if where.get(d) is not None}
        # masks are built from the NUMA nodes that host this resource's devices
        # only: a node without any adds nothing a hint could use
        nodes = sorted({node for node in where.values() if node is not None and node in total}) or self.nodes
        reusable_with_topology = sum(1 for d in reusable if where.get(d) is not None)
        return mask_hints(nodes, request, capacity=total, free=free, reusable_nodes=reusable_nodes,
                          reusable=reusable_with_topology, used=used, allocatable=total)

    # --- allocation -----------------------------------------------------
    def allocate_pod(self, pod: Pod, hint: TopologyHint) -> None:
        """AllocatePod: the device manager has no pod-level allocation, so a
        pod admitted on the pod-level path gets no devices at admission."""

    def allocate(self, pod: Pod, c: Container, hint: TopologyHint) -> None:
        key = (pod.name, c.name)
        if key in self.assignments:
            return
        for other in [p for p in self.reusable if p != pod.name]:
            del self.reusable[other]
        reuse_table = self.reusable.setdefault(pod.name, {})
        given: dict[str, list[str]] = {}
        self.assignments[key] = given
        for resource, n in self.requests(c).items():
            if not self.state.device_node[resource]:
                # a plugin that reports no devices fails before any counting
                raise AllocationError(f"no healthy devices present; cannot allocate unhealthy devices {resource}")
            chosen = sorted(reuse_table.get(resource, set()))[:n]
            needed = n - len(chosen)
            if needed > 0:
                available = self.available(resource)
                if len(available) < needed:
                    raise AllocationError(
                        f"requested number of devices unavailable for {resource}. Requested: {needed}, Available: {len(available)}"
                    )
                chosen += self._ordered(resource, available, hint)[:needed]
            self.state.allocated_devices[resource].update(chosen)
            given[resource] = sorted(chosen)
            if c.regular_init:
                reuse_table.setdefault(resource, set()).update(chosen)
            else:
                reuse_table.setdefault(resource, set()).difference_update(chosen)

    def _ordered(self, resource: str, available: set[str], hint: TopologyHint) -> list[str]:
        """Devices on the affinity's nodes first, then other nodes, then
        devices without topology. Within a group the device manager leaves the
        pick to the plugin (its own sorting is lost in a set), and the
        contract's plugins prefer the lowest NUMA node id."""
        where = self.state.device_node[resource]
        if hint.mask is None or not self.has_topology(resource):
            return sorted(available)
        per_node: dict[int, list[str]] = {}
        loose: list[str] = []
        for d in sorted(available):
            node = where[d]
            if node is None:
                loose.append(d)
            else:
                per_node.setdefault(node, []).append(d)
        inside = sorted(n for n in per_node if hint.mask >> n & 1)
        outside = sorted(n for n in per_node if not hint.mask >> n & 1)
        ordered = [d for n in inside for d in per_node[n]]
        ordered += [d for n in outside for d in per_node[n]]
        return ordered + loose

    def release(self, pod_name: str) -> None:
        for key in [k for k in self.assignments if k[0] == pod_name]:
            for resource, devs in self.assignments.pop(key).items():
                still = {d for v in self.assignments.values() for d in v.get(resource, [])}
                self.state.allocated_devices[resource].difference_update(d for d in devs if d not in still)
        self.reusable.pop(pod_name, None)

    def container_devices(self, pod_name: str, container: str) -> dict[str, list[str]]:
        return self.assignments.get((pod_name, container), {})
