"""The cyclic collector's pause around one answer (reference_impl/collector.py)
never outlives the answer, whatever the answer does."""

from __future__ import annotations

import gc
import io
import json

import pytest

from reference_impl import collector, server
from reference_impl.errors import InvalidInput
from reference_impl.kueue.operations import OPERATIONS


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_pause_turns_the_collector_off_and_back_on(collector_on):
    with collector.paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_nested_pause_leaves_the_collector_off_until_the_outer_one_ends(collector_on):
    with collector.paused():
        with collector.paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_pause_left_by_an_error_resumes_the_collector(collector_on):
    with pytest.raises(ValueError), collector.paused():
        raise ValueError("boom")
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_caller_stays_off():
    was = gc.isenabled()
    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


def test_a_kueue_operation_rejecting_its_input_resumes_the_collector(collector_on):
    with pytest.raises(InvalidInput):
        OPERATIONS["assign"]({"featureGates": {}, "topology": {"metadata": {"name": "t"},
                                                              "spec": {"levels": [{"nodeLabel": "x"}]}},
                              "resourceFlavor": {"metadata": {"name": "f"},
                                                 "spec": {"nodeLabels": {"a": "b"}, "topologyName": "t"}},
                              "nodes": "not a list"})
    assert gc.isenabled()


def test_the_server_answers_a_bad_line_and_the_next_one_with_the_collector_back_on(collector_on):
    out = io.StringIO()
    assert server.serve(io.StringIO('not json\n{"cmd": "hello"}\n{"cmd": "stop"}\n{"cmd": "hello"}\n'), out) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(answers) == 2  # nothing after stop
    assert answers[0]["error"]["message"].startswith("not JSON")
    assert answers[1]["protocol"] == server.PROTOCOL
    assert gc.isenabled()
