"""Metamorphic properties of the Kueue reference: two related inputs whose
answers must relate in a known way, so no expected value is needed."""

from __future__ import annotations

import copy

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conformance.fuzz.strategies import kueue as gen
from reference_impl import dispatch
from reference_impl.kueue import annotations as ann
from reference_impl.kueue.objects import HOSTNAME


def run(operation: str, data: dict) -> dict:
    return dispatch.run("kueue", operation, copy.deepcopy(data))


def _levels(data: dict) -> list[str]:
    return [lv["nodeLabel"] for lv in data["topology"]["spec"]["levels"]]


def _fresh_node(levels: list[str], name: str, pods: int, defect: str | None = None) -> dict:
    """A node in domains no other node uses ("x-" values at every level)."""
    labels = {level: name if level == HOSTNAME else f"x-{name}" for level in levels}
    labels[gen.GROUP_LABEL] = "tas-group"
    node = {"metadata": {"name": name, "labels": labels},
            "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": str(pods)},
                       "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": 0}]}}
    if defect == "FlavorLabelsMismatch":
        labels[gen.GROUP_LABEL] = "other-group"
    elif defect == "MissingTopologyLabel":
        del labels[levels[0]]
    elif defect == "Unschedulable":
        node["spec"] = {"unschedulable": True}
    elif defect == "NotReady":
        node["status"]["conditions"][0]["status"] = "False"
    elif defect == "NoReadyCondition":
        node["status"]["conditions"] = []
    return node


@st.composite
def required_workload(draw):
    """One podset, required at a level of the topology, no slices or groups."""
    levels, data = draw(gen.snapshot())
    data.update(draw(gen.version_and_gates()))
    ps = draw(gen.pod_set("workers", levels))
    notes = ps["template"]["metadata"]["annotations"] if "template" in ps else ps["annotations"]
    notes.clear()
    notes[ann.REQUIRED] = draw(st.sampled_from(levels))
    data["workload"] = {"name": "sample", "podSets": [ps]}
    return data


@settings(max_examples=50)
@given(required_workload())
def test_an_idle_domain_too_small_for_the_podset_never_changes_a_required_placement(data):
    """Required `L`: "all pods in one domain at level `L`" (docs/operations/
    kueue.md, assign; seed 002 / podset-required-topology). A new domain that
    cannot hold all the podset's pods is never a candidate, and BestFit takes
    the domain with the most free capacity first and then swaps it for the
    tightest one that still covers the podset - both among domains that hold
    it - so an admitted placement is exactly the same with the idle node."""
    before = run("assign", data)
    assume(before.get("admitted"))
    count = data["workload"]["podSets"][0]["count"]
    more = copy.deepcopy(data)
    more["nodes"].append(_fresh_node(_levels(data), "idle", max(0, count - 1)))
    assert run("assign", more) == before


@settings(max_examples=50)
@given(gen.assign_input(), st.randoms(use_true_random=False))
def test_the_order_of_the_nodes_changes_no_assignment(data, rng):
    """Domains are identified by their label paths, leaves with the same path
    are summed, every domain order breaks ties by path and the rendered
    assignment is sorted by path (docs/operations/kueue.md, Domains and
    assign: "Ties are broken by path, so results are deterministic"): nothing
    depends on the order the nodes are listed in."""
    shuffled = copy.deepcopy(data)
    rng.shuffle(shuffled["nodes"])
    assert run("assign", shuffled) == run("assign", data)


DEFECTS = ("FlavorLabelsMismatch", "MissingTopologyLabel", "Unschedulable", "NotReady", "NoReadyCondition")


@settings(max_examples=50)
@given(gen.assign_input(), st.sampled_from(DEFECTS))
def test_a_node_that_does_not_count_for_tas_changes_no_assignment(data, defect):
    """A node without the flavor's labels, without a topology label, cordoned,
    not Ready or without a Ready condition "adds nothing and is not counted in
    Total nodes" (docs/operations/kueue.md, Nodes): the assignment and every
    not-fit message are the same without it."""
    more = copy.deepcopy(data)
    more["nodes"].append(_fresh_node(_levels(data), "defective", 110, defect))
    assert run("assign", more) == run("assign", data)


