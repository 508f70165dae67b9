"""Outcome counts per component and per feature: the rows every rendering of a
results report shows, whatever its format."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from conformance.model import ERROR, FAIL, PASS, SKIP, UNSUPPORTED, XFAIL

COLUMNS = (PASS, FAIL, ERROR, UNSUPPORTED, XFAIL)
HEADERS = ["cases", "passed", "failed", "error", "unsupported", "xfail", "other", "passing"]
# Outcomes that need nobody's attention: the run met its expectations there.
SETTLED = (PASS, XFAIL, UNSUPPORTED, SKIP)


def percent(passed: int, total: int) -> str:
    return f"{100 * passed / total:.1f}%" if total else "-"


def row(label: str, outcomes: list[str]) -> list[Any]:
    counts = {c: outcomes.count(c) for c in COLUMNS}
    other = len(outcomes) - sum(counts.values())
    return [label, len(outcomes), *counts.values(), other, percent(counts[PASS], len(outcomes))]


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


def unexpected(records: list[dict]) -> list[dict]:
    return [r for r in records if r["outcome"] not in SETTLED]


def known_failures(records: list[dict]) -> list[dict]:
    return [r for r in records if r["outcome"] == XFAIL]
