"""Outcome counts per component and per feature: the rows every rendering of a
results report shows, whatever its format.

A pass rate is a fraction of the applicable cases: a case the implementation
does not declare the features for (unsupported) or that was skipped says
nothing about the implementation's correctness, so it is counted beside the
rate, never under it. A case that should have run and did not (notrun) is
applicable: nothing run is a failure, not a success.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from conformance.model import FAIL, PASSED, XFAIL, XPASS, is_applicable, is_unexpected

HEADERS = ["cases", "not applicable", "applicable", "passed", "failed", "errors", "xfail", "passing"]


@dataclass(frozen=True)
class Tally:
    cases: int
    not_applicable: int
    passed: int
    failed: int
    xfail: int
    xpass: int

    @property
    def applicable(self) -> int:
        return self.cases - self.not_applicable

    @property
    def errors(self) -> int:
        """Applicable cases that neither passed, failed their comparison nor
        failed as expected: errors, crashes, timeouts, bad answers, not run."""
        return self.applicable - self.passed - self.failed - self.xfail

    @property
    def rate(self) -> float | None:
        return self.passed / self.applicable if self.applicable else None

    def percent(self) -> str:
        return "n/a" if self.rate is None else f"{100 * self.rate:.1f}%"

    def passing(self) -> str:
        """`99.6% (570/572)`: a number says what it is a fraction of."""
        if self.rate is None:
            return "n/a"
        return f"{self.percent()} ({self.passed}/{self.applicable})"

    def sentence(self) -> str:
        """The one-line summary: '570 of 572 applicable cases pass (99.6%); 933 not applicable'."""
        if not self.applicable:
            text = "no applicable case"
        else:
            text = f"{self.passed} of {self.applicable} applicable cases pass ({self.percent()})"
        extra = [f"{self.not_applicable} not applicable"]
        if self.xfail:
            extra.append(f"{self.xfail} failing as expected")
        if self.xpass:
            extra.append(f"{self.xpass} passing against the expectations file (xpass)")
        if self.failed:
            extra.append(f"{self.failed} failed")
        if self.errors:
            extra.append(f"{self.errors} errors")
        return text + "; " + "; ".join(extra)


def tally(outcomes: list[str]) -> Tally:
    return Tally(
        cases=len(outcomes),
        not_applicable=sum(1 for o in outcomes if not is_applicable(o)),
        passed=sum(1 for o in outcomes if o in PASSED),
        failed=outcomes.count(FAIL),
        xfail=outcomes.count(XFAIL),
        xpass=outcomes.count(XPASS),
    )


def row(label: str, outcomes: list[str]) -> list[Any]:
    t = tally(outcomes)
    return [label, t.cases, t.not_applicable, t.applicable, t.passed, t.failed, t.errors, t.xfail, t.passing()]


def by_component(records: list[dict]) -> dict[str, list[dict]]:
    grouped: dict[str, list[dict]] = defaultdict(list)
    for record in records:
        grouped[record["component"]].append(record)
    return dict(sorted(grouped.items()))


def summary_rows(records: list[dict], total_label: str) -> list[list[Any]]:
    """One row per component, then one for the whole run."""
    rows = [row(component, [r["outcome"] for r in items]) for component, items in by_component(records).items()]
    rows.append(row(total_label, [r["outcome"] for r in records]))
    return rows


def by_feature(records: list[dict]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = defaultdict(list)
    for record in records:
        for feature in record["features"] or ["(invalid fixture)"]:
            grouped[feature].append(record["outcome"])
    return dict(sorted(grouped.items()))


def unexpected(records: list[dict], strict: bool) -> list[dict]:
    return [r for r in records if is_unexpected(r["outcome"], strict)]


def unexpected_passes(records: list[dict]) -> list[dict]:
    return [r for r in records if r["outcome"] == XPASS]


def known_failures(records: list[dict]) -> list[dict]:
    return [r for r in records if r["outcome"] == XFAIL]
