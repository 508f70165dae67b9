import re
from pathlib import Path

from conformance.compare import MATCHERS, diff, mismatches


def test_mappings_match_as_subsets_and_lists_exactly():
    assert not mismatches({"a": 1}, {"a": 1, "b": 2})
    assert mismatches({"a": [1, 2]}, {"a": [1, 2, 3]})
    assert mismatches({"a": [1, 2]}, {"a": [2, 1]})


def test_types_are_not_confused():
    assert mismatches({"a": True}, {"a": 1})
    assert mismatches({"a": None}, {"a": []})
    assert mismatches({"a": []}, {"a": {}})
    assert not mismatches({"a": 1}, {"a": 1.0})


def test_missing_key_is_reported_at_its_pointer():
    assert diff({"pods": [{"admitted": False}]}, {"pods": [{}]}) == [
        "/pods/0/admitted: expected false, got nothing (key missing)"
    ]


def test_matchers():
    assert not mismatches({"m": {"$contains": "NUMA"}}, {"m": "too many NUMA nodes"})
    assert mismatches({"m": {"$contains": "NUMA"}}, {"m": "other"})
    assert not mismatches({"l": {"$unordered": [2, 1]}}, {"l": [1, 2]})
    assert mismatches({"l": {"$unordered": [2, 2]}}, {"l": [1, 2]})
    assert not mismatches({"x": {"$absent": True}}, {"y": 1})
    assert mismatches({"x": {"$absent": True}}, {"x": None})
    assert not mismatches({"x": {"$exact": {"a": 1}}}, {"x": {"a": 1}})
    assert mismatches({"x": {"$exact": {"a": 1}}}, {"x": {"a": 1, "b": 2}})
    assert not mismatches({"mem": {"$quantity": "16Gi"}}, {"mem": 17179869184})
    assert mismatches({"mem": {"$quantity": "16G"}}, {"mem": 17179869184})
    assert not mismatches({"x": {"$any": True}}, {"x": None})
    assert mismatches({"x": {"$any": True}}, {})
    either = {"m": {"$anyOf": [{"$contains": "rdma"}, {"$contains": "fpga"}]}}
    assert not mismatches(either, {"m": "Insufficient fpga devices"})
    assert not mismatches(either, {"m": "Insufficient rdma devices"})
    assert mismatches(either, {"m": "Insufficient gpu devices"})
    assert mismatches(either, {})
    assert not mismatches({"r": {"$anyOf": [{"a": 1}, {"b": 2}]}}, {"r": {"b": 2, "c": 3}})


def test_unordered_finds_a_pairing_when_a_looser_item_could_take_the_wrong_element():
    # {"a": 1} also matches {"a": 1, "b": 2}; taking it first must not leave
    # {"a": 1, "b": 2} without a partner when a valid pairing exists.
    expected = {"l": {"$unordered": [{"a": 1}, {"a": 1, "b": 2}]}}
    assert not mismatches(expected, {"l": [{"a": 1, "b": 2}, {"a": 1, "b": 3}]})
    assert not mismatches({"l": {"$unordered": [{"$any": True}, 1]}}, {"l": [1, 2]})
    assert mismatches(expected, {"l": [{"a": 1, "b": 3}, {"a": 1, "b": 3}]})


def test_the_matcher_table_is_the_documented_one():
    documented = re.findall(r"^\| `\{(\$[A-Za-z]+):", (Path(__file__).parents[2] / "docs/fixture-format.md")
                            .read_text(encoding="utf-8"), re.M)
    assert documented == list(MATCHERS)


def test_an_empty_mapping_means_empty_not_any_mapping():
    assert mismatches({}, {}) == []
    assert mismatches({"numaResources": {}}, {"numaResources": {"0": {"cpu": 1000}}})
    assert mismatches({"numaResources": {}}, {"numaResources": {}, "cpuset": ""}) == []
    assert mismatches({}, []), "still a mapping"
