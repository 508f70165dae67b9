"""Where an implementation may answer otherwise than the contract, as typed
points of variation; each default is the rule docs/operations/koordinator.md
states, and the reference run as it is uses only the defaults.

A model of another implementation (kept with the conformance suite) replaces a field with
`dataclasses.replace`, and the operations take the result as `seams=`. The
parsed node carries the seams it is read under, so the NUMA accounting, the
split, the device allocation and the node score reach them without a
parameter on every call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .hints import Hint
from .partitions import highest_score_first

# The node (node.Node) and the decision (pipeline.Decision) a seam is given; not
# imported, since both modules build on this one.
Node = Any
Decision = Any

# (the hint's NUMA nodes in id order, free amount of the resource per NUMA node) -> visiting order
SplitOrder = Callable[[Sequence[int], Mapping[int, int]], list[int]]

# The depth of each requiredTopologyScope in the device tree; a scope deeper than
# "Device" is one no device subtree meets.
SCOPE_LEVEL = {"Node": 1, "NUMANode": 2, "PCIe": 3, "Device": 4}


def by_availability(nodes: Sequence[int], free: Mapping[int, int]) -> list[int]:
    """The document's split order: fewest free of the resource first, ties by id."""
    return sorted(nodes, key=lambda n: (free.get(n, 0), n))


def score_then_lower_mask(merged: Hint, best: Hint) -> bool:
    """Whether a merged hint replaces the best one of the same width: the higher
    score wins, and only a tie falls back to the lower mask value."""
    return merged.score > best.score or (merged.score == best.score and merged.affinity < best.affinity)


def scope_level(device_type: str, scope: str | None) -> int:
    return SCOPE_LEVEL.get(scope or "", 0)


def placed_numa_recorded(node: Node) -> bool:
    return True


def no_forced_trim(node: Node) -> str | None:
    """The bind policy a node forces on a pod that binds no CPUs when the NUMA
    nodes' CPU is trimmed: none, such a pod takes no whole cores."""
    return None


def numa_of_the_decision(decision: Decision) -> Mapping[int, Mapping[str, int]]:
    return decision.numa


def cpu_requested_as_placed(decision: Decision, over_numa: bool) -> bool:
    """Whether the node score of a pod given a CPU set counts, as CPU already
    requested, the CPUs placed pods have bound instead of what they request:
    not in the document."""
    return False


def share_requested(used: int, per_device: int, capacity: int) -> tuple[int, int]:
    """What a device scoring strategy weighs for a share of one GPU in the
    topology walk (requested, capacity): the GPU's use with the share added,
    against its capacity, so MostAllocated takes the fullest GPU that fits."""
    return used + per_device, capacity


def request_of_every_device(per_device: int, count: int) -> int:
    """The pod's request a device node score adds for one type (percent per
    device, devices asked for): every device the pod asks for."""
    return per_device * count


def every_numa_node(decision: Decision) -> int | None:
    """The NUMA nodes (a bitmask) whose devices a device node score weighs;
    None for every device of the type, wherever the pod's NUMA affinity is."""
    return None


def as_requested(types: Sequence[str]) -> list[str]:
    """The order DeviceShare handles the pod's device types in (after a joint
    allocation's own): gpu, rdma, fpga, as the requests are read."""
    return list(types)


def fpga_before_rdma(types: Sequence[str]) -> list[str]:
    """The other order the contract admits: it leaves rdma against fpga open, so
    when both fall short either refusal is the pod's."""
    order = list(types)
    if "rdma" in order and "fpga" in order:
        i, j = order.index("rdma"), order.index("fpga")
        order[i], order[j] = order[j], order[i]
    return order


@dataclass(frozen=True)
class Seams:
    # the merge: at equal width, whether a merged hint replaces the best one (merged, best)
    replaces_at_equal_width: Callable[[Hint, Hint], bool] = score_then_lower_mask
    # the order a multi-NUMA split visits the hint's NUMA nodes in
    split_order: SplitOrder = by_availability
    # whether placed pods' NUMA allocations count against the node's NUMA capacity
    placed_numa_recorded: Callable[[Node], bool] = placed_numa_recorded
    # the bind policy the NUMA nodes' CPU is trimmed by for a pod that binds no CPUs
    forced_trim: Callable[[Node], str | None] = no_forced_trim
    # the device tree level a requiredTopologyScope asks for (device type, scope)
    scope_level: Callable[[str, str | None], int] = scope_level
    # the NUMA nodes a node score is computed over; empty for the whole node
    scored_numa: Callable[[Decision], Mapping[int, Mapping[str, int]]] = numa_of_the_decision
    # whether the node score counts placed pods' bound CPUs as the CPU requested
    cpu_requested_as_placed: Callable[[Decision, bool], bool] = cpu_requested_as_placed
    # a shared GPU's score inputs in the topology walk (used, per device, capacity)
    share_requested: Callable[[int, int, int], tuple[int, int]] = share_requested
    # the request a device node score adds for one type (per device, count)
    device_score_request: Callable[[int, int], int] = request_of_every_device
    # the NUMA nodes whose devices a device node score weighs (bitmask); None for all
    device_score_numa: Callable[[Decision], int | None] = every_numa_node
    # the order a GPU partition table's allocationScore groups are tried in
    partition_group_order: Callable[[Iterable[int]], list[int]] = highest_score_first
    # the order the pod's device types are checked and allocated in (their presence,
    # the hints' count, the types outside a joint allocation)
    device_type_order: Callable[[Sequence[str]], list[str]] = as_requested


CONTRACT = Seams()

# The rule sets the contract admits besides its defaults, where the document
# leaves a choice open: an answer under any of them is a conforming answer.
ADMITTED = (replace(CONTRACT, device_type_order=fpga_before_rdma),)
