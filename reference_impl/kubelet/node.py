"""A node's NUMA topology and the allocation state its resource managers keep."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .. import cpuset, quantity
from ..errors import InvalidInput
from ..numa.numa_info import NUMAInfo
from .cpu_topology import CPUTopology
from .pods import MEMORY, is_hugepages


def bytes_of(raw: object, field: str) -> int:
    q = quantity.parse_input(raw, field)
    if q < 0:
        raise InvalidInput(field, f"must not be negative: {raw!r}")
    return quantity.value(q)


@dataclass
class MemoryCell:
    """One memory type on one NUMA node, in bytes."""

    allocatable: int
    reserved: int = 0

    @property
    def free(self) -> int:
        return self.allocatable - self.reserved


@dataclass
class NodeState:
    nodes: tuple[int, ...]
    numa: NUMAInfo
    cpu_node: dict[int, int]                   # cpu id -> NUMA node
    cpus_by_node: dict[int, list[int]]         # NUMA node -> cpu ids, ascending
    reserved_cpus: frozenset[int]
    free_cpus: set[int]
    memory: dict[int, dict[str, MemoryCell]]   # NUMA node -> memory type -> cell
    # memory manager groups: the nodes a node's allocations span, and how many
    cells: dict[int, tuple[int, ...]]
    assignments: dict[int, int]
    device_node: dict[str, dict[str, int | None]]   # resource -> device id -> NUMA node (None: no topology)
    allocated_devices: dict[str, set[str]]
    cpu_topology: CPUTopology | None = None

    def allocatable_cpus(self, mask_nodes: Sequence[int]) -> int:
        return sum(1 for n in mask_nodes for c in self.cpus_by_node[n] if c not in self.reserved_cpus)

    def assigned_cpus(self, mask_nodes: Sequence[int]) -> int:
        return sum(
            1 for n in mask_nodes for c in self.cpus_by_node[n] if c not in self.reserved_cpus and c not in self.free_cpus
        )


def _count_or_list(raw: object, field_name: str) -> int | list[int]:
    if isinstance(raw, bool):
        raise InvalidInput(field_name, "must be a count or a list of ids")
    if isinstance(raw, int):
        if raw < 0:
            raise InvalidInput(field_name, "must not be negative")
        return raw
    if isinstance(raw, list) and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in raw):
        return list(raw)
    raise InvalidInput(field_name, "must be a count or a list of ids")


def build_node(raw: Mapping, reserved: object) -> NodeState:
    if not isinstance(raw, Mapping):
        raise InvalidInput("node", "must be a mapping")
    numa_nodes = raw.get("numaNodes")
    if not isinstance(numa_nodes, list) or not numa_nodes:
        raise InvalidInput("node/numaNodes", "at least one NUMA node is required")
    ids: list[int] = []
    cpu_node: dict[int, int] = {}
    cpus_by_node: dict[int, list[int]] = {}
    memory: dict[int, dict[str, MemoryCell]] = {}
    device_node: dict[str, dict[str, int | None]] = {}
    next_cpu = 0
    types: set[str] = {MEMORY}
    threads = raw.get("threadsPerCore", 1)
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
        raise InvalidInput("node/threadsPerCore", "a positive number of hardware threads per core")
    cpu_socket: dict[int, int] = {}
    cpu_core: dict[int, int] = {}
    for i, entry in enumerate(numa_nodes):
        f = f"node/numaNodes/{i}"
        if not isinstance(entry, Mapping):
            raise InvalidInput(f, "must be a mapping")
        nid = entry.get("id", i)
        if not isinstance(nid, int) or isinstance(nid, bool) or nid < 0 or nid > 63:
            raise InvalidInput(f"{f}/id", "NUMA node ids are integers 0-63")
        if nid in cpus_by_node:
            raise InvalidInput(f"{f}/id", f"duplicate NUMA node id {nid}")
        ids.append(nid)
        cpus = _count_or_list(entry.get("cpus", 0), f"{f}/cpus")
        if isinstance(cpus, int):
            cpu_ids = list(range(next_cpu, next_cpu + cpus))
        else:
            cpu_ids = list(cpus)
        if len(cpu_ids) % threads:
            raise InvalidInput(f"{f}/cpus", f"{len(cpu_ids)} CPUs do not make whole cores of {threads} threads")
        socket = entry.get("socket", i)
        if not isinstance(socket, int) or isinstance(socket, bool) or socket < 0:
            raise InvalidInput(f"{f}/socket", "a socket id, a non-negative integer")
        for c in cpu_ids:
            if c in cpu_node:
                raise InvalidInput(f"{f}/cpus", f"cpu {c} is on two NUMA nodes")
            cpu_node[c] = nid
            cpu_socket[c] = socket
        # the threads of one core are consecutive in the order written
        for k in range(0, len(cpu_ids), threads):
            siblings = cpu_ids[k:k + threads]
            for c in siblings:
                cpu_core[c] = min(siblings)
        if cpu_ids:
            next_cpu = max(next_cpu, max(cpu_ids) + 1)
        cpus_by_node[nid] = sorted(cpu_ids)
        cells = {MEMORY: MemoryCell(bytes_of(entry.get("memory", 0), f"{f}/memory"))}
        for key, q in entry.items():
            if is_hugepages(key):
                cells[key] = MemoryCell(bytes_of(q, f"{f}/{key}"))
                types.add(key)
        memory[nid] = cells
        devices = entry.get("devices") or {}
        if not isinstance(devices, Mapping):
            raise InvalidInput(f"{f}/devices", "must map a resource name to a device count")
        for res, n in devices.items():
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise InvalidInput(f"{f}/devices/{res}", "must be a device count")
            table = device_node.setdefault(res, {})
            for k in range(n):
                table[f"{res}-n{nid:02d}-{k:04d}"] = nid
    for cells in memory.values():
        for t in types:
            cells.setdefault(t, MemoryCell(0))
    loose = raw.get("devicesWithoutTopology") or {}
    if not isinstance(loose, Mapping):
        raise InvalidInput("node/devicesWithoutTopology", "must map a resource name to a device count")
    for res, n in loose.items():
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise InvalidInput(f"node/devicesWithoutTopology/{res}", "must be a device count")
        table = device_node.setdefault(res, {})
        for k in range(n):
            # sorts after every NUMA-attached device id
            table[f"{res}-x-{k:04d}"] = None

    distances = raw.get("distances")
    if distances is not None and not (
        isinstance(distances, list)
        and len(distances) == len(ids)
        and all(isinstance(row, list) and len(row) == len(ids)
                and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in row) for row in distances)
    ):
        raise InvalidInput("node/distances", "a square matrix of non-negative integers, one row per NUMA node")
    try:
        numa = NUMAInfo.build(ids, distances)
    except ValueError as exc:
        raise InvalidInput("node/distances", str(exc)) from None
    try:
        reserved_set = set(cpuset.parse(reserved))
    except cpuset.CPUSetError as exc:
        raise InvalidInput("kubeletConfiguration/reservedSystemCPUs", str(exc)) from None
    unknown = reserved_set - set(cpu_node)
    if unknown:
        raise InvalidInput("kubeletConfiguration/reservedSystemCPUs", f"cpus {sorted(unknown)} are not on the node")
    state = NodeState(
        nodes=tuple(ids),
        numa=numa,
        cpu_node=cpu_node,
        cpus_by_node=cpus_by_node,
        reserved_cpus=frozenset(reserved_set),
        free_cpus=set(cpu_node) - reserved_set,
        memory=memory,
        cells={n: (n,) for n in ids},
        assignments={n: 0 for n in ids},
        device_node=device_node,
        allocated_devices={res: set() for res in device_node},
        cpu_topology=CPUTopology(numa=cpu_node, socket=cpu_socket, core=cpu_core, threads_per_core=threads),
    )
    _apply_baseline(state, raw.get("allocated") or [])
    return state


def _apply_baseline(state: NodeState, entries: object) -> None:
    """Allocation held by pods the case does not list: each entry pins CPUs,
    memory and devices to one NUMA node (a single-NUMA memory allocation)."""
    if not isinstance(entries, list):
        raise InvalidInput("node/allocated", "must be a list")
    for i, entry in enumerate(entries):
        f = f"node/allocated/{i}"
        nid = entry.get("numa") if isinstance(entry, Mapping) else None
        if not isinstance(nid, int) or isinstance(nid, bool) or nid not in state.memory:
            raise InvalidInput(f"{f}/numa", "must name a NUMA node of the node")
        nid = entry["numa"]
        cpus = _count_or_list(entry.get("cpus", 0), f"{f}/cpus")
        if isinstance(cpus, int):
            pool = [c for c in state.cpus_by_node[nid] if c in state.free_cpus]
            if cpus > len(pool):
                raise InvalidInput(f"{f}/cpus", f"NUMA node {nid} has only {len(pool)} allocatable CPUs free")
            # the highest ids, so that the pods a case lists start from the
            # lowest ones (the contract's example relies on it)
            take = pool[len(pool) - cpus:]
        else:
            take = cpus
            for c in take:
                if state.cpu_node.get(c) != nid or c not in state.free_cpus:
                    raise InvalidInput(f"{f}/cpus", f"cpu {c} is not a free allocatable cpu of NUMA node {nid}")
        state.free_cpus.difference_update(take)
        touched_memory = False
        for key, q in entry.items():
            if key == MEMORY or is_hugepages(key):
                n = bytes_of(q, f"{f}/{key}")
                cell = state.memory[nid].get(key)
                if cell is None or n > cell.free:
                    raise InvalidInput(f"{f}/{key}", f"more than NUMA node {nid} has free")
                cell.reserved += n
                touched_memory = touched_memory or n > 0
        if touched_memory:
            state.assignments[nid] += 1
        devices = entry.get("devices") or {}
        if not isinstance(devices, Mapping):
            raise InvalidInput(f"{f}/devices", "must map a resource name to a device count")
        for res, n in devices.items():
            if res not in state.device_node:
                raise InvalidInput(f"{f}/devices/{res}", f"the node has no {res}")
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise InvalidInput(f"{f}/devices/{res}", "must be a device count")
            free = sorted(d for d, node in state.device_node.get(res, {}).items()
                          if node == nid and d not in state.allocated_devices[res])
            if n > len(free):
                raise InvalidInput(f"{f}/devices/{res}", f"NUMA node {nid} has only {len(free)} free {res}")
            state.allocated_devices[res].update(free[:n])
