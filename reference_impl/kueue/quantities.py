"""Kubernetes quantities as Kueue's TAS cache counts them.

CPU is kept in millicores, every other resource in whole units; fractions are
rounded up, as `Quantity.MilliValue()` / `Quantity.Value()` do.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

from reference_impl.errors import InvalidInput

_SUFFIXES = {
    "": Decimal(1),
    "n": Decimal(10) ** -9,
    "u": Decimal(10) ** -6,
    "m": Decimal(10) ** -3,
    "k": Decimal(10) ** 3,
    "M": Decimal(10) ** 6,
    "G": Decimal(10) ** 9,
    "T": Decimal(10) ** 12,
    "P": Decimal(10) ** 15,
    "E": Decimal(10) ** 18,
    "Ki": Decimal(2) ** 10,
    "Mi": Decimal(2) ** 20,
    "Gi": Decimal(2) ** 30,
    "Ti": Decimal(2) ** 40,
    "Pi": Decimal(2) ** 50,
    "Ei": Decimal(2) ** 60,
}

_QUANTITY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)([a-zA-Z]*)$")


def parse(value, field: str) -> Decimal:
    if isinstance(value, bool):
        raise InvalidInput(field, f"not a quantity: {value!r}")
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    if not isinstance(value, str):
        raise InvalidInput(field, f"not a quantity: {value!r}")
    match = _QUANTITY.match(value.strip())
    if not match or match.group(2) not in _SUFFIXES:
        raise InvalidInput(field, f"not a quantity: {value!r}")
    try:
        return Decimal(match.group(1)) * _SUFFIXES[match.group(2)]
    except InvalidOperation as exc:  # pragma: no cover - the regex admits only numbers
        raise InvalidInput(field, f"not a quantity: {value!r}") from exc


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
