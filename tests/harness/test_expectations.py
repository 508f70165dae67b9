"""Expectations entries: exact ids and globs, stale entries, xfail and xpass."""

from conformance.expectations import Entry, Expectations
from conformance.model import FAIL, Record

MATRIX_ID = "kubelet.merge.rule[policy=restricted]"
IDS = {MATRIX_ID, "kubelet.merge.rule[policy=best-effort]", "kubelet.merge.ruler"}


def record(case_id, outcome=FAIL):
    return Record(case_id, "kubelet", "merge", ("kubelet.merge",), "fixtures/kubelet/x.yaml", outcome)


def test_an_exact_entry_for_a_matrix_case_names_that_case_only():
    expectations = Expectations("e.yaml", [Entry(MATRIX_ID, FAIL, "a known failure of this row", 3)])
    assert expectations.stale(IDS) == []
    assert expectations.apply(record(MATRIX_ID)).outcome == "xfail"
    assert expectations.apply(record("kubelet.merge.rule[policy=best-effort]")).outcome == FAIL
    assert expectations.apply(record("kubelet.merge.ruler")).outcome == FAIL


def test_a_glob_with_an_escaped_bracket_still_matches_as_a_glob():
    expectations = Expectations("e.yaml", [Entry("kubelet.merge.rule[[]policy=*", FAIL, "every row fails", 3)])
    assert expectations.stale(IDS) == []
    assert expectations.apply(record("kubelet.merge.rule[policy=best-effort]")).outcome == "xfail"
    assert expectations.apply(record("kubelet.merge.ruler")).outcome == FAIL
