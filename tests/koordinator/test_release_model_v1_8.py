"""The v1.8.0 NodeNUMAResource and merge behaviours of the release model
(conformance/releases/koordinator_v1_8.py), on the corpus cases that pin them:
the reference alone follows the contract, and with each behaviour in its seams
gives the answer the case's notes derive for v1.8.0."""

from __future__ import annotations

import pytest

from conformance import corpus
from conformance.releases.koordinator_v1_8 import MODEL, share_against_its_free
from reference_impl import dispatch
from reference_impl.koordinator import seams


@pytest.fixture(scope="module")
def cases():
    return {c.id: c for c in corpus.load().cases if c.component == "koordinator"}


def _run(case, *behaviours):
    return MODEL.run(case.operation, case.input, behaviours)


def test_best_effort_is_scored_on_the_whole_node(cases):
    case = cases["koord.score.node.best-effort-numa-allocation"]
    assert _run(case)["nodes"][0]["score"] == 62
    # 16 CPUs / 64Gi with 6 / 16Gi requested: (62 + 75) / 2
    assert _run(case, "best-effort-scored-before-merge")["nodes"][0]["score"] == 68
    # the NUMA scores are the hints', untouched
    assert _run(case, "best-effort-scored-before-merge")["nodes"][0]["numaScores"] == {"0": 37, "1": 62, "0,1": 68}


def test_best_effort_cpu_binding_pod_counts_the_bound_cpus():
    node = {"name": "n", "labels": {"node.koordinator.sh/numa-topology-policy": "BestEffort"},
            "cpuTopology": {"sockets": 2, "numaNodesPerSocket": 1, "coresPerNUMANode": 4, "threadsPerCore": 2},
            "numaNodes": [{"id": 0, "memory": "32Gi"}, {"id": 1, "memory": "32Gi"}],
            "pods": [{"name": "a", "cpuset": "0-3", "requests": {"cpu": "2", "memory": "4Gi"}},
                     {"name": "b", "numaResources": {"1": {"cpu": "3", "memory": "8Gi"}}}]}
    pod = {"labels": {"koordinator.sh/qosClass": "LSR"},
           "containers": [{"name": "app", "resources": {"requests": {"cpu": "4", "memory": "8Gi"},
                                                        "limits": {"cpu": "4", "memory": "8Gi"}}}]}
    row = MODEL.run("score", {"nodes": [node], "pod": pod}, ["best-effort-scored-before-merge"])["nodes"][0]
    # cpu: 4 bound by a, not the 2 + 3 requested, plus the pod's 4 of 16 -> 50;
    # memory 4 + 8 + 8 of 64Gi -> 68; (50 + 68) / 2
    assert row["score"] == 59


def test_placed_pods_unrecorded_without_cpu_topology(cases):
    case = cases["koord.filter.numa.placed-pods-without-cpu-topology"]
    assert _run(case)["hint"]["affinity"] == [1]
    answer = _run(case, "placed-numa-unrecorded-without-cpu-topology")
    assert [h["score"] for h in answer["hints"]["cpu"]] == [62, 62, 81]
    assert answer["hint"]["affinity"] == [0]
    assert answer["numaResources"] == {"0": {"cpu": 4000, "memory": 8589934592}}


def test_placed_pods_still_recorded_with_a_cpu_topology(cases):
    """The same usage on a node with CPUs is counted with the behaviour in place."""
    case = cases["koord.score.node.best-effort-numa-allocation"]
    assert _run(case, "placed-numa-unrecorded-without-cpu-topology") == _run(case)


def test_node_bind_policy_trims_for_a_pod_without_cpu_request(cases):
    case = cases["koord.filter.numa.node-bind-policy-without-cpu-request"]
    assert [h["score"] for h in _run(case)["hints"]["memory"]] == [75, 87, 87]
    answer = _run(case, "node-bind-trims-without-cpu-request")
    assert [h["score"] for h in answer["hints"]["memory"]] == [62, 87, 81]
    assert answer["hint"]["affinity"] == [1] and answer["fits"] is True


