"""The harness's data types: cases, problems, outcomes and records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Outcomes a case can have after a run. The first group comes from running it;
# xfail / xpass are derived from the expectations file.
PASS = "pass"
FAIL = "fail"
ERROR = "error"
CRASH = "crash"
TIMEOUT = "timeout"
MALFORMED = "malformed"
BAD_SEQ = "bad-seq"
INVALID_RESULT = "invalid-result"
UNSUPPORTED = "unsupported"
SKIP = "skip"
NOTRUN = "notrun"
XFAIL = "xfail"
XPASS = "xpass"

RUN_OUTCOMES = (PASS, FAIL, ERROR, CRASH, TIMEOUT, MALFORMED, BAD_SEQ, INVALID_RESULT, UNSUPPORTED, SKIP, NOTRUN)
ALL_OUTCOMES = RUN_OUTCOMES + (XFAIL, XPASS)
# Kinds an expectations entry may name.
EXPECTABLE = (FAIL, ERROR, CRASH, TIMEOUT, MALFORMED, BAD_SEQ, INVALID_RESULT, UNSUPPORTED)
# Outcomes that never make a run unexpected on their own.
BENIGN = (PASS, XFAIL, UNSUPPORTED, SKIP)


@dataclass(frozen=True)
class Problem:
    """Something wrong with a fixture file, a block, or an expectations file."""

    file: str
    line: int | None
    case_id: str | None
    pointer: str
    rule: str
    message: str

    def render(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        case = f" case {self.case_id}:" if self.case_id else ""
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

    @property
    def unexpected(self) -> bool:
        return self.outcome not in BENIGN

    def to_json(self) -> dict[str, Any]:
        data = {
            "id": self.id,
            "component": self.component,
            "operation": self.operation,
            "features": list(self.features),
            "file": self.file,
            "outcome": self.outcome,
            "expected_outcome": self.expected_outcome,
            "duration_ms": round(self.duration_ms, 3),
        }
        for key in ("message", "diff", "stderr_tail", "expectation_reason"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
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
        )
