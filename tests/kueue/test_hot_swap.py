"""Node hot swap: the usage scenarios of the specification and the rows of its
feature-gate interaction matrix."""

import pytest

from .helpers import HOST, PREFERRED, RACK, REQUIRED, flavor, hosts, hot_swap, node

FNR, RNO, FNFF, FT, TT = ("TASFailedNodeReplacement", "TASReplaceNodeOnPodTermination",
                         "TASFailedNodeReplacementFailFast", "TASReplaceNodeDueToNotReadyOverFixedTime",
                         "TASReplaceNodeOnNodeTaints")
SKIP = "SkipReassignmentForPodOwnedWorkloads"


def nodes(spare=True):
    result = [node("n1", cpu="4"), node("n2", cpu="4"), node("x1", rack="r2", cpu="4")]
    if spare:
        result.insert(2, node("n3", cpu="4"))
    return result


def workers(annotations=None):
    return [{"name": "workers", "count": 8, "annotations": annotations or {REQUIRED: RACK}, "requests": {"cpu": "1"},
             "topologyAssignment": {"levels": [HOST], "domains": [{"values": ["n1"], "count": 4},
                                                                  {"values": ["n2"], "count": 4}]}}]


def final(result):
    return result["states"][-1]


def actions(result):
    return [(a["type"], a.get("node")) for s in result["states"] for a in s["actions"]]


def test_scenario_1_not_ready_pods_terminated_replacement_found():
    result = hot_swap(nodes(), workers(), [{"at": 0, "type": "NodeNotReady", "node": "n1"},
                                           {"at": 10, "type": "PodsTerminated", "node": "n1"}])
    first, second = result["states"]
    assert first["actions"] == [] and first["unhealthyNodes"] == []
    assert second["actions"] == [
        {"at": 10, "type": "NodeFailed", "node": "n1", "trigger": "PodsNotRunning"},
        {"at": 10, "type": "NodeReplaced", "node": "n1", "replacement": ["n3"]}]
    assert hosts(second["podSets"][0]["topologyAssignment"]["domains"]) == {"n2": 4, "n3": 4}
    assert second["unhealthyNodes"] == [] and second["admitted"] is True


def test_scenario_2_no_replacement_fail_fast_evicts_and_requeues():
    result = hot_swap(nodes(spare=False), workers(), [{"at": 0, "type": "NodeNotReady", "node": "n1"},
                                                      {"at": 5, "type": "PodsTerminated", "node": "n1"}])
    state = final(result)
    assert state["evicted"] is True and state["requeued"] is True
    assert state["eviction"] == {"reason": "NodeFailures", "message":
                                 "Workload was evicted as there was no replacement for unhealthy node(s): n1"}
    assert [a["type"] for a in state["actions"]] == ["NodeFailed", "ReplacementFailed", "Evicted"]


@pytest.mark.parametrize("spare", [True, False])
def test_scenario_3_node_deleted(spare):
    result = hot_swap(nodes(spare), workers(), [{"at": 3, "type": "NodeDeleted", "node": "n1"}])
    state = final(result)
    assert state["actions"][0] == {"at": 3, "type": "NodeFailed", "node": "n1", "trigger": "NodeDeleted"}
    assert state["evicted"] is (not spare)


def test_scenario_4_whole_rack_cannot_be_replaced():
    # the workload fills its rack: the spare node is in another rack
    result = hot_swap(nodes(spare=False), workers(), [{"at": 0, "type": "NodeNotReady", "node": "n1"},
                                                      {"at": 1, "type": "PodsTerminated", "node": "n1"}])
    failed = [a for a in final(result)["actions"] if a["type"] == "ReplacementFailed"][0]
    assert "excluded: " in failed["message"] and "topologyDomain: 1" in failed["message"]
    assert final(result)["evicted"] is True


def test_preferred_replacement_is_not_confined():
    result = hot_swap(nodes(spare=False), workers({PREFERRED: RACK}), [{"at": 0, "type": "NodeDeleted", "node": "n1"}])
    assert hosts(final(result)["podSets"][0]["topologyAssignment"]["domains"]) == {"n2": 4, "x1": 4}


