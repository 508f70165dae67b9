"""The reference implementation, called in-process through the same message
handler that serves it over the protocol."""

from __future__ import annotations

from typing import Any

from conformance import protocol
from conformance.adapters.base import Hello, Response, parse_hello
from reference_impl import server


class InProcessAdapter:
    spec = "reference"

    def __init__(self) -> None:
        self._seq = 0

    def start(self) -> Hello:
        return parse_hello(server.hello())

    def run(self, case_id: str, case: dict[str, Any]) -> Response:
        self._seq += 1
        answer = server.handle(protocol.Run.of(self._seq, case_id, case).to_wire())
        return protocol.decode_run_answer(answer, self._seq)

    def close(self) -> None:
        pass

    @property
    def exhausted(self) -> bool:
        return False
