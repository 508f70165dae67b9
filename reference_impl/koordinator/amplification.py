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

from ..refusal import Refusal
from .node import Node
from .pod import Pod
from .policy import Resolution

ANNOTATION = "node.koordinator.sh/resource-amplification-ratio"


def _invalid() -> Refusal:
    return Refusal("InvalidAmplificationRatio", "node(s) invalid CPU amplification ratio", "Filter")


def cpu_ratio(annotations: Mapping[str, str]) -> float | None:
    """The node's CPU ratio, None when none is set. Read as Go decodes a map of
    resource name to float: any value that is not a number fails the whole
    annotation, a JSON `null` (whole or per value) means nothing set."""
    raw = annotations.get(ANNOTATION)
    if raw is None:
        return None
    try:
        ratios = json.loads(raw)
    except ValueError:
        raise _invalid() from None
    if ratios is None:
        return None
    if not isinstance(ratios, dict):
        raise _invalid()
    for value in ratios.values():
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise _invalid()
    value = ratios.get("cpu")
    return None if value is None else float(value)


def amplify(amount: int, ratio: float) -> int:
    # Upstream multiplies in float64 and rounds up, so 4000 · 1.1 is 4401.
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
    if topo is not None and not topo.is_valid():
        # The bound CPUs cannot be counted without a valid topology.
        raise Refusal("InvalidCPUTopology", "node(s) invalid CPU Topology", "Filter")
    # Without a CPU topology no cpuset is recorded for the node.
    bound = 0 if topo is None else 1000 * len(node.allocated_cpus())
    requested = sum(p.requests.get("cpu", 0) for p in node.pods)
    if bound and requested >= bound:
        requested = requested - bound + amplify(bound, ratio)
    if request > node_cpu_allocatable(node) - requested:
        raise Refusal("InsufficientAmplifiedCPU", "Insufficient amplified cpu", "Filter")
