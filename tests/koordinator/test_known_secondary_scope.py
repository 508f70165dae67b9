"""v1.8.0 reads requiredTopologyScope for GPUs only: the known difference
claims the release's answer to an rdma / fpga scope and not the contract's."""

from __future__ import annotations

import json

from conformance import corpus as corpus_mod
from conformance.fuzz import known, recognisers
from conformance.paths import corpus_dir

from .helpers import DEVICE_HINT, run


def _difference():
    (found,) = [d for d in known.for_operation("koordinator", "v1.8.0", "koordinator", "filter")
                if d.case == "koord.filter.device.scope-rdma.pcie"]
    return found


def _unhealthy_fpga_with_device_scope() -> dict:
    # The shape the fuzzer met: the node's one FPGA is unhealthy, the pod asks
    # for it with scope Device.
    return {
        "node": {"cpuTopology": {"cpus": [{"id": 0, "core": 0, "socket": 0, "node": 0}]},
                 "numaNodes": [{"id": 0, "memory": "16Gi"}],
                 "devices": [{"type": "fpga", "minor": 0, "numaNode": None, "pcie": "pci0", "health": False}]},
        "pod": {"name": "pod", "annotations": {DEVICE_HINT: json.dumps({"fpga": {"requiredTopologyScope": "Device"}})},
                "containers": [{"name": "app", "resources": {"requests": {"cpu": "1", "koordinator.sh/fpga": "1"},
                                                             "limits": {"cpu": "1", "koordinator.sh/fpga": "1"}}}]},
    }


def test_the_release_answer_is_claimed_and_the_contract_answer_is_not():
    data = _unhealthy_fpga_with_device_scope()
    contract = run("filter", data)
    assert contract["reason"] == "InsufficientTopologyScopedDevices"
    release = {**contract, "reason": "InsufficientDevices", "message": "Insufficient fpga devices"}
    difference = _difference()
    assert difference.applies(data, release)
    assert not difference.applies(data, contract)


def test_the_corpus_case_is_claimed_with_the_nics_of_two_switches():
    (case,) = [c for c in corpus_mod.load(corpus_dir()).cases if c.id == "koord.filter.device.scope-rdma.pcie"]
    release = run("filter", recognisers.secondary_scope_unread(case.input))
    assert release != run("filter", case.input)
    assert _difference().applies(case.input, release)


def test_a_gpu_scope_is_not_rewritten():
    data = _unhealthy_fpga_with_device_scope()
    data["pod"]["annotations"][DEVICE_HINT] = json.dumps({"gpu": {"requiredTopologyScope": "PCIe"}})
    assert recognisers.secondary_scope_unread(data) is None
