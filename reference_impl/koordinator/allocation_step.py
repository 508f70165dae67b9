"""The `allocate` operation: NodeNUMAResource's allocation step on a NUMA
affinity the caller supplies, and the check of a designated allocation the
pod already carries (docs/operations/koordinator.md, `allocate`).

The step is the one upstream v1.8.0 runs once the affinity is known
(`nodenumaresource` plugin.go `allocate`, `tryAllocateFromNode`;
resource_manager.go `Allocate`, `allocateResourcesByHint`,
`allocateCPUSet`). It assumes the pod passed Filter's CPU checks on the node
and does not repeat them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from .. import cpuset
from ..errors import InvalidInput
from ..numa import bitmask
from ..refusal import Refusal
from . import amplification, designated, numa_resources
from . import policy as policy_mod
from .args import parse_args
from .cpu_accumulator import filter_by_required, satisfies_required
from .designated import Designated
from .node import Node, parse_node
from .pod import Pod, parse_pod
from .seams import CONTRACT, Seams
from .status_codes import BY_REASON, ERROR, UNRESOLVABLE

# Codes the allocation step gives where they differ from filter's table, and
# those of the reasons only this operation meets.
_CODES = {
    **BY_REASON,
    # allocate meets an invalid CPU topology or ratio after Filter, as an error.
    "InvalidCPUTopology": ERROR,
    "InvalidAmplificationRatio": ERROR,
    # The SchedulingHint plugin cannot decode the hint before any PreFilter.
    "InvalidSchedulingHint": ERROR,
    # NodeNUMAResource's PreFilter cannot decode the resource status.
    "InvalidResourceStatus": UNRESOLVABLE,
}

_NOT_ENOUGH_CPUS = numa_resources.NOT_ENOUGH_CPUS


class _CodedRefusal(Refusal):
    """A refusal whose code is not its reason's usual one in this step."""

    def __init__(self, reason: str, message: str, code: str) -> None:
        super().__init__(reason, message)
        object.__setattr__(self, "code", code)


def _check_forced_trim(node: Node, res: policy_mod.Resolution) -> None:
    """Where a release trims the NUMA CPU by the node's bind policy for a pod
    that binds none (seams.forced_trim), it cannot count the free CPUs of a node
    without a valid CPU topology: the trim's error is the step's answer."""
    if res.request_bind or node.seams.forced_trim(node) is None:
        return
    if node.cpu_topology is None or not node.cpu_topology.is_valid():
        raise _CodedRefusal("InvalidCPUTopology", "node(s) invalid CPU Topology", UNRESOLVABLE)


def _affinity(value) -> int | None:
    if value is None:
        return None
    if (not isinstance(value, list) or not value
            or not all(isinstance(i, int) and not isinstance(i, bool) for i in value)):
        raise InvalidInput("affinity", "expected a non-empty list of NUMA ids or null")
    try:
        return bitmask.from_bits(value)
    except bitmask.BitMaskError as exc:
        raise InvalidInput("affinity", str(exc)) from None


def _restored(node: Node, cpus: frozenset[int]) -> Node:
    """The node with one holder of each designated CPU released: upstream hands
    the designated CPU set to GetAvailableCPUs as preferred CPUs, which lowers
    each one's reference count by one, whoever holds it."""
    left = set(cpus)
    pods = []
    for p in node.pods:
        mine = left & set(p.cpuset)
        left -= mine
        pods.append(replace(p, cpuset=[c for c in p.cpuset if c not in mine]) if mine else p)
    return replace(node, pods=pods)


def _designated_numa(node: Node, pod: Pod, res: policy_mod.Resolution, d: Designated,
                     restored: Node) -> dict[int, dict[str, int]]:
    """The split of the pod's requests over the designated NUMA nodes, with the
    designated amounts as all that is available there (the node's own free
    resources are not consulted: upstream requiredResources)."""
    available = {n: dict(amounts) for n, amounts in d.numa.items()}
    topo = node.cpu_topology
    if res.bind_required and res.request_bind and topo is not None:
        free = filter_by_required(res.bind_policy, restored.available_cpus(), topo)
        for n, amounts in available.items():
            if amounts.get("cpu", 0) and 1000 * len(free & topo.in_nodes([n])) < amounts["cpu"]:
                amounts["cpu"] = 1000 * len(free & topo.in_nodes([n]))
    names = sorted({r for amounts in d.numa.values() for r in amounts})
    requests = {r: pod.milli_cpu() if r == "cpu" else pod.request_int(r)
                for r in names if pod.requests.get(r)}
    mask = bitmask.from_bits(sorted(d.numa))
    return numa_resources.split_by_affinity(node, requests, mask, res, available)


