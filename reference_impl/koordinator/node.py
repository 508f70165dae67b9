"""A node as the plugins see it: CPU topology, NUMA zones, devices, labels and the
allocations of the pods already placed on it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .. import cpuset, quantity
from ..errors import InvalidInput
from . import topology
from .devices import Device, parse_devices, parse_placed_devices
from .seams import CONTRACT, Seams

IDLE, SHARED, SINGLE = "idle", "shared", "single"


@dataclass
class PlacedPod:
    name: str
    cpuset: list[int]
    exclusive: str
    numa: dict[int, dict[str, int]]            # NUMA id -> resource -> amount (cpu in millicores)
    requests: dict[str, int]
    devices: dict[str, list[dict]]


@dataclass
class Node:
    name: str
    labels: dict[str, str]
    kubelet_topology_policy: str | None
    kubelet_cpu_manager: dict | None
    cpu_topology: topology.CPUTopology | None
    reserved_cpus: set[int]
    numa_capacity: dict[int, dict[str, int]]   # NUMA id -> resource -> capacity
    allocatable: dict[str, int] | None
    devices: list[Device]
    device_labels: dict[str, str]
    device_annotations: dict[str, str]
    pods: list[PlacedPod] = field(default_factory=list)
    # the Node object's annotations (only the amplification ratio is read)
    annotations: dict[str, str] = field(default_factory=dict)
    # the NodeResourceTopology's annotations (only the amplification ratio is read)
    topology_annotations: dict[str, str] = field(default_factory=dict)
    # On an amplified node's NUMA view (amplification.numa_view): the CPU ratio,
    # and what its bound CPUs weigh per NUMA node beyond their count.
    cpu_ratio: float | None = None
    numa_extra: dict[int, dict[str, int]] = field(default_factory=dict)
    # the rules this node is read and allocated under (seams.py)
    seams: Seams = CONTRACT

    @property
    def numa_ids(self) -> list[int]:
        return sorted(self.numa_capacity)

    def has_numa_topology(self) -> bool:
        return bool(self.numa_capacity)

    def allocated_cpus(self) -> dict[int, str]:
        held: dict[int, str] = {}
        for pod in self.pods:
            for c in pod.cpuset:
                held[c] = pod.exclusive
        return held

    def available_cpus(self) -> set[int]:
        if self.cpu_topology is None:
            return set()
        return set(self.cpu_topology.cpus) - set(self.allocated_cpus()) - self.reserved_cpus

    def numa_allocated(self) -> dict[int, dict[str, int]]:
        out: dict[int, dict[str, int]] = {n: {} for n in self.numa_capacity}
        if not self.seams.placed_numa_recorded(self):
            return out
        for pod in self.pods:
            for n, res in pod.numa.items():
                bucket = out.setdefault(n, {})
                for r, v in res.items():
                    bucket[r] = bucket.get(r, 0) + v
        for n, res in self.numa_extra.items():
            bucket = out.setdefault(n, {})
            for r, v in res.items():
                bucket[r] = bucket.get(r, 0) + v
        return out

    def numa_available(self) -> dict[int, dict[str, int]]:
        allocated = self.numa_allocated()
        return {n: {r: max(0, cap - allocated.get(n, {}).get(r, 0)) for r, cap in res.items()}
                for n, res in self.numa_capacity.items()}

    def numa_status(self) -> dict[int, str]:
        status = {n: IDLE for n in self.numa_capacity}
        if self.cpu_topology is None:
            return status
        for pod in self.pods:
            nodes = self.cpu_topology.nodes_of(pod.cpuset)
            for n in nodes:
                if n not in status:
                    # Only the NUMA nodes the node exposes have a status
                    # (upstream GetAllNUMANodeStatus over its NUMA zones).
                    continue
                if len(nodes) > 1:
                    status[n] = SHARED
                elif status.get(n, IDLE) != SHARED:
                    status[n] = SINGLE
        return status


def _quantity_map(value, where: str) -> dict[str, int]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInput(where, "expected a mapping of resource to quantity")
    out = {}
    for name, q in value.items():
        try:
            amount = quantity.parse(q)
            out[str(name)] = quantity.milli_value(amount) if name == "cpu" else quantity.value(amount)
        except quantity.QuantityError as exc:
            raise InvalidInput(f"{where}/{name}", str(exc)) from None
    return out


def _str_map(value, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise InvalidInput(where, "expected a mapping of string to string")
    return {str(k): v for k, v in value.items()}


def _cpus(value, where: str) -> list[int]:
    try:
        return cpuset.parse(value, ids=True)
    except cpuset.CPUSetError as exc:
        raise InvalidInput(where, str(exc)) from None


def parse_node(spec: Mapping, where: str = "node", seams: Seams = CONTRACT) -> Node:
    if not isinstance(spec, Mapping):
        raise InvalidInput(where, "expected a mapping")
    topo = topology.build(spec.get("cpuTopology"), where + "/cpuTopology")
    reserved = set(_cpus(spec.get("reservedCPUs"), where + "/reservedCPUs"))
    capacity: dict[int, dict[str, int]] = {}
    for i, zone in enumerate(spec.get("numaNodes") or []):
        zw = f"{where}/numaNodes/{i}"
        if not isinstance(zone, Mapping) or not isinstance(zone.get("id"), int) or isinstance(zone.get("id"), bool):
            raise InvalidInput(zw, "expected a mapping with an integer id")
        nid = zone["id"]
        if not 0 <= nid <= 63:
            raise InvalidInput(zw + "/id", f"NUMA node id {nid} outside 0..63")
        if nid in capacity:
            raise InvalidInput(zw + "/id", f"duplicate NUMA node {nid}")
        res = _quantity_map({k: v for k, v in zone.items() if k != "id"}, zw)
        if "cpu" not in res:
            cpus = topo.in_nodes([nid]) - reserved if topo else set()
            res["cpu"] = 1000 * len(cpus)
        capacity[nid] = res
    devices = parse_devices(spec.get("devices"), where + "/devices")
    pods = []
    for i, p in enumerate(spec.get("pods") or []):
        pw = f"{where}/pods/{i}"
        if not isinstance(p, Mapping):
            raise InvalidInput(pw, "expected a mapping")
        cpuset = _cpus(p.get("cpuset"), pw + "/cpuset")
        if topo is not None:
            unknown = [c for c in cpuset if c not in topo.cpus]
            if unknown:
                raise InvalidInput(pw + "/cpuset", f"CPUs {unknown} are not in the topology")
        numa: dict[int, dict[str, int]] = {}
        if p.get("numaResources") is not None:
            if not isinstance(p["numaResources"], Mapping):
                raise InvalidInput(pw + "/numaResources", "expected a mapping")
            for k, res in p["numaResources"].items():
                try:
                    nid = int(k)
                except (TypeError, ValueError):
                    raise InvalidInput(pw + "/numaResources", f"bad NUMA id {k!r}") from None
                numa[nid] = _quantity_map(res, f"{pw}/numaResources/{k}")
        elif cpuset and topo is not None:
            for c in cpuset:
                n = topo.cpus[c].node
                numa.setdefault(n, {"cpu": 0})["cpu"] += 1000
        if p.get("requests") is not None:
            requests = _quantity_map(p["requests"], pw + "/requests")
        else:
            requests = {}
            for res in numa.values():
                for r, v in res.items():
                    requests[r] = requests.get(r, 0) + v
            if not numa and cpuset:
                requests["cpu"] = 1000 * len(cpuset)
        pods.append(PlacedPod(
            name=str(p.get("name", f"pod-{i}")),
            cpuset=cpuset,
            exclusive=str(p.get("cpuExclusivePolicy") or "None"),
            numa=numa,
            requests=requests,
            devices=parse_placed_devices(p.get("devices"), pw + "/devices"),
        ))
    allocatable = _quantity_map(spec["allocatable"], where + "/allocatable") if spec.get("allocatable") is not None else None
    kcm = spec.get("kubeletCPUManagerPolicy")
    if kcm is not None and not isinstance(kcm, Mapping):
        raise InvalidInput(where + "/kubeletCPUManagerPolicy", "expected a mapping")
    return Node(
        name=str(spec.get("name", "node")),
        labels=_str_map(spec.get("labels"), where + "/labels"),
        kubelet_topology_policy=spec.get("kubeletTopologyPolicy"),
        kubelet_cpu_manager=dict(kcm) if kcm else None,
        cpu_topology=topo,
        reserved_cpus=reserved,
        numa_capacity=capacity,
        allocatable=allocatable,
        devices=devices,
        device_labels=_str_map(spec.get("deviceLabels"), where + "/deviceLabels"),
        device_annotations=_str_map(spec.get("deviceAnnotations"), where + "/deviceAnnotations"),
        pods=pods,
        annotations=_str_map(spec.get("annotations"), where + "/annotations"),
        topology_annotations=_str_map(spec.get("topologyAnnotations"), where + "/topologyAnnotations"),
        seams=seams,
    )
