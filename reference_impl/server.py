"""The reference implementation behind adapter protocol v1 (docs/protocol.md).

`handle` answers one message; `serve` runs the JSON-lines loop on stdin/stdout.
The in-process adapter calls `handle` directly, so both ways in share this code.
"""

from __future__ import annotations

import json
import sys
import traceback
from typing import IO, Any

from reference_impl import __version__, collector, dispatch
from reference_impl.errors import InvalidInput

PROTOCOL = 1


def hello() -> dict[str, Any]:
    return {
        "protocol": PROTOCOL,
        "implementation": {
            "name": "reference",
            "version": __version__,
            "language": "python",
            "description": "the bundled reference implementation",
        },
        "capabilities": {"components": dispatch.available_components(), "features": dispatch.features()},
    }


def run(message: dict[str, Any]) -> dict[str, Any]:
    seq = message.get("seq")
    case = message.get("case") or {}
    try:
        fn = dispatch.operation(case.get("component"), case.get("operation"))
    except dispatch.UnknownOperation as exc:
        return {"seq": seq, "unsupported": str(exc)}
    try:
        return {"seq": seq, "result": fn(case.get("input") or {})}
    except InvalidInput as exc:
        return {"seq": seq, "error": {"message": f"invalid input: {exc}", "field": exc.field}}
    except Exception as exc:  # a bug in the reference is an error answer, not a dead server
        return {"seq": seq, "error": {"message": f"{type(exc).__name__}: {exc}", "detail": traceback.format_exc(limit=8)}}


def handle(message: dict[str, Any]) -> dict[str, Any] | None:
    command = message.get("cmd")
    if command == "hello":
        return hello()
    if command == "run":
        return run(message)
    if command == "stop":
        return None
    return {"seq": message.get("seq"), "error": {"message": f"unknown command {command!r}"}}


def serve(stdin: IO[str] = sys.stdin, stdout: IO[str] = sys.stdout) -> int:
    for line in stdin:
        if not line.strip():
            continue
        # without the pause, decoding a large case and answering it is mostly
        # the cyclic collector's time (collector.py)
        with collector.paused():
            reply = _reply(line)
        if reply is None:
            return 0
        stdout.write(reply + "\n")
        stdout.flush()
    return 0


def _reply(line: str) -> str | None:
    """The answer line to one message line; None for `stop`."""
    try:
        message = json.loads(line)
    except json.JSONDecodeError as exc:
        return json.dumps({"error": {"message": f"not JSON: {exc}"}})
    if message.get("cmd") == "stop":
        return None
    return json.dumps(handle(message), separators=(",", ":"))
