"""The one CPU list parser (reference_impl/cpuset.py), its edge cases pinned.
Expected values follow the grammar of k8s.io/utils/cpuset.Parse, read by hand."""

import pytest

from reference_impl import cpuset, dispatch


@pytest.mark.parametrize("text, ids", [
    (None, []),
    ("", []),
    ("  ", []),
    ("7", [7]),
    ("0-3,8,10-11", [0, 1, 2, 3, 8, 10, 11]),
    ("2-2", [2]),
    ("8,0-1", [0, 1, 8]),            # any order in, ascending out
    ("0-2,1-3", [0, 1, 2, 3]),       # overlaps merge
    (" 1 , 3 ", [1, 3]),             # white space around elements
    ("+1", [1]),                      # a sign, as strconv.Atoi takes it
])
def test_accepted(text, ids):
    assert cpuset.parse(text) == ids


@pytest.mark.parametrize("text", [
    "1,,2", "1,", ",1",               # an empty element
    "3-1",                            # a range must not run backwards
    "-1", "1-", "-", "1-2-3",         # a range needs two ids
    "a", "1_0", "0x1", "1.0", "\u0663",   # decimal ASCII digits only
    "1 2",
])
def test_refused(text):
    with pytest.raises(cpuset.CPUSetError):
        cpuset.parse(text)


def test_a_list_of_ids_only_where_the_input_allows_it():
    assert cpuset.parse([3, 1, 1], ids=True) == [1, 3]
    assert cpuset.parse([], ids=True) == []
    for bad in ([-1], [True], ["1"], [1.0]):
        with pytest.raises(cpuset.CPUSetError):
            cpuset.parse(bad, ids=True)
    with pytest.raises(cpuset.CPUSetError):
        cpuset.parse([1, 2])
    with pytest.raises(cpuset.CPUSetError):
        cpuset.parse(7)


@pytest.mark.parametrize("ids, text", [([], ""), ([5], "5"), ([11, 10, 8, 0, 1, 2, 3], "0-3,8,10-11"), ([1, 3], "1,3")])
def test_render_is_the_shortest_spelling_and_parses_back(ids, text):
    assert cpuset.render(ids) == text
    assert cpuset.parse(text) == sorted(set(ids))


def test_the_kubelet_refuses_an_empty_element_like_koordinator():
    # The kubelet's reservedSystemCPUs used to skip an empty element.
    for component, operation, case in (
        ("kubelet", "admit", {"kubeletConfiguration": {"cpuManagerPolicy": "static", "reservedSystemCPUs": "0,,1"},
                              "node": {"numaNodes": [{"id": 0, "cpus": 4}]}, "events": []}),
        ("koordinator", "cpuset", {"cpuTopology": {"coresPerNUMANode": 2}, "need": 1, "reservedCPUs": "0,,1"}),
    ):
        with pytest.raises(ValueError, match="0,,1"):
            dispatch.run(component, operation, case)
