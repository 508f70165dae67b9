"""The shared quantity grammar (reference_impl/quantity.py) and how each
component and the harness use it. Expected values are worked out by hand from
the grammar in apimachinery's quantity.go, not taken from running the parser."""

from __future__ import annotations

from fractions import Fraction

import pytest

from conformance import compare
from conformance import quantity as harness_quantity
from reference_impl import quantity, server
from reference_impl.errors import InvalidInput
from reference_impl.kubelet.node import bytes_of
from reference_impl.kueue import quantities as kueue

GI = 2**30

ACCEPTED = [
    ("0", 0),
    ("1", 1),
    ("0005", 5),
    ("+1", 1),
    ("-1", -1),
    (".5", Fraction(1, 2)),
    ("5.", 5),
    ("1.G", 10**9),
    ("100m", Fraction(1, 10)),
    ("250000u", Fraction(1, 4)),
    ("3n", Fraction(3, 10**9)),
    ("1k", 1000),
    ("1M", 10**6),
    ("1Mi", 2**20),
    ("1.5Gi", 3 * 2**29),
    (".5Gi", 2**29),
    ("1.5Ki", 1536),
    ("1Ti", 2**40),
    ("1Pi", 2**50),
    ("1Ei", 2**60),
    ("1T", 10**12),
    ("1P", 10**15),
    ("1E", 10**18),          # E alone: the exa suffix
    ("1e3", 1000),
    ("1E3", 1000),           # E followed by digits: an exponent
    ("1e+3", 1000),
    ("1E-3", Fraction(1, 1000)),
    ("1e03", 1000),
    ("1.5e3", 1500),
    ("0.1e1", 1),
    (".5e1", 5),
    ("5.e3", 5000),
    ("-1.5Ki", -1536),
    # upstream's scanner takes a number without digits as zero
    (".", 0),
    ("+", 0),
    ("-", 0),
    ("-.", 0),
    ("Mi", 0),
    ("m", 0),
]

REFUSED = [
    "",
    " ",
    "1e3Ki",     # an exponent and a suffix together
    "1e3M",
    "2E3m",
    "1E3Mi",
    "1Ki3",
    "1e",        # an exponent needs digits
    "1e+",
    "1e-",
    "-3.01e-",
    "1e1.5",     # and they are whole
    "1.1.M",
    "1+1.0M",
    "1i",
    ".5i",
    "0.1mi",
    "0.1am",
    "1 Gi",
    "1ki",
    "1KI",
    "aoeu",
    "0x10",
    "1_000",
    "1e99999999999999999999",   # beyond int64
]


@pytest.mark.parametrize(("text", "value"), ACCEPTED)
def test_accepted(text, value):
    assert quantity.parse(text) == value


@pytest.mark.parametrize("text", REFUSED)
def test_refused(text):
    with pytest.raises(quantity.QuantityError):
        quantity.parse(text)


def test_error_is_a_value_error():
    assert issubclass(quantity.QuantityError, ValueError)


def test_white_space_around_text_is_ignored_as_unmarshalling_does():
    assert quantity.parse(" 1Gi\n") == GI
    assert quantity.parse("\u00a02\u3000") == 2
    with pytest.raises(quantity.QuantityError):
        quantity.parse("\x1c1")   # not white space to Go


def test_integers_are_exact():
    assert quantity.parse(7) == 7
    assert quantity.parse(-3) == -3
    assert quantity.parse(10**30) == 10**30


@pytest.mark.parametrize(("number", "value"), [
    (0.1, Fraction(1, 10)),
    (1.1, Fraction(11, 10)),
    (2.0, 2),
    (1.5, Fraction(3, 2)),
    (-0.0, 0),
    (1e23, 10**23),             # the double is 99999999999999991611392; its text is 1e+23
    (1e-05, Fraction(1, 10**5)),
])
def test_floats_are_read_by_their_shortest_decimal_text(number, value):
    assert quantity.parse(number) == value


@pytest.mark.parametrize("value", [True, False, None, [1], {"a": 1}, float("inf"), float("-inf"), float("nan"), b"1"])
def test_not_quantities(value):
    with pytest.raises(quantity.QuantityError):
        quantity.parse(value)


def test_rounded_away_from_zero_to_nano_units():
    assert quantity.parse("0.1n") == Fraction(1, 10**9)
    assert quantity.parse("1.5n") == Fraction(2, 10**9)
    assert quantity.parse("-0.1n") == Fraction(-1, 10**9)
    assert quantity.parse("1e-10") == Fraction(1, 10**9)
    assert quantity.parse("1e-20000") == Fraction(1, 10**9)
    assert quantity.parse("0e-20000") == 0


def test_binary_values_are_capped_at_int64():
    top = 2**63 - 1
    assert quantity.parse("7Ei") == 7 * 2**60
    assert quantity.parse("8Ei") == top
    assert quantity.parse("16Ei") == top
    assert quantity.parse("-16Ei") == -top
    assert quantity.parse("9223372036854775807Ki") == top
    assert quantity.parse("10E") == 10**19     # decimal forms are not capped


def test_huge_exponents_are_refused_not_built():
    assert quantity.parse("1e100") == 10**100
    with pytest.raises(quantity.QuantityError):
        quantity.parse("1e100000")


