"""v1.8.0 accepts exclusivePolicy PCIeLevel and acts on it nowhere: the known
difference claims the answer without the policy and not the contract's."""

from __future__ import annotations

from conformance import corpus as corpus_mod
from conformance.fuzz import known, recognisers
from conformance.paths import corpus_dir

from .helpers import DEVICE_HINT, run


def _difference():
    (found,) = [d for d in known.for_operation("koordinator", "v1.8.0", "koordinator", "filter")
                if d.case.startswith("koord.filter.device.pcie-level[excl=pcielevel")]
    return found


def _case(case_id: str):
    (case,) = [c for c in corpus_mod.load(corpus_dir()).cases if c.id == case_id]
    return case


def test_the_nic_beside_the_one_in_use_is_claimed_and_the_contract_answer_is_not():
    data = _case("koord.filter.device.pcie-level-nic-pair").input
    contract = run("filter", data)
    assert contract["devices"] == {"rdma": [{"minor": 2, "percent": 1}]}
    # v1.8.0's answer: the policy read as absent, the lower of the two free NICs.
    release = {**contract, "devices": {"rdma": [{"minor": 1, "percent": 1}]}}
    assert _difference().applies(data, release)
    assert not _difference().applies(data, contract)


def test_only_a_pcie_level_policy_is_rewritten():
    data = _case("koord.filter.device.pcie-level-nic-pair").input
    assert recognisers.pcie_level_unread(data) is not None
    data = {**data, "pod": {**data["pod"], "annotations": {DEVICE_HINT: '{"rdma": {"exclusivePolicy": "DeviceLevel"}}'}}}
    assert recognisers.pcie_level_unread(data) is None
