"""Every `$` matcher of an expectation is one compare knows (conformance/compare.py,
MATCHERS), alone in its mapping, with an argument it can use; otherwise every
implementation would fail the case, or the comparison would fail on it."""

from __future__ import annotations

from typing import Any

from conformance import schemas, yamlload
from conformance.compare import MATCHERS
from conformance.model import Problem
from conformance.suggest import did_you_mean

RULE = "matcher"


def problems(rel: str, doc: Any, prefix: list, case_id: str, value: Any, path: list) -> list[Problem]:
    """`path` is where `value` sits below the case (`["expect"]` for the whole expectation)."""
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in problems(rel, doc, prefix, case_id, item, path + [i])]
    if not isinstance(value, dict):
        return []
    message = _message(value)
    if message:
        where = prefix + path
        return [Problem(rel, yamlload.line_of(doc, where), case_id, schemas.path_pointer(where), RULE, message)]
    return [p for key, item in value.items() for p in problems(rel, doc, prefix, case_id, item, path + [key])]


def _message(value: dict) -> str | None:
    dollar = [k for k in value if isinstance(k, str) and k.startswith("$")]
    if dollar and len(value) > 1:
        return f"a matcher is a mapping with a single $ key, not beside other keys: {sorted(map(str, value))}"
    if not dollar:
        return None
    (name,) = dollar
    argument = value[name]
    if name not in MATCHERS:
        return f"unknown matcher {name!r}{did_you_mean(name, MATCHERS)} (known: {', '.join(MATCHERS)})"
    if not MATCHERS[name].accepts(argument):
        return f"{name} takes {MATCHERS[name].takes}, not {argument!r}"
    return None
