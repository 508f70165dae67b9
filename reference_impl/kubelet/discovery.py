"""NUMA discovery: the node ids and distance rows the Topology Manager reads
from the machine information (cadvisor's nodes) at start-up."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import InvalidInput
from ..numa.numa_info import NUMAInfo

MAX_NODE_ID = 63


def _distance_row(raw: object, field: str) -> tuple[int, ...]:
    if not isinstance(raw, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in raw):
        raise InvalidInput(field, "null or a list of non-negative integers")
    return tuple(raw)


@dataclass(frozen=True)
class Machine:
    """NUMA nodes in the order the machine reports them, each with its distance
    row as reported: indexed by NUMA node id, None when the node reports none."""

    nodes: tuple[int, ...]
    rows: tuple[tuple[int, ...] | None, ...]

    @classmethod
    def from_numa(cls, nodes: Sequence[int], distances: Sequence[Sequence[int]] | None) -> Machine:
        """The contract's `numa` form (rows and columns in node order) as a
        machine reports it: each row spread onto the node ids, 0 at ids that
        name no node."""
        if distances is None:
            return cls(tuple(nodes), tuple(None for _ in nodes))
        width = max(nodes) + 1
        rows = []
        for i, _ in enumerate(nodes):
            row = [0] * width
            for j, other in enumerate(nodes):
                row[other] = distances[i][j]
            rows.append(tuple(row))
        return cls(tuple(nodes), tuple(rows))

    @classmethod
    def parse(cls, raw: object, field: str = "machine") -> Machine:
        if not isinstance(raw, Mapping) or not isinstance(raw.get("numaNodes"), list) or not raw["numaNodes"]:
            raise InvalidInput(field, "must be {numaNodes: [{id, distances}, ...]} with at least one node")
        nodes, rows = [], []
        for i, node in enumerate(raw["numaNodes"]):
            f = f"{field}/numaNodes/{i}"
            if not isinstance(node, Mapping):
                raise InvalidInput(f, "must be {id, distances}")
            node_id = node.get("id")
            if not isinstance(node_id, int) or isinstance(node_id, bool) or not 0 <= node_id <= MAX_NODE_ID:
                raise InvalidInput(f"{f}/id", f"a NUMA node id 0-{MAX_NODE_ID}")
            if node_id in nodes:
                raise InvalidInput(f"{f}/id", f"NUMA node id {node_id} is listed twice")
            nodes.append(node_id)
            distances = node.get("distances")
            rows.append(None if distances is None else _distance_row(distances, f"{f}/distances"))
        return cls(tuple(nodes), tuple(rows))

    @property
    def missing_distances(self) -> bool:
        return any(row is None for row in self.rows)

    def numa_info(self, read_distances: bool) -> NUMAInfo:
        """The NUMAInfo the Topology Manager builds: distances are read only
        when prefer-closest-numa-nodes asks for them, each row as reported."""
        if not read_distances:
            return NUMAInfo(self.nodes, None)
        rows = {n: dict(enumerate(row or ())) for n, row in zip(self.nodes, self.rows, strict=True)}
        return NUMAInfo(self.nodes, rows)

    def discovered(self, read_distances: bool) -> dict:
        return {
            "nodes": list(self.nodes),
            "distances": {
                str(n): (list(row) if read_distances and row is not None else None)
                for n, row in zip(self.nodes, self.rows, strict=True)
            },
        }
