"""An external implementation behind protocol v1, as a supervised subprocess.

The implementation runs in its own process group. A reader thread turns its
stdout into lines (bounded in length), another keeps only the tail of its stderr,
so neither a 50 MB line nor a stderr flood can exhaust the harness. Any broken
exchange kills the whole group and the next case starts a fresh process, replaying
`hello`, until the restart budget is spent.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any

from conformance import PROTOCOL_VERSION, bounds, schemas
from conformance.adapters.base import Hello, Response, StartupError, parse_hello


@dataclass(frozen=True)
class Limits:
    startup_timeout: float = 30.0
    case_timeout: float = 10.0
    stop_grace: float = 2.0
    restart_budget: int = 10
    max_line_bytes: int = 8 * 1024 * 1024
    stderr_lines: int = 20


_EOF = object()
_TOO_LONG = object()


class _Process:
    def __init__(self, command: list[str], limits: Limits):
        self.limits = limits
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.lines: queue.Queue = queue.Queue()
        self.stderr: collections.deque[str] = collections.deque(maxlen=limits.stderr_lines)
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        stream, limit = self.proc.stdout, self.limits.max_line_bytes
        try:
            while True:
                line = stream.readline(limit + 1)
                if not line:
                    self.lines.put(_EOF)
                    return
                if len(line) > limit:
                    self.lines.put(_TOO_LONG)
                    return
                self.lines.put(line)
        except (OSError, ValueError):
            self.lines.put(_EOF)

    def _read_stderr(self) -> None:
        try:
            for raw in iter(lambda: self.proc.stderr.readline(64 * 1024), b""):
                self.stderr.append(raw.decode("utf-8", "replace").rstrip("\n"))
        except (OSError, ValueError):
            pass

    def send(self, message: dict[str, Any]) -> bool:
        try:
            self.proc.stdin.write((json.dumps(message, separators=(",", ":")) + "\n").encode())
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def receive(self, timeout: float) -> Any:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return None

    def exit_description(self, wait: float = 0.5) -> str:
        try:
            code = self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return "the process is still running but closed its output"
        if code < 0:
            try:
                return f"killed by signal {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with code {code}"

    def tail(self) -> list[str]:
        # Give the stderr thread a moment to drain what the process wrote last.
        time.sleep(0.05)
        return list(self.stderr)

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout=self.limits.stop_grace)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass

    def stop(self) -> None:
        self.send({"cmd": "stop"})
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=self.limits.stop_grace)
        except subprocess.TimeoutExpired:
            pass
        self.kill()


class ExecAdapter:
    def __init__(self, command: str, limits: Limits):
        self.spec = f"exec:{command}"
        self.command = shlex.split(command)
        self.limits = limits
        self.restarts = 0
        self._process: _Process | None = None
        self._hello: Hello | None = None
        self._seq = 0
        self._exhausted = False

    @property
    def exhausted(self) -> bool:
        return self._exhausted

    # -- lifecycle --------------------------------------------------------
    def _spawn(self) -> Hello:
        try:
            process = _Process(self.command, self.limits)
        except OSError as exc:
            raise StartupError(f"cannot start {self.command[0]!r}: {exc}") from None
        if not process.send({"cmd": "hello", "protocol": PROTOCOL_VERSION}):
            tail = process.tail()
            process.kill()
            raise StartupError(f"the implementation closed its input before hello ({process.exit_description()})"
                               + _tail_text(tail))
        line = process.receive(self.limits.startup_timeout)
        if line is None:
            tail = process.tail()
            process.kill()
            raise StartupError(f"no answer to hello within {self.limits.startup_timeout:g}s" + _tail_text(tail))
        if line is _EOF or line is _TOO_LONG:
            description = process.exit_description()
            tail = process.tail()
            process.kill()
            what = "died before answering hello" if line is _EOF else "answered hello with an over-long line"
            raise StartupError(f"the implementation {what} ({description})" + _tail_text(tail))
        answer, problem = _parse_answer(line)
        if problem is not None:
            process.kill()
            raise StartupError(f"unusable hello answer: {problem}")
        try:
            hello = parse_hello(answer)
        except StartupError:
            process.kill()
            raise
        self._process = process
        return hello

    def start(self) -> Hello:
        self._hello = self._spawn()
        return self._hello

    def _restart(self) -> bool:
        """A fresh process for the next case; False when the budget is spent."""
        if self._process is not None:
            self._process.kill()
            self._process = None
        if self.restarts >= self.limits.restart_budget:
            self._exhausted = True
            return False
        self.restarts += 1
        try:
            hello = self._spawn()
        except StartupError:
            # A failed restart costs budget too; the next case tries again.
            return self._restart()
        if (hello.name, hello.version) != (self._hello.name, self._hello.version):
            self._process.kill()
            self._process = None
            self._exhausted = True
            return False
        return True

    def close(self) -> None:
        if self._process is not None:
            self._process.stop()
            self._process = None

    # -- one case ---------------------------------------------------------
    def run(self, case_id: str, case: dict[str, Any]) -> Response:
        if self._process is None and not self._restart():
            return Response("notrun", message="the restart budget is spent")
        process = self._process
        self._seq += 1
        seq = self._seq
        if not process.send({"cmd": "run", "seq": seq, "id": case_id, "case": case}):
            return self._broken("crash", f"the implementation stopped reading its input ({process.exit_description()})")
        deadline = time.monotonic() + self.limits.case_timeout
        while True:
            line = process.receive(max(0.0, deadline - time.monotonic()))
            if line is None:
                return self._broken("timeout", f"no answer within {self.limits.case_timeout:g}s; process group killed")
            if line is _EOF:
                return self._broken("crash", f"the implementation {process.exit_description()}")
            if line is _TOO_LONG:
                return self._broken("malformed", f"an answer line longer than {self.limits.max_line_bytes} bytes")
            if not line.strip():
                continue
            answer, problem = _parse_answer(line)
            if problem is not None:
                return self._broken("malformed", problem)
            break
        problems = schemas.errors("protocol/run.response.json", answer)
        if problems:
            path, _rule, text = problems[0]
            return self._broken("malformed", f"the answer breaks the protocol at {schemas.path_pointer(path) or '/'}: {text}")
        if answer["seq"] != seq:
            return self._broken("bad-seq", f"answer carries seq {answer['seq']!r}, the case was sent as seq {seq}")
        if "result" in answer:
            return Response("result", result=answer["result"])
        if "unsupported" in answer:
            return Response("unsupported", message=str(answer["unsupported"]))
        return Response("error", message=str(answer["error"].get("message")), stderr_tail=process.tail())

    def _broken(self, kind: str, message: str) -> Response:
        process = self._process
        tail = process.tail() if process else []
        if process is not None:
            process.kill()
        self._process = None
        return Response(kind, message=message, stderr_tail=tail)


def _parse_answer(line: bytes) -> tuple[Any, str | None]:
    """The answer on one line, or why it cannot be judged.

    Each value costs the harness memory and every later step (schema check,
    comparison, report) walks the result recursively, so an answer with too
    many values or too deep a nesting is refused before or right after parsing.
    """
    # An upper bound on the values before building any: every value but the
    # first follows a comma or an opening bracket or brace (or sits inside a string).
    if line.count(b",") + line.count(b"[") + line.count(b"{") >= bounds.MAX_ANSWER_NODES:
        return None, f"the answer has more than {bounds.MAX_ANSWER_NODES} values"
    try:
        answer = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None, f"not a JSON line: {_clip(line)}"
    except RecursionError:
        return None, f"the answer is nested more than {bounds.MAX_ANSWER_DEPTH} levels deep"
    except ValueError as exc:
        # Integers past Python's digit limit, for one.
        return None, f"an unreadable JSON line ({exc}): {_clip(line)}"
    problem = bounds.answer_problem(answer)
    if problem is not None:
        return None, problem.replace("the result", "the answer", 1)
    return answer, None


def _clip(raw: bytes, limit: int = 120) -> str:
    text = raw.decode("utf-8", "replace").rstrip("\n")
    return text if len(text) <= limit else text[:limit] + "..."


def _tail_text(tail: list[str]) -> str:
    return ("; stderr: " + " | ".join(tail[-5:])) if tail else ""
