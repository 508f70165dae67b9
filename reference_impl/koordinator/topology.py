"""The CPU topology of a node (sockets, NUMA nodes, physical cores, hyper-thread
siblings) as NodeResourceTopology reports it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import InvalidInput


@dataclass(frozen=True)
class CPU:
    id: int
    core: int      # physical core identity, unique on the node
    socket: int
    node: int      # NUMA node


@dataclass(frozen=True)
class CPUTopology:
    cpus: Mapping[int, CPU]

    @property
    def num_cpus(self) -> int:
        return len(self.cpus)

    @property
    def num_cores(self) -> int:
        return len({c.core for c in self.cpus.values()})

    @property
    def num_sockets(self) -> int:
        return len({c.socket for c in self.cpus.values()})

    @property
    def num_nodes(self) -> int:
        return len({c.node for c in self.cpus.values()})

    def cpus_per_core(self) -> int:
        return self.num_cpus // self.num_cores if self.num_cores else 0

    def cpus_per_node(self) -> int:
        return self.num_cpus // self.num_nodes if self.num_nodes else 0

    def cpus_per_socket(self) -> int:
        return self.num_cpus // self.num_sockets if self.num_sockets else 0

    def is_valid(self) -> bool:
        return self.num_cpus > 0 and self.num_cores > 0 and self.num_nodes > 0 and self.num_sockets > 0

    def in_nodes(self, nodes: Iterable[int]) -> set[int]:
        wanted = set(nodes)
        return {c.id for c in self.cpus.values() if c.node in wanted}

    def cores_of(self, cpus: Iterable[int]) -> set[int]:
        return {self.cpus[c].core for c in cpus}

    def nodes_of(self, cpus: Iterable[int]) -> set[int]:
        return {self.cpus[c].node for c in cpus if c in self.cpus}


def _int(value, field: str, minimum: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise InvalidInput(field, f"expected an integer >= {minimum}, got {value!r}")
    return value


def build(spec: Mapping | None, field: str = "cpuTopology") -> CPUTopology | None:
    if spec is None:
        return None
    if not isinstance(spec, Mapping):
        raise InvalidInput(field, "expected a mapping")
    if "cpus" in spec:
        cpus: dict[int, CPU] = {}
        for i, entry in enumerate(spec["cpus"]):
            where = f"{field}/cpus/{i}"
            if not isinstance(entry, Mapping):
                raise InvalidInput(where, "expected a mapping")
            cpu_id = _int(entry.get("id"), where + "/id")
            socket = _int(entry.get("socket", 0), where + "/socket")
            core = _int(entry.get("core"), where + "/core")
            node = _int(entry.get("node", 0), where + "/node")
            if cpu_id in cpus:
                raise InvalidInput(where + "/id", f"duplicate CPU id {cpu_id}")
            # (socket, core) is the physical core, as upstream makes core ids unique.
            cpus[cpu_id] = CPU(cpu_id, socket << 16 | core, socket, node)
        return CPUTopology(cpus)
    sockets = _int(spec.get("sockets", 1), field + "/sockets", 1)
    per_socket = _int(spec.get("numaNodesPerSocket", 1), field + "/numaNodesPerSocket", 1)
    cores = _int(spec.get("coresPerNUMANode"), field + "/coresPerNUMANode", 1)
    threads = _int(spec.get("threadsPerCore", 1), field + "/threadsPerCore", 1)
    cpus = {}
    for s in range(sockets):
        for n in range(per_socket):
            node = s * per_socket + n
            for c in range(cores):
                core = node * cores + c
                for t in range(threads):
                    cpu_id = core * threads + t
                    cpus[cpu_id] = CPU(cpu_id, core, s, node)
    return CPUTopology(cpus)
