"""Hypothesis strategies per component and operation.

`VALID[(component, operation)]` generates inputs the operation's contract
accepts; `INVALID[(component, operation)]` generates inputs an implementation
must refuse (a refusal result or an `error` answer), never crash on.
`IGNORED[(component, operation)]` lists result paths an implementation may
choose freely (for example which concrete CPU ids it takes), left out of the
comparison.
"""

from __future__ import annotations

import importlib

VALID: dict = {}
INVALID: dict = {}
IGNORED: dict = {}

for _module in ("kubelet", "koordinator", "kueue"):
    try:
        module = importlib.import_module(f"conformance.fuzz.strategies.{_module}")
    except ModuleNotFoundError as exc:
        if exc.name != f"conformance.fuzz.strategies.{_module}":
            raise
        continue
    VALID.update({(_module, op): s for op, s in module.VALID.items()})
    INVALID.update({(_module, op): s for op, s in module.INVALID.items()})
    IGNORED.update({(_module, op): tuple(p) for op, p in getattr(module, "IGNORED", {}).items()})


def operations(component: str) -> list[str]:
    return sorted({op for (c, op) in list(VALID) + list(INVALID) if c == component})