def test_node_bind_policy_without_cpu_topology_refuses_with_the_behaviour():
    data = {"node": {"labels": {"node.koordinator.sh/numa-topology-policy": "Restricted",
                                "node.koordinator.sh/cpu-bind-policy": "FullPCPUsOnly"},
                     "numaNodes": [{"id": 0, "memory": "32Gi", "cpu": "4"}]},
            "pod": {"containers": [{"name": "app", "resources": {"requests": {"memory": "8Gi"},
                                                                 "limits": {"memory": "8Gi"}}}]}}
    assert dispatch.run("koordinator", "filter", data)["fits"] is True
    answer = MODEL.run("filter", data, ["node-bind-trims-without-cpu-request"])
    assert (answer["fits"], answer["reason"], answer["stage"]) == (False, "InsufficientNUMAResources", "Filter")


def test_lower_mask_before_score(cases):
    case = cases["koord.merge.equal-width-higher-score-mask-order"]
    assert _run(case)["affinity"] == [0, 3]
    assert _run(case, "lower-mask-before-score")["affinity"] == [1, 2]
    # a later equal-width hint with a higher mask still wins on score
    later = {"policy": "BestEffort", "numaNodes": [0, 1],
             "providers": [{"cpu": [{"affinity": [0], "preferred": False, "score": 0},
                                    {"affinity": [1], "preferred": False, "score": 1}]}]}
    assert MODEL.run("merge", later, ["lower-mask-before-score"])["affinity"] == [1]


def test_the_reference_alone_follows_the_contract(cases):
    """No seams given is the contract's seams, and a model with no behaviour
    named answers as the reference does."""
    case = cases["koord.merge.equal-width-higher-score-mask-order"]
    assert dispatch.run("koordinator", "merge", case.input) == dispatch.run(
        "koordinator", "merge", case.input, seams=seams.CONTRACT) == _run(case)
    assert seams.Seams() == seams.CONTRACT


def test_an_unknown_behaviour_is_refused_by_name():
    with pytest.raises(KeyError, match="no such behaviour"):
        MODEL.seams(["no such behaviour"])


def test_cpu_bound_on_another_numa_node_counts_against_the_chosen_one(cases):
    case = cases["koord.score.node.numa-cpu-binding-pod-counts-bound-cpus-node-wide"]
    assert _run(case)["nodes"][0]["score"] == 75
    # NUMA 1 charged with the 2 CPUs bound on NUMA 0 plus the pod's 2: cpu 0, memory 100
    assert _run(case, "numa-cpu-as-bound-cpus")["nodes"][0]["score"] == 50


def test_a_gpu_share_under_most_allocated_treats_every_gpu_in_use_as_full(cases):
    case = cases["koord.filter.gpu-share.choice-by-device-score[scoring=MostAllocated,minor=1]"]
    # The contract: 10 + 50 against 25 + 50 percent used, the fuller GPU 1.
    assert _run(case)["devices"]["gpu"][0]["minor"] == 1
    # The release: both GPUs in use score 100, the lower minor wins.
    assert _run(case, "shared-gpu-walk-score-swapped")["devices"]["gpu"][0]["minor"] == 0


def test_a_gpu_share_on_an_unused_gpu_is_scored_as_by_the_contract():
    # unused: the share against the capacity, as the contract has it
    assert share_against_its_free(0, 50, 100) == seams.share_requested(0, 50, 100) == (50, 100)
    # in use: its free amount against itself, full whatever the share
    assert share_against_its_free(25, 50, 100) == (75, 75)


def test_partition_groups_are_tried_lowest_score_first_by_the_release(cases):
    case = cases["koord.filter.partition.preferred-table-higher-score"]
    # The contract: the score-1 group {1} first.
    assert _run(case)["devices"]["gpu"][0]["minor"] == 1
    # The release: the score-0 group {0} first, and it is free.
    assert _run(case, "partition-groups-lowest-score-first")["devices"]["gpu"][0]["minor"] == 0


