"""The node controller's edges in hot swap: admission-check tolerations by
version, late and stray pods, finished workloads, the requeue delay, and the
input errors of the fields that carry them."""

import pytest

from reference_impl.errors import InvalidInput

from .helpers import BLOCK, HOST, OPERATIONS, RACK, REQUIRED, flavor, node, topology

GPU_TAINT = {"key": "gpu", "value": "true", "effect": "NoSchedule"}


def workers():
    return [{"name": "workers", "count": 2, "annotations": {REQUIRED: RACK}, "requests": {"cpu": "4"},
             "topologyAssignment": {"levels": [HOST], "domains": [{"values": ["n1"], "count": 1},
                                                                  {"values": ["n2"], "count": 1}]}}]


def nodes():
    return [node("n1", cpu="4"), node("n2", cpu="4"), node("n3", cpu="4")]


def run(events, version=None, gates=None, **workload_fields):
    input_ = {"topology": topology(), "resourceFlavor": flavor(), "nodes": nodes(),
              "workload": {"name": "wl", "podSets": workers(), **workload_fields}, "events": events}
    if version:
        input_["kueueVersion"] = version
    if gates:
        input_["featureGates"] = gates
    return OPERATIONS["hot_swap"](input_)


def check(state="Ready"):
    return [{"name": "prov", "state": state,
             "podSetUpdates": [{"name": "workers", "tolerations": [{"key": "gpu", "operator": "Exists"}]}]}]


@pytest.mark.parametrize("version, fails", [("0.17", True), ("0.18", False), ("0.20", False)])
def test_check_tolerations_count_for_the_node_controller_from_0_18(version, fails):
    result = run([{"at": 0, "type": "NodeTainted", "node": "n1", "taint": GPU_TAINT}], version=version,
                 gates={"TASReplaceNodeOnPodTermination": False}, admissionChecks=check("Pending"))
    failed = [a for a in result["states"][0]["actions"] if a["type"] == "NodeFailed"]
    assert bool(failed) is fails


def test_late_pod_on_a_not_ready_node_is_failed_once():
    result = run([{"at": 1, "type": "NodeNotReady", "node": "n1"}, {"at": 5, "type": "Wait"}],
                 podStates={"n1": "Late"})
    kinds = [a["type"] for s in result["states"] for a in s["actions"]]
    assert kinds.count("PodsFailed") == 1
    assert kinds.index("NodeFailed") < kinds.index("PodsFailed") < kinds.index("NodeReplaced")


def test_finished_workload_is_skipped():
    result = run([{"at": 0, "type": "WorkloadFinished"}, {"at": 1, "type": "NodeDeleted", "node": "n1"}],
                 strayPods=["n9"])
    assert all(s["actions"] == [] and s["finished"] for s in result["states"])


def test_requeue_delay_counts_down_with_rno_off_only():
    events = [{"at": 0, "type": "NodeNotReady", "node": "n1"}, {"at": 12, "type": "Wait"}]
    off = run(events, gates={"TASReplaceNodeOnPodTermination": False})
    on = run(events)
    assert [s["requeueAfter"] for s in off["states"]] == [{"n1": 30}, {"n1": 18}]
    assert [s["requeueAfter"] for s in on["states"]] == [{}, {}]


@pytest.mark.parametrize("fields, where", [
    ({"strayPods": ["n1"]}, "workload.strayPods"),
    ({"admissionChecks": [{"name": "prov", "podSetUpdates": [{"name": "workers"}, {"name": "workers"}]}]},
     "workload.admissionChecks[0].podSetUpdates[1].name"),
    ({"admissionChecks": [{"name": "prov", "state": "Done"}]}, "workload.admissionChecks[0].state"),
])
def test_bad_edge_fields_name_the_field(fields, where):
    with pytest.raises(InvalidInput) as exc:
        run([{"at": 0, "type": "Wait"}], **fields)
    assert where in str(exc.value)


def test_hostname_unused_without_the_level_and_pod_states_refused():
    rack_topology = topology(levels=(BLOCK, RACK))
    pod_sets = workers()
    pod_sets[0]["topologyAssignment"] = {"levels": [RACK], "domains": [{"values": ["r1"], "count": 2}]}
    base = {"topology": rack_topology, "resourceFlavor": flavor(), "nodes": nodes(),
            "events": [{"at": 0, "type": "NodeDeleted", "node": "n1"}]}
    result = OPERATIONS["hot_swap"]({**base, "workload": {"name": "wl", "podSets": pod_sets}})
    assert result["states"][0]["actions"] == []
    with pytest.raises(InvalidInput):
        OPERATIONS["hot_swap"]({**base, "workload": {"name": "wl", "podSets": pod_sets, "podStates": {"n1": "Late"}}})

