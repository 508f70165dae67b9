"""CPU amplification: a node whose CPUs are sold more than once.

A node annotated `node.koordinator.sh/resource-amplification-ratio`
(`{"cpu": 1.5}`) reports its allocatable CPU already multiplied; pods that
share CPUs are counted as requested, but a CPU a pod binds exclusively is
worth `ratio` shared CPUs, so NodeNUMAResource's Filter counts bound CPUs
amplified (upstream v1.8.0 `nodenumaresource` plugin.go `filterAmplifiedCPUs`,
`apis/extension` node_resource_amplification.go)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import replace

from ..refusal import Refusal
from .node import Node
from .pod import Pod
from .policy import Resolution

ANNOTATION = "node.koordinator.sh/resource-amplification-ratio"


def _invalid() -> Refusal:
    return Refusal("InvalidAmplificationRatio", "node(s) invalid CPU amplification ratio", "Filter")


def ratios(annotations: Mapping[str, str]) -> dict[str, float]:
    """The node's ratios by resource name. Read as Go decodes a map of resource
    name to float: any value that is not a number fails the whole annotation,
    a JSON `null` (whole or per value) means nothing set."""
    raw = annotations.get(ANNOTATION)
    if raw is None:
        return {}
    try:
        decoded = json.loads(raw)
    except ValueError:
        raise _invalid() from None
    if decoded is None:
        return {}
    if not isinstance(decoded, dict):
        raise _invalid()
    out: dict[str, float] = {}
    for name, value in decoded.items():
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _invalid()
        out[name] = float(value)
    return out


def topology_ratios(node: Node) -> dict[str, float] | None:
    """The ratios the NodeResourceTopology carries, or None when it carries
    none: no annotation, a JSON null, or a value that does not decode, which
    upstream only logs (v1.8.0 `nodenumaresource` topology_options.go
    `NewTopologyOptions`). Any object, `{}` included, is a set of ratios."""
    raw = node.topology_annotations.get(ANNOTATION)
    if raw is None:
        return None
    try:
        decoded = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(decoded, dict):
        return None
    out: dict[str, float] = {}
    for name, value in decoded.items():
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        out[name] = float(value)
    return out


def numa_ratios(node: Node) -> tuple[dict[str, float], bool]:
    """The ratios NodeNUMAResource counts NUMA resources and scores with, and
    whether the NUMA totals are to be amplified: the NodeResourceTopology's
    when it carries a set, its zones then taken as written (already
    amplified); else the Node's, amplifying the zones (upstream util.go
    `amplifyNUMANodeResources` returns early when the NodeResourceTopology
    gave ratios). The Filter's node-level check reads only the Node's."""
    own = topology_ratios(node)
    if own is not None:
        return own, False
    try:
        return ratios(node.annotations), True
    except Refusal:
        # A pod with a CPU request was refused by `check` already.
        return {}, False


def cpu_ratio(annotations: Mapping[str, str]) -> float | None:
    """The node's CPU ratio, None when none is set."""
    return ratios(annotations).get("cpu")


def amplify(amount: int, ratio: float) -> int:
    # Upstream multiplies in float64 and rounds up, so 3000 · 1.1 is 3301.
    return amount if ratio <= 1 else math.ceil(amount * ratio)


def node_cpu_allocatable(node: Node) -> int:
    if node.allocatable is not None:
        return node.allocatable.get("cpu", 0)
    return sum(res.get("cpu", 0) for res in node.numa_capacity.values())


def check(node: Node, pod: Pod, res: Resolution) -> None:
    """The node-level amplified CPU check of Filter; it runs after the policy
    match and before the CPU topology and bind-policy checks."""
    request = pod.milli_cpu()
    if request == 0:
        return
    ratio = cpu_ratio(node.annotations)
    if ratio is None or ratio <= 1:
        return
    if res.request_bind:
        request = amplify(request, ratio)
    topo = node.cpu_topology
    if topo is None or not topo.is_valid():
        # The bound CPUs cannot be counted without a valid topology: upstream's
        # resource manager answers an error for a NodeResourceTopology whose CPU
        # topology is missing or invalid (resource_manager.go GetAvailableCPUs).
        raise Refusal("InvalidCPUTopology", "node(s) invalid CPU Topology", "Filter")
    bound = 1000 * len(node.allocated_cpus())
    requested = sum(p.requests.get("cpu", 0) for p in node.pods)
    if bound and requested >= bound:
        requested = requested - bound + amplify(bound, ratio)
    if request > node_cpu_allocatable(node) - requested:
        raise Refusal("InsufficientAmplifiedCPU", "Insufficient amplified cpu", "Filter")


