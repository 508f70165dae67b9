"""All pod sets of one workload on the TAS flavor: groups, leaders and workers,
and the usage each placement leaves for the next (upstream
`FindTopologyAssignmentsForFlavor`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from . import elastic
from .annotations import TopologyRequest, build_request
from .gates import MULTI_LAYER, Gates
from .objects import Assignment, PodSet
from .placement import NotFit, PodSetRequest, find_topology_assignment
from .resources import Requests, add
from .topology import Snapshot, usage_per_leaf


@dataclass
class PodSetResult:
    name: str
    assignment: Assignment | None = None
    reason: str | None = None
    message: str | None = None

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "topologyAssignment": None if self.assignment is None else self.assignment.to_dict(),
            "notFit": None if self.reason is None else {"reason": self.reason, "message": self.message},
        }


def to_requests(pod_sets: list[PodSet], gates: Gates) -> list[PodSetRequest]:
    result = []
    for ps in pod_sets:
        request: TopologyRequest | None = build_request(ps.annotations, gates.enabled(MULTI_LAYER))
        result.append(PodSetRequest(name=ps.name, count=ps.count, requests=dict(ps.requests), request=request,
                                    implied=request is None or request.mode is None and not request.slice_layers,
                                    tolerations=list(ps.tolerations), node_selector=dict(ps.node_selector),
                                    affinity=ps.affinity))
    return result


def _leader_and_workers(group: list[PodSetRequest]) -> tuple[PodSetRequest | None, PodSetRequest]:
    workers = group[0]
    leader = None
    if len(group) > 1:
        leader = group[1]
        if leader.count > workers.count:
            leader, workers = group[0], group[1]
    return leader, workers


def assign(snap: Snapshot, requests: list[PodSetRequest], gates: Gates,
           assumed: dict[str, Requests] | None = None,
           previous: Mapping[str, Assignment] | None = None) -> list[PodSetResult]:
    """`previous`: the assignments of the workload slice this one replaces,
    kept in place where the elastic gates apply (see `elastic`)."""
    assumed = {} if assumed is None else assumed
    previous = previous or {}
    results = {r.name: PodSetResult(r.name) for r in requests}
    groups: dict[str, list[PodSetRequest]] = {}
    for idx, r in enumerate(requests):
        if r.count == 0:
            continue  # never reaches TAS
        key = f"\x00{idx}" if r.request is None or r.request.group_name is None else r.request.group_name
        groups.setdefault(key, []).append(r)
    failed = False
    for group in groups.values():
        if failed:
            for r in group:
                results[r.name].reason = "NotEvaluated"
                results[r.name].message = "not evaluated: an earlier pod set did not fit"
            continue
        leader, workers = _leader_and_workers(group)
        try:
            if leader is None and workers.name in previous:
                kept = elastic.place(snap, workers, previous[workers.name], assumed, gates)
                if kept is not None:
                    results[workers.name].assignment = kept
                    continue  # its usage is assumed already
            assignments = find_topology_assignment(snap, workers, leader, assumed, gates)
        except NotFit as exc:
            for r in group:
                results[r.name].reason = exc.reason
                results[r.name].message = exc.message
            failed = True
            continue
        with_pod_slots = snap.seams.pod_slots_in_podset_usage
        for r in group:
            results[r.name].assignment = assignments[r.name]
            for leaf_id, usage in usage_per_leaf(snap, assignments[r.name].domains, r.requests,
                                                 with_pod_slots).items():
                add(assumed.setdefault(leaf_id, {}), usage)
    return [results[r.name] for r in requests]