def _designated_cpuset(node: Node, pod: Pod, res: policy_mod.Resolution, d: Designated,
                       numa: dict[int, dict[str, int]]) -> list[int]:
    """The designated CPU set when the allocation would take exactly it, else
    the refusal. The accumulator takes the designated CPUs first wherever it
    takes CPUs, so it ends with them exactly when every NUMA node of the split
    asks as many CPUs as it holds of them, all of them are free, and the pod
    needs as many."""
    topo = node.cpu_topology
    need, available = numa_resources.bindable_cpus(node, pod, res, stage="")
    wanted = set(d.cpuset)
    if numa:
        taken = 0
        exact = True
        found: set[int] = set()
        for n in sorted(numa):
            in_node = available & topo.in_nodes([n])
            count = min(len(in_node), numa[n].get("cpu", 0) // 1000)
            mine = wanted & in_node
            exact &= count == len(mine)
            found |= mine
            taken += count
        exact &= taken == need and found == wanted
    else:
        exact = wanted <= available and len(wanted) == need
    if not exact:
        raise Refusal("InsufficientCPUs", _NOT_ENOUGH_CPUS)
    result = sorted(wanted)
    if res.bind_required and not satisfies_required(res.bind_policy, result, topo):
        raise Refusal("InsufficientCPUs", f"insufficient CPUs to satisfy required cpu bind policy {res.bind_policy}")
    return result


def _pre_filter(pod: Pod, args, res: policy_mod.Resolution) -> Designated | None:
    """The SchedulingHint plugin's BeforePreFilter, then NodeNUMAResource's
    PreFilter: its annotations, the skip of a pod that requests nothing, the
    resource status, the integer CPU check of its own binding."""
    hands_over = designated.hands_over(pod.annotations)
    requests_any = any(v != 0 for v in pod.requests.values())
    try:
        policy_mod.pre_filter(pod, args, res, devices=False)
    except Refusal as exc:
        if exc.reason == "InvalidRequestedCPUs" and hands_over:
            # The resource status is read before the CPU request is checked.
            designated.read(pod.annotations)
        raise
    if not requests_any or not hands_over:
        return None
    return designated.read(pod.annotations)


def allocate(node: Node, pod: Pod, args, affinity: int | None) -> dict:
    out: dict = {"allocated": True, "reason": None, "message": None, "stage": None, "code": None,
                 "designated": False, "numaResources": {}, "cpuset": None, "cpusetString": None}
    res = policy_mod.Resolution()
    stage = "PreFilter"
    try:
        d = _pre_filter(pod, args, res)
        if not any(v != 0 for v in pod.requests.values()):
            return out
        out["designated"] = d is not None
        # A designated allocation is checked in Filter; otherwise the step is Reserve's.
        stage = "Filter" if d is not None else "Reserve"
        try:
            policy_mod.filter_policies(node, pod, args, res)
        except Refusal as exc:
            # The step does not compare the bind policies; the pod's required
            # one stands (upstream util.go getCPUBindPolicy).
            if exc.reason != "CPUBindPolicyConflict":
                raise
        if res.request_bind and pod.milli_cpu() % 1000:
            raise Refusal("InvalidRequestedCPUs", "the requested CPUs must be integer")
        if not res.request_bind and res.policy == "None":
            return out
        if res.request_bind and (node.cpu_topology is None or not node.cpu_topology.is_valid()):
            raise Refusal("InvalidCPUTopology", "node(s) invalid CPU Topology")
        if amplification.topology_ratios(node) is None:
            # The Node's ratio is read only when the NodeResourceTopology
            # carries none (upstream util.go amplifyNUMANodeResources).
            try:
                amplification.ratios(node.annotations)
            except Refusal as exc:
                raise Refusal("InvalidAmplificationRatio", exc.message) from None
        view = amplification.numa_view(node)
        restored = _restored(view, d.cpuset) if d is not None else view
        by_designation = d is not None and bool(d.numa)
        numa: dict[int, dict[str, int]] = {}
        if by_designation or affinity is not None:
            if not node.has_numa_topology():
                raise Refusal("MissingNUMAResources", "insufficient resources on NUMA Node")
            _check_forced_trim(node, res)
            if by_designation:
                numa = _designated_numa(node, pod, res, d, restored)
            else:
                requests = numa_resources.pod_numa_requests(view, pod)
                if requests:
                    numa = numa_resources.split_by_affinity(
                        view, requests, affinity, res, numa_resources.available_numa(restored, res))
        cpus: list[int] | None = None
        if d is not None:
            if res.request_bind:
                cpus = _designated_cpuset(restored, pod, res, d, numa)
            elif d.cpuset:
                # The allocation binds no CPU, so it cannot be the designated set.
                raise Refusal("InsufficientCPUs", _NOT_ENOUGH_CPUS)
        elif res.request_bind:
            cpus = numa_resources.allocate_cpuset(view, pod, res, numa)
    except Refusal as exc:
        code = getattr(exc, "code", None) or _CODES[exc.reason]
        out.update(allocated=False, reason=exc.reason, message=exc.message, stage=stage, code=code)
        return out
    out["numaResources"] = {str(n): dict(amounts) for n, amounts in sorted(numa.items())}
    if cpus is not None:
        out["cpuset"], out["cpusetString"] = cpus, cpuset.render(cpus)
    return out


def op_allocate(input_: Mapping, seams: Seams = CONTRACT) -> dict:
    if not isinstance(input_, Mapping):
        raise InvalidInput("", "the input must be a mapping")
    node = parse_node(input_.get("node") or {}, seams=seams)
    pod = parse_pod(input_.get("pod") or {})
    args = parse_args(input_.get("args"))
    return allocate(node, pod, args, _affinity(input_.get("affinity")))
