"""The fuzzing strategies themselves: every generated valid input is one the
operation's input schema accepts and the reference answers with a result its
result schema accepts; every generated invalid input is refused (a refusal
result or InvalidInput), never crashed on."""

import json

import pytest
from hypothesis import given, settings

from conformance import schemas
from conformance.fuzz import strategies
from reference_impl import dispatch
from reference_impl.errors import InvalidInput

INVALID = sorted(strategies.INVALID)
VALID = sorted(strategies.VALID)


def _ids(pairs):
    return [f"{c}.{op}" for c, op in pairs]


def test_every_operation_with_a_schema_has_a_valid_strategy():
    for component, operations in schemas.operations().items():
        for operation in operations:
            assert (component, operation) in strategies.VALID, f"{component}.{operation}"


@pytest.mark.parametrize(("component", "operation"), VALID, ids=_ids(VALID))
def test_valid_inputs_match_the_input_schema_and_get_a_result(component, operation):
    @settings(max_examples=100)
    @given(strategies.VALID[(component, operation)])
    def check(data):
        assert schemas.errors(schemas.operation_schema(component, operation, "input"), data) == []
        # Through JSON, as the protocol carries it.
        result = dispatch.run(component, operation, json.loads(json.dumps(data)))
        assert schemas.errors(schemas.operation_schema(component, operation, "result"), result) == []

    check()


@pytest.mark.parametrize(("component", "operation"), INVALID, ids=_ids(INVALID))
def test_invalid_inputs_are_refused_not_crashed_on(component, operation):
    @settings(max_examples=100)
    @given(strategies.INVALID[(component, operation)])
    def check(data):
        try:
            result = dispatch.run(component, operation, json.loads(json.dumps(data)))
        except InvalidInput:
            return
        assert isinstance(result, dict)

    check()
