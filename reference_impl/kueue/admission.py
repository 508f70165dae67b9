"""A workload's pod sets through the scheduler's admission: the webhooks'
checks, the flavor assigner's missing-level check over every pod set, then
topology assignment in order (with the pod set updates admission checks made,
for the provisioning flow)."""

from __future__ import annotations

from . import elastic, topology, validation
from .gates import ELASTIC_JOBS, MULTI_LAYER
from .seams import CONTRACT, Seams
from .workload import assign as assign_workload
from .workload import to_requests


def assign_pod_sets(common, pod_sets, podset_updates=None, seams: Seams = CONTRACT,
                    flavor_level_check: bool = True, integration=None,
                    slice_: elastic.Slice = elastic.NOT_ELASTIC) -> dict:
    multi_layer = common.gates.enabled(MULTI_LAYER)
    errors = validation.webhook_errors(pod_sets, multi_layer, integration, common.gates.enabled(ELASTIC_JOBS))
    if errors:
        return {"admitted": False, "rejected": [e.to_dict() for e in errors]}
    snap = topology.build(common.topology, common.flavor, common.nodes, common.pods, common.admitted, seams)
    requests = to_requests(pod_sets, common.gates)
    for r in requests:
        if podset_updates and r.name in podset_updates:
            update = podset_updates[r.name]
            r.node_selector.update(update.get("nodeSelector", {}))
            r.tolerations.extend(update.get("tolerations", []))
    level_failure = None
    for ps, r in zip(pod_sets, requests, strict=True):
        if r.count == 0 or not flavor_level_check:
            continue
        # Only the flavor assigner's missing-level check runs over every podset
        # before placement; the other level problems are found when the podset's
        # turn to be placed comes, after the podsets before it.
        problems = [p for p in validation.level_errors(ps.name, r.request, common.topology, common.flavor.name)
                    if p.reason == "UnknownTopologyLevel"]
        if problems:
            level_failure = (ps.name, problems[0].reason, problems[0].message)
            break
    if level_failure is None and slice_.applies(common.gates):
        # the scheduler's second look, once every level is known: an elastic
        # workload grows and shrinks only without a required or preferred level
        for ps, r in zip(pod_sets, requests, strict=True):
            message = elastic.refusal(r) if r.count > 0 else None
            if message is not None:
                level_failure = (ps.name, "ElasticTopologyNotSupported", message)
                break
    if level_failure is not None:
        results = []
        for ps in pod_sets:
            if ps.name == level_failure[0]:
                results.append({"name": ps.name, "topologyAssignment": None,
                                "notFit": {"reason": level_failure[1], "message": level_failure[2]}})
            elif ps.count == 0:
                results.append({"name": ps.name, "topologyAssignment": None, "notFit": None})
            else:
                results.append({"name": ps.name, "topologyAssignment": None,
                                "notFit": {"reason": "NotEvaluated",
                                           "message": "not evaluated: an earlier pod set did not fit"}})
        return {"admitted": False, "podSets": results}
    results = assign_workload(snap, requests, common.gates,
                              previous=slice_.previous if slice_.applies(common.gates) else None)
    admitted = all(r.assignment is not None for r, ps in zip(results, pod_sets, strict=True) if ps.count > 0)
    return {"admitted": admitted, "podSets": [r.to_dict() for r in results]}
