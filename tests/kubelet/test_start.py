import pytest

from reference_impl.errors import InvalidInput
from reference_impl.kubelet.operations import start_operation as start

TWO = {"nodes": [0, 1], "distances": [[10, 20], [20, 10]]}


def go(config, version="1.38", gates=None, numa=TWO):
    return start({"kubernetesVersion": version, "featureGates": gates or {}, "numa": numa, "kubeletConfiguration": config})


def test_defaults():
    r = go({})
    assert r == {
        "started": True,
        "policy": "none",
        "scope": "container",
        "options": {"preferClosestNUMA": False, "maxAllowableNUMANodes": 8, "numaAllocationStrategy": "none",
                    "numaScoreWeights": {}, "scoringActive": False},
        "numa": None,
    }


def test_machine_rows_are_read_as_reported():
    r = start({
        "machine": {"numaNodes": [{"id": 2, "distances": [20, 0, 10]}, {"id": 0, "distances": [10, 0, 20, 30]}]},
        "kubeletConfiguration": {"topologyManagerPolicy": "restricted",
                                 "topologyManagerPolicyOptions": {"prefer-closest-numa-nodes": "true"}},
    })
    assert r["numa"] == {"nodes": [2, 0], "distances": {"2": [20, 0, 10], "0": [10, 0, 20, 30]}}


def test_machine_and_numa_together_are_invalid():
    with pytest.raises(InvalidInput) as err:
        start({"numa": {"nodes": [0]}, "machine": {"numaNodes": [{"id": 0}]},
                                    "kubeletConfiguration": {}})
    assert err.value.field == "machine"


def test_full_configuration():
    r = go({"topologyManagerPolicy": "restricted", "topologyManagerScope": "pod",
            "topologyManagerPolicyOptions": {"prefer-closest-numa-nodes": "true", "numa-allocation-strategy": "least-allocated",
                                             "numa-score-weights": "cpu=3, memory=1,"}},
           gates={"TopologyManagerPolicyAlphaOptions": True})
    assert r["started"] and r["policy"] == "restricted" and r["scope"] == "pod"
    assert r["options"] == {"preferClosestNUMA": True, "maxAllowableNUMANodes": 8, "numaAllocationStrategy": "least-allocated",
                            "numaScoreWeights": {"cpu": 3, "memory": 1}, "scoringActive": True}


@pytest.mark.parametrize(
    "config,version,gates,numa,reason",
    [
        ({"topologyManagerPolicy": "best_effort"}, "1.38", {}, TWO, "UnknownPolicy"),
        ({"topologyManagerScope": "node"}, "1.38", {}, TWO, "UnknownScope"),
        ({"topologyManagerPolicy": "none", "topologyManagerPolicyOptions": {"prefer-closest-numa-nodes": "true"}}, "1.27", {}, TWO, "PolicyOptionsNotEnabled"),
        ({"topologyManagerPolicy": "best-effort", "topologyManagerPolicyOptions": {"bogus": "1"}}, "1.38", {}, TWO, "UnknownPolicyOption"),
        ({"topologyManagerPolicy": "best-effort", "topologyManagerPolicyOptions": {"numa-allocation-strategy": "most-allocated"}}, "1.38", {}, TWO, "PolicyOptionNotAvailable"),
        ({"topologyManagerPolicy": "best-effort", "topologyManagerPolicyOptions": {"numa-score-weights": "cpu=200"}}, "1.38",
         {"TopologyManagerPolicyAlphaOptions": True}, TWO, "InvalidPolicyOptionValue"),
        ({"topologyManagerPolicy": "best-effort"}, "1.38", {}, {"nodes": list(range(9))}, "TooManyNUMANodes"),
        ({"topologyManagerPolicy": "best-effort", "topologyManagerPolicyOptions": {"prefer-closest-numa-nodes": "true"}}, "1.38", {},
         {"nodes": [0, 1]}, "MissingNUMADistances"),
        ({}, "1.32", {"TopologyManagerPolicyOptions": False}, TWO, "FeatureGateLocked"),
    ],
)
def test_refusals(config, version, gates, numa, reason):
    r = go(config, version, gates, numa)
    assert r["started"] is False
    assert r["refused"]["reason"] == reason
    assert r["refused"]["message"]


def test_policy_none_skips_options_and_numa_checks():
    assert go({"topologyManagerPolicy": "none"}, numa={"nodes": list(range(16))})["started"]
    r = go({"topologyManagerPolicy": "none", "topologyManagerPolicyOptions": {"numa-allocation-strategy": "bogus"}})
    assert r["started"] and r["options"]["numaAllocationStrategy"] == "none"


def test_max_allowable_raises_the_limit():
    r = go({"topologyManagerPolicy": "single-numa-node", "topologyManagerPolicyOptions": {"max-allowable-numa-nodes": "16"}},
           numa={"nodes": list(range(16))})
    assert r["started"] and r["options"]["maxAllowableNUMANodes"] == 16


def test_strategy_without_alpha_gate_is_inactive_even_if_it_got_through():
    # 1.38 with the alpha gate on parses it; scoringActive reflects both
    r = go({"topologyManagerPolicy": "best-effort", "topologyManagerPolicyOptions": {"numa-allocation-strategy": "none"}},
           gates={"TopologyManagerPolicyAlphaOptions": True})
    assert r["options"]["scoringActive"] is False


def test_malformed_input_raises():
    with pytest.raises(InvalidInput):
        go({}, version="2.0")
    with pytest.raises(InvalidInput):
        go({}, version="1.20")
    with pytest.raises(InvalidInput):
        go({}, numa={"nodes": [0, 1], "distances": [[10]]})
