"""Pod sets built by the job integrations, their webhooks' order of checks and
field paths, and elastic workload slices."""

from __future__ import annotations

import pytest

from reference_impl.errors import InvalidInput
from reference_impl.kueue.operations import OPERATIONS

from .helpers import (
    GROUP,
    HOST,
    RACK,
    REQUIRED,
    SLICE_SIZE,
    SLICE_TOPOLOGY,
    UNCONSTRAINED,
    cluster,
    flavor,
    placed,
    topology,
)

ELASTIC = {"kueue.x-k8s.io/elastic-job": "true"}
BOTH_GATES = {"ElasticJobsViaWorkloadSlices": True, "ElasticJobsViaWorkloadSlicesWithTAS": True}


def template(annotations=None, cpu="1"):
    return {"metadata": {"annotations": annotations or {}},
            "spec": {"containers": [{"resources": {"requests": {"cpu": cpu}}}]}}


def validate(**input_):
    return OPERATIONS["validate"](input_)


def lws(size, leader=None, worker=None):
    lwt = {"size": size, "workerTemplate": template(worker)}
    if leader is not None:
        lwt["leaderTemplate"] = template(leader)
    return {"kind": "LeaderWorkerSet", "spec": {"leaderWorkerTemplate": lwt}}


def jobset(*jobs):
    return {"kind": "JobSet", "spec": {"replicatedJobs": [
        {"name": name, "replicas": replicas, "template": {"spec": {"parallelism": pods, "template": template(ann)}}}
        for name, replicas, pods, ann in jobs]}}


def test_a_group_of_one_passes_the_job_webhook_but_not_a_plain_list():
    annotations = {REQUIRED: RACK, GROUP: "g"}
    plain = validate(podSets=[{"name": "main", "count": 2, "annotations": annotations}])
    assert [e["reason"] for e in plain["errors"]] == ["GroupSize"]
    job = validate(integration={"kind": "Job", "spec": {"parallelism": 2, "template": template(annotations)}})
    assert job["valid"] is True
    assert job["podSets"][0]["topologyRequest"]["podIndexLabel"] == "batch.kubernetes.io/job-completion-index"


def test_lws_bounds_workers_beside_their_own_errors_the_plain_list_does_not():
    worker = {REQUIRED: RACK, GROUP: "g", SLICE_TOPOLOGY: HOST, SLICE_SIZE: "4"}
    result = validate(integration=lws(4, leader={REQUIRED: RACK, GROUP: "g"}, worker=worker))
    assert [(e["podSet"], e["reason"]) for e in result["errors"]] == [
        ("worker", "GroupNameWithSlices"), ("worker", "GroupNameWithSlices"), ("worker", "SliceSizeAboveCount")]
    assert result["errors"][2]["field"] == \
        "spec.leaderWorkerTemplate.workerTemplate.metadata.annotations[kueue.x-k8s.io/podset-slice-size]"
    plain = validate(podSets=[{"name": "leader", "count": 1, "annotations": {REQUIRED: RACK, GROUP: "g"}},
                              {"name": "worker", "count": 3, "annotations": worker}])
    assert "SliceSizeAboveCount" not in [e["reason"] for e in plain["errors"]]


def test_jobset_reports_a_repeated_error_once():
    result = validate(integration=jobset(("workers", 1, 1, {SLICE_SIZE: "abc"})))
    assert [e["reason"] for e in result["errors"]] == ["SliceSizeNotNumeric", "SliceSizeWithoutTopology"]


def test_jobset_group_errors_name_the_other_template():
    result = validate(integration=jobset(("a", 1, 1, {REQUIRED: RACK, GROUP: "g"}),
                                         ("b", 1, 1, {REQUIRED: HOST, GROUP: "g"})))
    mismatch = [e for e in result["errors"] if e["reason"] == "GroupTopologyMismatch"]
    assert [e["field"] for e in mismatch] == [
        "spec.replicatedJobs[0].template.spec.template.metadata.annotations",
        "spec.replicatedJobs[1].template.spec.template.metadata.annotations"]
    assert "'spec.replicatedJobs[1].template.spec.template.metadata.annotations'" in mismatch[0]["message"]


