"""DeviceShare: hints with the best layout at 500, hint fields, joint allocation,
partitions and the alignment switch."""

import json

import pytest

from .helpers import DEVICE_HINT, JOINT, LSR, NUMA_SPEC, PARTITION_SPEC, gpus, node, pod, run

SN = {NUMA_SPEC: {"numaTopologyPolicy": "SingleNUMANode"}}


def gpu_node(**extra):
    return node(devices=gpus(), **extra)


def test_best_layout_scores_500_and_leads():
    out = run("filter", {"node": gpu_node(), "pod": pod(annotations=SN, **{"nvidia.com/gpu": "1", "koordinator.sh/rdma": "1"})})
    expected = [{"affinity": [0], "preferred": True, "score": 500, "unsatisfied": False},
                {"affinity": [1], "preferred": True, "score": 0, "unsatisfied": False},
                {"affinity": [0, 1], "preferred": False, "score": 500, "unsatisfied": False}]
    assert out["hints"]["gpu"] == expected and out["hints"]["rdma"] == expected
    assert out["hint"]["affinity"] == [0] and out["devices"]["gpu"] == [{"minor": 0, "percent": 100, "gpuMemory": 16 * 2**30}]


def test_device_layout_beats_cpu_score_at_equal_width():
    # GPUs 0-3 are busy, so the best layout is on NUMA 1 although NUMA 0 is emptier for CPU.
    placed = [{"name": "g", "devices": {"gpu": [0, 1, 2, 3]}}]
    out = run("filter", {"node": gpu_node(pods=placed), "pod": pod(annotations=SN, **{"nvidia.com/gpu": "1"})})
    assert out["hint"]["affinity"] == [1] and out["devices"]["gpu"][0]["minor"] == 4


def test_disable_alignment_removes_device_hints():
    placed = [{"name": "g", "devices": {"gpu": [4, 5, 6, 7]}}]
    inp = {"node": gpu_node(pods=placed), "pod": pod(cpu="4", annotations=SN, **{"nvidia.com/gpu": "1"}),
           "args": {"deviceShare": {"disableDeviceNUMATopologyAlignment": True}}}
    out = run("filter", inp)
    assert "gpu" not in out["hints"] and out["fits"]


def test_gpus_bin_pack_onto_a_used_pcie_switch():
    placed = [{"name": "g", "devices": {"gpu": [2]}}]
    out = run("filter", {"node": gpu_node(pods=placed), "pod": pod(cpu=None, memory=None, **{"nvidia.com/gpu": "1"})})
    assert out["devices"]["gpu"] == [{"minor": 3, "percent": 100, "gpuMemory": 16 * 2**30}]


@pytest.mark.parametrize("scope, minors", [("PCIe", [0, 1]), ("NUMANode", [0, 1]), ("Node", [0, 1])])
def test_required_scope_two_gpus(scope, minors):
    hint = {DEVICE_HINT: {"gpu": {"requiredTopologyScope": scope}}}
    out = run("filter", {"node": gpu_node(), "pod": pod(cpu=None, memory=None, annotations=hint, **{"nvidia.com/gpu": "2"})})
    assert [d["minor"] for d in out["devices"]["gpu"]] == minors


def test_required_pcie_scope_fails_across_switches():
    placed = [{"name": "g", "devices": {"gpu": [0, 2, 4, 6]}}]
    hint = {DEVICE_HINT: {"gpu": {"requiredTopologyScope": "PCIe"}}}
    out = run("filter", {"node": gpu_node(pods=placed), "pod": pod(cpu=None, memory=None, annotations=hint, **{"nvidia.com/gpu": "2"})})
    assert out["reason"] == "InsufficientTopologyScopedDevices"
    hint = {DEVICE_HINT: {"gpu": {"requiredTopologyScope": "NUMANode"}}}
    out = run("filter", {"node": gpu_node(pods=placed), "pod": pod(cpu=None, memory=None, annotations=hint, **{"nvidia.com/gpu": "2"})})
    assert [d["minor"] for d in out["devices"]["gpu"]] == [1, 3]


def test_device_scope_holds_one_device():
    hint = {DEVICE_HINT: {"gpu": {"requiredTopologyScope": "Device"}}}
    ok = run("filter", {"node": gpu_node(), "pod": pod(cpu=None, memory=None, annotations=hint, **{"nvidia.com/gpu": "1"})})
    assert ok["fits"]
    bad = run("filter", {"node": gpu_node(), "pod": pod(cpu=None, memory=None, annotations=hint, **{"nvidia.com/gpu": "2"})})
    assert bad["reason"] == "InsufficientTopologyScopedDevices"


