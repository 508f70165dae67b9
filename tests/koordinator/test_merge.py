"""The topology manager merge: upstream's table cases and the document's rules."""

from reference_impl.koordinator.hints import Hint
from reference_impl.koordinator.merge import exclusive_ok, merge
from reference_impl.numa import bitmask

from .helpers import run


def m(*ids):
    return bitmask.from_bits(ids)


def test_restricted_rejects_disagreeing_resources_with_upstream_reason():
    out = run("merge", {"policy": "Restricted", "numaNodes": [0, 1, 2, 3], "providers": [
        {"r1": [{"affinity": [0], "preferred": True}]}, {"r2": [{"affinity": [0, 1], "preferred": True}]}]})
    assert out["affinity"] == [0] and out["preferred"] is False and out["unsatisfied"] is True
    assert out["admit"] is False and out["reason"] == "UnalignedNUMAHint"
    assert out["reasons"] == ["Unaligned NUMA Hint cause r1 prefer [01] among [01] & r2 prefer [11] among [11]"]


def test_best_effort_falls_back_to_all_nodes_when_unsatisfied():
    out = run("merge", {"policy": "BestEffort", "numaNodes": [0, 1, 2, 3], "providers": [
        {"r1": [{"affinity": [0], "preferred": True}]}, {"r2": [{"affinity": [0, 1], "preferred": True}]}]})
    assert out == {"affinity": [0, 1, 2, 3], "preferred": False, "unsatisfied": False, "score": 0,
                   "admit": True, "reason": None, "reasons": []}


def test_restricted_empty_list_is_unsatisfied_resource():
    out = run("merge", {"policy": "Restricted", "numaNodes": [0, 1], "providers": [{"gpu": []}]})
    assert out["affinity"] == [0, 1] and not out["admit"]
    assert out["reason"] == "UnsatisfiedNUMAResource" and out["reasons"] == ["Unsatisfied NUMA gpu"]


def test_single_numa_node_without_opinions_is_nil_and_admitted():
    out = run("merge", {"policy": "SingleNUMANode", "numaNodes": [0, 1], "providers": [None, {"cpu": None}]})
    assert out["affinity"] is None and out["preferred"] is True and out["admit"] is True


def test_single_numa_node_reason_uses_commas():
    out = run("merge", {"policy": "SingleNUMANode", "numaNodes": [0, 1], "providers": [
        {"cpu": [{"affinity": [0, 1], "preferred": True}]}]})
    assert not out["admit"]
    assert out["reasons"] == ["Unaligned NUMA Hint cause cpu prefer [11] among [11]"]


def test_none_policy_does_not_merge():
    out = run("merge", {"policy": "None", "numaNodes": [0, 1], "providers": [{"cpu": []}]})
    assert out["affinity"] is None and out["admit"] is True


def test_devices_lead_at_equal_width():
    out = run("merge", {"policy": "SingleNUMANode", "numaNodes": [0, 1], "providers": [
        {"cpu": [{"affinity": [0], "preferred": True, "score": 80}, {"affinity": [1], "preferred": True, "score": 40}]},
        {"gpu": [{"affinity": [0], "preferred": True, "score": 0}, {"affinity": [1], "preferred": True, "score": 500}]}]})
    assert out["affinity"] == [1] and out["score"] == 540


def test_equal_width_decided_by_score_not_mask_order():
    out = run("merge", {"policy": "Restricted", "numaNodes": [0, 1, 2, 3], "providers": [
        {"cpu": [{"affinity": [0, 3], "preferred": True, "score": 80}, {"affinity": [1, 2], "preferred": True, "score": 20}]}]})
    assert out["affinity"] == [0, 3]


def test_exclusive_check_table():
    required = "Required"
    assert exclusive_ok(m(0), required, {0: "idle", 1: "single"})
    assert not exclusive_ok(m(0), required, {0: "shared", 1: "single"})
    assert exclusive_ok(m(0), required, {0: "single", 1: "shared"})
    assert not exclusive_ok(m(0, 1), required, {0: "shared", 1: "single"})
    assert exclusive_ok(m(0, 1), required, {0: "shared", 1: "idle"})
    assert exclusive_ok(m(0, 1), required, {0: "shared", 1: "shared"})
    assert exclusive_ok(m(0, 1), "Preferred", {0: "single", 1: "single"})
    assert not exclusive_ok(None, required, {})


def test_exclusive_conflict_has_its_own_reason():
    out = run("merge", {"policy": "SingleNUMANode", "numaNodes": [0, 1], "singleNUMANodeExclusive": "Required",
                        "numaNodeStatus": {"0": "shared", "1": "shared"},
                        "providers": [{"cpu": [{"affinity": [0], "preferred": True}, {"affinity": [1], "preferred": True}]}]})
    assert not out["admit"] and out["reason"] == "SingleNUMANodeExclusiveConflict"


def test_exclusive_demotion_moves_to_other_node():
    outcome = merge("Restricted", [0, 1], [{"cpu": [Hint(m(0), True), Hint(m(1), True)]}], "Required",
                    {0: "shared", 1: "idle"})
    assert outcome.admit and outcome.hint.affinity == m(1)
