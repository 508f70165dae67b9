"""What a reader needs to act on one case's outcome, gathered once for every
view (console, compliance.md, compliance.html, pytest): the case's title,
source and place, the message and diff, the implementation's whole answer, a
crash's stderr, and the command that reruns it."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

import yaml

RERUN_BASE = "reports/rerun"


@dataclass(frozen=True)
class Detail:
    id: str
    outcome: str
    title: str | None
    source: str | None
    where: str
    message: str | None
    expectation: str | None
    notes: str | None
    diff: list[str]
    input: str | None
    actual: str | None
    expected: str | None
    stderr: list[str]
    rerun: str


def as_text(value: Any, cut: bool) -> str:
    """An input or answer as YAML (easier to read than JSON for nested
    placements); a value cut to the report's limit is shown as the JSON text it
    was cut from."""
    if cut:
        return f"{value}\n... (cut: the whole value is larger than the report keeps)"
    return yaml.safe_dump(value, sort_keys=False, default_flow_style=None, width=110, allow_unicode=True).rstrip()


def rerun_command(header: dict[str, Any], case_id: str) -> str:
    """A command that reruns one case the way the run was made: the same
    implementation, corpus and expectations, and a report folder of its own,
    so the run's full report is never overwritten by a one-case report."""
    implementation = header["implementation"]["implementation"]
    words = ["topoconf", "run", "--impl", header["impl_spec"], "--id", case_id, *invocation_words(header)]
    words += ["--report-dir", f"{RERUN_BASE}/{implementation['name']}-{implementation['version']}"]
    return shlex.join(words)


def invocation_words(header: dict[str, Any]) -> list[str]:
    """The options that reproduce how a run reached its corpus and expectations,
    and whether it was strict, as its header records them."""
    invocation = header.get("invocation") or {}
    words: list[str] = []
    if invocation.get("corpus"):
        words += ["--corpus", invocation["corpus"]]
    for extra in invocation.get("extra_corpus") or ():
        words += ["--extra-corpus", extra]
    if invocation.get("no_expectations"):
        words.append("--no-expectations")
    elif invocation.get("expectations"):
        words += ["--expectations", invocation["expectations"]]
    if header.get("strict"):
        words.append("--strict")
    return words


def of(record: dict[str, Any], header: dict[str, Any]) -> Detail:
    truncated = set(record.get("truncated") or ())
    line = record.get("line")
    expectation = None
    if record.get("expectation_reason"):
        expectation = f"expectations file: {record['expected_outcome']}: {record['expectation_reason']}"
    return Detail(
        id=record["id"],
        outcome=record["outcome"],
        title=record.get("title"),
        source=record.get("source"),
        where=f"{record['file']}:{line}" if line else record["file"],
        message=record.get("message"),
        expectation=expectation,
        notes=(record.get("notes") or "").strip() or None,
        diff=list(record.get("diff") or ()),
        input=as_text(record["input"], "input" in truncated) if "input" in record else None,
        actual=as_text(record["actual"], "actual" in truncated) if "actual" in record else None,
        expected=as_text(record["expected"], "expected" in truncated) if "expected" in record else None,
        stderr=list(record.get("stderr_tail") or ()),
        rerun=rerun_command(header, record["id"]),
    )


def plain(detail: Detail, answer_lines: int | None = 40) -> list[str]:
    """The detail as indented plain text, for a terminal."""
    lines = [f"{detail.outcome}: {detail.id}"]
    if detail.title:
        lines.append(f"  title:  {detail.title}")
    if detail.source:
        lines.append(f"  source: {detail.source}")
    lines.append(f"  file:   {detail.where}")
    if detail.message:
        lines.append(f"  {detail.message}")
    if detail.expectation:
        lines.append(f"  {detail.expectation}")
    lines += [f"    {line}" for line in detail.diff]
    if detail.actual is not None:
        answer = detail.actual.splitlines()
        shown = answer if answer_lines is None else answer[:answer_lines]
        lines.append("  the implementation answered:")
        lines += [f"    {line}" for line in shown]
        if len(shown) < len(answer):
            lines.append(f"    ... {len(answer) - len(shown)} more lines in results.json")
    if detail.stderr:
        lines.append("  stderr (last lines):")
        lines += [f"    {line}" for line in detail.stderr]
    if detail.notes:
        lines.append("  notes:")
        lines += [f"    {line}" for line in detail.notes.splitlines()]
    lines.append(f"  rerun: {detail.rerun}")
    return lines
