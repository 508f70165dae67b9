"""Kubernetes quantities as Kueue's TAS cache counts them: CPU in millicores,
every other resource in whole units, each through `resource.Quantity`'s
rounded-up view (`reference_impl.quantity`)."""

from __future__ import annotations

from reference_impl import quantity
from reference_impl.errors import InvalidInput


def to_units(resource: str, value, field: str) -> int:
    """The integer the TAS cache works with: millicores for cpu, units otherwise."""
    amount = quantity.parse_input(value, field)
    return quantity.milli_value(amount) if resource == "cpu" else quantity.value(amount)


def resource_list(mapping, field: str) -> dict[str, int]:
    if mapping is None:
        return {}
    if not isinstance(mapping, dict):
        raise InvalidInput(field, "must be a mapping of resource name to quantity")
    return {str(k): to_units(str(k), v, f"{field}.{k}") for k, v in mapping.items()}
