"""The Kueue TAS operations (see docs/operations/kueue.md)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from reference_impl import collector
from reference_impl.errors import InvalidInput
from reference_impl.refusal import Refusal

from . import annotations as ann
from . import elastic, hot_swap, integrations, objects, provisioning, topology, validation
from .admission import assign_pod_sets
from .gates import ELASTIC_JOBS, MULTI_LAYER
from .inputs import parse_common, parse_pod_sets, resolve_gates
from .placement import untolerated_taint
from .resources import add, count_in, plus_one_pod
from .seams import CONTRACT, Seams


def validate(input_: Mapping) -> dict:
    try:
        gates = resolve_gates(input_)
    except Refusal as exc:
        return exc.as_result()
    integration = pod_sets_of(input_, "")
    pod_sets = [b.pod_set for b in integration.pod_sets]
    multi_layer = gates.enabled(MULTI_LAYER)
    errors = validation.webhook_errors(pod_sets, multi_layer, integration, gates.enabled(ELASTIC_JOBS))
    requests = {}
    if not errors:
        requests = {b.pod_set.name: ann.build_request(b.pod_set.annotations, multi_layer, b.index)
                    for b in integration.pod_sets}
        if input_.get("topology") is not None:
            topo = objects.parse_topology(input_["topology"])
            for ps in pod_sets:
                errors.extend(validation.level_errors(ps.name, requests[ps.name], topo,
                                                      _flavor_name(input_)))
    result = {"valid": not errors, "errors": [e.to_dict() for e in errors]}
    if not errors:
        result["podSets"] = [{"name": ps.name,
                              "topologyRequest": None if requests[ps.name] is None else requests[ps.name].to_dict()}
                             for ps in pod_sets]
    return result


def pod_sets_of(holder: Mapping, where: str) -> integrations.Integration:
    """The pod sets of `holder`: its `podSets` list, or those its `integration`
    object builds (exactly one of the two)."""
    prefix = f"{where}." if where else ""
    if ("integration" in holder) == ("podSets" in holder):
        raise InvalidInput(f"{prefix}podSets", "give exactly one of podSets and integration")
    if "integration" in holder:
        return integrations.parse(holder["integration"], f"{prefix}integration")
    return integrations.plain(parse_pod_sets(holder.get("podSets"), f"{prefix}podSets"))


def _flavor_name(input_: Mapping) -> str:
    flavor = input_.get("resourceFlavor") or {}
    return str(((flavor.get("metadata") or {}).get("name")) or "")


def capacity(input_: Mapping) -> dict:
    try:
        common = parse_common(input_)
    except Refusal as exc:
        return exc.as_result()
    snap = topology.build(common.topology, common.flavor, common.nodes, common.pods, common.admitted)
    pod_set = None
    if input_.get("podSet") is not None:
        pod_set = objects.parse_pod_set(input_["podSet"], "podSet", count_required=False)
    nodes = []
    feasible: dict[str, bool] = {}
    for node in common.nodes:
        reason = snap.excluded.get(node.name)
        if reason is None and pod_set is not None and snap.lowest_is_hostname:
            tolerations = list(pod_set.tolerations) + list(common.flavor.tolerations)
            if untolerated_taint(node, tolerations) is not None:
                reason = "UntoleratedTaint"
            elif any(node.labels.get(k) != v for k, v in pod_set.node_selector.items()):
                reason = "NodeSelectorMismatch"
            elif not pod_set.affinity.admits(node.name, node.labels):
                reason = "NodeAffinityMismatch"
        if reason is None:
            feasible[node.name] = True
        nodes.append({"name": node.name, "included": reason is None, "reason": reason})
    leaf_free = {}
    leaf_pods = {}
    for leaf_id, leaf in snap.leaves.items():
        if not all(feasible.get(n.name, False) for n in leaf.nodes):
            continue  # excluded for this pod set: it offers nothing
        leaf_free[leaf_id] = leaf.remaining()
        leaf_free[leaf_id].setdefault("pods", 0)
        if pod_set is not None:
            leaf_pods[leaf_id] = count_in(plus_one_pod(pod_set.requests), leaf_free[leaf_id])[0]
    domains = []
    for level_idx, level in enumerate(snap.levels):
        for domain in sorted(snap.domains_per_level[level_idx].values(), key=lambda d: d.values):
            leaf_ids = [leaf_id for leaf_id in _leaves_under(domain) if leaf_id in leaf_free]
            if not leaf_ids:
                continue
            free: dict[str, int] = {}
            pods = 0
            for leaf_id in leaf_ids:
                add(free, leaf_free[leaf_id])
                pods += leaf_pods.get(leaf_id, 0)
            entry = {"level": level, "values": list(domain.values), "free": dict(sorted(free.items()))}
            if pod_set is not None:
                entry["podCount"] = pods
            domains.append(entry)
    return {"levels": list(snap.levels), "nodes": nodes, "domains": domains}


def _leaves_under(domain):
    if not domain.children:
        yield domain.id
        return
    for child in domain.children:
        yield from _leaves_under(child)


def assign(input_: Mapping, seams: Seams = CONTRACT) -> dict:
    try:
        common = parse_common(input_)
    except Refusal as exc:
        return exc.as_result()
    workload = input_.get("workload")
    if not isinstance(workload, Mapping):
        raise InvalidInput("workload", "required mapping")
    integration = pod_sets_of(workload, "workload")
    pod_sets = [b.pod_set for b in integration.pod_sets]
    level_check = input_.get("flavorLevelCheck", True)
    if not isinstance(level_check, bool):
        raise InvalidInput("flavorLevelCheck", "must be a bool")
    slice_ = elastic.parse_slice(workload, integration, "workload")
    return assign_pod_sets(common, pod_sets, seams=seams, flavor_level_check=level_check,
                           integration=integration, slice_=slice_)


# A cluster's nodes and the domain tree are many small objects: the cyclic
# collector pauses while an operation reads and places them (collector.py).
OPERATIONS: dict[str, Callable[[Mapping], dict]] = {
    "validate": validate,
    "capacity": collector.pausing(capacity),
    "assign": collector.pausing(assign),
    "hot_swap": collector.pausing(hot_swap.run),
    "provision": collector.pausing(provisioning.run),
}

FEATURES: tuple[str, ...] = (
    "kueue.tas.topology",
    "kueue.tas.capacity",
    "kueue.tas.taints",
    "kueue.tas.node-affinity",
    "kueue.tas.required",
    "kueue.tas.preferred",
    "kueue.tas.unconstrained",
    "kueue.tas.implied",
    "kueue.tas.domain-order",
    "kueue.tas.podset-group",
    "kueue.tas.slices",
    "kueue.tas.multi-layer-slices",
    "kueue.tas.balanced-placement",
    "kueue.tas.assignment",
    "kueue.tas.not-fit",
    "kueue.tas.placement-level-messages",
    "kueue.tas.validation",
    "kueue.tas.hot-swap",
    "kueue.tas.provisioning",
    "kueue.tas.integration.job",
    "kueue.tas.integration.jobset",
    "kueue.tas.integration.leader-worker-set",
    "kueue.tas.field-path",
    "kueue.tas.elastic-workload-slices",
    "kueue.version-defaults",
    "kueue.gate.topology-aware-scheduling",
    "kueue.gate.tas-profile-mixed",
    "kueue.gate.tas-balanced-placement",
    "kueue.gate.tas-multi-layer-topology",
    "kueue.gate.tas-failed-node-replacement",
    "kueue.gate.tas-failed-node-replacement-fail-fast",
    "kueue.gate.tas-replace-node-on-pod-termination",
    "kueue.gate.tas-replace-node-due-to-not-ready-over-fixed-time",
    "kueue.gate.tas-replace-node-on-node-taints",
    "kueue.gate.skip-reassignment-for-pod-owned-workloads",
    "kueue.gate.tas-respect-node-affinity-preferred",
    "kueue.gate.elastic-jobs-via-workload-slices",
    "kueue.gate.elastic-jobs-via-workload-slices-with-tas",
)
