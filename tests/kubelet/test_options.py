import pytest

from reference_impl.kubelet import gates as g
from reference_impl.kubelet.options import parse_policy_options, parse_weights, scoring_active
from reference_impl.refusal import Refusal


def gates_for(version, **over):
    return g.resolve(version, over)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("cpu=3,memory=1,nvidia.com/gpu=6", {"cpu": 3, "memory": 1, "nvidia.com/gpu": 6}),
        (" cpu = 3 , memory=1 ,", {"cpu": 3, "memory": 1}),
        ("", {}),
        ("cpu=0", {"cpu": 0}),
        ("cpu=100", {"cpu": 100}),
        ("intel.com/sriov-nic=7,", {"intel.com/sriov-nic": 7}),
    ],
)
def test_weights_accepted(text, expected):
    assert parse_weights(text) == expected


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("cpu", "expected resource=weight"),
        ("cpu=3,memory", "'memory': expected resource=weight"),
        ("=3", "empty resource name"),
        ("cpu=three", "not an integer"),
        ("cpu=1.5", "not an integer"),
        ("cpu=NaN", "not an integer"),
        ("cpu=", "not an integer"),
        ("cpu=-1", "must be in range [0, 100], got -1"),
        ("cpu=101", "must be in range [0, 100], got 101"),
        ("cpu=1e2", "not an integer"),
    ],
)
def test_weights_refused_with_reason_and_clear_message(text, fragment):
    with pytest.raises(Refusal) as err:
        parse_weights(text)
    assert err.value.reason == "InvalidPolicyOptionValue"
    assert fragment in err.value.message
    assert "numa-score-weights" in err.value.message
    assert repr(text) in err.value.message


def test_strategy_values():
    gates = gates_for("1.38", TopologyManagerPolicyAlphaOptions=True)
    for value, expected in [("none", "none"), ("", "none"), ("most-allocated", "most-allocated"), ("least-allocated", "least-allocated")]:
        assert parse_policy_options({"numa-allocation-strategy": value}, gates).strategy == expected
    with pytest.raises(Refusal) as err:
        parse_policy_options({"numa-allocation-strategy": "Most-Allocated"}, gates)
    assert err.value.reason == "InvalidPolicyOptionValue"
    assert "none, most-allocated, least-allocated" in err.value.message


def test_prefer_closest_parses_go_booleans():
    gates = gates_for("1.38")
    for text in ["1", "t", "T", "TRUE", "true", "True"]:
        assert parse_policy_options({"prefer-closest-numa-nodes": text}, gates).prefer_closest
    for text in ["0", "f", "F", "FALSE", "false", "False"]:
        assert not parse_policy_options({"prefer-closest-numa-nodes": text}, gates).prefer_closest
    with pytest.raises(Refusal) as err:
        parse_policy_options({"prefer-closest-numa-nodes": "yes"}, gates)
    assert err.value.reason == "InvalidPolicyOptionValue"


def test_max_allowable():
    gates = gates_for("1.35")
    assert parse_policy_options({}, gates).max_allowable_numa_nodes == 8
    assert parse_policy_options({"max-allowable-numa-nodes": "16"}, gates).max_allowable_numa_nodes == 16
    assert parse_policy_options({"max-allowable-numa-nodes": "+8"}, gates).max_allowable_numa_nodes == 8
    for bad in ["7", "-8", "eight", "8.0", " 8"]:
        with pytest.raises(Refusal) as err:
            parse_policy_options({"max-allowable-numa-nodes": bad}, gates)
        assert err.value.reason == "InvalidPolicyOptionValue"


@pytest.mark.parametrize(
    "version,option,gate_overrides,reason",
    [
        ("1.30", "max-allowable-numa-nodes", {}, "UnknownPolicyOption"),
        ("1.37", "numa-allocation-strategy", {"TopologyManagerPolicyAlphaOptions": True}, "UnknownPolicyOption"),
        ("1.38", "numa-allocation-strategy", {}, "PolicyOptionNotAvailable"),
        ("1.38", "numa-score-weights", {}, "PolicyOptionNotAvailable"),
        ("1.26", "prefer-closest-numa-nodes", {"TopologyManagerPolicyOptions": True}, "PolicyOptionNotAvailable"),
        ("1.28", "prefer-closest-numa-nodes", {"TopologyManagerPolicyBetaOptions": False}, "PolicyOptionNotAvailable"),
        ("1.31", "max-allowable-numa-nodes", {"TopologyManagerPolicyBetaOptions": False}, "PolicyOptionNotAvailable"),
        ("1.38", "no-such-option", {}, "UnknownPolicyOption"),
    ],
)
def test_availability(version, option, gate_overrides, reason):
    value = {"numa-allocation-strategy": "none", "numa-score-weights": "cpu=1", "max-allowable-numa-nodes": "8"}.get(option, "true")
    with pytest.raises(Refusal) as err:
        parse_policy_options({option: value}, gates_for(version, **gate_overrides))
    assert err.value.reason == reason
    assert option in err.value.message


@pytest.mark.parametrize(
    "version,option,gate_overrides",
    [
        ("1.26", "prefer-closest-numa-nodes", {"TopologyManagerPolicyOptions": True, "TopologyManagerPolicyAlphaOptions": True}),
        ("1.28", "prefer-closest-numa-nodes", {}),
        ("1.32", "prefer-closest-numa-nodes", {"TopologyManagerPolicyBetaOptions": False}),
        ("1.31", "max-allowable-numa-nodes", {}),
        ("1.35", "max-allowable-numa-nodes", {"TopologyManagerPolicyBetaOptions": False}),
        ("1.38", "numa-allocation-strategy", {"TopologyManagerPolicyAlphaOptions": True}),
    ],
)
def test_available(version, option, gate_overrides):
    value = {"numa-allocation-strategy": "most-allocated", "max-allowable-numa-nodes": "8"}.get(option, "true")
    parse_policy_options({option: value}, gates_for(version, **gate_overrides))


def test_gate_defaults_per_version():
    assert not gates_for("1.26").policy_options and not gates_for("1.27").beta_options
    assert gates_for("1.28").policy_options and gates_for("1.28").beta_options
    assert not gates_for("1.38").alpha_options
    assert g.gate_locked(g.POLICY_OPTIONS, 32) and not g.gate_locked(g.POLICY_OPTIONS, 31)
    assert gates_for("1.32", TopologyManagerPolicyOptions=False).locked_violation == (g.POLICY_OPTIONS, False)


def test_scoring_needs_strategy_and_alpha_gate():
    on = gates_for("1.38", TopologyManagerPolicyAlphaOptions=True)
    off = gates_for("1.38")
    most = parse_policy_options({"numa-allocation-strategy": "most-allocated"}, None)
    none = parse_policy_options({"numa-allocation-strategy": "none"}, None)
    assert scoring_active(most, on)
    assert not scoring_active(most, off)
    assert not scoring_active(none, on)
