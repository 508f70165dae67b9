"""The webhook's annotation rules and the scheduler's level checks."""

import pytest

from reference_impl.kueue.operations import OPERATIONS

from .helpers import (
    BLOCK,
    CONSTRAINTS,
    GROUP,
    HOST,
    PREFERRED,
    RACK,
    REQUIRED,
    SLICE_SIZE,
    SLICE_TOPOLOGY,
    UNCONSTRAINED,
    constraints,
    topology,
)


def validate(annotations, count=8, gates=None, with_topology=False, extra_pod_sets=()):
    input_ = {"podSets": [{"name": "main", "count": count, "annotations": annotations}, *extra_pod_sets]}
    if gates:
        input_["featureGates"] = gates
    if with_topology:
        input_["topology"] = topology()
        input_["resourceFlavor"] = {"metadata": {"name": "tas-flavor"}}
    return OPERATIONS["validate"](input_)


def reasons(result):
    return [e["reason"] for e in result["errors"]]


@pytest.mark.parametrize("annotations,expected", [
    ({REQUIRED: RACK, PREFERRED: BLOCK}, ["MultipleTopologyAnnotations"]),
    ({REQUIRED: "-bad"}, ["InvalidLabelName"]),
    ({PREFERRED: "a/b/c"}, ["InvalidLabelName"]),
    ({REQUIRED: RACK, GROUP: "123"}, ["GroupNameNumeric"]),
    ({GROUP: "g"}, ["GroupNameWithoutTopology"]),
    ({REQUIRED: RACK, GROUP: "g", SLICE_TOPOLOGY: RACK, SLICE_SIZE: "2"}, ["GroupNameWithSlices", "GroupNameWithSlices"]),
    ({UNCONSTRAINED: "yes"}, ["InvalidBoolean"]),
    ({SLICE_TOPOLOGY: RACK, SLICE_SIZE: "two"}, ["SliceSizeNotNumeric"]),
    ({SLICE_TOPOLOGY: RACK, SLICE_SIZE: "0"}, ["SliceSizeTooSmall"]),
    ({SLICE_TOPOLOGY: RACK}, ["SliceSizeMissing"]),
    ({SLICE_SIZE: "2"}, ["SliceSizeWithoutTopology"]),
    ({SLICE_TOPOLOGY: RACK, SLICE_SIZE: "9"}, ["SliceSizeAboveCount"]),
    ({CONSTRAINTS: constraints((BLOCK, 4)), SLICE_TOPOLOGY: RACK, SLICE_SIZE: "2"}, ["MultiLayerWithSingleLayer", "MultiLayerWithSingleLayer"]),
    ({CONSTRAINTS: "[{"}, ["InvalidConstraintsJSON"]),
    ({CONSTRAINTS: '{"topology": "x"}'}, ["InvalidConstraintsJSON"]),
    ({CONSTRAINTS: '[{"topology": "x", "size": 1.5}]'}, ["InvalidConstraintsJSON"]),
    ({CONSTRAINTS: "[]"}, ["ConstraintLayerCount"]),
    ({CONSTRAINTS: constraints((BLOCK, 8), (RACK, 4), (HOST, 2), ("x", 1))}, ["ConstraintLayerCount"]),
    ({CONSTRAINTS: constraints((BLOCK, 0))}, ["ConstraintSizeTooSmall"]),
    ({CONSTRAINTS: constraints((BLOCK, 8), (BLOCK, 4))}, ["DuplicateConstraintTopology"]),
    ({CONSTRAINTS: constraints((BLOCK, 8), (RACK, 3))}, ["ConstraintSizeNotDividing"]),
    ({CONSTRAINTS: constraints((BLOCK, 16), (RACK, 4))}, ["SliceSizeAboveCount"]),
])
def test_webhook_rules(annotations, expected):
    result = validate(annotations)
    assert result["valid"] is False
    assert reasons(result) == expected


def test_multi_layer_needs_its_gate():
    result = validate({CONSTRAINTS: constraints((BLOCK, 4))}, gates={"TASMultiLayerTopology": False})
    assert reasons(result) == ["MultiLayerGateDisabled"]
    assert result["errors"][0]["message"] == \
        "the TASMultiLayerTopology feature gate must be enabled to use this annotation"
    assert validate({CONSTRAINTS: constraints((BLOCK, 4))}, gates={"TASMultiLayerTopology": True})["valid"]


