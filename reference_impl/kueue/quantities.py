"""Kubernetes quantities as Kueue's TAS cache counts them, parsed by the
shared grammar (`reference_impl.quantity`).

CPU is kept in millicores, every other resource in whole units; fractions are
rounded up, as `Quantity.MilliValue()` / `Quantity.Value()` do.
"""

from __future__ import annotations

import math
from fractions import Fraction

from reference_impl import quantity as _grammar
from reference_impl.errors import InvalidInput


def parse(value, field: str) -> Fraction:
    try:
        return _grammar.parse(value)
    except _grammar.QuantityError as exc:
        raise InvalidInput(field, str(exc)) from None


def to_units(resource: str, value, field: str) -> int:
    """The integer the TAS cache works with: millicores for cpu, units otherwise."""
    amount = parse(value, field)
    if resource == "cpu":
        amount *= 1000
    return int(math.ceil(amount))


def resource_list(mapping, field: str) -> dict[str, int]:
    if mapping is None:
        return {}
    if not isinstance(mapping, dict):
        raise InvalidInput(field, "must be a mapping of resource name to quantity")
    return {str(k): to_units(str(k), v, f"{field}.{k}") for k, v in mapping.items()}
