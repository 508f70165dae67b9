"""A designated device allocation in filter (docs/operations/koordinator.md,
`filter`, Designated device allocations)."""

from __future__ import annotations

import json

import pytest

from reference_impl.koordinator import device_designated
from reference_impl.refusal import Refusal

from .helpers import node, pod, run

HINT = "internal.scheduling.koordinator.sh/scheduling-hint"
ALLOCATED = device_designated.DEVICE_ALLOCATED
DEVICE_HINT = "scheduling.koordinator.sh/device-allocate-hint"
HANDED = {"extensions": {"DeviceShare": {}}}
GIB = 2**30


def _devices() -> list[dict]:
    return [
        {"type": "gpu", "minor": 0, "numaNode": 0, "pcie": "pci0"},
        {"type": "gpu", "minor": 1, "numaNode": 1, "pcie": "pci1"},
        {"type": "rdma", "minor": 0, "numaNode": 0, "pcie": "pci0",
         "vfGroups": [{"labels": {}, "vfs": [{"minor": 0, "busID": "0000:1f:00.2"},
                                             {"minor": 1, "busID": "0000:1f:00.3"}]}]},
    ]


def _filter(designation, hint=HANDED, pods=(), **requests) -> dict:
    annotations = {ALLOCATED: designation}
    if hint is not None:
        annotations[HINT] = hint
    annotations.update(requests.pop("annotations", {}))
    return run("filter", {"node": node(devices=_devices(), pods=list(pods)),
                          "pod": pod(cpu=None, memory=None, annotations=annotations, **requests)})


def _whole(minor: int) -> dict:
    return {"minor": minor, "resources": {"koordinator.sh/gpu-core": "100", "koordinator.sh/gpu-memory-ratio": "100"}}


def test_a_handed_over_gpu_is_taken_instead_of_the_first():
    result = _filter({"gpu": [_whole(1)]}, **{"nvidia.com/gpu": "1"})
    assert result["fits"] and [a["minor"] for a in result["devices"]["gpu"]] == [1]


def test_without_the_hint_the_devices_are_chosen_freely():
    result = _filter({"gpu": [_whole(1)]}, hint=None, **{"nvidia.com/gpu": "1"})
    assert [a["minor"] for a in result["devices"]["gpu"]] == [0]


def test_a_designated_gpu_held_by_another_pod_is_a_shortage():
    result = _filter({"gpu": [_whole(1)]}, pods=[{"name": "p", "devices": {"gpu": [1]}}], **{"nvidia.com/gpu": "1"})
    assert (result["fits"], result["reason"], result["stage"], result["code"]) == (
        False, "InsufficientDevices", "Filter", "Unschedulable")


def test_a_gpu_share_needs_room_within_its_designation():
    small = {"gpu": [{"minor": 1, "resources": {"koordinator.sh/gpu-core": "40",
                                                "koordinator.sh/gpu-memory-ratio": "40"}}]}
    assert _filter(small, **{"koordinator.sh/gpu": "50"})["reason"] == "InsufficientDevices"
    enough = {"gpu": [{"minor": 1, "resources": {"koordinator.sh/gpu-core": "50",
                                                 "koordinator.sh/gpu-memory-ratio": "50"}}]}
    result = _filter(enough, **{"koordinator.sh/gpu": "50"})
    assert result["devices"]["gpu"] == [{"minor": 1, "percent": 50, "gpuMemory": 8 * GIB}]


def test_a_designated_gpu_without_core_designates_none_of_it():
    bare = {"gpu": [{"minor": 1, "resources": {"koordinator.sh/gpu-memory": "16Gi"}}]}
    assert _filter(bare, **{"nvidia.com/gpu": "1"})["reason"] == "InsufficientDevices"


def test_a_type_the_designation_does_not_name_is_chosen_freely():
    result = _filter({"gpu": [_whole(1)]}, **{"nvidia.com/gpu": "1", "koordinator.sh/rdma": "1"})
    assert result["devices"]["rdma"] == [{"minor": 0, "percent": 1}]


def test_a_missing_designated_gpu_is_an_error():
    result = _filter({"gpu": [_whole(7)]}, **{"nvidia.com/gpu": "1"})
    assert (result["reason"], result["code"]) == ("MissingDesignatedGPU", "Error")


def test_designated_vfs_bind_with_and_without_the_hint():
    designation = {"rdma": [{"minor": 0, "resources": {"koordinator.sh/rdma": "1"},
                             "extension": {"vfs": [{"minor": 1, "busID": "0000:1f:00.3"}]}}]}
    for hint in (HANDED, None):
        result = _filter(designation, hint=hint, annotations={DEVICE_HINT: '{"rdma": {"vfSelector": {}}}'},
                         **{"koordinator.sh/rdma": "1"})
        assert result["devices"]["rdma"] == [{"minor": 0, "percent": 1, "vf": "0000:1f:00.3"}]


def test_restricted_hints_come_from_the_designated_numa_nodes():
    result = _filter({"gpu": [_whole(1)]}, annotations={
        "scheduling.koordinator.sh/numa-topology-spec": '{"numaTopologyPolicy": "Restricted"}'},
        **{"nvidia.com/gpu": "1"})
    assert result["hints"]["gpu"] == [{"affinity": [1], "preferred": True, "score": 500, "unsatisfied": False}]
    assert result["hint"]["affinity"] == [1]


@pytest.mark.parametrize("raw", [
    "{", "[]", '{"gpu": {}}', '{"gpu": [null]}', '{"gpu": [{"minor": 1.5}]}', '{"gpu": [{"minor": "1"}]}',
    '{"gpu": [{"minor": 4294967296}]}', '{"gpu": [{"resources": []}]}', '{"gpu": [{"resources": {"x": "1q"}}]}',
    '{"rdma": [{"extension": {"vfs": {}}}]}', '{"rdma": [{"extension": {"vfs": [{"busID": 1}]}}]}',
])
def test_an_unreadable_designation_is_refused(raw):
    with pytest.raises(Refusal) as exc:
        device_designated.read({ALLOCATED: raw}, True)
    assert (exc.value.reason, exc.value.stage) == ("InvalidDeviceAllocated", "PreFilter")


def test_null_is_no_designation_and_unknown_fields_are_ignored():
    assert device_designated.read({ALLOCATED: "null"}, True) is None
    assert device_designated.read({}, True) is None
    got = device_designated.read({ALLOCATED: json.dumps({"gpu": [{"minor": 2, "other": 1}], "rdma": None})}, False)
    assert got.by_type == {"gpu": (device_designated.DesignatedDevice(2, {}),), "rdma": ()}
    assert not got.handed_over


def test_a_malformed_designation_refuses_a_pod_without_requests():
    result = run("filter", {"node": node(), "pod": pod(annotations={ALLOCATED: "{"})})
    assert (result["reason"], result["stage"], result["code"]) == (
        "InvalidDeviceAllocated", "PreFilter", "UnschedulableAndUnresolvable")
