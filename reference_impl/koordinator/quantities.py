"""Koordinator's view of quantities: parsed by the shared grammar
(`reference_impl.quantity`), with the integer views the plugins take."""

from __future__ import annotations

import math

from ..quantity import QuantityError, parse

__all__ = ["QuantityError", "milli", "parse", "whole"]


def milli(value) -> int:
    """Millivalue, rounded up as Kubernetes does."""
    return math.ceil(parse(value) * 1000)


def whole(value) -> int:
    """Value, rounded up as Kubernetes does."""
    return math.ceil(parse(value))
