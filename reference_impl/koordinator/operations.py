"""The Koordinator operations of the conformance protocol (see
docs/operations/koordinator.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import cpuset
from ..errors import InvalidInput
from ..numa import bitmask
from ..refusal import Refusal
from . import amplification, numa_resources, scoring, topology
from . import merge as merge_mod
from .allocation_step import op_allocate
from .args import parse_args
from .cpu_accumulator import CPUAllocationError, filter_by_required, satisfies_required
from .cpu_holds import CPUHolds, take_preferred_cpus
from .device_requests import on_node, parse_requests
from .deviceshare import node_score as device_node_score
from .hints import Hint
from .node import parse_node
from .pipeline import decide, mask_key
from .pod import parse_pod
from .policy import Resolution, check_cpu_request, filter_policies, pre_filter
from .seams import ADMITTED as ADMITTED_SEAMS
from .seams import CONTRACT, Seams


def _mapping(input_: Any) -> Mapping:
    if not isinstance(input_, Mapping):
        raise InvalidInput("", "the input must be a mapping")
    return input_


def op_resolve(input_: Mapping, seams: Seams = CONTRACT) -> dict:
    input_ = _mapping(input_)
    node = parse_node(input_.get("node") or {}, seams=seams)
    pod = parse_pod(input_.get("pod") or {})
    args = parse_args(input_.get("args"))
    res = Resolution()
    out: dict = {"accepted": True, "reason": None, "message": None}
    try:
        pre_filter(pod, args, res)
        try:
            parse_requests(pod, res.device_hints)
        except Refusal:
            # DeviceShare's PreFilter checks the device requests before it reads
            # the device annotations, so a refused request leaves them unread.
            res.parsed_devices, res.joint, res.partition_spec = False, None, None
            raise
    except Refusal as exc:
        out.update(accepted=False, reason=exc.reason, message=exc.message)
    else:
        try:
            filter_policies(node, pod, args, res)
            if node.cpu_topology is not None or pod.milli_cpu() % 1000:
                check_cpu_request(node, pod, res)
        except Refusal as exc:
            # A pod that requests nothing is skipped after PreFilter: no node
            # check refuses it (upstream nodenumaresource plugin.go PreFilter).
            if any(v != 0 for v in pod.requests.values()):
                out.update(accepted=False, reason=exc.reason, message=exc.message)
    out.update(res.to_json())
    return out


def _hint(spec, where: str) -> Hint:
    if not isinstance(spec, Mapping):
        raise InvalidInput(where, "expected a hint mapping")
    affinity = spec.get("affinity")
    if affinity is not None:
        if not isinstance(affinity, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in affinity):
            raise InvalidInput(where + "/affinity", "expected a list of NUMA ids or null")
        try:
            affinity = bitmask.from_bits(affinity)
        except bitmask.BitMaskError as exc:
            raise InvalidInput(where + "/affinity", str(exc)) from None
    score = spec.get("score", 0)
    if not isinstance(score, int) or isinstance(score, bool):
        raise InvalidInput(where + "/score", "expected an integer")
    return Hint(affinity, bool(spec.get("preferred", False)), score,
                bool(spec.get("unsatisfied", False)))


def op_merge(input_: Mapping, seams: Seams = CONTRACT) -> dict:
    input_ = _mapping(input_)
    policy = input_.get("policy", "")
    policy = "None" if policy in ("", None) else policy
    if policy not in merge_mod.POLICIES:
        raise InvalidInput("policy", f"unknown policy {policy!r}")
    numa_nodes = input_.get("numaNodes")
    if not isinstance(numa_nodes, list) or not numa_nodes or not all(
            isinstance(i, int) and not isinstance(i, bool) and 0 <= i <= 63 for i in numa_nodes):
        raise InvalidInput("numaNodes", "expected a non-empty list of NUMA ids 0..63")
    exclusive = input_.get("singleNUMANodeExclusive") or None
    try:
        statuses = {int(k): v for k, v in (input_.get("numaNodeStatus") or {}).items()}
    except (TypeError, ValueError, AttributeError):
        raise InvalidInput("numaNodeStatus", "expected a mapping of NUMA id to idle / shared / single") from None
    if any(v not in (merge_mod.IDLE, merge_mod.SHARED, merge_mod.SINGLE) for v in statuses.values()):
        raise InvalidInput("numaNodeStatus", "statuses are idle, shared or single")
    providers = []
    for i, p in enumerate(input_.get("providers") or []):
        if p is None:
            providers.append(None)
            continue
        if not isinstance(p, Mapping):
            raise InvalidInput(f"providers/{i}", "expected a mapping or null")
        providers.append({r: None if hl is None else [_hint(h, f"providers/{i}/{r}/{j}") for j, h in enumerate(hl)]
                          for r, hl in p.items()})
    outcome = merge_mod.merge(policy, numa_nodes, providers, exclusive, statuses, seams)
    h = outcome.hint
    return {
        "affinity": None if h.affinity is None else bitmask.bits(h.affinity),
        "preferred": h.preferred,
        "unsatisfied": h.unsatisfied,
        "score": h.score,
        "admit": outcome.admit,
        "reason": merge_mod.refusal_reason(outcome, policy, numa_nodes, providers, exclusive, statuses, seams),
        "reasons": list(outcome.reasons),
    }


def op_filter(input_: Mapping, seams: Seams = CONTRACT) -> dict:
    input_ = _mapping(input_)
    node = parse_node(input_.get("node") or {}, seams=seams)
    pod = parse_pod(input_.get("pod") or {})
    args = parse_args(input_.get("args"))
    return decide(node, pod, args).to_json()


def _node_level(node, pod, decision, args) -> int:
    s = args.scoring
    pod_req = {"cpu": pod.milli_cpu(), "memory": pod.request_int("memory")}
    for name, _ in s.weights:
        if name not in pod_req and name in pod.requests:
            pod_req[name] = pod.request_int(name)
    scored = node.seams.scored_numa(decision)
    # An amplified node's NUMA totals and usage are counted amplified here too.
    numa_node = amplification.numa_view(node)
    if scored:
        capacity: dict[str, int] = {}
        requested: dict[str, int] = {}
        allocated = numa_node.numa_allocated()
        for n in scored:
            for r, v in numa_node.numa_capacity.get(n, {}).items():
                capacity[r] = capacity.get(r, 0) + v
            for r, v in allocated.get(n, {}).items():
                requested[r] = requested.get(r, 0) + v
    else:
        if node.allocatable is not None:
            capacity = dict(node.allocatable)
        else:
            capacity = {}
            for res in node.numa_capacity.values():
                for r, v in res.items():
                    capacity[r] = capacity.get(r, 0) + v
        requested = {}
        for p in node.pods:
            for r, v in p.requests.items():
                requested[r] = requested.get(r, 0) + v
    bound_counted = decision.cpuset is not None and node.seams.cpu_requested_as_placed(decision, bool(scored))
    if bound_counted:
        requested["cpu"] = 1000 * len(node.allocated_cpus())
    amplification.amplify_node_score(
        node, decision.resolution, requested, pod_req, bound_counted=bound_counted,
        whole_node=not scored and (decision.resolution.policy == "None" or decision.cpuset is not None))
    return scoring.score(s.type, s.weights, requested, capacity, pod_req)


def op_score(input_: Mapping, seams: Seams = CONTRACT) -> dict:
    input_ = _mapping(input_)
    nodes_spec = input_.get("nodes")
    if not isinstance(nodes_spec, list) or not nodes_spec:
        raise InvalidInput("nodes", "expected a non-empty list of nodes")
    pod = parse_pod(input_.get("pod") or {})
    args = parse_args(input_.get("args"))
    rows = []
    for i, spec in enumerate(nodes_spec):
        node = parse_node(spec, f"nodes/{i}", seams)
        decision = decide(node, pod, args)
        row = {"name": node.name, "fits": decision.fits, "reason": decision.reason,
               "score": 0, "numaScores": {}, "deviceScore": 0}
        if decision.fits and any(v != 0 for v in pod.requests.values()):
            # NodeNUMAResource skips a pod that requests nothing (upstream
            # nodenumaresource plugin.go PreFilter, scoring.go PreScore): it gets
            # neither a node score nor NUMA scores from it.
            row["score"] = _node_level(node, pod, decision, args)
            # NUMA scores count as the hints do: amplified on an amplified node.
            numa_node = amplification.numa_view(node)
            pod_numa = amplification.scored_requests(numa_resources.pod_numa_requests(node, pod), numa_node,
                                                     decision.resolution)
            try:
                available = numa_resources.available_numa(numa_node, decision.resolution)
            except Refusal:
                # Only a forced trim refuses here (seams.forced_trim): no
                # availability, no NUMA scores.
                available = None
            if available is not None:
                row["numaScores"] = {mask_key(m): numa_resources.numa_score(numa_node, args, m, pod_numa, available)
                                     for m in bitmask.iterate_masks(node.numa_ids)}
            try:
                requests = on_node(node, parse_requests(pod, decision.resolution.device_hints),
                                   decision.resolution.device_hints)
            except Refusal:
                requests = {}
            row["deviceScore"] = device_node_score(node, requests, args, node.seams.device_score_numa(decision))
        rows.append(row)
    top = max((r["deviceScore"] for r in rows if r["fits"]), default=0)
    for r in rows:
        r["normalizedDeviceScore"] = r["deviceScore"] * 100 // top if top and r["fits"] else 0
        r["total"] = r["score"] + r["normalizedDeviceScore"]
    best = None
    for r in rows:
        if r["fits"] and (best is None or r["total"] > best["total"]):
            best = r
    return {"nodes": rows, "best": best["name"] if best else None}


def op_cpuset(input_: Mapping) -> dict:
    input_ = _mapping(input_)
    topo = topology.build(input_.get("cpuTopology"))
    if topo is None:
        raise InvalidInput("cpuTopology", "required")
    try:
        reserved = set(cpuset.parse(input_.get("reservedCPUs"), ids=True))
        holders: list[tuple[list[int], str]] = []
        for i, a in enumerate(input_.get("allocated") or []):
            if not isinstance(a, Mapping):
                raise InvalidInput(f"allocated/{i}", "expected {cpuset, cpuExclusivePolicy}")
            cpus = cpuset.parse(a.get("cpuset"), ids=True)
            for c in cpus:
                if c not in topo.cpus:
                    raise InvalidInput(f"allocated/{i}/cpuset", f"CPU {c} is not in the topology")
            holders.append((cpus, a.get("cpuExclusivePolicy") or "None"))
    except cpuset.CPUSetError as exc:
        raise InvalidInput("allocated", str(exc)) from None
    try:
        preferred = set(cpuset.parse(input_.get("preferredCPUs"), ids=True))
    except cpuset.CPUSetError as exc:
        raise InvalidInput("preferredCPUs", str(exc)) from None
    outside = sorted(preferred - set(topo.cpus))
    if outside:
        raise InvalidInput("preferredCPUs", f"CPU {outside[0]} is not in the topology")
    max_ref = input_.get("maxRefCount", 1)
    if not isinstance(max_ref, int) or isinstance(max_ref, bool) or max_ref < 1:
        raise InvalidInput("maxRefCount", "expected an integer of at least 1 (how many pods may hold one CPU)")
    need = input_.get("need")
    if not isinstance(need, int) or isinstance(need, bool) or need < 0:
        raise InvalidInput("need", "expected a non-negative integer")
    policy = input_.get("cpuBindPolicy", "Default")
    required = bool(input_.get("required", False))
    holds = CPUHolds.of(holders).give_back(preferred)
    available = holds.available(topo, max_ref, reserved)
    if input_.get("numaNodes") is not None:
        available &= topo.in_nodes(input_["numaNodes"])
    if required:
        available = filter_by_required(policy, available, topo)
    strategy = input_.get("numaAllocateStrategy", "MostAllocated")
    strategy = "MostAllocated" if strategy == "MostAllocated" else "LeastAllocated"
    try:
        if len(available) < need:
            raise CPUAllocationError("not enough cpus available to satisfy request")
        cpus = take_preferred_cpus(topo, available, preferred, holds, need, policy,
                                   input_.get("cpuExclusivePolicy", "None"), strategy, max_ref)
        if required and not satisfies_required(policy, cpus, topo):
            raise CPUAllocationError(f"insufficient CPUs to satisfy required cpu bind policy {policy}")
    except CPUAllocationError as exc:
        return {"allocated": False, "reason": "InsufficientCPUs", "message": str(exc)}
    return {"allocated": True, "cpuset": cpus, "cpusetString": cpuset.render(cpus)}


OPERATIONS = {
    "resolve": op_resolve,
    "merge": op_merge,
    "filter": op_filter,
    "score": op_score,
    "cpuset": op_cpuset,
    "allocate": op_allocate,
}

# Where the contract leaves a choice open (seams.ADMITTED), the answers under
# the other rule sets conform too.
ADMITTED = {"filter": ADMITTED_SEAMS, "score": ADMITTED_SEAMS}

FEATURES: tuple[str, ...] = (
    "koordinator.merge",
    "koordinator.policy.none",
    "koordinator.policy.best-effort",
    "koordinator.policy.restricted",
    "koordinator.policy.single-numa-node",
    "koordinator.policy.resolution",
    "koordinator.exclusive.single-numa-node",
    "koordinator.numa.strategy.most-allocated",
    "koordinator.numa.strategy.least-allocated",
    "koordinator.numa.strategy.distribute-evenly",
    "koordinator.numa.strategy.precedence",
    "koordinator.numa.resources",
    "koordinator.cpubind.default",
    "koordinator.cpubind.full-pcpus",
    "koordinator.cpubind.spread-by-pcpus",
    "koordinator.cpubind.constrained-burst",
    "koordinator.cpubind.required",
    "koordinator.cpubind.node-policy",
    "koordinator.cpubind.eligibility",
    "koordinator.cpuexclusive.pcpu-level",
    "koordinator.cpuexclusive.numa-node-level",
    "koordinator.cpuset.selection",
    "koordinator.cpuset.preferred-cpus",
    "koordinator.cpuset.shared-cpus",
    "koordinator.allocate.hint",
    "koordinator.allocate.designated",
    "koordinator.numa.cpu-amplification",
    "koordinator.score.node.most-allocated",
    "koordinator.score.node.least-allocated",
    "koordinator.score.node.balanced-allocation",
    "koordinator.score.numa.most-allocated",
    "koordinator.score.numa.least-allocated",
    "koordinator.score.numa.balanced-allocation",
    "koordinator.score.weights",
    "koordinator.deviceshare.topology",
    "koordinator.deviceshare.hints",
    "koordinator.deviceshare.selector",
    "koordinator.deviceshare.vf-selector",
    "koordinator.deviceshare.allocate-strategy.apply-for-all",
    "koordinator.deviceshare.allocate-strategy.requests-as-count",
    "koordinator.deviceshare.scope.device",
    "koordinator.deviceshare.scope.pcie",
    "koordinator.deviceshare.scope.numa-node",
    "koordinator.deviceshare.scope.node",
    "koordinator.deviceshare.exclusive.device-level",
    "koordinator.deviceshare.exclusive.pcie-level",
    "koordinator.deviceshare.joint-allocate",
    "koordinator.deviceshare.designated",
    "koordinator.deviceshare.gpu-memory",
    "koordinator.deviceshare.gpu-partition",
    "koordinator.deviceshare.gpu-partition.restricted",
    "koordinator.deviceshare.gpu-partition.best-effort",
    "koordinator.deviceshare.gpu-partition.ring-bus-bandwidth",
    "koordinator.deviceshare.gpu-partition.node-policy",
    "koordinator.deviceshare.disable-numa-alignment",
    "koordinator.deviceshare.score.most-allocated",
    "koordinator.deviceshare.score.least-allocated",
    "koordinator.validation.annotations",
    "koordinator.validation.labels",
)