def test_without_fail_fast_the_search_is_retried():
    events = [{"at": 0, "type": "NodeDeleted", "node": "n1"},
              {"at": 20, "type": "NodeAdded", "nodeObject": node("n9", cpu="4")}]
    result = hot_swap(nodes(spare=False), workers(), events, gates={FNFF: False})
    first, second = result["states"]
    assert first["unhealthyNodes"] == ["n1"] and first["evicted"] is False
    assert second["actions"][-1] == {"at": 20, "type": "NodeReplaced", "node": "n1", "replacement": ["n9"]}


def test_fnr_off_nothing_happens():
    result = hot_swap(nodes(), workers(), [{"at": 0, "type": "NodeDeleted", "node": "n1"}], gates={FNR: False})
    assert actions(result) == [] and final(result)["evicted"] is False


@pytest.mark.parametrize("gates,version,trigger_at", [
    ({}, None, None),                         # 0.19 defaults: RNO on, FT off: pods still run, never failed
    ({FT: True}, None, 30),                   # RNO on + FT on: 30 s, first of the two
    ({RNO: False}, None, 30),                 # RNO off: fixed time only
    ({RNO: False, FT: False}, None, 30),
    ({}, "0.18", 30),                         # 0.17-0.18: FT on by default
    ({}, "0.16", 30),                         # before the gate: built in
])
def test_not_ready_with_running_pods(gates, version, trigger_at):
    result = hot_swap(nodes(), workers(), [{"at": 0, "type": "NodeNotReady", "node": "n1"},
                                           {"at": 45, "type": "Wait"}], gates=gates, version=version)
    failed = [a for s in result["states"] for a in s["actions"] if a["type"] == "NodeFailed"]
    if trigger_at is None:
        assert failed == []
    else:
        assert failed == [{"at": trigger_at, "type": "NodeFailed", "node": "n1", "trigger": "NotReadyTimeout"}]


def test_rno_off_ignores_pod_termination_before_30s():
    result = hot_swap(nodes(), workers(), [{"at": 0, "type": "NodeNotReady", "node": "n1"},
                                           {"at": 5, "type": "PodsTerminated", "node": "n1"},
                                           {"at": 29, "type": "Wait"}], gates={RNO: False})
    assert actions(result) == []


def test_missing_ready_condition_fails_at_once():
    result = hot_swap(nodes(), workers(), [{"at": 2, "type": "NodeReadyConditionRemoved", "node": "n2"}],
                      gates={RNO: False})
    assert final(result)["actions"][0]["trigger"] == "NoReadyCondition"


NO_EXECUTE = {"key": "maintenance", "effect": "NoExecute"}
NO_SCHEDULE = {"key": "maintenance", "effect": "NoSchedule"}
PREFER = {"key": "maintenance", "effect": "PreferNoSchedule"}


def test_no_execute_untolerated_evicts_pods_and_fails_node():
    result = hot_swap(nodes(), workers(), [{"at": 1, "type": "NodeTainted", "node": "n1", "taint": NO_EXECUTE}])
    assert [a["type"] for a in final(result)["actions"]] == ["PodsEvicted", "NodeFailed", "NodeReplaced"]


def test_no_execute_with_toleration_seconds_waits():
    pod_sets = workers()
    pod_sets[0]["tolerations"] = [{"key": "maintenance", "operator": "Exists", "effect": "NoExecute",
                                   "tolerationSeconds": 60}]
    result = hot_swap(nodes(), pod_sets, [{"at": 0, "type": "NodeTainted", "node": "n1", "taint": NO_EXECUTE},
                                          {"at": 100, "type": "Wait"}])
    assert result["states"][0]["actions"] == []
    assert [(a["at"], a["type"]) for a in result["states"][1]["actions"]] == [
        (60, "PodsEvicted"), (60, "NodeFailed"), (60, "NodeReplaced")]


