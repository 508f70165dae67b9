"""Pictures of a case, as inline SVG: where a person would rather look than read.

`picture(component, operation, input, expected, actual)` returns one SVG (or None
when the operation has no picture, or the values are not what it draws). The
expected result is drawn beside the actual one when they differ; with only one
of them, that one alone. Pictures are a reading aid: a value of an unexpected
shape draws nothing rather than failing the report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance import quantity
from conformance.report.pictures import hints, kueue, numa
from conformance.report.svg import Panel, side_by_side, stacked

Drawer = Callable[[dict[str, Any], Any], Panel | None]

# operation -> (draws the node or topology with one result, draws what every result shares)
_PANELS: dict[tuple[str, str], Drawer] = {
    ("kubelet", "admit"): numa.kubelet_admit,
    ("koordinator", "filter"): numa.koordinator_filter,
    ("koordinator", "cpuset"): numa.koordinator_cpuset,
    ("kueue", "capacity"): kueue.capacity,
    ("kueue", "assign"): kueue.assign,
    ("kueue", "hot_swap"): kueue.hot_swap,
}
# Merges draw the providers' hints once and each merged result under them.
_MERGES: dict[tuple[str, str], tuple[Callable[[dict[str, Any]], Panel], Callable[[dict[str, Any], Any], Panel]]] = {
    ("kubelet", "merge"): (hints.kubelet_providers, hints.merged),
    ("koordinator", "merge"): (hints.koordinator_providers, hints.merged),
}

OPERATIONS = frozenset(_PANELS) | frozenset(_MERGES)


def has_picture(component: str, operation: str) -> bool:
    return (component, operation) in OPERATIONS


def plain(value: Any) -> Any:
    """An expected value with its matchers resolved to something drawable: a
    quantity to its number, `$unordered` / `$exact` to their argument, `$contains`
    to its fragment, `$any` to None, `$anyOf` to its first alternative; `$absent`
    keys dropped."""
    if isinstance(value, list):
        return [plain(v) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        (key, argument), = value.items()
        if key == "$quantity":
            try:
                return quantity.parse(argument)
            except Exception:  # noqa: BLE001 - a bad quantity is shown as written
                return argument
        if key in ("$unordered", "$exact", "$contains"):
            return plain(argument)
        if key == "$any":
            return None
        if key == "$anyOf" and isinstance(argument, list) and argument:
            return plain(argument[0])
    return {k: plain(v) for k, v in value.items()
            if not (isinstance(v, dict) and len(v) == 1 and "$absent" in v)}


def picture(component: str, operation: str, given: Any, expected: Any = None, actual: Any = None,
            label: str = "") -> str | None:
    if not isinstance(given, dict):
        return None
    expected = plain(expected) if isinstance(expected, dict) else None
    actual = actual if isinstance(actual, dict) else None
    results = [r for r in ((("expected", expected), ("actual", actual))) if r[1] is not None]
    if expected is not None and actual is not None and expected == actual:
        results = [("expected and actual", expected)]
    if not results:
        results = [("input", None)]
    key = (component, operation)
    try:
        if key in _MERGES:
            providers, merged = _MERGES[key]
            shared = providers(given)
            whole = stacked([shared, side_by_side([(h, merged(given, r)) for h, r in results])])
        elif key in _PANELS:
            drawn = [(h, _PANELS[key](given, r)) for h, r in results]
            if any(p is None for _, p in drawn):
                return None
            whole = side_by_side(drawn)
        else:
            return None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError):
        return None
    return whole.render(label or f"{component} {operation}")