def test_best_effort_node_beside_a_node_with_a_bound_cpu():
    """Two declared behaviours on one score: the BestEffort node scored over the
    whole node, the Restricted node's chosen NUMA node charged with CPU 0 bound
    on NUMA 0."""
    best_effort = {"name": "be", "labels": {"node.koordinator.sh/numa-topology-policy": "BestEffort"},
                   "cpuTopology": {"sockets": 1, "numaNodesPerSocket": 1, "coresPerNUMANode": 1, "threadsPerCore": 2},
                   "numaNodes": [{"id": 0, "memory": "16Gi"}], "allocatable": {"cpu": "1", "memory": "8Gi"}}
    restricted = {"name": "r", "labels": {"node.koordinator.sh/numa-topology-policy": "Restricted"},
                  "cpuTopology": {"sockets": 2, "numaNodesPerSocket": 2, "coresPerNUMANode": 2, "threadsPerCore": 2},
                  "numaNodes": [{"id": i, "memory": "16Gi"} for i in range(4)],
                  "pods": [{"name": "placed", "cpuset": "0"}]}
    pod = {"labels": {"koordinator.sh/qosClass": "LSE"},
           "containers": [{"name": "app", "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}}]}
    data = {"nodes": [best_effort, restricted], "pod": pod}
    # contract: NUMA 0 of be: cpu (2 - 1)/2 -> 50, memory 100 -> 75;
    # NUMA 1 of r: cpu (4 - 1)/4 -> 75, memory 100 -> 87
    assert [n["score"] for n in dispatch.run("koordinator", "score", data)["nodes"]] == [75, 87]
    answer = MODEL.run("score", data, ["best-effort-scored-before-merge", "numa-cpu-as-bound-cpus"])
    # be over the whole node: cpu (1 - 1)/1 -> 0, memory 100 -> 50;
    # r's NUMA 1 charged with CPU 0: cpu (4 - 1 - 1)/4 -> 50, memory 100 -> 75
    assert [n["score"] for n in answer["nodes"]] == [50, 75]


def test_device_score_adds_one_instance(cases):
    case = cases["koord.score.device.several-gpus-request-every-gpu"]
    # 200 of 400 percent requested under the contract
    assert _run(case)["nodes"][0]["deviceScore"] == 50
    # one GPU's 100 of 400: (400 - 100) * 100 / 400
    assert _run(case, "device-score-one-instance")["nodes"][0]["deviceScore"] == 75


def test_device_score_on_the_numa_affinity(cases):
    case = cases["koord.score.device.restricted-pod-weighs-every-gpu"]
    # both GPUs: 50 of 200 percent
    assert _run(case)["nodes"][0]["deviceScore"] == 75
    # GPU 0 alone, on the affinity {0}: (100 - 50) * 100 / 100
    assert _run(case, "device-score-on-the-numa-affinity")["nodes"][0]["deviceScore"] == 50


@pytest.mark.parametrize(("case_id", "behaviours", "contract", "release"), [
    # the bound CPUs counted node-wide, amplified: ceil(4000 * 1.5) + the pod's 6000 of 12000
    ("koord.score.cpu-amplification.restricted-binding-numa", ["numa-cpu-as-bound-cpus"], 73, 48),
    # scored on the whole node, only the bound CPUs amplified: 6000 + 6000 of 24000 -> 50, memory 98
    ("koord.score.cpu-amplification.best-effort-binding-numa",
     ["best-effort-scored-before-merge", "whole-node-cpu-as-bound-cpus"], 73, 74),
    # ceil(2000 * 1.5) + 6000 of 12000 -> 25, memory 50
    ("koord.score.cpu-amplification.whole-node-binding", ["whole-node-cpu-as-bound-cpus"], 29, 37),
])
def test_bound_cpus_counted_amplified_on_an_amplified_node(cases, case_id, behaviours, contract, release):
    case = cases[case_id]
    assert _run(case)["nodes"][0]["score"] == contract
    assert _run(case, *behaviours)["nodes"][0]["score"] == release


def test_policy_none_keeps_the_node_requests_under_the_whole_node_behaviour():
    """Policy None scores the node's own requests (amplified bound CPUs only on
    an amplified node), so the whole-node behaviour leaves it as the contract has it."""
    node = {"name": "n", "cpuTopology": {"sockets": 1, "numaNodesPerSocket": 1, "coresPerNUMANode": 4,
                                         "threadsPerCore": 2},
            "numaNodes": [{"id": 0, "memory": "32Gi"}], "allocatable": {"cpu": "8", "memory": "32Gi"},
            "pods": [{"name": "bound", "cpuset": "0-1", "requests": {"cpu": "2", "memory": "4Gi"}},
                     {"name": "busy", "requests": {"cpu": "2", "memory": "4Gi"}}]}
    pod = {"labels": {"koordinator.sh/qosClass": "LSR"},
           "containers": [{"name": "app", "resources": {"requests": {"cpu": "4", "memory": "8Gi"},
                                                        "limits": {"cpu": "4", "memory": "8Gi"}}}]}
    row = MODEL.run("score", {"nodes": [node], "pod": pod}, ["whole-node-cpu-as-bound-cpus"])["nodes"][0]
    # cpu 2 + 2 + 4 of 8 -> 0, memory 16 of 32Gi -> 50
    assert row["score"] == 25
