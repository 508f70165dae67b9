"""What every adapter offers the runner."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from conformance import PROTOCOL_VERSION, schemas


class StartupError(RuntimeError):
    """The implementation did not start or did not answer `hello` properly."""


@dataclass(frozen=True)
class Hello:
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


def parse_hello(message: Any) -> Hello:
    problems = schemas.errors("protocol/hello.response.json", message)
    if problems:
        path, rule, text = problems[0]
        raise StartupError(f"hello answer breaks the protocol at {schemas.path_pointer(path) or '/'}: {text}")
    if message["protocol"] != PROTOCOL_VERSION:
        raise StartupError(f"implementation speaks protocol {message['protocol']}, the harness speaks {PROTOCOL_VERSION}")
    return Hello(message)


@dataclass
class Response:
    """What came back for one case. `kind` is `result`, `unsupported`, `error`,
    or a transport failure: `crash`, `timeout`, `malformed`, `bad-seq`, `notrun`."""

    kind: str
    result: Any = None
    message: str | None = None
    stderr_tail: list[str] | None = field(default=None)


class Adapter(Protocol):
    spec: str

    def start(self) -> Hello: ...

    def run(self, case_id: str, case: dict[str, Any]) -> Response: ...

    def close(self) -> None: ...

    @property
    def exhausted(self) -> bool: ...
