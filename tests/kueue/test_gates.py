import pytest

from reference_impl.errors import InvalidInput
from reference_impl.kueue import gates as g
from reference_impl.kueue.quantities import to_units

from .helpers import assign, cluster, pod_set


@pytest.mark.parametrize("version,gate,expected", [
    ("0.13", g.TAS, False), ("0.14", g.TAS, True),
    ("0.14", g.PROFILE_MIXED, False), ("0.15", g.PROFILE_MIXED, True),
    ("0.18", g.MULTI_LAYER, False), ("0.19", g.MULTI_LAYER, True),
    ("0.13", g.FAILED_NODE_REPLACEMENT, False), ("0.14", g.FAILED_NODE_REPLACEMENT, True),
    ("0.14", g.FAIL_FAST, True), ("0.14", g.REPLACE_ON_POD_TERMINATION, True),
    ("0.16", g.FIXED_TIME, True), ("0.17", g.FIXED_TIME, True), ("0.18", g.FIXED_TIME, True),
    ("0.19", g.FIXED_TIME, False), ("0.20", g.FIXED_TIME, False),
    ("0.16", g.NODE_TAINTS, False), ("0.17", g.NODE_TAINTS, True),
    ("0.18", g.SKIP_POD_OWNED, False), ("0.19", g.SKIP_POD_OWNED, True),
    ("0.19", g.BALANCED, False),
])
def test_gate_defaults_by_version(version, gate, expected):
    assert g.resolve({"kueueVersion": version}).enabled(gate) is expected


def test_default_version_is_0_19():
    assert g.resolve({}).version == (0, 19)


def test_gate_unknown_in_version_is_refused():
    with pytest.raises(g.UnknownGate):
        g.resolve({"kueueVersion": "0.16", "featureGates": {g.FIXED_TIME: True}})
    result = assign(cluster(), [pod_set()], version="0.16", gates={g.NODE_TAINTS: True})
    assert result["refused"]["reason"] == "UnknownFeatureGate"


def test_tas_gate_off_refuses():
    result = assign(cluster(), [pod_set()], version="0.13")
    assert result["refused"]["reason"] == "TopologyAwareSchedulingDisabled"


def test_version_out_of_range_is_invalid_input():
    with pytest.raises(InvalidInput):
        g.resolve({"kueueVersion": "1.2"})


@pytest.mark.parametrize("resource,value,units", [
    ("cpu", "500m", 500), ("cpu", "1", 1000), ("cpu", 2, 2000), ("cpu", "0.0001", 1),
    ("memory", "1Gi", 2**30), ("memory", "1k", 1000), ("pods", "110", 110), ("memory", "0.5", 1),
])
def test_quantities(resource, value, units):
    assert to_units(resource, value, "f") == units
