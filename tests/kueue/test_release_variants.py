"""Release behaviours the reference reproduces only on request."""

import pytest

from conformance import corpus
from reference_impl import dispatch
from reference_impl.kueue import release_variants


def _case(case_id):
    return next(c for c in corpus.load().cases if c.id == case_id)


def test_pod_slots_between_podsets():
    """n0 has 4 pod slots: with the first podset's pod counted the second podset
    (4 pods) does not fit; v0.17.0, not counting it, places all 4 on n0."""
    case = _case("kueue.capacity.pods-slots-used-by-an-earlier-podset")
    assert dispatch.run("kueue", "assign", case.input)["admitted"] is False
    with release_variants.using(release_variants.PODSET_USAGE_WITHOUT_POD_SLOTS):
        answer = dispatch.run("kueue", "assign", case.input)
    assert answer["admitted"] is True
    assert [d["count"] for d in answer["podSets"][1]["topologyAssignment"]["domains"]] == [4]
    assert not release_variants.active(release_variants.PODSET_USAGE_WITHOUT_POD_SLOTS)


def test_best_fit_without_the_leaders_room():
    """b2 offers 2 worker slots and no leader slot, b1 3 beside the leader: the
    contract places the group in b1; v0.17.0 picks b2 as the tighter block and
    refuses the required group there, counting b2's 2 slots in the message."""
    case = _case("kueue.group.best-fit-domain-without-room-for-the-leader")
    assert dispatch.run("kueue", "assign", case.input)["admitted"] is True
    with release_variants.using(release_variants.LEADER_CAPACITY_V0_17):
        answer = dispatch.run("kueue", "assign", case.input)
    assert answer["admitted"] is False
    assert [p["notFit"]["message"] for p in answer["podSets"]] == [
        'topology "default" allows to fit only 2 out of 2 pod(s)'] * 2


def test_hostname_replacement_domain_by_leaf_id():
    """Required at the hostname level below a block level: the contract moves the
    deleted host's pod to the kept host n0; v0.17.0 matches no node and evicts."""
    case = _case("kueue.hotswap.required-hostname-replaced-on-the-remaining-host")
    assert dispatch.run("kueue", "hot_swap", case.input)["states"][0]["admitted"] is True
    with release_variants.using(release_variants.HOSTNAME_REPLACEMENT_DOMAIN_V0_17):
        state = dispatch.run("kueue", "hot_swap", case.input)["states"][0]
    assert (state["admitted"], state["evicted"]) == (False, True)
    failed = next(a for a in state["actions"] if a["type"] == "ReplacementFailed")
    assert failed["message"].endswith("excluded: topologyDomain: 2")


def test_an_unknown_variant_is_refused():
    with pytest.raises(ValueError, match="unknown release variants"), release_variants.using("v9: anything"):
        pass
