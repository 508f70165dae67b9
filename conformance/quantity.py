"""Kubernetes resource quantities ("16Gi", "500m", "1e3") as exact numbers, for
the `$quantity` matcher and the corpus check of its argument.

The grammar lives in `reference_impl.quantity`, the distribution's one parser;
its docstring says why the harness may share it. `parse` raises a `ValueError`
(`QuantityError`) for anything that is not a quantity.
"""

from __future__ import annotations

from reference_impl.quantity import QuantityError, is_quantity, parse

__all__ = ["QuantityError", "is_quantity", "parse"]
