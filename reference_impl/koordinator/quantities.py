"""Kubernetes quantities, parsed exactly (as fractions)."""

from __future__ import annotations

import math
import re
from fractions import Fraction

_SUFFIX = {
    "": 1,
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000),
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
}
_PATTERN = re.compile(r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:[eE]([+-]?\d+))?(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$")


class QuantityError(ValueError):
    pass


def parse(value) -> Fraction:
    if isinstance(value, bool):
        raise QuantityError(f"not a quantity: {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(value).limit_denominator(10**9)
    if not isinstance(value, str):
        raise QuantityError(f"not a quantity: {value!r}")
    match = _PATTERN.match(value.strip())
    if not match:
        raise QuantityError(f"not a quantity: {value!r}")
    number, exponent, suffix = match.groups()
    result = Fraction(number) * _SUFFIX[suffix or ""]
    if exponent:
        result *= Fraction(10) ** int(exponent)
    return result


def milli(value) -> int:
    """Millivalue, rounded up as Kubernetes does."""
    return math.ceil(parse(value) * 1000)


def whole(value) -> int:
    """Value, rounded up as Kubernetes does."""
    return math.ceil(parse(value))
