"""What the protocol itself costs per case: the same small inputs answered
in-process (the reference) or timed inside Go (upstream), and as a `run`
round trip through each side's process (stdin/stdout JSON lines)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from reference_impl import dispatch

from .shim import ShimProcess, same_answer
from .timing import Sample


@dataclass
class ProtocolRow:
    case: str
    reference_in_process: Sample
    reference_round_trip: Sample
    upstream_handler: Sample | None
    upstream_round_trip: Sample | None


def measure(name: str, component: str, operation: str, input_: dict, reference_process: ShimProcess,
            shim: ShimProcess | None, runs: int, log: Callable[[str], None]) -> ProtocolRow:
    """The four timings in turns, `runs` times; every answer is checked."""
    ref_in, ref_trip, up_handler, up_trip = [], [], [], []
    for _ in range(runs):
        started = time.perf_counter()
        answer = dispatch.run(component, operation, input_)
        ref_in.append(time.perf_counter() - started)
        reply, seconds = reference_process.run(operation, input_)
        same_answer(f"{name} (the reference through the protocol)", answer, reply)
        ref_trip.append(seconds)
        if shim is not None:
            timed = shim.bench(operation, input_, 1)
            same_answer(name, answer, timed.answer)
            up_handler.append(timed.handler_ns[0] / 1e9)
            up_trip.append(shim.run(operation, input_)[1])
    row = ProtocolRow(name, Sample(ref_in), Sample(ref_trip), Sample(up_handler) if shim else None,
                      Sample(up_trip) if shim else None)
    log(f"protocol {name}: reference {row.reference_in_process.median_s * 1e3:.3f} ms in-process, "
        f"{row.reference_round_trip.median_s * 1e3:.3f} ms round trip"
        + (f"; upstream {row.upstream_handler.median_s * 1e3:.3f} ms in Go, "
           f"{row.upstream_round_trip.median_s * 1e3:.3f} ms round trip" if shim else ""))
    return row
