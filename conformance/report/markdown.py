"""compliance.md: the table a release manager publishes."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from conformance.report import counts
from conformance.report.results import rerun_command


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
    grouped = counts.by_component(records)
    rows = counts.summary_rows(records, "**all**")
    lines += [tabulate(rows, headers=["component", *counts.HEADERS], tablefmt="github"), ""]
    for component, items in grouped.items():
        lines += [f"## {component}", ""]
        rows = [counts.row(f"`{feature}`", outcomes) for feature, outcomes in counts.by_feature(items).items()]
        lines += [tabulate(rows, headers=["feature", *counts.HEADERS], tablefmt="github"), ""]
    unexpected = counts.unexpected(records)
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
    known = counts.known_failures(records)
    if known:
        lines += ["## Known failures (expectations file)", ""]
        rows = [[f"`{r['id']}`", r["expected_outcome"], r.get("expectation_reason") or ""] for r in known]
        lines += [tabulate(rows, headers=["case", "kind", "reason"], tablefmt="github"), ""]
    return "\n".join(lines).rstrip() + "\n"