@settings(max_examples=50)
@given(gen.capacity_input(), st.sampled_from(DEFECTS))
def test_a_node_that_does_not_count_for_tas_adds_no_capacity(data, defect):
    """As above for `capacity`: the extra node is listed, excluded with its
    reason, and no domain changes ("domains holds only domains with at least
    one included node")."""
    before = run("capacity", data)
    assume("refused" not in before)
    more = copy.deepcopy(data)
    more["nodes"].append(_fresh_node(_levels(data), "defective", 110, defect))
    after = run("capacity", more)
    assert after["domains"] == before["domains"]
    assert after["nodes"][:-1] == before["nodes"]
    assert after["nodes"][-1] == {"name": "defective", "included": False, "reason": defect}


def _cut_points(events: list[dict]) -> list[int]:
    """Prefix lengths after which the next event is strictly later, so the
    instant of the last kept event is complete."""
    return [i + 1 for i in range(len(events) - 1) if events[i + 1].get("at", 0) > events[i].get("at", 0)]


@settings(max_examples=50)
@given(gen.hot_swap_input(), st.data())
def test_later_hot_swap_events_never_rewrite_earlier_states(data, extra):
    """Each state is the workload "after" its event and the timers before it,
    and the replacement search runs once per instant after that instant's
    events (docs/operations/kueue.md, hot_swap): events at a later instant
    cannot change what was decided at an earlier one, so the states of a
    prefix of the timeline cut between instants are a prefix of the states."""
    cuts = _cut_points(data["events"])
    assume(cuts)
    cut = extra.draw(st.sampled_from(cuts))
    full = run("hot_swap", data)
    assume("refused" not in full)
    prefix = copy.deepcopy(data)
    prefix["events"] = prefix["events"][:cut]
    assert run("hot_swap", prefix)["states"] == full["states"][:cut]


def _without_fnr(data: dict) -> None:
    gates = data.setdefault("featureGates", {})
    gates.pop("TASFailedNodeReplacement", None)
    if gen.minor_of(data.get("kueueVersion", "0.19").lstrip("v")) >= 12:
        gates["TASFailedNodeReplacement"] = False


def _assert_nothing_happens(data: dict) -> None:
    result = run("hot_swap", data)
    assume("refused" not in result)
    initial = [{"name": ps["name"], "topologyAssignment": ps["topologyAssignment"]} for ps in data["workload"]["podSets"]]
    for state in result["states"]:
        assert not state["evicted"]
        assert {a["type"] for a in state["actions"]} <= {"PodsEvicted", "NodeRecovered"}
        assert state["podSets"] == initial


@settings(max_examples=50)
@given(gen.hot_swap_input())
def test_without_failed_node_replacement_nothing_is_ever_marked(data):
    """"With FNR off nothing is ever marked" (docs/operations/kueue.md,
    hot_swap; the gate table: "off: nothing in hot swap happens"): no node
    fails, nothing is replaced or evicted, and the assignment stays the one the
    workload was admitted with."""
    _without_fnr(data)
    data["workload"].pop("unhealthyNodes", None)
    _assert_nothing_happens(data)


@settings(max_examples=25)
@given(gen.hot_swap_input(), st.data())
def test_without_fnr_an_initial_unhealthy_node_changes_nothing(data, extra):
    """The same with a node already listed in `unhealthyNodes` at the start:
    with FNR off "nothing in hot swap happens" (the gate table)."""
    _without_fnr(data)
    hosts = [d["values"][0] for ps in data["workload"]["podSets"] for d in ps["topologyAssignment"]["domains"]]
    data["workload"]["unhealthyNodes"] = [extra.draw(st.sampled_from(hosts))]
    _assert_nothing_happens(data)


@settings(max_examples=50)
@given(gen.provision_input(), st.data())
def test_later_provisioning_events_never_rewrite_earlier_states(data, extra):
    """The provisioning flow is a sequence of states, "one per event"
    (docs/operations/kueue.md, provision): a shorter event list gives a
    prefix of the same states."""
    assume(data["events"])
    cut = extra.draw(st.integers(0, len(data["events"]) - 1))
    full = run("provision", data)
    assume("refused" not in full)
    prefix = copy.deepcopy(data)
    prefix["events"] = prefix["events"][:cut]
    shorter = run("provision", prefix)
    assert shorter["initial"] == full["initial"]
    assert shorter["states"] == full["states"][:cut]
