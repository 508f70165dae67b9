"""Invalid inputs: named breakages of a podset's annotations (as the webhook
refuses them) and of what every operation but validate checks first (the
topology, the flavor, the gates)."""

from __future__ import annotations

import json

from hypothesis import strategies as st

from reference_impl.kueue import annotations as ann
from reference_impl.kueue import gates
from reference_impl.kueue.objects import HOSTNAME

from ..mutators import apply_one
from .operations import capacity_input, validate_input
from .values import BLOCK, RACK, SUPERBLOCK

BAD_LABEL_NAMES = ("-rack", "rack-", "a/b/c", "cloud provider/rack", "UPPER_/x", "/rack", "rack/", "", "x" * 64,
                   "kubernetes.io/", "café/rack")
BAD_SLICE_SIZES = ("0", "-1", "two", "1.5", "", " 2", "99999999999", "0x4")
BAD_CONSTRAINTS = (
    "{", "", "not json", "{}", '{"topology": "r"}', "[]", "null", '"x"',
    json.dumps([{"topology": RACK, "size": "4"}]), json.dumps([{"topology": RACK, "size": 0}]),
    json.dumps([{"topology": RACK, "size": -2}]), json.dumps([{"topology": RACK, "size": 1.5}]),
    json.dumps([{"topology": 7, "size": 2}]), json.dumps([{"topology": RACK, "size": 2}] * 2),
    json.dumps([{"topology": BLOCK, "size": 4}, {"topology": RACK, "size": 3}]),
    json.dumps([{"topology": SUPERBLOCK, "size": 8}, {"topology": BLOCK, "size": 4}, {"topology": RACK, "size": 2},
                {"topology": HOSTNAME, "size": 1}]),
    json.dumps([{"topology": "-bad", "size": 2}]), json.dumps([[RACK, 2]]),
)
BAD_BOOLEANS = ("yes", "no", "on", "", "TRUE ", "2")
BAD_GROUPS = ("42", "0", "007")


def _notes(ps: dict) -> dict:
    return ps["template"].setdefault("metadata", {}).setdefault("annotations", {}) if "template" in ps \
        else ps.setdefault("annotations", {})


def _bad_level_name(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes[draw(st.sampled_from((ann.REQUIRED, ann.PREFERRED, ann.SLICE_REQUIRED)))] = draw(st.sampled_from(BAD_LABEL_NAMES))
    if ann.SLICE_REQUIRED in notes:
        notes.setdefault(ann.SLICE_SIZE, "1")


def _required_and_preferred(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes[ann.REQUIRED], notes[ann.PREFERRED] = levels[0], levels[-1]


def _bad_unconstrained(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes[ann.UNCONSTRAINED] = draw(st.sampled_from(BAD_BOOLEANS))


def _bad_slice_size(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes[ann.SLICE_REQUIRED] = levels[-1]
    notes[ann.SLICE_SIZE] = draw(st.sampled_from(BAD_SLICE_SIZES))


def _slice_size_without_topology(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes.pop(ann.SLICE_REQUIRED, None)
    notes.pop(ann.SLICE_CONSTRAINTS, None)
    notes[ann.SLICE_SIZE] = "2"


def _slice_topology_without_size(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes.pop(ann.SLICE_SIZE, None)
    notes.pop(ann.SLICE_CONSTRAINTS, None)
    notes[ann.SLICE_REQUIRED] = levels[-1]


def _bad_slice_constraints(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes.pop(ann.SLICE_REQUIRED, None)
    notes.pop(ann.SLICE_SIZE, None)
    notes[ann.SLICE_CONSTRAINTS] = draw(st.sampled_from(BAD_CONSTRAINTS))


def _bad_group_name(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes[ann.GROUP_NAME] = draw(st.sampled_from(BAD_GROUPS))
    notes.setdefault(ann.REQUIRED, levels[0])


def _group_without_topology(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes[ann.GROUP_NAME] = "g"
    for key in (ann.REQUIRED, ann.PREFERRED):
        notes.pop(key, None)


def _slice_larger_than_podset(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes.pop(ann.SLICE_CONSTRAINTS, None)
    notes[ann.SLICE_REQUIRED] = levels[-1]
    notes[ann.SLICE_SIZE] = str(ps["count"] + draw(st.integers(1, 5)))


ANNOTATION_BREAKAGES = (_bad_level_name, _required_and_preferred, _bad_unconstrained, _bad_slice_size,
                        _slice_size_without_topology, _slice_topology_without_size, _bad_slice_constraints,
                        _bad_group_name, _group_without_topology, _slice_larger_than_podset)


@st.composite
def broken_annotations(draw, ps: dict, levels: list[str]) -> None:
    """Break one podset's annotations the way the webhook refuses."""
    apply_one(draw, ANNOTATION_BREAKAGES, _notes(ps), ps, levels)


@st.composite
def invalid_validate_input(draw):
    data = draw(validate_input())
    levels = [lv["nodeLabel"] for lv in data["topology"]["spec"]["levels"]] if "topology" in data else [RACK, HOSTNAME]
    target = draw(st.sampled_from(data["podSets"]))
    draw(broken_annotations(target, levels))
    return data


def _no_levels(draw, data: dict) -> None:
    data["topology"]["spec"]["levels"].clear()


def _repeated_level(draw, data: dict) -> None:
    levels = data["topology"]["spec"]["levels"]
    levels.append(dict(levels[0]))


def _hostname_not_lowest(draw, data: dict) -> None:
    levels = data["topology"]["spec"]["levels"]
    levels.insert(0, {"nodeLabel": HOSTNAME})
    if len(levels) > 1 and levels[-1]["nodeLabel"] == HOSTNAME:
        levels[-1] = {"nodeLabel": "cloud.provider.com/topology-host"}


def _flavor_without_node_labels(draw, data: dict) -> None:
    data["resourceFlavor"]["spec"]["nodeLabels"] = {}


def _flavor_of_another_topology(draw, data: dict) -> None:
    data["resourceFlavor"]["spec"]["topologyName"] = "other"


def _unknown_gate(draw, data: dict) -> None:
    data["featureGates"] = {draw(st.sampled_from(("TASFancyPlacement", "TopologyAwareSchedulingV2"))): True}


def _gate_before_its_version(draw, data: dict) -> None:
    data["kueueVersion"] = "0.13"
    data["featureGates"] = {gates.MULTI_LAYER: True}


COMMON_BREAKAGES = (_no_levels, _repeated_level, _hostname_not_lowest, _flavor_without_node_labels,
                    _flavor_of_another_topology, _unknown_gate, _gate_before_its_version)


@st.composite
def broken_common(draw, data: dict) -> None:
    """Break what every operation but validate checks first: the topology, the
    flavor, the gates."""
    apply_one(draw, COMMON_BREAKAGES, data)


@st.composite
def invalid_with_workload(draw, base):
    """A valid input with what every operation checks first broken, or (half
    the time, when it has a workload) one podset's annotations."""
    data = draw(base)
    if draw(st.booleans()) or "workload" not in data:
        draw(broken_common(data))
        return data
    levels = [lv["nodeLabel"] for lv in data["topology"]["spec"]["levels"]]
    draw(broken_annotations(draw(st.sampled_from(data["workload"]["podSets"])), levels))
    return data


@st.composite
def invalid_capacity_input(draw):
    data = draw(capacity_input())
    draw(broken_common(data))
    return data
