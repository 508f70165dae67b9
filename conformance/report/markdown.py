"""compliance.md: the table a release manager publishes."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from tabulate import tabulate

from conformance.model import ERROR, FAIL, PASS, UNSUPPORTED, XFAIL
from conformance.report.results import rerun_command

_COLUMNS = (PASS, FAIL, ERROR, UNSUPPORTED, XFAIL)


def _percent(passed: int, total: int) -> str:
    return f"{100 * passed / total:.1f}%" if total else "-"


def _row(label: str, outcomes: list[str]) -> list[Any]:
    counts = {c: outcomes.count(c) for c in _COLUMNS}
    other = len(outcomes) - sum(counts.values())
    return [label, len(outcomes), *counts.values(), other, _percent(counts[PASS], len(outcomes))]


_HEADERS = ["", "cases", "passed", "failed", "error", "unsupported", "xfail", "other", "passing"]


def render(document: dict[str, Any]) -> str:
    header, footer, records = document["header"], document["footer"], document["records"]
    implementation = header["implementation"]["implementation"]
    suite = header["suite"]
    lines = [
        f"# Compliance: {implementation['name']} {implementation['version']}",
        "",
        f"Suite {suite['name']} {suite['version']} (fixture format {suite['format']}, protocol {suite['protocol']}), "
        f"corpus `{suite['corpus']}`.",
        f"Implementation reached as `{header['impl_spec']}`"
        + (f", expectations `{header['expectations']}`." if header.get("expectations") else ", no expectations file."),
        f"Run complete: {'yes' if footer['complete'] else 'NO - some cases were not run'}. "
        f"Cases: {footer['total']}; unexpected outcomes: {footer['unexpected']}.",
        "",
        "## Summary",
        "",
    ]
    by_component: dict[str, list[dict]] = defaultdict(list)
    for record in records:
        by_component[record["component"]].append(record)
    rows = [_row(component, [r["outcome"] for r in items]) for component, items in sorted(by_component.items())]
    rows.append(_row("**all**", [r["outcome"] for r in records]))
    headers = ["component", *_HEADERS[1:]]
    lines += [tabulate(rows, headers=headers, tablefmt="github"), ""]
    for component, items in sorted(by_component.items()):
        per_feature: dict[str, list[str]] = defaultdict(list)
        for record in items:
            for feature in record["features"] or ["(invalid fixture)"]:
                per_feature[feature].append(record["outcome"])
        lines += [f"## {component}", ""]
        rows = [_row(f"`{feature}`", outcomes) for feature, outcomes in sorted(per_feature.items())]
        lines += [tabulate(rows, headers=["feature", *_HEADERS[1:]], tablefmt="github"), ""]
    unexpected = [r for r in records if r["outcome"] not in (PASS, XFAIL, UNSUPPORTED, "skip")]
    lines += ["## Unexpected outcomes", ""]
    if not unexpected:
        lines += ["None.", ""]
    else:
        for record in unexpected:
            lines.append(f"### `{record['id']}`: {record['outcome']}")
            lines.append("")
            lines.append(f"From `{record['file']}`. {record.get('message') or ''}".rstrip())
            if record.get("diff"):
                lines += ["", "```", *record["diff"], "```"]
            lines += ["", "Rerun: `" + rerun_command(header["impl_spec"], record["id"]) + "`", ""]
    known = [r for r in records if r["outcome"] == XFAIL]
    if known:
        lines += ["## Known failures (expectations file)", ""]
        rows = [[f"`{r['id']}`", r["expected_outcome"], r.get("expectation_reason") or ""] for r in known]
        lines += [tabulate(rows, headers=["case", "kind", "reason"], tablefmt="github"), ""]
    return "\n".join(lines).rstrip() + "\n"