def test_an_exponent_keeps_only_its_low_32_bits_as_upstream_does():
    assert quantity.parse("1e4294967296") == 1            # 2^32 keeps 0
    assert quantity.parse("2e4294967299") == 2000         # 2^32 + 3 keeps 3
    assert quantity.parse("1e-4294967293") == 1000        # -(2^32) + 3 keeps 3
    assert quantity.parse("1e4294957295") == quantity._NANO  # keeps -10001: a non-zero value is 1n
    with pytest.raises(quantity.QuantityError):
        quantity.parse("1e2147483648")                    # keeps -2^31, where upstream's scale wraps again


# ---- one set of integer views, one input error, one predicate

def test_parse_input_refuses_with_invalid_input_naming_the_field():
    with pytest.raises(InvalidInput) as info:
        quantity.parse_input("1e3Ki", "node/numaNodes/0/memory")
    assert info.value.field == "node/numaNodes/0/memory"
    assert quantity.parse_input("1.5", "f") == Fraction(3, 2)


def test_integer_views_round_up():
    assert quantity.milli_value(quantity.parse(0.1)) == 100   # not 101
    assert quantity.milli_value(quantity.parse("0.1m")) == 1
    assert quantity.milli_value(quantity.parse("1.5")) == 1500
    assert quantity.value(quantity.parse("100m")) == 1
    assert quantity.value(quantity.parse("1E")) == 10**18
    assert quantity.value(quantity.parse("-1.5")) == -1      # up, not away from zero
    assert quantity.milli_value(quantity.parse("-0.1m")) == 0


def test_is_quantity():
    assert quantity.is_quantity("1E3") and quantity.is_quantity(2) and quantity.is_quantity(0.5)
    assert not quantity.is_quantity("1e3Ki")
    for not_one in (None, True, [1], {"a": 1}, float("nan"), "eight"):
        assert not quantity.is_quantity(not_one)


def test_kubelet_byte_counts_are_whole_and_not_negative():
    with pytest.raises(InvalidInput):
        bytes_of("-1", "f")
    assert bytes_of("1.5Gi", "f") == 3 * 2**29
    assert bytes_of(".5", "f") == 1


def test_kueue_units_and_refusal():
    assert kueue.to_units("cpu", 0.1, "f") == 100
    assert kueue.to_units("cpu", "0.1m", "f") == 1
    assert kueue.to_units("memory", "0.5", "f") == 1
    assert kueue.to_units("memory", "123456789012345678901234567890", "f") == 123456789012345678901234567890
    with pytest.raises(InvalidInput) as info:
        kueue.to_units("memory", "1e3Ki", "nodes[0].status.allocatable.memory")
    assert info.value.field == "nodes[0].status.allocatable.memory"


# ---- the harness uses the same parser

def test_harness_shares_the_parser():
    assert harness_quantity.parse is quantity.parse
    assert not compare.mismatches({"m": {"$quantity": "1.5Gi"}}, {"m": 3 * 2**29})
    assert not compare.mismatches({"m": {"$quantity": "1E"}}, {"m": 10**18})
    assert compare.mismatches({"m": {"$quantity": "1e3Ki"}}, {"m": 1024000})
    assert harness_quantity.is_quantity is quantity.is_quantity
    assert compare.MATCHERS["$quantity"].accepts is quantity.is_quantity
    assert compare.MATCHERS["$quantity"].accepts("1E3")
    assert not compare.MATCHERS["$quantity"].accepts("1e3Ki")


# ---- an unparsable quantity stays a protocol error for each component

def _run(case: dict) -> dict:
    return server.handle({"cmd": "run", "seq": 1, "id": "q", "case": case})


def test_kubelet_operation_answers_an_error():
    answer = _run({"component": "kubelet", "operation": "admit", "input": {
        "kubeletConfiguration": {"topologyManagerPolicy": "single-numa-node"},
        "node": {"numaNodes": [{"id": 0, "cpus": 4, "memory": "1e3Ki"}]},
        "events": []}})
    assert "error" in answer and "1e3Ki" in answer["error"]["message"]


def test_koordinator_operation_answers_an_error():
    answer = _run({"component": "koordinator", "operation": "filter", "input": {
        "node": {"name": "n", "numaNodes": [{"id": 0, "memory": "8Gi"}]},
        "pod": {"name": "p", "containers": [{"name": "c", "resources": {"requests": {"cpu": "1e3m"}}}]}}})
    assert "error" in answer and "1e3m" in answer["error"]["message"]


def test_kueue_operation_answers_an_error():
    answer = _run({"component": "kueue", "operation": "capacity", "input": {
        "topology": {"metadata": {"name": "t"}, "spec": {"levels": [{"nodeLabel": "kubernetes.io/hostname"}]}},
        "resourceFlavor": {"metadata": {"name": "f"}, "spec": {"nodeLabels": {"g": "a"}, "topologyName": "t"}},
        "nodes": [{"metadata": {"name": "n", "labels": {"kubernetes.io/hostname": "n", "g": "a"}},
                   "status": {"allocatable": {"memory": "1e3Ki"},
                              "conditions": [{"type": "Ready", "status": "True"}]}}]}})
    assert "error" in answer and "1e3Ki" in answer["error"]["message"]