def test_selector_and_vf_selector():
    devices = gpus()
    devices[1]["labels"] = {"model": "A100"}
    hint = {DEVICE_HINT: {"gpu": {"selector": {"matchLabels": {"model": "A100"}}},
                          "rdma": {"vfSelector": {"matchLabels": {"type": "general"}}}}}
    out = run("filter", {"node": node(devices=devices),
                         "pod": pod(cpu=None, memory=None, annotations=hint, **{"nvidia.com/gpu": "1", "koordinator.sh/rdma": "1"})})
    assert out["devices"]["gpu"] == [{"minor": 1, "percent": 100, "gpuMemory": 16 * 2**30}]
    assert out["devices"]["rdma"][0]["vf"] == "0000:00:00.2"


def test_vf_selector_without_vfs():
    devices = [d for d in gpus() if d["type"] == "gpu"] + [{"type": "rdma", "minor": 0, "numaNode": 0, "pcie": "pci00"}]
    hint = {DEVICE_HINT: {"rdma": {"vfSelector": {}}}}
    out = run("filter", {"node": node(devices=devices), "pod": pod(cpu=None, memory=None, annotations=hint, **{"koordinator.sh/rdma": "1"})})
    assert out["reason"] == "InsufficientVirtualFunctions"


def test_no_matching_vf_is_a_shortage_of_devices():
    # The NICs carry VFs, none of them in a group matching the vfSelector: each NIC
    # is passed over, and the refusal names the devices, not the VFs.
    hint = {DEVICE_HINT: {"rdma": {"vfSelector": {"matchLabels": {"type": "storage"}}}}}
    out = run("filter", {"node": gpu_node(), "pod": pod(cpu=None, memory=None, annotations=hint, **{"koordinator.sh/rdma": "1"})})
    assert out["fits"] is False
    assert out["reason"] == "InsufficientDevices" and out["message"] == "Insufficient rdma devices"


def test_apply_for_all_and_requests_as_count():
    hint = {DEVICE_HINT: {"rdma": {"allocateStrategy": "ApplyForAll"}}}
    out = run("filter", {"node": gpu_node(), "pod": pod(cpu=None, memory=None, annotations=hint, **{"koordinator.sh/rdma": "1"})})
    assert [d["minor"] for d in out["devices"]["rdma"]] == [0, 1, 2, 3]
    hint = {DEVICE_HINT: {"rdma": {"allocateStrategy": "RequestsAsCount", "exclusivePolicy": "DeviceLevel"}}}
    out = run("filter", {"node": gpu_node(), "pod": pod(cpu=None, memory=None, annotations=hint, **{"koordinator.sh/rdma": "2"})})
    assert [d["percent"] for d in out["devices"]["rdma"]] == [100, 100]


def test_pcie_level_exclusive():
    placed = [{"name": "r", "devices": {"rdma": [{"minor": 0, "percent": 1}]}}]
    hint = {DEVICE_HINT: {"rdma": {"exclusivePolicy": "PCIeLevel"}}}
    out = run("filter", {"node": gpu_node(pods=placed),
                         "pod": pod(cpu=None, memory=None, annotations=hint, **{"koordinator.sh/rdma": "1"})})
    assert out["devices"]["rdma"][0]["minor"] != 0


def test_joint_allocation_same_pcie():
    placed = [{"name": "g", "devices": {"gpu": [0]}}]
    joint = {JOINT: {"deviceTypes": ["gpu", "rdma"], "requiredScope": "SamePCIe"}}
    out = run("filter", {"node": gpu_node(pods=placed),
                         "pod": pod(cpu=None, memory=None, annotations=joint, **{"nvidia.com/gpu": "1", "koordinator.sh/rdma": "1"})})
    gpu = out["devices"]["gpu"][0]["minor"]
    rdma = out["devices"]["rdma"][0]["minor"]
    assert (gpu, rdma) == (1, 0)


def test_joint_allocation_violation():
    devices = [{"type": "gpu", "minor": 0, "numaNode": 0, "pcie": "a"}, {"type": "rdma", "minor": 0, "numaNode": 0, "pcie": "b"}]
    joint = {JOINT: {"deviceTypes": ["gpu", "rdma"], "requiredScope": "SamePCIe"}}
    out = run("filter", {"node": node(devices=devices),
                         "pod": pod(cpu=None, memory=None, annotations=joint, **{"nvidia.com/gpu": "1", "koordinator.sh/rdma": "1"})})
    assert out["reason"] == "JointAllocateViolation"


