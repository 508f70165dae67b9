"""NodeNUMAResource as a hint provider: NUMA availability, the split of a pod's
cpu / memory over a NUMA affinity, its CPU set, and the hints it proposes."""

from __future__ import annotations

from dataclasses import dataclass

from ..numa import bitmask
from ..refusal import Refusal
from . import amplification, scoring
from .args import Args
from .cpu_accumulator import CPUAllocationError, filter_by_required, satisfies_required, take_cpus
from .hints import Hint
from .node import Node
from .pod import Pod
from .policy import Resolution


@dataclass
class NUMAAllocation:
    numa: dict[int, dict[str, int]]     # NUMA id -> resource -> amount
    cpuset: list[int] | None


def pod_numa_requests(node: Node, pod: Pod) -> dict[str, int]:
    """The pod's requests for resources the NUMA zones account (cpu in millicores)."""
    names = {r for res in node.numa_capacity.values() for r in res}
    out = {}
    for r in sorted(names):
        if r not in pod.requests or pod.requests[r] == 0:
            continue
        out[r] = pod.milli_cpu() if r == "cpu" else pod.request_int(r)
    return out


def available_numa(node: Node, res: Resolution) -> dict[int, dict[str, int]]:
    available = node.numa_available()
    trim_policy = res.bind_policy if res.bind_required and res.request_bind else node.seams.forced_trim(node)
    if trim_policy is not None and not res.request_bind and (
            node.cpu_topology is None or not node.cpu_topology.is_valid()):
        # Reached only through a forced trim (seams.forced_trim): it cannot read
        # the free CPUs of a node without a valid CPU topology, and the hints fail.
        raise Refusal("InsufficientNUMAResources", "node(s) Insufficient NUMA Node resources", "Filter")
    if trim_policy is not None and node.cpu_topology is not None:
        # A required policy can only use whole free cores (FullPCPUs) or one CPU per core.
        free = filter_by_required(trim_policy, node.available_cpus(), node.cpu_topology)
        for n, amounts in available.items():
            if amounts.get("cpu", 0) == 0:
                continue
            usable = 1000 * len(free & node.cpu_topology.in_nodes([n]))
            if usable < amounts["cpu"]:
                amounts["cpu"] = usable
    return available