def test_messages_name_the_annotations():
    result = validate({REQUIRED: RACK, PREFERRED: BLOCK, UNCONSTRAINED: "true"})
    assert result["errors"][0]["message"] == (
        'must not contain more than one topology annotation: ["kueue.x-k8s.io/podset-required-topology", '
        '"kueue.x-k8s.io/podset-preferred-topology", "kueue.x-k8s.io/podset-unconstrained-topology"]')
    assert validate({SLICE_TOPOLOGY: RACK})["errors"][0] == {
        "podSet": "main", "annotation": SLICE_SIZE, "reason": "SliceSizeMissing",
        "message": "must be set when 'kueue.x-k8s.io/podset-slice-required-topology' is specified",
        "type": "Required", "value": None,
        "field": "podSets[main].annotations[kueue.x-k8s.io/podset-slice-size]"}


def test_parsed_requests():
    result = validate({PREFERRED: BLOCK, SLICE_TOPOLOGY: RACK, SLICE_SIZE: "4"})
    assert result["podSets"][0]["topologyRequest"] == {
        "mode": "preferred", "level": BLOCK, "podSetGroupName": None,
        "sliceLayers": [{"topology": RACK, "size": 4}], "sliceOnly": False,
        "podIndexLabel": None, "subGroupIndexLabel": None, "subGroupCount": None}
    slice_only = validate({CONSTRAINTS: constraints((BLOCK, 4), (RACK, 2))})["podSets"][0]["topologyRequest"]
    assert slice_only["mode"] == "unconstrained" and slice_only["sliceOnly"] is True
    assert validate({})["podSets"][0]["topologyRequest"] is None


def test_groups():
    leader = {"name": "leader", "count": 1, "annotations": {REQUIRED: RACK, GROUP: "g"}}
    assert validate({REQUIRED: RACK, GROUP: "g"}, extra_pod_sets=[leader])["valid"]
    assert reasons(validate({REQUIRED: RACK, GROUP: "g"})) == ["GroupSize"]
    two = {"name": "b", "count": 2, "annotations": {REQUIRED: RACK, GROUP: "g"}}
    assert reasons(validate({REQUIRED: RACK, GROUP: "g"}, extra_pod_sets=[two])) == [
        "GroupWithoutSingleReplica", "GroupWithoutSingleReplica"]
    other = {"name": "leader", "count": 1, "annotations": {PREFERRED: RACK, GROUP: "g"}}
    assert reasons(validate({REQUIRED: RACK, GROUP: "g"}, extra_pod_sets=[other])) == [
        "GroupTopologyMismatch", "GroupTopologyMismatch"]


@pytest.mark.parametrize("annotations,reason", [
    ({REQUIRED: "example.com/zone"}, "UnknownTopologyLevel"),
    ({PREFERRED: RACK, SLICE_TOPOLOGY: BLOCK, SLICE_SIZE: "2"}, "SliceLevelAboveRequest"),
    ({CONSTRAINTS: constraints((RACK, 4), (BLOCK, 2))}, "InvalidSliceLayerOrder"),
    ({UNCONSTRAINED: "false"}, "TopologyLevelNotSpecified"),
])
def test_level_checks_with_topology(annotations, reason):
    assert validate(annotations)["valid"] is True
    assert reasons(validate(annotations, with_topology=True)) == [reason]


def test_every_webhook_error_has_a_type_and_level_errors_have_none():
    webhook = validate({SLICE_TOPOLOGY: RACK, SLICE_SIZE: "x"})["errors"]
    assert [(e["reason"], e["type"], e["value"]) for e in webhook] == [("SliceSizeNotNumeric", "Invalid", "x")]
    forbidden = validate({SLICE_SIZE: "2"})["errors"]
    assert [(e["type"], e["value"]) for e in forbidden] == [("Forbidden", None)]
    level = validate({REQUIRED: "example.com/missing"}, with_topology=True)["errors"]
    assert [(e["reason"], e["type"], e["value"]) for e in level] == [("UnknownTopologyLevel", None, None)]
