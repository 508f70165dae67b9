"""One shim process driven directly over protocol v1 for timing: the `bench`
operation (timed inside Go, see shims/protocol/bench.go) and plain `run`
round trips (timed here, so they include the pipe and JSON both ways)."""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path


class Disagreement(AssertionError):
    """The reference and upstream answered one benchmark input differently."""


@dataclass
class BenchTimes:
    handler_ns: list[int]
    section_ns: dict[str, list[int]]
    section_calls: dict[str, int]
    answer: dict

    def section_s(self, *names: str) -> list[float]:
        """Each run's time inside the named sections together, in seconds."""
        runs = len(self.handler_ns)
        return [sum(self.section_ns.get(n, [0] * runs)[i] for n in names) / 1e9 for i in range(runs)]


@dataclass
class ShimProcess:
    command: list[str]
    component: str
    process: subprocess.Popen | None = None
    hello: dict = field(default_factory=dict)
    seq: int = 0

    def __enter__(self) -> ShimProcess:
        if not Path(self.command[0]).exists():
            raise FileNotFoundError(f"{self.command[0]} is not built (bash shims/<name>/build.sh)")
        self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.hello = self._send({"cmd": "hello", "protocol": 1})
        return self

    def __exit__(self, *exc) -> None:
        if self.process is not None:
            try:
                self.process.stdin.write(json.dumps({"cmd": "stop"}) + "\n")
                self.process.stdin.flush()
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()

    @property
    def version(self) -> str:
        return str(self.hello.get("implementation", {}).get("version", "?"))

    def _send(self, message: dict) -> dict:
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.command[0]} closed its output (crashed?)")
        return json.loads(line)

    def run(self, operation: str, input_: dict) -> tuple[dict, float]:
        """One case through the protocol: the answer and the round trip in seconds."""
        self.seq += 1
        message = {"cmd": "run", "seq": self.seq, "id": f"bench-{self.seq}",
                   "case": {"component": self.component, "operation": operation, "input": input_}}
        started = time.perf_counter()
        answer = self._send(message)
        return answer, time.perf_counter() - started

    def bench(self, operation: str, input_: dict, repeat: int = 1) -> BenchTimes:
        answer, _ = self.run("bench", {"operation": operation, "input": input_, "repeat": repeat})
        if "result" not in answer:
            raise RuntimeError(f"bench {operation} was not answered with a result: {answer}")
        r = answer["result"]
        return BenchTimes(r["handlerNs"], r["sectionNs"], r["sectionCalls"], r["answer"])


def same_answer(name: str, reference: dict, upstream_answer: dict, among_distinct: bool = False) -> bool:
    """Fail loudly unless upstream's answer is a result equal to the reference's.

    With `among_distinct`, an upstream that reported itself not deterministic
    (an error carrying its distinct results, see docs/protocol.md) agrees when
    the reference's result is one of them; True is returned then."""
    if upstream_answer.get("result") == reference:
        return False
    distinct = ((upstream_answer.get("error") or {}).get("nondeterministic") or {}).get("results")
    if among_distinct and distinct and reference in distinct:
        return True
    raise Disagreement(f"{name}: the reference and upstream disagree\n"
                       f"  reference: {json.dumps(reference, sort_keys=True)[:2000]}\n"
                       f"  upstream:  {json.dumps(upstream_answer, sort_keys=True)[:2000]}")
