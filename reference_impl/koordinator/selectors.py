"""Kubernetes label selectors (matchLabels, matchExpressions) over device labels."""

from __future__ import annotations

from collections.abc import Mapping

OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


class SelectorError(ValueError):
    pass


def validate(selector) -> None:
    if not isinstance(selector, Mapping):
        raise SelectorError("a label selector must be an object")
    # Other fields are ignored, as the annotation's JSON decoding ignores unknown
    # fields everywhere (docs/operations/koordinator.md).
    labels = selector.get("matchLabels")
    if labels is not None and (not isinstance(labels, Mapping) or not all(isinstance(v, str) for v in labels.values())):
        raise SelectorError("matchLabels must map strings to strings")
    exprs = selector.get("matchExpressions")
    if exprs is None:
        return
    if not isinstance(exprs, list):
        raise SelectorError("matchExpressions must be a list")
    for e in exprs:
        if not isinstance(e, Mapping) or not isinstance(e.get("key"), str):
            raise SelectorError("each matchExpression needs a string key")
        op = e.get("operator")
        if op not in OPERATORS:
            raise SelectorError(f"unknown selector operator {op!r}")
        values = e.get("values") or []
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise SelectorError("matchExpression values must be a list of strings")
        if op in ("In", "NotIn") and not values:
            raise SelectorError(f"operator {op} needs values")
        if op in ("Exists", "DoesNotExist") and values:
            raise SelectorError(f"operator {op} takes no values")


def matches(selector: Mapping | None, labels: Mapping[str, str]) -> bool:
    if selector is None:
        return True
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in selector.get("matchExpressions") or []:
        key, op, values = e["key"], e["operator"], e.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True
