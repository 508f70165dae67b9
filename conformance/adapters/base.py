"""What every adapter offers the runner."""

from __future__ import annotations

from typing import Any, Protocol

from conformance.protocol import HelloAnswer, Response, StartupError
from conformance.protocol import decode_hello_answer as parse_hello

# The hello answer, under the name the runner and the reports have always used.
Hello = HelloAnswer


class Adapter(Protocol):
    spec: str

    def start(self) -> Hello: ...

    def run(self, case_id: str, case: dict[str, Any]) -> Response: ...

    def close(self) -> None: ...

    @property
    def exhausted(self) -> bool: ...


__all__ = ["Adapter", "Hello", "Response", "StartupError", "parse_hello"]
