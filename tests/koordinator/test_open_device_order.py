"""The order of rdma against fpga, which the contract leaves open: both
answers are admitted, a case admits both with `$anyOf`, the harness passes a
non-deterministic answer whose every run is admitted, and the fuzzer takes an
answer of either order as agreement."""

from __future__ import annotations

import copy

import pytest
from hypothesis import strategies as st

from conformance import corpus
from conformance.adapters.base import Response
from conformance.fuzz.differential import admitted_by_the_contract, fuzz_operation
from conformance.model import ERROR, PASS
from conformance.protocol import Kind, Nondeterminism
from conformance.runner import judge
from reference_impl import dispatch

CASE = "koord.filter.device-order.rdma-or-fpga-refusal"


@pytest.fixture(scope="module")
def case():
    (found,) = [c for c in corpus.load().cases if c.id == CASE]
    return found


def _messages(answers):
    return sorted(a["message"] for a in answers)


def test_both_orders_are_admitted_and_the_reference_names_rdma(case):
    answers = dispatch.admitted("koordinator", "filter", case.input)
    assert answers[0]["message"] == "Insufficient rdma devices"
    assert _messages(answers) == ["Insufficient fpga devices", "Insufficient rdma devices"]


def test_a_single_short_type_admits_one_answer(case):
    data = copy.deepcopy(case.input)
    data["node"]["pods"][0]["devices"].pop("fpga")
    assert _messages(dispatch.admitted("koordinator", "filter", data)) == ["Insufficient rdma devices"]


def _nondeterministic(results):
    return Response(Kind.ERROR, message="not deterministic", nondeterministic=Nondeterminism(64, len(results),
                                                                                            tuple(results)))


def test_a_nondeterministic_answer_passes_when_every_run_is_admitted(case):
    answers = dispatch.admitted("koordinator", "filter", case.input)
    outcome, message, _ = judge(case, _nondeterministic(answers))
    assert outcome == PASS and "each one the expectation admits" in message


def test_a_nondeterministic_answer_with_a_run_outside_the_expectation_stays_an_error(case):
    rdma, _ = dispatch.admitted("koordinator", "filter", case.input)
    gpu = {**rdma, "message": "Insufficient gpu devices"}
    assert judge(case, _nondeterministic([rdma, gpu]))[0] == ERROR
    # results that do not list every distinct one cannot be judged
    partial = Response(Kind.ERROR, message="m", nondeterministic=Nondeterminism(64, 3, (rdma,)))
    assert judge(case, partial)[0] == ERROR


class _Reference:
    def run(self, case_id, case):
        return Response("result", result=dispatch.run("koordinator", "filter", case["input"]))


class _Answers:
    def __init__(self, answer):
        self.answer = answer

    def run(self, case_id, case):
        return self.answer


def test_the_fuzzer_takes_either_order_as_agreement(case):
    rdma, fpga = dispatch.admitted("koordinator", "filter", case.input)
    inputs = st.just(case.input)
    for answer in (Response("result", result=fpga), _nondeterministic([fpga, rdma])):
        assert admitted_by_the_contract("koordinator", "filter", case.input, answer, ())
        report = fuzz_operation(_Answers(answer), _Reference(), "koordinator", "filter", inputs, 3, 1)
        assert report.disagreement is None
    gpu = {**rdma, "message": "Insufficient gpu devices"}
    report = fuzz_operation(_Answers(Response("result", result=gpu)), _Reference(), "koordinator", "filter",
                            inputs, 3, 1)
    assert report.disagreement is not None
