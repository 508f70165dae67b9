"""Samples of wall-clock time and the interleaved measurement of two sides.

The machine may be shared: the reference and upstream are measured in turns
on the same input (reference, upstream, reference, ...), so a burst of other
load hits both sides alike and their ratio stays fair."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass
class Sample:
    seconds: list[float]

    @property
    def median_s(self) -> float:
        return statistics.median(self.seconds)

    @property
    def best_s(self) -> float:
        return min(self.seconds)

    def to_dict(self) -> dict:
        return {"runs": len(self.seconds), "median_s": self.median_s, "best_s": self.best_s, "seconds": self.seconds}


def interleaved(reference: Callable[[], dict], upstream: Callable[[], tuple[float, dict]] | None,
                target_s: float, min_runs: int = 3, max_runs: int = 50) -> tuple[Sample, Sample | None, dict, dict | None]:
    """Run both sides in turns until the reference has `min_runs` runs and
    both together spent `target_s` (at most `max_runs`; a side slower than the
    target gets a single run). `upstream` times itself (inside Go) and returns
    its seconds and answer; the reference is timed here."""
    ref_s: list[float] = []
    up_s: list[float] = []
    ref_answer: dict = {}
    up_answer = None
    spent = 0.0
    while True:
        started = time.perf_counter()
        ref_answer = reference()
        ref_s.append(time.perf_counter() - started)
        spent += ref_s[-1]
        if upstream is not None and (not up_s or up_s[-1] < target_s):
            started = time.perf_counter()
            seconds, up_answer = upstream()
            spent += time.perf_counter() - started
            up_s.append(seconds)
        if len(ref_s) >= max_runs or (spent >= target_s and len(ref_s) >= min_runs):
            break
        if ref_s[-1] >= target_s and (upstream is None or up_s[-1] >= target_s):
            break
    return Sample(ref_s), (Sample(up_s) if upstream is not None else None), ref_answer, up_answer


@contextmanager
def sections(wrapped: dict[tuple[object, str], str]):
    """Time calls to module functions, without touching the code that calls
    them: each (module, attribute) is replaced, for the block, by a wrapper
    that adds its duration to the named section of the yielded dict."""
    times: dict[str, float] = {}
    saved = []
    for (module, attribute), name in wrapped.items():
        original = getattr(module, attribute)
        saved.append((module, attribute, original))

        def timed(*args, _original=original, _name=name, **kwargs):
            started = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                times[_name] = times.get(_name, 0.0) + time.perf_counter() - started

        setattr(module, attribute, timed)
    try:
        yield times
    finally:
        for module, attribute, original in saved:
            setattr(module, attribute, original)
