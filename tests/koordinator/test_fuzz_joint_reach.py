"""The generated filter inputs reach joint allocation where its answer depends
on the primary devices' switches: several GPUs asked jointly with a NIC, no
required scope, on a node whose NICs sit under two or more of the GPUs'
switches. Inputs drawn so rarely that a bounded run never meets them hide
whatever the reference gets wrong there."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, Phase, find, given, settings

from conformance.fuzz.strategies import VALID
from reference_impl import dispatch
from reference_impl.koordinator import device_allocation

JOINT = "scheduling.koordinator.sh/device-joint-allocate"


def _gpus_asked(pod: dict) -> int:
    return sum(int(c["resources"]["requests"].get("nvidia.com/gpu", 0)) for c in pod["containers"])


def _spans_switches_with_nics(data: dict) -> bool:
    pod, devices = data["pod"], data["node"].get("devices", [])
    raw = (pod.get("annotations") or {}).get(JOINT)
    if raw is None or json.loads(raw).get("requiredScope") == "SamePCIe" or _gpus_asked(pod) < 2:
        return False
    gpu_switches = {d["pcie"] for d in devices if d["type"] == "gpu"}
    nic_switches = {d["pcie"] for d in devices if d["type"] == "rdma"} & gpu_switches
    return len(nic_switches) >= 2


def test_a_bounded_run_draws_joint_requests_over_several_switches():
    found = find(VALID[("koordinator", "filter")], _spans_switches_with_nics,
                 settings=settings(max_examples=300, database=None, derandomize=True, deadline=None,
                                   phases=[Phase.generate], suppress_health_check=list(HealthCheck)))
    assert _spans_switches_with_nics(found)


def test_a_bounded_run_draws_inputs_the_joint_rule_decides(monkeypatch):
    """The rule itself must change answers among the draws: over a derandomised
    sample, the reference with the rule and with it reverted (a secondary type
    takes only its count) answer some filter inputs differently."""
    real = device_allocation.secondary_take
    seen = {"drawn": 0, "decided": 0}

    @settings(max_examples=200, database=None, derandomize=True, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(VALID[("koordinator", "filter")])
    def both_ways(data):
        seen["drawn"] += 1
        with_rule = dispatch.run("koordinator", "filter", data)
        monkeypatch.setattr(device_allocation, "secondary_take", lambda count, preferred: count)
        try:
            reverted = dispatch.run("koordinator", "filter", data)
        finally:
            monkeypatch.setattr(device_allocation, "secondary_take", real)
        seen["decided"] += with_rule != reverted

    both_ways()
    assert seen["drawn"] == 200
    assert seen["decided"] / seen["drawn"] > 0
