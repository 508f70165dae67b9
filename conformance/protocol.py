"""Adapter protocol v1 (docs/protocol.md) as types.

The requests the harness sends are built here (`Hello`, `Run`, `Stop`, each
with `to_wire` and `from_wire`), and every answer to a run is read by one
decoder, `decode_run_answer`, whichever adapter received it. An answer is one
of: a result, unsupported, an error, a non-deterministic error (an error
carrying the structured `nondeterministic` field), or a transport fault the
adapter observed (crash, timeout, malformed, bad-seq, notrun).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from conformance import PROTOCOL_VERSION, schemas
from conformance.outcome import Outcome


class StartupError(RuntimeError):
    """The implementation did not start or did not answer `hello` properly."""


# -- requests ----------------------------------------------------------------

@dataclass(frozen=True)
class Hello:
    protocol: int = PROTOCOL_VERSION

    def to_wire(self) -> dict[str, Any]:
        return {"cmd": "hello", "protocol": self.protocol}

    @classmethod
    def from_wire(cls, message: dict[str, Any]) -> Hello:
        return cls(protocol=message["protocol"])


@dataclass(frozen=True)
class Run:
    seq: int
    id: str
    component: str
    operation: str
    input: dict[str, Any]

    @classmethod
    def of(cls, seq: int, case_id: str, case: dict[str, Any]) -> Run:
        """From a case as `Case.wire()` gives it: never with the expectation."""
        return cls(seq, case_id, case["component"], case["operation"], case["input"])

    def to_wire(self) -> dict[str, Any]:
        return {"cmd": "run", "seq": self.seq, "id": self.id,
                "case": {"component": self.component, "operation": self.operation, "input": self.input}}

    @classmethod
    def from_wire(cls, message: dict[str, Any]) -> Run:
        case = message["case"]
        return cls(message["seq"], message["id"], case["component"], case["operation"], case["input"])


@dataclass(frozen=True)
class Stop:
    def to_wire(self) -> dict[str, Any]:
        return {"cmd": "stop"}

    @classmethod
    def from_wire(cls, message: dict[str, Any]) -> Stop:
        return cls()


# -- the hello answer ----------------------------------------------------------

@dataclass(frozen=True)
class HelloAnswer:
    raw: dict[str, Any]

    @property
    def name(self) -> str:
        return self.raw["implementation"]["name"]

    @property
    def version(self) -> str:
        return self.raw["implementation"]["version"]

    @property
    def components(self) -> frozenset[str]:
        return frozenset(self.raw["capabilities"]["components"])

    @property
    def features(self) -> frozenset[str]:
        return frozenset(self.raw["capabilities"]["features"])


def decode_hello_answer(message: Any) -> HelloAnswer:
    problems = schemas.errors("protocol/hello.response.json", message)
    if problems:
        path, _rule, text = problems[0]
        raise StartupError(f"hello answer breaks the protocol at {schemas.path_pointer(path) or '/'}: {text}")
    if message["protocol"] != PROTOCOL_VERSION:
        raise StartupError(f"implementation speaks protocol {message['protocol']}, the harness speaks {PROTOCOL_VERSION}")
    return HelloAnswer(message)


# -- the answer to a run ---------------------------------------------------------

class Kind(StrEnum):
    """What one run request got back. Every kind but `result` is also the case's outcome."""

    RESULT = "result"
    UNSUPPORTED = "unsupported"
    ERROR = "error"
    CRASH = "crash"
    TIMEOUT = "timeout"
    MALFORMED = "malformed"
    BAD_SEQ = "bad-seq"
    NOTRUN = "notrun"

    @property
    def outcome(self) -> Outcome | None:
        return None if self is Kind.RESULT else Outcome(self.value)

    @property
    def is_fault(self) -> bool:
        return self.value in TRANSPORT_FAULTS


# Kinds the adapter observes in the exchange rather than reads from an answer.
TRANSPORT_FAULTS = frozenset({Kind.CRASH, Kind.TIMEOUT, Kind.MALFORMED, Kind.BAD_SEQ, Kind.NOTRUN})


@dataclass(frozen=True)
class Nondeterminism:
    """An implementation ran the same input several times and its answers
    differed: how many runs, how many distinct results, and those results."""

    runs: int
    distinct: int
    results: tuple[Any, ...] = ()

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Nondeterminism:
        return cls(data["runs"], data["distinct"], tuple(data.get("results") or ()))

    def to_wire(self) -> dict[str, Any]:
        return {"runs": self.runs, "distinct": self.distinct, "results": list(self.results)}


@dataclass
class Response:
    """One run's answer. `message` is the unsupported reason, the error's
    message or what broke; `detail` and `nondeterministic` come with an error."""

    kind: Kind
    result: Any = None
    message: str | None = None
    stderr_tail: list[str] | None = field(default=None)
    detail: Any = None
    nondeterministic: Nondeterminism | None = None

    def __post_init__(self) -> None:
        self.kind = Kind(self.kind)

    @classmethod
    def fault(cls, kind: Kind, message: str, stderr_tail: list[str] | None = None) -> Response:
        return cls(kind, message=message, stderr_tail=stderr_tail)

    def error_body(self) -> dict[str, Any] | None:
        """The error as the implementation sent it, for the record of the case."""
        if self.kind is not Kind.ERROR:
            return None
        body: dict[str, Any] = {"message": self.message}
        if self.detail is not None:
            body["detail"] = self.detail
        if self.nondeterministic is not None:
            body["nondeterministic"] = self.nondeterministic.to_wire()
        return body


def decode_run_answer(answer: Any, seq: int, stderr_tail: Callable[[], list[str]] | None = None) -> Response:
    """The one reading of a run answer, in-process or from a subprocess.
    `stderr_tail` gives the implementation's last log lines, kept with an error
    answer; it is called only then, as reading them waits for the log to drain."""
    problems = schemas.errors("protocol/run.response.json", answer)
    if problems:
        path, _rule, text = problems[0]
        return Response.fault(Kind.MALFORMED, f"the answer breaks the protocol at {schemas.path_pointer(path) or '/'}: {text}")
    if answer["seq"] != seq:
        return Response.fault(Kind.BAD_SEQ, f"answer carries seq {answer['seq']!r}, the case was sent as seq {seq}")
    if "result" in answer:
        return Response(Kind.RESULT, result=answer["result"])
    if "unsupported" in answer:
        return Response(Kind.UNSUPPORTED, message=answer["unsupported"])
    error = answer["error"]
    nondeterministic = error.get("nondeterministic")
    return Response(Kind.ERROR, message=error["message"], stderr_tail=stderr_tail() if stderr_tail else None, detail=error.get("detail"),
                    nondeterministic=Nondeterminism.from_wire(nondeterministic) if nondeterministic else None)
