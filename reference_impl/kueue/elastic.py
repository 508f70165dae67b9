"""Elastic workloads through workload slices under TAS (gates
ElasticJobsViaWorkloadSlices and ElasticJobsViaWorkloadSlicesWithTAS): a new
slice of a workload keeps the pods of the slice it replaces where they run
and places only the difference (upstream `tas_elastic_workloads.go`
`handleElasticWorkload`, `tas_flavorassigner.go` `WorkloadsTopologyRequests`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from reference_impl.errors import InvalidInput

from .gates import ELASTIC_JOBS, ELASTIC_JOBS_TAS, Gates
from .integrations import ELASTIC_JOB, Integration
from .objects import Assignment, parse_assignment
from .placement import PodSetRequest, find_topology_assignment
from .replacement import merge
from .resources import Requests, add
from .topology import Snapshot, usage_per_leaf


@dataclass(frozen=True)
class Slice:
    elastic: bool                                   # the workload carries kueue.x-k8s.io/elastic-job: "true"
    previous: Mapping[str, Assignment] = field(default_factory=dict)   # the replaced slice's assignments

    def applies(self, gates: Gates) -> bool:
        return self.elastic and gates.enabled(ELASTIC_JOBS) and gates.enabled(ELASTIC_JOBS_TAS)


NOT_ELASTIC = Slice(False)


def parse_slice(workload: Mapping, integration: Integration, where: str) -> Slice:
    annotations = workload.get("annotations") or {}
    if not isinstance(annotations, Mapping):
        raise InvalidInput(f"{where}.annotations", "must be a mapping")
    # the job framework copies the job's elastic-job annotation to its workload
    elastic = annotations.get(ELASTIC_JOB) == "true" or integration.elastic
    raw = workload.get("replacedSlice")
    previous: dict[str, Assignment] = {}
    if raw is not None:
        if not isinstance(raw, Mapping) or not isinstance(raw.get("podSets"), list):
            raise InvalidInput(f"{where}.replacedSlice.podSets", "required list of {name, topologyAssignment}")
        for i, ps in enumerate(raw["podSets"]):
            at = f"{where}.replacedSlice.podSets[{i}]"
            if not isinstance(ps, Mapping) or not isinstance(ps.get("name"), str):
                raise InvalidInput(f"{at}.name", "required")
            if ps.get("topologyAssignment") is not None:
                previous[ps["name"]] = parse_assignment(ps["topologyAssignment"], f"{at}.topologyAssignment")
    return Slice(elastic, previous)


def refusal(request: PodSetRequest) -> str | None:
    """Why the scheduler does not place this podset of an elastic workload:
    only unconstrained (and implied) requests grow and shrink in place."""
    if request.request is not None and request.request.required is not None:
        return "required topology is not supported with ElasticJobsViaWorkloadSlices"
    if request.request is not None and request.request.preferred is not None:
        return "preferred topology is not supported with ElasticJobsViaWorkloadSlices"
    return None


def _stale(snap: Snapshot, previous: Assignment) -> bool:
    return any(snap.leaf_id_for_values(tuple(values)) not in snap.leaves for values, _ in previous.domains)


def _truncate(previous: Assignment, count: int) -> Assignment:
    # the replaced slice's domains in their stored order, the last one cut
    kept: list[tuple[tuple[str, ...], int]] = []
    remaining = count
    for values, n in previous.domains:
        if remaining <= 0:
            break
        kept.append((values, min(n, remaining)))
        remaining -= min(n, remaining)
    return Assignment(levels=previous.levels, domains=kept)


def place(snap: Snapshot, workers: PodSetRequest, previous: Assignment, assumed: dict[str, Requests],
          gates: Gates) -> Assignment | None:
    """The new slice's assignment, or None when the replaced slice names a
    node the snapshot no longer holds (then the podset is placed afresh).
    Raises NotFit when the added pods do not fit."""
    if _stale(snap, previous):
        return None
    with_pod_slots = snap.seams.pod_slots_in_podset_usage
    before = sum(n for _, n in previous.domains)
    if workers.count <= before:
        result = _truncate(previous, workers.count) if workers.count < before else previous
        for leaf_id, usage in usage_per_leaf(snap, result.domains, workers.requests, with_pod_slots).items():
            add(assumed.setdefault(leaf_id, {}), usage)
        return result
    # the replaced slice's pods stay where they run and hold their room
    for leaf_id, usage in usage_per_leaf(snap, previous.domains, workers.requests, with_pod_slots).items():
        add(assumed.setdefault(leaf_id, {}), usage)
    delta = replace(workers, count=workers.count - before)
    added = find_topology_assignment(snap, delta, None, assumed, gates)[workers.name]
    for leaf_id, usage in usage_per_leaf(snap, added.domains, workers.requests, with_pod_slots).items():
        add(assumed.setdefault(leaf_id, {}), usage)
    return merge(snap, added, previous)