def test_hopper_partition_bin_packs():
    devices = [{"type": "gpu", "minor": i, "numaNode": i // 4, "pcie": f"p{i // 2}"} for i in range(8)]
    placed = [{"name": "g", "devices": {"gpu": [4]}}]
    out = run("filter", {"node": node(devices=devices, pods=placed, labels={"node.koordinator.sh/gpu-model": "H100"}),
                         "pod": pod(cpu=None, memory=None, annotations={PARTITION_SPEC: {}}, **{"nvidia.com/gpu": "2"})})
    assert [d["minor"] for d in out["devices"]["gpu"]] == [6, 7]


def table(*rows):
    return {"scheduling.koordinator.sh/gpu-partitions": json.dumps(dict(rows))}


def test_restricted_partition_policy_takes_only_the_top_score():
    devices = [{"type": "gpu", "minor": i, "numaNode": 0, "pcie": f"p{i}"} for i in range(4)]
    annotations = table(("2", [{"minors": [0, 1], "allocationScore": 2}, {"minors": [2, 3], "allocationScore": 1}]))
    placed = [{"name": "g", "devices": {"gpu": [0]}}]
    restricted = run("filter", {"node": node(devices=devices, pods=placed, deviceAnnotations=annotations),
                                "pod": pod(cpu=None, memory=None, annotations={PARTITION_SPEC: {"allocatePolicy": "Restricted"}},
                                           **{"nvidia.com/gpu": "2"})})
    assert restricted["reason"] == "InsufficientPartitionedGPUs"
    best_effort = run("filter", {"node": node(devices=devices, pods=placed, deviceAnnotations=annotations),
                                 "pod": pod(cpu=None, memory=None, annotations={PARTITION_SPEC: {"allocatePolicy": "BestEffort"}},
                                            **{"nvidia.com/gpu": "2"})})
    assert [d["minor"] for d in best_effort["devices"]["gpu"]] == [2, 3]


def test_ring_bus_bandwidth():
    devices = [{"type": "gpu", "minor": i, "numaNode": 0, "pcie": f"p{i}"} for i in range(4)]
    annotations = table(("2", [{"minors": [0, 1], "allocationScore": 1, "ringBusBandwidth": "200Gi"},
                               {"minors": [2, 3], "allocationScore": 1, "ringBusBandwidth": "400Gi"}]))
    out = run("filter", {"node": node(devices=devices, deviceAnnotations=annotations),
                         "pod": pod(cpu=None, memory=None, annotations={PARTITION_SPEC: {"ringBusBandwidth": "300Gi"}},
                                    **{"nvidia.com/gpu": "2"})})
    assert [d["minor"] for d in out["devices"]["gpu"]] == [2, 3]


def test_prefer_node_falls_back_honor_node_does_not():
    devices = [{"type": "gpu", "minor": i, "numaNode": 0, "pcie": f"p{i}"} for i in range(4)]
    annotations = table(("2", [{"minors": [0, 1], "allocationScore": 1}]))
    placed = [{"name": "g", "devices": {"gpu": [0]}}]
    prefer = run("filter", {"node": node(devices=devices, pods=placed, deviceAnnotations=annotations),
                            "pod": pod(cpu=None, memory=None, **{"nvidia.com/gpu": "2"})})
    assert prefer["fits"]
    honor = run("filter", {"node": node(devices=devices, pods=placed, deviceAnnotations=annotations,
                                        deviceLabels={"node.koordinator.sh/gpu-partition-policy": "Honor"}),
                           "pod": pod(cpu=None, memory=None, **{"nvidia.com/gpu": "2"})})
    assert honor["reason"] == "InsufficientPartitionedGPUs"
    missing = run("filter", {"node": node(devices=devices),
                             "pod": pod(cpu=None, memory=None, annotations={PARTITION_SPEC: {}}, **{"nvidia.com/gpu": "2"})})
    assert missing["reason"] == "MissingGPUPartitionTable"
    count = run("filter", {"node": node(devices=devices, deviceAnnotations=annotations),
                           "pod": pod(cpu=None, memory=None, annotations={PARTITION_SPEC: {}}, **{"nvidia.com/gpu": "3"})})
    assert count["reason"] == "UnsupportedGPUPartitionCount"


def test_numa_scope_with_policy_none_leaves_cpus_elsewhere():
    hint = {DEVICE_HINT: {"gpu": {"requiredTopologyScope": "NUMANode"}}}
    placed = [{"name": "g", "devices": {"gpu": [0, 1, 2, 3]}}]
    out = run("filter", {"node": gpu_node(pods=placed), "pod": pod(labels=LSR, annotations=hint, **{"nvidia.com/gpu": "2"})})
    assert out["fits"] and out["hint"] is None
    assert {d["minor"] // 4 for d in out["devices"]["gpu"]} == {1}
    assert set(out["cpuset"]) <= set(range(8))   # the CPUs went to NUMA 0


@pytest.mark.parametrize("annotation, reason", [
    ({DEVICE_HINT: '{"gpu": {"requiredTopologyScope": "Rack"}}'}, "InvalidDeviceAllocateHint"),
    ({DEVICE_HINT: '{"tpu": {}}'}, "InvalidDeviceAllocateHint"),
    ({DEVICE_HINT: '{"gpu": {"selector": {"matchExpressions": [{"key": "a", "operator": "Near"}]}}}'}, "InvalidDeviceAllocateHint"),
    ({DEVICE_HINT: '{"rdma": {"exclusivePolicy": "NodeLevel"}}'}, "InvalidDeviceAllocateHint"),
    ({JOINT: '{"deviceTypes": ["gpu"]}'}, "InvalidDeviceJointAllocate"),
    ({JOINT: '{"deviceTypes": ["gpu", "rdma"], "requiredScope": "SameNUMA"}'}, "InvalidDeviceJointAllocate"),
    ({PARTITION_SPEC: '{"allocatePolicy": "Strict"}'}, "InvalidGPUPartitionSpec"),
    ({PARTITION_SPEC: '{"ringBusBandwidth": "fast"}'}, "InvalidGPUPartitionSpec"),
])
def test_malformed_device_annotations(annotation, reason):
    out = run("filter", {"node": gpu_node(), "pod": pod(annotations=annotation, **{"nvidia.com/gpu": "1"})})
    assert out["reason"] == reason


def test_malformed_partition_table():
    out = run("filter", {"node": gpu_node(deviceAnnotations={"scheduling.koordinator.sh/gpu-partitions": "[1, 2]"}),
                         "pod": pod(cpu=None, memory=None, **{"nvidia.com/gpu": "2"})})
    assert out["reason"] == "InvalidGPUPartitionTable"


def test_bad_device_requests():
    out = run("filter", {"node": gpu_node(), "pod": pod(cpu=None, memory=None, **{"koordinator.sh/gpu": "150"})})
    assert out["reason"] == "InvalidDeviceRequest"
    out = run("filter", {"node": node(), "pod": pod(cpu=None, memory=None, **{"nvidia.com/gpu": "1"})})
    assert out["reason"] == "InsufficientDevices" and out["message"] == "Insufficient gpu devices"


def test_same_pcie_pairs_a_nic_with_every_primary_switch():
    joint = {JOINT: {"deviceTypes": ["gpu", "rdma"], "requiredScope": "SamePCIe"}}
    out = run("filter", {"node": gpu_node(),
                         "pod": pod(cpu=None, memory=None, annotations=joint, **{"nvidia.com/gpu": "4", "koordinator.sh/rdma": "1"})})
    assert [d["minor"] for d in out["devices"]["gpu"]] == [0, 1, 2, 3]
    assert [d["minor"] for d in out["devices"]["rdma"]] == [0, 1]


def test_same_pcie_does_not_search_other_switches():
    placed = [{"name": "r", "devices": {"rdma": [{"minor": 0, "percent": 100}]}}]
    joint = {JOINT: {"deviceTypes": ["gpu", "rdma"], "requiredScope": "SamePCIe"}}
    out = run("filter", {"node": gpu_node(pods=placed),
                         "pod": pod(cpu=None, memory=None, annotations=joint, **{"nvidia.com/gpu": "1", "koordinator.sh/rdma": "1"})})
    assert out["reason"] == "JointAllocateViolation"


def test_without_alignment_devices_ignore_the_numa_decision():
    placed = [{"name": "g", "devices": {"gpu": [0, 1, 2, 3]}}]
    out = run("filter", {"node": gpu_node(pods=placed), "pod": pod(annotations=SN, **{"nvidia.com/gpu": "1"}),
                         "args": {"deviceShare": {"disableDeviceNUMATopologyAlignment": True}}})
    assert out["fits"] and out["hint"]["affinity"] == [0] and out["devices"]["gpu"][0]["minor"] == 4
