"""The v0.17.0 behaviours of the release model (conformance/releases/kueue_v0_17.py):
the reference alone follows the contract; with a behaviour in its seams it
answers as the corpus case's notes derive for v0.17.0."""

import pytest

from conformance import corpus
from conformance.releases.kueue_v0_17 import MODEL
from reference_impl import dispatch
from reference_impl.kueue import seams


def _case(case_id):
    return next(c for c in corpus.load().cases if c.id == case_id)


def test_pod_slots_between_podsets():
    """n0 has 4 pod slots: with the first podset's pod counted the second podset
    (4 pods) does not fit; v0.17.0, not counting it, places all 4 on n0."""
    case = _case("kueue.capacity.pods-slots-used-by-an-earlier-podset")
    assert dispatch.run("kueue", "assign", case.input)["admitted"] is False
    answer = MODEL.run("assign", case.input, ["podset-usage-without-pod-slots"])
    assert answer["admitted"] is True
    assert [d["count"] for d in answer["podSets"][1]["topologyAssignment"]["domains"]] == [4]
    assert dispatch.run("kueue", "assign", case.input, seams=seams.CONTRACT)["admitted"] is False


def test_best_fit_without_the_leaders_room():
    """b2 offers 2 worker slots and no leader slot, b1 3 beside the leader: the
    contract places the group in b1; v0.17.0 picks b2 as the tighter block and
    refuses the required group there, counting b2's 2 slots in the message."""
    case = _case("kueue.group.best-fit-domain-without-room-for-the-leader")
    assert dispatch.run("kueue", "assign", case.input)["admitted"] is True
    answer = MODEL.run("assign", case.input, ["leader-capacity"])
    assert answer["admitted"] is False
    assert [p["notFit"]["message"] for p in answer["podSets"]] == [
        'topology "default" allows to fit only 2 out of 2 pod(s)'] * 2


def test_hostname_replacement_domain_by_leaf_id():
    """Required at the hostname level below a block level: the contract moves the
    deleted host's pod to the kept host n0; v0.17.0 matches no node and evicts."""
    case = _case("kueue.hotswap.required-hostname-replaced-on-the-remaining-host")
    assert dispatch.run("kueue", "hot_swap", case.input)["states"][0]["admitted"] is True
    state = MODEL.run("hot_swap", case.input, ["hostname-replacement-domain"])["states"][0]
    assert (state["admitted"], state["evicted"]) == (False, True)
    failed = next(a for a in state["actions"] if a["type"] == "ReplacementFailed")
    assert failed["message"].endswith("excluded: topologyDomain: 2")


def test_an_unknown_behaviour_is_refused_by_name():
    with pytest.raises(KeyError, match="v9: anything"):
        MODEL.seams(["v9: anything"])


def test_leader_descent_without_the_leader_first():
    """The leader on the rack's only GPU host: the contract's descent places the
    leader's host first (5 workers there, 7 on the other); v0.17.0 fills the
    other host first (8) and leaves 4 beside the leader."""
    case = _case("kueue.group.leader-needs-gpu")

    def workers(answer):
        (group,) = [p for p in answer["podSets"] if p["name"] == "workers"]
        return sorted(d["count"] for d in group["topologyAssignment"]["domains"])

    assert workers(dispatch.run("kueue", "assign", case.input)) == [5, 7]
    assert workers(MODEL.run("assign", case.input, ["leader-descent"])) == [4, 8]