def test_no_schedule_waits_for_drain_unless_rno_off():
    events = [{"at": 0, "type": "NodeTainted", "node": "n1", "taint": NO_SCHEDULE},
              {"at": 50, "type": "PodsTerminated", "node": "n1"}]
    result = hot_swap(nodes(), workers(), events)
    assert result["states"][0]["actions"] == [] and result["states"][1]["actions"][0]["at"] == 50
    result = hot_swap(nodes(), workers(), events, gates={RNO: False})
    assert result["states"][0]["actions"][0] == {"at": 0, "type": "NodeFailed", "node": "n1",
                                                 "trigger": "UntoleratedTaint"}


@pytest.mark.parametrize("case", ["prefer", "tolerated", "tt-off"])
def test_taints_that_do_not_fail_the_node(case):
    taint = PREFER if case == "prefer" else NO_SCHEDULE
    gates = {TT: False} if case == "tt-off" else None
    rf = flavor(tolerations=[{"key": "maintenance", "operator": "Exists"}]) if case == "tolerated" else flavor()
    result = hot_swap(nodes(), workers(), [{"at": 0, "type": "NodeTainted", "node": "n1", "taint": taint},
                                           {"at": 5, "type": "PodsTerminated", "node": "n1"}],
                      gates=gates, resourceFlavor=rf)
    assert [a for a in actions(result) if a[0] == "NodeFailed"] == []


def test_pod_owned_workload_keeps_its_assignment():
    pod_sets = workers()
    pod_sets[0]["count"] = 1
    pod_sets[0]["topologyAssignment"]["domains"] = [{"values": ["n1"], "count": 1}]
    owners = [{"apiVersion": "v1", "kind": "Pod", "name": "p"}]
    result = hot_swap(nodes(), pod_sets, [{"at": 0, "type": "NodeDeleted", "node": "n1"}], owners=owners)
    state = final(result)
    assert [a["type"] for a in state["actions"]] == ["NodeFailed", "AssignmentKept"]
    assert state["unhealthyNodes"] == [] and hosts(state["podSets"][0]["topologyAssignment"]["domains"]) == {"n1": 1}
    result = hot_swap(nodes(), pod_sets, [{"at": 0, "type": "NodeDeleted", "node": "n1"}], owners=owners,
                      gates={SKIP: False})
    assert final(result)["actions"][-1]["type"] == "NodeReplaced"


def test_pod_owned_eviction_is_not_requeued():
    pod_sets = workers()
    owners = [{"apiVersion": "v1", "kind": "Pod", "name": "p"}]
    events = [{"at": 0, "type": "NodeDeleted", "node": "n1"}, {"at": 0, "type": "NodeDeleted", "node": "n2"}]
    state = final(hot_swap(nodes(), pod_sets, events, owners=owners))
    assert state["evicted"] is True and state["requeued"] is False
    assert state["eviction"]["message"] == ("Workload eviction triggered due to multiple TAS assigned node "
                                            "failures, including: n1, n2")


def test_failures_at_different_instants_are_replaced_one_by_one():
    extra = nodes() + [node("n4", cpu="4")]
    events = [{"at": 0, "type": "NodeDeleted", "node": "n1"}, {"at": 1, "type": "NodeDeleted", "node": "n2"}]
    state = final(hot_swap(extra, workers(), events))
    assert state["evicted"] is False
    assert hosts(state["podSets"][0]["topologyAssignment"]["domains"]) == {"n3": 4, "n4": 4}


def test_recovered_node_leaves_unhealthy_nodes():
    events = [{"at": 0, "type": "NodeNotReady", "node": "n1"}, {"at": 1, "type": "PodsTerminated", "node": "n1"},
              {"at": 2, "type": "NodeReady", "node": "n1"}]
    result = hot_swap(nodes(spare=False), workers(), events, gates={FNFF: False})
    assert result["states"][1]["unhealthyNodes"] == ["n1"]
    assert result["states"][2]["unhealthyNodes"] == []
    assert result["states"][2]["actions"] == [{"at": 2, "type": "NodeRecovered", "node": "n1"}]
