"""The harness's data types: cases, problems, outcomes and records."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from conformance.outcome import (  # noqa: F401 - the groups are read from here too
    ALL_OUTCOMES,
    BENIGN,
    DETAILED,
    EXPECTABLE,
    NOT_APPLICABLE,
    PASSED,
    RUN_OUTCOMES,
    Outcome,
    is_applicable,
    is_unexpected,
)

# The members under the short names the harness has always used.
PASS, FAIL, ERROR, CRASH, TIMEOUT, MALFORMED, BAD_SEQ, INVALID_RESULT, UNSUPPORTED, SKIP, NOTRUN, XFAIL, XPASS = Outcome

# The largest answer or input kept in a record, as JSON text.
DETAIL_LIMIT = 64 * 1024


@dataclass(frozen=True)
class Problem:
    """Something wrong with a fixture file, a block, or an expectations file."""

    file: str
    line: int | None
    case_id: str | None
    pointer: str
    rule: str
    message: str
    # For a problem shared by rows of a matrix case: case_id is the base id and
    # these are the rows' labels (see conformance/corpus/problem_report.py).
    rows: tuple[str, ...] = ()
    all_rows: bool = False

    def render(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        case = f" case {self.case_id}:" if self.case_id else ""
        if self.rows:
            which = f"all {len(self.rows)} matrix rows" if self.all_rows else \
                ("matrix row " if len(self.rows) == 1 else "matrix rows ") + " ".join(self.rows)
            case = f" case {self.case_id} ({which}):"
        pointer = self.pointer or "/"
        return f"{where}:{case} {pointer}: [{self.rule}] {self.message}"


@dataclass(frozen=True)
class Case:
    id: str
    component: str
    operation: str
    title: str
    features: tuple[str, ...]
    source: str
    input: dict[str, Any]
    expect: dict[str, Any]
    file: str
    line: int
    base_id: str
    params: dict[str, Any] = field(default_factory=dict)
    notes: str | None = None
    tags: tuple[str, ...] = ()

    def wire(self) -> dict[str, Any]:
        """What travels to an implementation: never the expectation."""
        return {"component": self.component, "operation": self.operation, "input": self.input}


@dataclass
class Record:
    """One case's result in a run."""

    id: str
    component: str
    operation: str
    features: tuple[str, ...]
    file: str
    outcome: str
    expected_outcome: str = PASS
    duration_ms: float = 0.0
    message: str | None = None
    diff: list[str] | None = None
    stderr_tail: list[str] | None = None
    expectation_reason: str | None = None
    line: int | None = None
    title: str | None = None
    source: str | None = None
    notes: str | None = None
    # The case's input, the implementation's answer and the expected result,
    # kept only for outcomes in DETAILED, each bounded by DETAIL_LIMIT (see `bounded`).
    input: Any = None
    actual: Any = None
    expected: Any = None
    truncated: tuple[str, ...] = ()

    def unexpected(self, strict: bool) -> bool:
        return is_unexpected(self.outcome, strict)

    def to_json(self) -> dict[str, Any]:
        data = {
            "id": self.id,
            "component": self.component,
            "operation": self.operation,
            "features": list(self.features),
            "file": self.file,
            "outcome": str(self.outcome),
            "expected_outcome": str(self.expected_outcome),
            "duration_ms": round(self.duration_ms, 3),
        }
        for key in ("line", "title", "source", "message", "diff", "stderr_tail", "expectation_reason", "notes"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        if self.outcome in DETAILED:
            for key in ("input", "actual", "expected"):
                value = getattr(self, key)
                if value is not None:
                    data[key] = value
            if self.truncated:
                data["truncated"] = list(self.truncated)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Record:
        return cls(
            id=data["id"],
            component=data["component"],
            operation=data["operation"],
            features=tuple(data["features"]),
            file=data["file"],
            outcome=data["outcome"],
            expected_outcome=data.get("expected_outcome", PASS),
            duration_ms=data.get("duration_ms", 0.0),
            message=data.get("message"),
            diff=data.get("diff"),
            stderr_tail=data.get("stderr_tail"),
            expectation_reason=data.get("expectation_reason"),
            line=data.get("line"),
            title=data.get("title"),
            source=data.get("source"),
            notes=data.get("notes"),
            input=data.get("input"),
            actual=data.get("actual"),
            expected=data.get("expected"),
            truncated=tuple(data.get("truncated", ())),
        )


def bounded(value: Any, limit: int = DETAIL_LIMIT) -> tuple[Any, bool]:
    """The value itself when its JSON text fits the limit, else the start of that
    text (a string) and True: a huge answer must not make a huge report."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    if len(text) <= limit:
        # A plain copy: the loader's located mappings are dict subclasses that
        # a YAML rendering of the report would refuse.
        return json.loads(text), False
    return text[:limit], True