def numa_view(node: Node) -> Node:
    """The node as NodeNUMAResource's NUMA accounting sees it: every NUMA total
    of a resource with a ratio above 1 amplified, and on each NUMA node that
    holds placed pods' resources the CPUs bound there counted amplified
    (upstream v1.8.0 `nodenumaresource` util.go `amplifyNUMANodeResources`,
    node_allocation.go `getAvailableNUMANodeResources`). With ratios of the
    NodeResourceTopology the totals are its zones as written (`numa_ratios`)."""
    found, amplify_totals = numa_ratios(node)
    amplifying = {r: v for r, v in found.items() if v > 1}
    if not amplifying:
        return node
    capacity = node.numa_capacity
    if amplify_totals:
        capacity = {n: {r: amplify(v, amplifying[r]) if r in amplifying else v for r, v in res.items()}
                    for n, res in node.numa_capacity.items()}
    cpu = amplifying.get("cpu")
    extra: dict[int, dict[str, int]] = {}
    topo = node.cpu_topology
    if cpu is not None and topo is not None and topo.is_valid() and node.seams.placed_numa_recorded(node):
        held = set(node.allocated_cpus())
        recorded = {n for p in node.pods for n in p.numa}
        for n in sorted(recorded):
            bound = 1000 * len(held & topo.in_nodes([n]))
            if bound:
                extra[n] = {"cpu": amplify(bound, cpu) - bound}
    return replace(node, numa_capacity=capacity, numa_extra=extra, cpu_ratio=cpu)


def scored_requests(requests: dict[str, int], node: Node, res: Resolution) -> dict[str, int]:
    """The pod's NUMA requests as the NUMA scorer sees them: a pod that binds
    CPUs asks amplified CPU there, while its NUMA split and its CPU set keep
    the CPUs it asked for (upstream resource_manager.go
    `allocateResourcesByHint` splits the original requests)."""
    if not res.request_bind or node.cpu_ratio is None or "cpu" not in requests:
        return requests
    return {**requests, "cpu": amplify(requests["cpu"], node.cpu_ratio)}


def scoring_cpu_ratio(node: Node) -> float | None:
    """The CPU ratio the node scores count with (`numa_ratios`): above 1, or
    None (also for a Node annotation that does not decode, which Filter has
    refused already for a pod with a CPU request)."""
    ratio = numa_ratios(node)[0].get("cpu")
    return ratio if ratio is not None and ratio > 1 else None


def amplify_node_score(node: Node, res: Resolution, requested: dict[str, int], pod_req: dict[str, int],
                       *, whole_node: bool, bound_counted: bool) -> None:
    """The node score on an amplified node. A pod that binds CPUs asks
    amplified CPU wherever it is scored (upstream plugin.go `getResourceOptions`
    hands the scorer the amplified requests). Over the whole node the CPUs
    placed pods bound count amplified in what is requested, whatever the
    requested sum is: under policy None for every pod with a CPU request
    (scoring.go `scoreWithAmplifiedCPUs`), under another policy for a pod given
    a CPU set (`calculateAllocatableAndRequested`). Over NUMA nodes the usage
    is amplified already (`numa_view`). `bound_counted`: the CPU requested was
    set to the bound CPUs (a release seam) and is amplified as a whole."""
    ratio = scoring_cpu_ratio(node)
    if ratio is None or pod_req.get("cpu", 0) == 0:
        return
    if bound_counted:
        requested["cpu"] = amplify(requested.get("cpu", 0), ratio)
    elif whole_node:
        topo = node.cpu_topology
        bound = 1000 * len(node.allocated_cpus()) if topo is not None and topo.is_valid() else 0
        requested["cpu"] = requested.get("cpu", 0) - bound + amplify(bound, ratio)
    if res.request_bind:
        pod_req["cpu"] = amplify(pod_req["cpu"], ratio)
