"""The kubelet's view of quantities: parsed by the shared grammar
(`reference_impl.quantity`), refused as invalid input, and the integer views the
managers take of them (`Value()` and `MilliValue()` round up, as
resource.Quantity does)."""

from __future__ import annotations

import math
from fractions import Fraction

from .. import quantity as _grammar
from ..errors import InvalidInput


def parse(value: object, field: str) -> Fraction:
    try:
        return _grammar.parse(value)
    except _grammar.QuantityError as exc:
        raise InvalidInput(field, str(exc)) from None


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
