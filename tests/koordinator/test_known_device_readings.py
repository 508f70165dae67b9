"""The v1.8.0 differences about partition tables, the Device scope and the
order of device types: each known difference claims the release's answer and
not the contract's."""

from __future__ import annotations

import copy
import functools
import json

import pytest

from conformance import corpus as corpus_mod
from conformance.fuzz import known, recognisers
from conformance.paths import corpus_dir
from conformance.releases.koordinator_v1_8 import MODEL

from .helpers import DEVICE_HINT, run

TABLE = "scheduling.koordinator.sh/gpu-partitions"


@functools.cache
def _corpus():
    return corpus_mod.load(corpus_dir())


def _cases(prefix: str):
    return [c for c in _corpus().cases if c.id.startswith(prefix)]


def _difference(case_prefix: str, operation: str):
    (found,) = [d for d in known.for_operation("koordinator", "v1.8.0", "koordinator", operation)
                if d.case.startswith(case_prefix)]
    return found


@pytest.mark.parametrize("raw", ["", "{", "not json", "[]", "null", '{"two": [{"minors": [0, 1]}]}',
                                 '{"2": {"minors": [0, 1]}}', '{"2": [{"minors": "0,1"}]}',
                                 '{"2": [{"minors": [0, 1], "allocationScore": "high"}]}',
                                 '{"2": [{"minors": [0, 1], "ringBusBandwidth": "wide"}]}', '{"1": ["0"]}'])
def test_tables_v1_8_cannot_decode(raw):
    assert recognisers.partition_table_undecodable(raw)


@pytest.mark.parametrize("raw", ['{"2": [{"minors": [0, 1], "allocationScore": 1}]}',
                                 # decodes, and is used as written, though the contract refuses it
                                 '{"2": [{"minors": [0]}]}', '{"2": null}',
                                 '{"2": [{"minors": [0, 1], "ringBusBandwidth": "400Gi"}]}'])
def test_tables_v1_8_decodes(raw):
    assert not recognisers.partition_table_undecodable(raw)


@pytest.mark.parametrize("case", _cases("koord.partition-table.unreadable["), ids=lambda c: c.id)
def test_an_unreadable_table_is_claimed_only_as_no_table(case):
    difference = _difference("koord.partition-table.unreadable[", "filter")
    contract = run("filter", case.input)
    assert contract["reason"] == "InvalidGPUPartitionTable"
    assert not difference.applies(case.input, contract)
    # v1.8.0's answers, written out: the two rows that fit take GPUs 0 and 1.
    row = case.id.split("reading=")[1].split(",")[0]
    if row == "node-label-honor":
        release = dict(contract, reason="MissingGPUPartitionTable", message="node(s) missing GPU Partition Table")
        assert difference.applies(case.input, release)
        assert not difference.applies(case.input, dict(contract, reason="InsufficientDevices"))
    else:
        without = copy.deepcopy(case.input)
        del without["node"]["deviceAnnotations"][TABLE]
        release = run("filter", without)
        whole = {"percent": 100, "gpuMemory": 16 * 2**30}
        assert release["fits"] and release["devices"] == {"gpu": [{"minor": 0, **whole}, {"minor": 1, **whole}]}
        assert difference.applies(case.input, release)


def _device_scope_input(gpus: str, node_labels: dict) -> dict:
    return {
        "node": {"devices": [{"type": "gpu", "minor": m, "numaNode": 0, "pcie": "pci0"} for m in range(2)],
                 "labels": node_labels},
        "pod": {"annotations": {DEVICE_HINT: json.dumps({"gpu": {"requiredTopologyScope": "Device"}})},
                "containers": [{"name": "app", "resources": {"requests": {"nvidia.com/gpu": gpus},
                                                             "limits": {"nvidia.com/gpu": gpus}}}]},
    }


def test_v1_8_device_scope_is_never_met_and_comes_after_honoured_partitions():
    one = _device_scope_input("1", {})
    assert run("filter", one)["fits"]
    assert MODEL.run("filter", one, ["device-scope-never-met"])["reason"] == "InsufficientTopologyScopedDevices"
    # Honoured partitions on an H100 node, both GPUs in use by a placed pod.
    two = _device_scope_input("2", {"node.koordinator.sh/gpu-model": "H100",
                                    "node.koordinator.sh/gpu-partition-policy": "Honor"})
    two["node"]["pods"] = [{"name": "busy", "devices": {"gpu": [0]}}]
    assert run("filter", two)["reason"] == "InsufficientTopologyScopedDevices"
    assert MODEL.run("filter", two, ["device-scope-never-met"])["reason"] == "InsufficientPartitionedGPUs"


def test_the_device_scope_difference_claims_the_release_answer_only():
    difference = _difference("koord.filter.device.scope[scope=Device,", "filter")
    (case,) = _cases("koord.filter.device.scope[scope=Device,")
    contract = run("filter", case.input)
    assert contract["fits"] and not difference.applies(case.input, contract)
    refused = dict(contract, fits=False, reason="InsufficientTopologyScopedDevices", stage="Filter",
                   code="Unschedulable", cpuset=None, cpusetString=None, numaResources={}, devices={})
    assert difference.applies(case.input, refused)
    # The same refusal for a pod whose GPU hint asks no Device scope is not this difference.
    other = copy.deepcopy(case.input)
    other["pod"]["annotations"][DEVICE_HINT] = json.dumps({"gpu": {"requiredTopologyScope": "PCIe"}})
    assert not difference.applies(other, refused)


def _order_error(refusals: str) -> dict:
    return {"error": "not deterministic: the release gave 2 different results for this input over 64 runs "
                     "(DeviceShare prepares and allocates the pod's device types in Go map order, so which "
                     f"type's refusal is reported varies); the runs' refusals: {refusals}"}


def test_the_device_order_difference_needs_the_contracts_refusal_among_the_runs():
    difference = _difference("koord.filter.device-order.gpu-refusal-first[", "filter")
    case = next(c for c in _cases("koord.filter.device-order.gpu-refusal-first[gpus=missing-table"))
    assert run("filter", case.input)["reason"] == "MissingGPUPartitionTable"
    assert difference.applies(case.input, _order_error("InsufficientDevices | MissingGPUPartitionTable"))
    assert not difference.applies(case.input, _order_error("InsufficientDevices | InsufficientPartitionedGPUs"))
    single = copy.deepcopy(case.input)
    for part in ("requests", "limits"):
        del single["pod"]["containers"][0]["resources"][part]["koordinator.sh/rdma"]
    assert not difference.applies(single, _order_error("InsufficientDevices | MissingGPUPartitionTable"))
