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
# (component, operation) -> function(input) -> the features the input needs,
# so a run against an implementation generates only what it declares.
NEEDS: dict = {}
# (component, operation) -> {feature: result path globs only an implementation of it reports}.
REPORTED_WITH: dict = {}

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
    NEEDS.update({(_module, op): fn for op, fn in getattr(module, "NEEDS", {}).items()})
    REPORTED_WITH.update({(_module, op): m for op, m in getattr(module, "REPORTED_WITH", {}).items()})


def ignored_for(component: str, operation: str, features: frozenset[str]) -> tuple[str, ...]:
    """Paths left out of the comparison: the free choices, plus what only a
    feature the implementation lacks would report."""
    extra = [path for feature, paths in REPORTED_WITH.get((component, operation), {}).items()
             if feature not in features for path in paths]
    return IGNORED.get((component, operation), ()) + tuple(extra)


def supported_by(component: str, operation: str, features: frozenset[str]):
    """A predicate over inputs: does the implementation declare what this one needs?"""
    needs = NEEDS.get((component, operation))
    if needs is None:
        return None
    return lambda data: needs(data) <= features


def operations(component: str) -> list[str]:
    return sorted({op for (c, op) in list(VALID) + list(INVALID) if c == component})
