"""Generated Koordinator inputs (docs/operations/koordinator.md): nodes with CPU
topologies (sockets, NUMA nodes, cores, hyper-threads, compact or explicit),
NUMA zones, devices under PCIe switches with VF groups, GPU partition tables,
placed pods, pods with the scheduling annotations in their JSON shapes, plugin
arguments, and raw provider hints for the Topology Manager merge.

Sizes stay small (at most 2 sockets x 2 NUMA nodes x 4 cores x 2 threads, 8
devices, 3 placed pods, 3 nodes to score) so a hundred examples of one
operation run in seconds.

One module per concern: `values` (the documented values of each field),
`cpus`, `devices`, `nodes`, `pods`, `args`, `operations` (one valid input
per operation) and `mutators` (invalid inputs, as named breakages).
"""

from __future__ import annotations

from .args import args, scoring_strategy
from .cpus import cpu_topology, cpus_of, cpuset_value, numa_ids
from .mutators import invalid_cpuset_input, invalid_merge_input, invalid_pod_node_input
from .nodes import node
from .operations import allocate_input, cpuset_input, filter_input, merge_input, resolve_input, score_input
from .pods import pod
from .values import DEVICE_TYPES, SCORING

__all__ = ["DEVICE_TYPES", "IGNORED", "INVALID", "SCORING", "VALID", "allocate_input", "args", "cpu_topology", "cpus_of",
           "cpuset_input", "cpuset_value", "filter_input", "merge_input", "node", "numa_ids", "pod",
           "resolve_input", "score_input", "scoring_strategy"]

VALID = {
    "resolve": resolve_input(),
    "merge": merge_input(),
    "filter": filter_input(),
    "score": score_input(),
    "cpuset": cpuset_input(),
    "allocate": allocate_input(),
}
INVALID = {
    # resolve stops before DeviceShare reads the partition table.
    "resolve": invalid_pod_node_input(resolve_input(), table=False),
    "merge": invalid_merge_input(),
    "filter": invalid_pod_node_input(filter_input()),
    "score": invalid_pod_node_input(score_input()),
    "cpuset": invalid_cpuset_input(),
    "allocate": invalid_pod_node_input(allocate_input(), table=False),
}
# Refusal messages: the contract fixes the `reason` codes and, where upstream
# has one, a text the corpus matches only by fragment ($contains,
# docs/fixture-format.md), so the full wording is the implementation's own.
# Everything else (CPU ids, device minors, scores) is fixed by the contract.
IGNORED = {
    "resolve": ["message"],
    "filter": ["message"],
    "cpuset": ["message"],
    "allocate": ["message"],
}
