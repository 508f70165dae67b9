"""Kubernetes resource quantities as exact fractions, and the integer views the
managers take of them (`Value()` rounds up, as resource.Quantity does)."""

from __future__ import annotations

import math
import re
from fractions import Fraction

from ..errors import InvalidInput

_MULTIPLIERS = {
    "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60,
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": 1,
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
}
_SYNTAX = re.compile(r"([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))(?:[eE]([+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?\Z")


def parse(value: object, field: str) -> Fraction:
    if isinstance(value, bool):
        raise InvalidInput(field, f"not a quantity: {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput(field, f"not a quantity: {value!r}")
        return Fraction(value)
    if not isinstance(value, str):
        raise InvalidInput(field, f"not a quantity: {value!r}")
    m = _SYNTAX.match(value.strip())
    if not m:
        raise InvalidInput(field, f"not a quantity: {value!r}")
    number, exponent, suffix = m.groups()
    q = Fraction(number)
    if exponent is not None:
        return q * Fraction(10) ** int(exponent)
    return q * _MULTIPLIERS[suffix or ""]


def value(q: Fraction) -> int:
    """Quantity.Value(): rounded up to an integer."""
    return math.ceil(q)


def milli_value(q: Fraction) -> int:
    return math.ceil(q * 1000)


def bytes_of(raw: object, field: str) -> int:
    q = parse(raw, field)
    if q < 0:
        raise InvalidInput(field, f"must not be negative: {raw!r}")
    return value(q)
