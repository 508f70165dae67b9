"""The podset's node affinity: term matching, scores and malformed selectors."""

import pytest

from reference_impl.errors import InvalidInput
from reference_impl.kueue import node_affinity

LABELS = {"block": "b1", "rack": "r2", "gpus": "4", "spaced": " 4", "underscored": "1_000"}


def _required(*terms):
    return node_affinity.parse(
        {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}},
        "affinity")


def _expr(key, operator, *values):
    entry = {"key": key, "operator": operator}
    if values:
        entry["values"] = list(values)
    return entry


@pytest.mark.parametrize("expr, admitted", [
    (_expr("block", "In", "b1", "b2"), True),
    (_expr("block", "In", "b2"), False),
    (_expr("block", "NotIn", "b2"), True),
    (_expr("zone", "NotIn", "z1"), True),          # absent label: NotIn holds
    (_expr("rack", "Exists"), True),
    (_expr("zone", "Exists"), False),
    (_expr("zone", "DoesNotExist"), True),
    (_expr("gpus", "Gt", "3"), True),
    (_expr("gpus", "Lt", "4"), False),
    (_expr("block", "Gt", "0"), False),            # not an integer label
    (_expr("spaced", "Gt", "0"), False),           # Go's ParseInt takes no spaces or underscores
    (_expr("underscored", "Gt", "0"), False),
])
def test_expression_operators(expr, admitted):
    assert _required({"matchExpressions": [expr]}).admits("n1", LABELS) is admitted


def test_expressions_of_a_term_are_anded_and_terms_ored():
    both = _required({"matchExpressions": [_expr("block", "In", "b1"), _expr("rack", "In", "r1")]})
    assert not both.admits("n1", LABELS)
    either = _required({"matchExpressions": [_expr("rack", "In", "r1")]},
                       {"matchFields": [_expr("metadata.name", "In", "n1")]})
    assert either.admits("n1", LABELS)
    assert not either.admits("n2", LABELS)


def test_empty_term_and_empty_list_admit_no_node():
    assert not _required({}).admits("n1", LABELS)
    assert not _required().admits("n1", LABELS)
    assert node_affinity.parse(None, "affinity").admits("n1", LABELS)
    assert node_affinity.parse({"nodeAffinity": {}}, "affinity").admits("n1", LABELS)


def test_preferred_score_sums_matching_weights_and_skips_empty_terms():
    affinity = node_affinity.parse({"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 10, "preference": {"matchExpressions": [_expr("block", "In", "b1")]}},
        {"weight": 5, "preference": {"matchExpressions": [_expr("rack", "In", "r2")]}},
        {"weight": 7, "preference": {"matchExpressions": [_expr("rack", "In", "r9")]}},
        {"weight": 30, "preference": {}},
    ]}}, "affinity")
    assert affinity.score("n1", LABELS) == 15
    assert affinity.admits("n1", LABELS)


@pytest.mark.parametrize("term, field", [
    ({"matchExpressions": [_expr("block", "In")]}, "values"),
    ({"matchExpressions": [_expr("block", "Exists", "x")]}, "values"),
    ({"matchExpressions": [_expr("block", "Gt", "x")]}, "values"),
    ({"matchExpressions": [_expr("block", "Near", "x")]}, "operator"),
    ({"matchFields": [_expr("metadata.labels", "In", "x")]}, "key"),
])
def test_malformed_selector_names_the_field(term, field):
    with pytest.raises(InvalidInput) as info:
        _required(term)
    assert "nodeSelectorTerms[0]" in info.value.field
    assert field in info.value.field or field in info.value.message
