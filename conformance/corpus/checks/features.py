"""Every feature a case claims is in the vocabulary, under the case's component."""

from __future__ import annotations

from typing import Any

from conformance import schemas, yamlload
from conformance.model import Problem
from conformance.suggest import did_you_mean

RULE_UNKNOWN = "unknown-feature"
RULE_COMPONENT = "feature-component"


def problems(rel: str, doc: Any, case_id: str, component: str, claims: list[tuple[str, list]],
             features: dict[str, dict[str, Any]], vocabulary: str) -> list[Problem]:
    """`claims` are (feature, where it is written); `vocabulary` names the
    component's vocabulary file."""
    found = []
    for name, where in claims:
        pointer = schemas.path_pointer(where)
        known = features.get(name)
        if known is None:
            found.append(Problem(rel, yamlload.line_of(doc, where), case_id, pointer, RULE_UNKNOWN,
                                 f"feature {name!r} is not in {vocabulary}" + did_you_mean(name, features)))
        elif known["component"] != component:
            found.append(Problem(rel, yamlload.line_of(doc, where), case_id, pointer, RULE_COMPONENT,
                                 f"feature {name!r} belongs to {known['component']}"))
    return found
