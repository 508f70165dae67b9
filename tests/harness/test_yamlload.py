import pytest

from conformance import yamlload


def test_duplicate_key_is_an_error_with_both_lines():
    with pytest.raises(yamlload.YAMLError) as info:
        yamlload.load("a: 1\nb: 2\na: 3\n")
    assert info.value.line == 3
    assert "first at line 1" in info.value.message


def test_null_empty_list_and_empty_mapping_stay_distinct():
    data = yamlload.load("n: null\nl: []\nm: {}\nt: ~\n")
    assert data == {"n": None, "l": [], "m": {}, "t": None}
    assert type(data["l"]) is not type(data["m"])


def test_only_true_and_false_are_booleans_and_dates_stay_strings():
    data = yamlload.load("a: yes\nb: off\nc: true\nd: 2026-12-02\ne: '1.38'\nf: 1.38\n")
    assert data == {"a": "yes", "b": "off", "c": True, "d": "2026-12-02", "e": "1.38", "f": 1.38}


def test_line_of_follows_a_pointer_as_deep_as_the_document_goes():
    data = yamlload.load("cases:\n  - id: x\n    input:\n      policy: restricted\n")
    assert yamlload.line_of(data, ["cases", 0, "input", "policy"]) == 4
    assert yamlload.line_of(data, ["cases", 0, "input", "missing", 3]) == 3
