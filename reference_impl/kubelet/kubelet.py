"""A kubelet's pod admission path through the Topology Manager, over one node
whose allocation state persists across pods."""

from __future__ import annotations

from ..errors import InvalidInput
from ..numa import bitmask
from . import pod_level
from .cpu_options import CPUPolicyOptions
from .hints import TopologyHint
from .metrics import Metrics
from .node import NodeState
from .pods import MEMORY, Pod
from .policies import NONE
from .providers.cpu import CPUManager
from .providers.devices import DeviceManager
from .providers.memory import MemoryManager
from .scopes import (
    POD,
    POD_LEVEL_CONTAINER_SCOPE_MESSAGE,
    TOPOLOGY_AFFINITY_ERROR,
    AdmitResult,
    admit_container_scope,
    admit_pod_level,
    admit_pod_scope,
    admit_policy_none,
)
from .startup import Started

NO_TOPOLOGY = -1


class Kubelet:
    def __init__(self, started: Started, state: NodeState, cpu_static: bool = True, memory_static: bool = True,
                 cpu_options: CPUPolicyOptions | None = None):
        self.policy = started.policy
        self.scope = started.scope
        self.state = state
        self.pod_level_managers = started.gates.pod_level_resource_managers
        self.devices = DeviceManager(state)
        self.cpu = CPUManager(state, cpu_static, cpu_options, self.pod_level_managers)
        self.memory = MemoryManager(state, memory_static, self.pod_level_managers)
        # Linux registration order
        self.providers = (self.devices, self.cpu, self.memory)
        self.metrics = Metrics()
        self.hints: dict[tuple[str, str], TopologyHint] = {}
        self.pods: dict[str, Pod] = {}
        # Deleting a pod the kubelet rejected is an ordinary event that frees nothing.
        self.rejected: set[str] = set()

    # the store the providers read the merged affinity from
    def store(self, pod: str, container: str, hint: TopologyHint) -> None:
        self.hints[(pod, container)] = hint

    def affinity(self, pod: str, container: str) -> TopologyHint:
        return self.hints.get((pod, container), TopologyHint(None, False))

    def admit(self, pod: Pod) -> dict:
        if pod.name in self.pods:
            raise InvalidInput("events", f"pod {pod.name!r} is admitted already")
        managed = pod_level.managed(pod, self.pod_level_managers)
        self.metrics.admission_requests_total += 1
        if self.policy.name == NONE:
            result = admit_policy_none(self, pod)
        elif self.scope == POD:
            result = admit_pod_level(self, pod) if managed else admit_pod_scope(self, pod)
        else:
            result = admit_container_scope(self, pod)
            if managed and result.reason == TOPOLOGY_AFFINITY_ERROR:
                result = AdmitResult(False, TOPOLOGY_AFFINITY_ERROR, POD_LEVEL_CONTAINER_SCOPE_MESSAGE)
        entry = {
            "name": pod.name,
            "admitted": result.admitted,
            "reason": result.reason,
            "message": result.message,
            "containers": [self._container_entry(pod.name, c.name) for c in pod.all_containers if (pod.name, c.name) in self.hints],
        }
        if result.admitted:
            self.pods[pod.name] = pod
            self.memory.start(pod)
            self.rejected.discard(pod.name)
        else:
            self.rejected.add(pod.name)
            # policy none fails a pod without touching the counter: only the
            # container and pod scopes count their failures
            if self.policy.name != NONE:
                self.metrics.admission_errors_total += 1
            # stale-state cleanup: nothing of a rejected pod stays allocated
            self._release(pod.name)
        return entry

    def remove(self, name: str) -> None:
        if name in self.rejected and name not in self.pods:
            self.rejected.discard(name)
            return
        if name not in self.pods:
            raise InvalidInput("events", f"cannot remove {name!r}: no such admitted pod")
        del self.pods[name]
        self._release(name)

    def restart(self) -> None:
        """A kubelet restart: every manager restores its assignments from its
        checkpoint and each running pod is admitted again, keeping what it
        holds (its containers are already in the restored state, so no
        provider allocates anything). Nothing the contract reports changes;
        the re-admissions are not counted in the admission metrics."""

    def _release(self, name: str) -> None:
        for p in self.providers:
            p.release(name)
        for key in [k for k in self.hints if k[0] == name]:
            del self.hints[key]

    # --- reporting ------------------------------------------------------
    def _container_entry(self, pod: str, container: str) -> dict:
        hint = self.hints[(pod, container)]
        cpu_ids = self.cpu.container_cpus(pod, container)
        cpus: dict[str, int] = {}
        for cpu in cpu_ids:
            key = str(self.state.cpu_node[cpu])
            cpus[key] = cpus.get(key, 0) + 1
        blocks = self.memory.container_memory(pod, container)
        devices: dict[str, dict[str, int]] = {}
        for resource, ids in self.devices.container_devices(pod, container).items():
            if not ids:
                continue
            per = {}
            for d in ids:
                node = self.state.device_node[resource][d]
                key = str(NO_TOPOLOGY if node is None else node)
                per[key] = per.get(key, 0) + 1
            devices[resource] = dict(sorted(per.items(), key=lambda kv: int(kv[0])))
        entry = {
            "name": container,
            "affinity": hint.affinity(),
            "preferred": hint.preferred,
            "cpus": dict(sorted(cpus.items(), key=lambda kv: int(kv[0]))),
            "cpuIDs": list(cpu_ids),
            "memory": {str(n): b for n, b in blocks.get(MEMORY, {}).items()},
            "devices": devices,
        }
        for kind, per_node in blocks.items():
            if kind != MEMORY:
                entry[kind] = {str(n): b for n, b in per_node.items()}
        return entry

    def _container_nodes(self, pod: str, container: str) -> set[int]:
        cpu_ids = self.cpu.container_cpus(pod, container)
        blocks = self.memory.container_memory(pod, container)
        devs = self.devices.container_devices(pod, container)
        occupied = {self.state.cpu_node[c] for c in cpu_ids}
        for per_node in blocks.values():
            occupied.update(per_node)
        holds = bool(cpu_ids) or bool(blocks)
        for resource, ids in devs.items():
            for d in ids:
                holds = True
                node = self.state.device_node[resource][d]
                if node is not None:
                    occupied.add(node)
        if not holds:
            return set()
        mask = self.hints[(pod, container)].mask
        if mask is not None:
            return {n for n in bitmask.bits(mask) if n in self.state.cpus_by_node}
        return occupied

    def container_count(self) -> dict[int, int]:
        counts = {n: 0 for n in sorted(self.state.nodes)}
        for pod_name, pod in self.pods.items():
            for c in pod.all_containers:
                if (pod_name, c.name) in self.hints:
                    for n in self._container_nodes(pod_name, c.name):
                        counts[n] += 1
        return counts

    def allocation(self) -> dict:
        st = self.state
        out = {}
        for n in sorted(st.nodes):
            cells = st.memory[n]
            node = {
                "cpus": st.assigned_cpus([n]),
                "memory": cells[MEMORY].reserved,
            }
            for kind in sorted(cells):
                if kind != MEMORY and cells[kind].allocatable > 0:
                    node[kind] = cells[kind].reserved
            devices = {}
            for resource, where in sorted(st.device_node.items()):
                if any(v == n for v in where.values()):
                    devices[resource] = sum(1 for d in st.allocated_devices[resource] if where[d] == n)
            node["devices"] = devices
            out[str(n)] = node
        loose = {}
        for resource, where in sorted(st.device_node.items()):
            if any(v is None for v in where.values()):
                loose[resource] = sum(1 for d in st.allocated_devices[resource] if where[d] is None)
        if loose:
            out[str(NO_TOPOLOGY)] = {"devices": loose}
        return out

    def metrics_dict(self) -> dict:
        return self.metrics.as_dict(self.container_count())
