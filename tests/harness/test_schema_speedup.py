"""The compiled fast path and jsonschema agree on the corpus's inputs, valid and
broken, so the speed-up never hides a problem."""

import copy

import pytest
from jsonschema import Draft202012Validator

from conformance import corpus as corpus_mod
from conformance import schemas

CORPUS = corpus_mod.load()
SAMPLE = CORPUS.cases[::25]


def authoritative(name, instance):
    return not any(True for _ in schemas.validator(name).iter_errors(instance))


def broken_variants(instance):
    """A few ways to break an input: drop each required key, retype each value."""
    for key in list(instance):
        dropped = copy.deepcopy(instance)
        del dropped[key]
        yield dropped
        retyped = copy.deepcopy(instance)
        retyped[key] = {"unexpected": [object.__name__]} if not isinstance(instance[key], dict) else 12345
        yield retyped


@pytest.mark.parametrize("case", SAMPLE, ids=lambda c: c.id)
def test_fast_and_authoritative_validation_agree(case):
    name = schemas.operation_schema(case.component, case.operation, "input")
    if schemas.is_valid_fast(name, case.input) is None:
        pytest.skip("no compiled validator for this schema")
    assert schemas.is_valid_fast(name, case.input) is True
    assert authoritative(name, case.input)
    for variant in broken_variants(case.input):
        assert schemas.is_valid_fast(name, variant) == authoritative(name, variant)


def test_every_schema_is_a_valid_2020_12_schema():
    for name in schemas.names():
        Draft202012Validator.check_schema(schemas.validator(name).schema)
