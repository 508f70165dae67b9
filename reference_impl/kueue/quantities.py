"""Kubernetes quantities as Kueue's TAS cache counts them: CPU in millicores,
every other resource in whole units, each through `resource.Quantity`'s
rounded-up view (`reference_impl.quantity`)."""

from __future__ import annotations

from reference_impl import quantity
from reference_impl.errors import InvalidInput

# Parsed quantities by (cpu or not, the value's type, the value): a cluster
# writes the same few quantities on thousands of nodes and pods, and exact
# parsing is the slow part of reading it. Only values that parse are kept
# (an error names its field, which differs from use to use).
_UNITS: dict[tuple[bool, type, object], int] = {}
_UNITS_LIMIT = 4096


def to_units(resource: str, value, field: str) -> int:
    """The integer the TAS cache works with: millicores for cpu, units otherwise."""
    cpu = resource == "cpu"
    key = (cpu, type(value), value)
    try:
        return _UNITS[key]
    except (KeyError, TypeError):  # TypeError: an unhashable value, which cannot parse anyway
        pass
    amount = quantity.parse_input(value, field)
    units = quantity.milli_value(amount) if cpu else quantity.value(amount)
    if len(_UNITS) < _UNITS_LIMIT:
        _UNITS[key] = units
    return units


def resource_list(mapping, field: str) -> dict[str, int]:
    if mapping is None:
        return {}
    if not isinstance(mapping, dict):
        raise InvalidInput(field, "must be a mapping of resource name to quantity")
    result = {}
    for k, v in mapping.items():
        name = str(k)
        try:
            # a remembered quantity needs no field name: none is built for it
            result[name] = _UNITS[(name == "cpu", type(v), v)]
        except (KeyError, TypeError):
            result[name] = to_units(name, v, f"{field}.{k}")
    return result
