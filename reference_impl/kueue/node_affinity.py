"""A pod set's node affinity: the required node selector terms that restrict
the candidate nodes and the weighted preferred terms that score them
(Kubernetes `component-helpers` `nodeaffinity.NodeSelector` and
`PreferredSchedulingTerms`, as upstream Kueue's `fillInCounts` applies them)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from reference_impl.errors import InvalidInput

_LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
# Go's strconv.ParseInt in base 10: an optional sign and ASCII digits, nothing
# else (Python's int() would also take spaces, underscores and other digits).
_GO_INT = re.compile(r"[+-]?[0-9]+")


def _go_int(text: str | None) -> int | None:
    if text is None or not _GO_INT.fullmatch(text):
        return None
    value = int(text)
    return value if -2**63 <= value < 2**63 else None


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: str
    values: tuple[str, ...]

    def matches(self, labels: dict[str, str]) -> bool:
        present = self.key in labels
        value = labels.get(self.key)
        if self.operator == "In":
            return present and value in self.values
        if self.operator == "NotIn":
            return not present or value not in self.values
        if self.operator == "Exists":
            return present
        if self.operator == "DoesNotExist":
            return not present
        have = _go_int(value) if present else None
        if have is None:
            return False
        want = _go_int(self.values[0])
        return have > want if self.operator == "Gt" else have < want


@dataclass(frozen=True)
class Term:
    """matchExpressions and matchFields, all of which must hold."""
    expressions: tuple[Requirement, ...]
    fields: tuple[Requirement, ...]

    def empty(self) -> bool:
        return not self.expressions and not self.fields

    def matches(self, name: str, labels: dict[str, str]) -> bool:
        # An empty term selects nothing (Kubernetes drops it).
        if self.empty():
            return False
        return (all(r.matches(labels) for r in self.expressions)
                and all(r.matches({"metadata.name": name}) for r in self.fields))


@dataclass(frozen=True)
class NodeAffinity:
    required: tuple[Term, ...] | None = None          # None: no required affinity
    preferred: tuple[tuple[int, Term], ...] = field(default_factory=tuple)

    def admits(self, name: str, labels: dict[str, str]) -> bool:
        if self.required is None:
            return True
        return any(term.matches(name, labels) for term in self.required)

    def score(self, name: str, labels: dict[str, str]) -> int:
        return sum(weight for weight, term in self.preferred if term.matches(name, labels))


NONE = NodeAffinity()


def _requirement(raw, field_: str, *, is_field: bool) -> Requirement:
    if not isinstance(raw, dict):
        raise InvalidInput(field_, "must be a mapping with key, operator and values")
    key, operator = raw.get("key"), raw.get("operator")
    values = raw.get("values") or []
    if not isinstance(key, str) or not key:
        raise InvalidInput(f"{field_}.key", "required")
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise InvalidInput(f"{field_}.values", "must be a list of strings")
    if is_field:
        if key != "metadata.name":
            raise InvalidInput(f"{field_}.key", "only metadata.name is supported in matchFields")
        if operator not in ("In", "NotIn") or len(values) != 1:
            raise InvalidInput(field_, "matchFields takes In or NotIn with exactly one value")
        return Requirement(key, operator, tuple(values))
    if operator not in _LABEL_OPERATORS:
        raise InvalidInput(f"{field_}.operator", f"must be one of {', '.join(_LABEL_OPERATORS)}")
    if operator in ("In", "NotIn") and not values:
        raise InvalidInput(f"{field_}.values", f"must be non-empty for {operator}")
    if operator in ("Exists", "DoesNotExist") and values:
        raise InvalidInput(f"{field_}.values", f"must be empty for {operator}")
    if operator in ("Gt", "Lt"):
        if len(values) != 1:
            raise InvalidInput(f"{field_}.values", f"must hold exactly one integer for {operator}")
        if _go_int(values[0]) is None:
            raise InvalidInput(f"{field_}.values", f"must hold an integer for {operator}")
    return Requirement(key, operator, tuple(values))


def _term(raw, field_: str) -> Term:
    if not isinstance(raw, dict):
        raise InvalidInput(field_, "must be a node selector term")
    exprs = raw.get("matchExpressions") or []
    fields = raw.get("matchFields") or []
    if not isinstance(exprs, list) or not isinstance(fields, list):
        raise InvalidInput(field_, "matchExpressions and matchFields must be lists")
    return Term(
        expressions=tuple(_requirement(r, f"{field_}.matchExpressions[{i}]", is_field=False)
                          for i, r in enumerate(exprs)),
        fields=tuple(_requirement(r, f"{field_}.matchFields[{i}]", is_field=True) for i, r in enumerate(fields)),
    )


def parse(raw, field_: str) -> NodeAffinity:
    """A core/v1 `Affinity`; only `nodeAffinity` is looked at."""
    if raw is None:
        return NONE
    if not isinstance(raw, dict):
        raise InvalidInput(field_, "must be an Affinity mapping")
    node = raw.get("nodeAffinity")
    if node is None:
        return NONE
    if not isinstance(node, dict):
        raise InvalidInput(f"{field_}.nodeAffinity", "must be a mapping")
    base = f"{field_}.nodeAffinity"
    required = None
    req = node.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is not None:
        terms = req.get("nodeSelectorTerms") if isinstance(req, dict) else None
        if not isinstance(terms, list):
            raise InvalidInput(f"{base}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms",
                               "required list of node selector terms")
        required = tuple(_term(t, f"{base}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{i}]")
                         for i, t in enumerate(terms))
    preferred = []
    pref = node.get("preferredDuringSchedulingIgnoredDuringExecution") or []
    if not isinstance(pref, list):
        raise InvalidInput(f"{base}.preferredDuringSchedulingIgnoredDuringExecution", "must be a list")
    for i, entry in enumerate(pref):
        f = f"{base}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
        if not isinstance(entry, dict):
            raise InvalidInput(f, "must be a mapping with weight and preference")
        weight = entry.get("weight")
        if isinstance(weight, bool) or not isinstance(weight, int) or not 0 <= weight <= 100:
            raise InvalidInput(f"{f}.weight", "must be an integer from 0 to 100")
        term = _term(entry.get("preference") or {}, f"{f}.preference")
        # Weight 0 and an empty preference add nothing (Kubernetes skips them).
        if weight and not term.empty():
            preferred.append((weight, term))
    return NodeAffinity(required=required, preferred=tuple(preferred))