def test_an_unbuildable_request_stops_the_jobset_group_checks():
    result = validate(integration=jobset(("a", 1, 1, {REQUIRED: RACK, GROUP: "g"}),
                                         ("b", 1, 1, {UNCONSTRAINED: "maybe"})))
    assert [e["reason"] for e in result["errors"]] == ["InvalidBoolean"]


def test_an_index_only_request_is_implied_and_has_no_level_problem():
    result = validate(integration=jobset(("driver", 1, 1, {})), topology=topology())
    assert result["valid"] is True
    request = result["podSets"][0]["topologyRequest"]
    assert (request["mode"], request["subGroupCount"]) == (None, 1)


def test_elastic_job_refusal_follows_its_gate():
    job = {"kind": "Job", "metadata": {"annotations": ELASTIC}, "spec": {"template": template({REQUIRED: RACK})}}
    refused = validate(kueueVersion="0.18", integration=job)
    assert refused["errors"][0]["field"] == "spec.template.metadata.annotations.kueue.x-k8s.io/podset-required-topology"
    assert validate(kueueVersion="0.17", integration=job)["valid"] is True


@pytest.mark.parametrize("holder, field", [
    ({"podSets": [], "integration": {"kind": "Job", "spec": {"template": {}}}}, "podSets"),
    ({"integration": {"kind": "CronJob", "spec": {}}}, "integration.kind"),
    ({"integration": {"kind": "Job", "spec": {}}}, "integration.spec.template"),
    ({"integration": {"kind": "JobSet", "spec": {"replicatedJobs": [{"template": {}}]}}},
     "integration.spec.replicatedJobs[0].name"),
])
def test_bad_integration_input_names_the_field(holder, field):
    with pytest.raises(InvalidInput) as exc:
        validate(**holder)
    assert exc.value.field == field


def assign_elastic(count, previous, annotations=None, gates=BOTH_GATES, workload_annotations=ELASTIC):
    workload = {"name": "wl", "annotations": workload_annotations,
                "podSets": [{"name": "main", "count": count, "annotations": annotations or {UNCONSTRAINED: "true"},
                             "requests": {"cpu": "1"}}]}
    if previous is not None:
        workload["replacedSlice"] = {"podSets": [{"name": "main", "topologyAssignment": {
            "levels": [HOST], "domains": [{"values": [h], "count": n} for h, n in previous]}}]}
    return OPERATIONS["assign"]({"topology": topology(), "resourceFlavor": flavor(), "nodes": cluster(),
                                 "workload": workload, "featureGates": gates})


def test_growing_keeps_the_replaced_pods_and_places_the_rest():
    assert placed(assign_elastic(12, [("b2-r2-n2", 4)])) == [("b1-r1-n1", 8), ("b2-r2-n2", 4)]


def test_growing_past_the_room_left_counts_only_the_added_pods():
    result = assign_elastic(70, [("b2-r2-n2", 4)])
    assert "allows to fit only 60 out of 66 pod(s)" in result["podSets"][0]["notFit"]["message"]


def test_shrinking_cuts_the_replaced_assignment_in_order():
    assert placed(assign_elastic(5, [("b1-r2-n1", 4), ("b2-r1-n2", 4)])) == [("b1-r2-n1", 4), ("b2-r1-n2", 1)]


def test_a_stale_replaced_slice_is_placed_afresh():
    assert placed(assign_elastic(6, [("b2-r2-n2", 2), ("gone", 2)])) == [("b1-r1-n1", 6)]


def test_the_replaced_slice_counts_only_for_an_elastic_workload_with_both_gates():
    assert placed(assign_elastic(4, [("b2-r2-n2", 4)], gates={"ElasticJobsViaWorkloadSlicesWithTAS": False})) == \
        [("b1-r1-n1", 4)]
    assert placed(assign_elastic(4, [("b2-r2-n2", 4)], workload_annotations={})) == [("b1-r1-n1", 4)]
    assert placed(assign_elastic(4, [("b2-r2-n2", 4)])) == [("b2-r2-n2", 4)]


def test_required_topology_is_refused_only_for_elastic_workloads():
    refused = assign_elastic(4, None, annotations={REQUIRED: RACK})
    assert refused["podSets"][0]["notFit"]["reason"] == "ElasticTopologyNotSupported"
    assert placed(assign_elastic(4, None, annotations={REQUIRED: RACK}, workload_annotations={})) == [("b1-r1-n1", 4)]
