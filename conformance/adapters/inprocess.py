"""The reference implementation, called in-process through the same message
handler that serves it over the protocol."""

from __future__ import annotations

from typing import Any

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
        answer = server.handle({"cmd": "run", "seq": self._seq, "id": case_id, "case": case})
        return response_from_answer(answer)

    def close(self) -> None:
        pass

    @property
    def exhausted(self) -> bool:
        return False


def response_from_answer(answer: dict[str, Any]) -> Response:
    if "result" in answer:
        return Response("result", result=answer["result"])
    if "unsupported" in answer:
        return Response("unsupported", message=str(answer["unsupported"]))
    error = answer.get("error")
    message = error.get("message") if isinstance(error, dict) else str(error)
    return Response("error", message=message)