def _split_share(resource: str, remaining: int, parts: int, res: Resolution, cpus_per_core: int) -> int:
    if resource != "cpu" or not res.request_bind:
        return remaining // parts
    whole = remaining // 1000
    if res.bind_required and res.bind_policy == "FullPCPUs" and cpus_per_core:
        return (whole // cpus_per_core // parts) * cpus_per_core * 1000
    return (whole // parts) * 1000


def split_by_affinity(node: Node, requests: dict[str, int], affinity: int, res: Resolution,
                      available: dict[int, dict[str, int]]) -> dict[int, dict[str, int]]:
    nodes = bitmask.bits(affinity)
    per_core = node.cpu_topology.cpus_per_core() if node.cpu_topology else 1
    result: dict[int, dict[str, int]] = {}
    missing = []
    order = node.seams.split_order
    for r, amount in requests.items():
        ordered = order(nodes, {n: amounts.get(r, 0) for n, amounts in available.items()})
        remaining = amount
        for i, n in enumerate(ordered):
            share = _split_share(r, remaining, len(ordered) - i, res, per_core)
            got = min(available.get(n, {}).get(r, 0), share)
            if got > 0:
                result.setdefault(n, {})[r] = got
                remaining -= got
        if remaining > 0:
            missing.append(r)
    if missing:
        raise Refusal("InsufficientNUMAResources", "; ".join(f"Insufficient NUMA {r}" for r in missing), "Filter")
    return dict(sorted(result.items()))


NOT_ENOUGH_CPUS = "not enough cpus available to satisfy request"


def bindable_cpus(node: Node, pod: Pod, res: Resolution, stage: str = "Filter") -> tuple[int, set[int]]:
    """How many CPUs the pod binds and the free CPUs its required bind policy
    lets it take; fewer than it binds is InsufficientCPUs."""
    need = pod.milli_cpu() // 1000
    available = node.available_cpus()
    if res.bind_required:
        available = filter_by_required(res.bind_policy, available, node.cpu_topology)
    if len(available) < need:
        raise Refusal("InsufficientCPUs", NOT_ENOUGH_CPUS, stage)
    return need, available


def allocate_cpuset(node: Node, pod: Pod, res: Resolution, numa: dict[int, dict[str, int]]) -> list[int]:
    topo = node.cpu_topology
    need, available = bindable_cpus(node, pod, res)
    held = node.allocated_cpus()
    result: list[int] = []
    try:
        if numa:
            for n in sorted(numa):
                in_node = available & topo.in_nodes([n])
                count = min(len(in_node), numa[n].get("cpu", 0) // 1000)
                result += take_cpus(topo, in_node, held, count, res.bind_policy, res.cpu_exclusive, res.cpu_strategy)
            if len(result) != need:
                raise Refusal("InsufficientCPUs", NOT_ENOUGH_CPUS, "Filter")
        else:
            result = take_cpus(topo, available, held, need, res.bind_policy, res.cpu_exclusive, res.cpu_strategy)
    except CPUAllocationError as exc:
        raise Refusal("InsufficientCPUs", str(exc), "Filter") from None
    if res.bind_required and not satisfies_required(res.bind_policy, result, topo):
        raise Refusal("InsufficientCPUs", f"insufficient CPUs to satisfy required cpu bind policy {res.bind_policy}",
                      "Filter")
    return sorted(result)


def allocate(node: Node, pod: Pod, res: Resolution, affinity: int | None) -> NUMAAllocation:
    """NodeNUMAResource's Allocate for a chosen hint (None: not NUMA-bound)."""
    numa: dict[int, dict[str, int]] = {}
    requests = pod_numa_requests(node, pod)
    if affinity is not None and node.has_numa_topology() and requests:
        numa = split_by_affinity(node, requests, affinity, res, available_numa(node, res))
    cpuset = allocate_cpuset(node, pod, res, numa) if res.request_bind else None
    return NUMAAllocation(numa, cpuset)


def numa_score(node: Node, args: Args, mask: int, pod_requests: dict[str, int],
               available: dict[int, dict[str, int]]) -> int:
    total: dict[str, int] = {}
    free: dict[str, int] = {}
    for n in bitmask.bits(mask):
        for r, v in node.numa_capacity.get(n, {}).items():
            total[r] = total.get(r, 0) + v
        for r, v in available.get(n, {}).items():
            free[r] = free.get(r, 0) + v
    requested = {r: max(0, total[r] - free.get(r, 0)) for r in total}
    s = args.numa_scoring
    return scoring.score(s.type, s.weights, requested, total, pod_requests)


def hints(node: Node, pod: Pod, res: Resolution, args: Args) -> dict[str, list[Hint]] | None:
    """One hint list per requested NUMA resource, or None when the pod requests none."""
    requests = pod_numa_requests(node, pod)
    available = available_numa(node, res)
    if not requests:
        return {}
    lacking = {r: {n for n, a in available.items() if a.get(r, 0) == 0} for r in requests}
    names = [r for r in requests if any(r in cap for cap in node.numa_capacity.values())]
    found: dict[str, list[tuple[int, int]]] = {r: [] for r in names}
    scored = amplification.scored_requests(requests, node, res)
    for mask in bitmask.iterate_masks(node.numa_ids):
        score = numa_score(node, args, mask, scored, available)
        try:
            allocate(node, pod, res, mask)
        except Refusal:
            continue
        nodes = set(bitmask.bits(mask))
        for r in names:
            # A mask holding a NUMA node without any of r left gives no hint for r
            # (the other resources keep theirs: upstream hintsGenerator.generateHints
            # runs per resource).
            if not nodes & lacking[r]:
                found[r].append((mask, score))
    out: dict[str, list[Hint]] = {}
    for r in names:
        widths = [bitmask.count(m) for m, _ in found[r]]
        target = (max(widths) if res.distribute_evenly else min(widths)) if widths else 0
        out[r] = [Hint(m, bitmask.count(m) == target or res.policy == "Restricted", s) for m, s in found[r]]
    return out
