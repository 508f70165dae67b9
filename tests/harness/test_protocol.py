"""The typed protocol: requests built by the module match their schemas, and
one decoder reads every answer, the structured non-determinism included."""

import json
import sys
from pathlib import Path

import pytest

from conformance import schemas
from conformance.cli import main
from conformance.model import Outcome
from conformance.protocol import Hello, Kind, Nondeterminism, Response, Run, Stop, decode_run_answer

HERE = Path(__file__).parent
FAKE = HERE / "fakes" / "fake_impl.py"
CASE = {"component": "kubelet", "operation": "merge", "input": {"providers": []}}


@pytest.mark.parametrize(("message", "schema"), [
    (Hello(), "protocol/hello.request.json"),
    (Run.of(3, "a.b", CASE), "protocol/run.request.json"),
    (Stop(), "protocol/stop.request.json"),
])
def test_requests_match_their_schema_and_read_back(message, schema):
    wire = message.to_wire()
    assert schemas.errors(schema, wire) == []
    assert type(message).from_wire(wire) == message


def test_run_request_never_carries_more_than_the_case():
    assert Run.of(1, "x", {**CASE, "expect": {"result": {}}}).to_wire()["case"] == CASE


def test_answers_decode_to_their_kind():
    assert decode_run_answer({"seq": 1, "result": {"a": 1}}, 1) == Response(Kind.RESULT, result={"a": 1})
    assert decode_run_answer({"seq": 1, "unsupported": "no"}, 1) == Response(Kind.UNSUPPORTED, message="no")
    error = decode_run_answer({"seq": 1, "error": {"message": "m", "detail": "stack"}}, 1, stderr_tail=lambda: ["log"])
    assert (error.kind, error.message, error.detail, error.stderr_tail, error.nondeterministic) == \
        (Kind.ERROR, "m", "stack", ["log"], None)


def test_nondeterministic_error_keeps_its_message_and_structure():
    answer = {"seq": 2, "error": {"message": "not deterministic: the release gave 2 different results",
                                  "nondeterministic": {"runs": 64, "distinct": 2, "results": [{"a": 1}, {"a": 2}]}}}
    response = decode_run_answer(answer, 2)
    assert response.kind is Kind.ERROR and response.kind.outcome is Outcome.ERROR
    assert response.message == "not deterministic: the release gave 2 different results"
    assert response.nondeterministic == Nondeterminism(64, 2, ({"a": 1}, {"a": 2}))
    assert response.error_body()["nondeterministic"] == answer["error"]["nondeterministic"]


@pytest.mark.parametrize("broken", [
    {"runs": "64", "distinct": 2},
    {"runs": 64},
    {"runs": 64, "distinct": 1},
])
def test_a_broken_nondeterministic_field_is_malformed(broken):
    response = decode_run_answer({"seq": 1, "error": {"message": "m", "nondeterministic": broken}}, 1)
    assert response.kind is Kind.MALFORMED
    assert "/error/nondeterministic" in response.message


def test_another_seq_is_bad_seq():
    response = decode_run_answer({"seq": 5, "result": {}}, 4)
    assert response.kind is Kind.BAD_SEQ and response.kind.is_fault


def test_every_answer_kind_but_result_is_an_outcome_of_the_report():
    outcomes = set(json.loads(Path("schemas/report.schema.json").read_text())["$defs"]["outcome"]["enum"])
    assert {str(o) for o in Outcome} == outcomes
    assert {str(k.outcome) for k in Kind if k is not Kind.RESULT} <= outcomes


def test_the_record_of_a_nondeterministic_error_keeps_the_runs(tmp_path):
    report = tmp_path / "report"
    main(["run", "--impl", f"exec:{sys.executable} {FAKE} nondeterministic 1", "--corpus", str(HERE / "corpus"),
          "--report-dir", str(report), "--quiet", "--no-expectations", "--id", "harness.narrowest-preferred"])
    (record,) = json.loads((report / "results.json").read_text())["records"]
    assert record["outcome"] == "error"
    assert record["message"] == "not deterministic: 2 different results over 8 runs"
    assert record["actual"]["error"]["nondeterministic"]["runs"] == 8
    assert len(record["actual"]["error"]["nondeterministic"]["results"]) == 2
