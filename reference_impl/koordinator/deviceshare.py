"""DeviceShare as a hint provider, its Allocate, and its node score."""

from __future__ import annotations

from ..numa import bitmask
from ..refusal import Refusal
from . import scoring
from .args import Args
from .device_allocation import Allocated, Usage, allocate_all
from .device_designated import Designation, restrict
from .device_requests import DeviceRequest
from .hints import Hint
from .node import Node
from .policy import Resolution

BEST_LAYOUT_SCORE = 500


def _gpu_minors(allocation: dict[str, list[Allocated]]) -> tuple[int, ...]:
    return tuple(sorted(a.minor for a in allocation.get("gpu", [])))


def allocate(node: Node, requests: dict[str, DeviceRequest], res: Resolution, args: Args,
             affinity: int | None, designation: Designation | None = None) -> dict[str, list[Allocated]]:
    nodes = None if affinity is None else set(bitmask.bits(affinity))
    view, usage = restrict(node, set(requests), designation)
    return allocate_all(view, requests, nodes, args, res.joint, res.partition_spec, usage)


def hints(node: Node, requests: dict[str, DeviceRequest], res: Resolution, args: Args,
          designation: Designation | None = None) -> dict[str, list[Hint]] | None:
    """One identical hint list per requested device type; None when DeviceShare has
    no opinion (no device request, or alignment disabled). A failure with every NUMA
    node is the provider's failure. A designation narrows the trial allocations
    (its VFs; handed over, it gives hints of its own: device_designated.hints)."""
    if not requests or args.disable_device_numa_alignment:
        return None
    numa_ids = sorted({d.numa for d in node.devices if d.numa is not None})
    if not numa_ids:
        # Devices without NUMA placement cannot constrain the alignment.
        return None
    for t, r in requests.items():
        # Upstream counts a mask's devices of each type (those with a NUMA node)
        # before it tries an allocation there, and the try with every NUMA node
        # is the provider's answer: that count falling short is the refusal,
        # whatever the allocation would have said (deviceshare topology_hint.go
        # generateTopologyHints, calcTotalDevicesByNUMA). A type with no device
        # on a NUMA node is left to the allocation.
        placed = sum(1 for d in node.devices if d.type == t and d.numa is not None)
        if 0 < placed < r.count:
            raise Refusal("InsufficientDevices", "Insufficient NUMA Scoped Devices", "Filter")
    full = allocate(node, requests, res, args, bitmask.from_bits(numa_ids) if numa_ids else None, designation)
    best = _gpu_minors(full)
    feasible: list[tuple[int, int]] = []
    for mask in bitmask.iterate_masks(numa_ids):
        members = set(bitmask.bits(mask))
        if any(sum(1 for d in node.devices if d.type == t and (d.numa is None or d.numa in members)) < r.count
               for t, r in requests.items()):
            continue
        try:
            got = allocate(node, requests, res, args, mask, designation)
        except Refusal:
            continue
        feasible.append((mask, BEST_LAYOUT_SCORE if _gpu_minors(got) == best else 0))
    narrowest = min((bitmask.count(m) for m, _ in feasible), default=0)
    shared = [Hint(m, bitmask.count(m) == narrowest, s) for m, s in feasible]
    return {t: list(shared) for t in requests}


def node_score(node: Node, requests: dict[str, DeviceRequest], args: Args, numa: int | None = None) -> int:
    """numa: a bitmask of the NUMA nodes whose devices are weighed (a device
    without a NUMA node always is); None for all."""
    usage = Usage(node)
    weights = dict(args.device_scoring.weights)
    resource_of = {"gpu": "koordinator.sh/gpu-memory-ratio", "rdma": "koordinator.sh/rdma", "fpga": "koordinator.sh/fpga"}
    total = 0
    for t, r in requests.items():
        if weights.get(resource_of[t], 0) == 0:
            continue
        devices = [d for d in node.devices if d.type == t
                   and (numa is None or d.numa is None or bitmask.is_set(numa, d.numa))]
        capacity = sum(d.capacity for d in devices)
        used = sum(usage.of(d) for d in devices if d.healthy)
        formula = scoring.most_allocated if args.device_scoring.type == "MostAllocated" else scoring.least_allocated
        total += formula(used + node.seams.device_score_request(r.ratio, r.count), capacity)
    return total
