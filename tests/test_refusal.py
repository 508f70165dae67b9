"""The one refusal type: the same answer shape for every component."""

import pytest

from reference_impl import dispatch
from reference_impl.refusal import Refusal


def test_a_refusal_answers_with_its_reason_and_message():
    refusal = Refusal("TooManyNUMANodes", "9 NUMA nodes, at most 8")
    assert refusal.as_dict() == {"reason": "TooManyNUMANodes", "message": "9 NUMA nodes, at most 8"}
    assert refusal.as_result() == {"refused": refusal.as_dict()}
    assert str(refusal) == "TooManyNUMANodes: 9 NUMA nodes, at most 8"


def test_the_stage_stays_out_of_the_answer():
    assert Refusal("InvalidGPUPartitionTable", "bad", "Filter").as_dict() == {
        "reason": "InvalidGPUPartitionTable", "message": "bad"}


def test_it_is_raised_and_caught_as_an_exception():
    with pytest.raises(Refusal) as caught:
        raise Refusal("UnknownFeatureGate", "unrecognized feature gate: X") from None
    assert caught.value.reason == "UnknownFeatureGate"


@pytest.mark.parametrize("component, operation, case", [
    ("kubelet", "merge", {"policy": "strict", "numa": {"nodes": [0]}, "providers": []}),
    ("kueue", "assign", {"featureGates": {"NoSuchGate": True}, "workload": {"podSets": []}}),
])
def test_kubelet_and_kueue_refuse_in_the_same_shape(component, operation, case):
    result = dispatch.run(component, operation, case)
    assert set(result) == {"refused"} and set(result["refused"]) == {"reason", "message"}
