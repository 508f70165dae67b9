"""compliance.md: the table a release manager publishes."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from conformance.report import counts, details


def preamble(document: dict[str, Any]) -> list[str]:
    header, footer = document["header"], document["footer"]
    implementation = header["implementation"]["implementation"]
    suite = header["suite"]
    total = counts.tally([r["outcome"] for r in document["records"]])
    lines = [
        f"Suite {suite['name']} {suite['version']} (fixture format {suite['format']}, protocol {suite['protocol']}), "
        f"corpus `{suite['corpus']}`.",
        f"Implementation reached as `{header['impl_spec']}`"
        + (f", expectations `{header['expectations']}`." if header.get("expectations") else ", no expectations file.")
        + (" Strict run: an unexpected pass is a failure." if header.get("strict") else ""),
        f"Run complete: {'yes' if footer['complete'] else 'NO - some cases were not run'}.",
        "",
        f"**{implementation['name']} {implementation['version']}: {total.sentence()}.** "
        f"Unexpected outcomes: {footer['unexpected']}.",
    ]
    for warning in header.get("warnings") or ():
        lines += ["", f"Warning: {warning}"]
    return lines


def _fenced(text: str, language: str = "") -> list[str]:
    # A fence longer than any backtick run inside keeps untrusted text inside it.
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    return [fence + language, *text.splitlines(), fence]


def _longest_backtick_run(text: str) -> int:
    best = current = 0
    for char in text:
        current = current + 1 if char == "`" else 0
        best = max(best, current)
    return best


def _detail(record: dict[str, Any], header: dict[str, Any]) -> list[str]:
    d = details.of(record, header)
    lines = [f"### `{d.id}`: {d.outcome}", ""]
    if d.title:
        lines += [f"**{d.title}**", ""]
    lines.append(f"- file: `{d.where}`")
    if d.source:
        lines.append(f"- source: {d.source}")
    if d.message:
        lines.append(f"- {d.message}")
    if d.expectation:
        lines.append(f"- {d.expectation}")
    if d.diff:
        lines += ["", "Differences (expected, then what came back):", "", *_fenced("\n".join(d.diff))]
    if d.actual is not None:
        lines += ["", "The implementation's answer:", "", *_fenced(d.actual, "yaml")]
    if d.stderr:
        lines += ["", "stderr (last lines):", "", *_fenced("\n".join(d.stderr))]
    if d.notes:
        lines += ["", "Notes from the fixture:", "", *_fenced(d.notes)]
    if d.input is not None:
        lines += ["", "<details><summary>Input sent</summary>", "", *_fenced(d.input, "yaml"), "", "</details>"]
    lines += ["", f"Rerun: `{d.rerun}`", ""]
    return lines


def render(document: dict[str, Any]) -> str:
    header, records = document["header"], document["records"]
    implementation = header["implementation"]["implementation"]
    strict = bool(header.get("strict"))
    lines = [f"# Compliance: {implementation['name']} {implementation['version']}", "", *preamble(document), ""]
    lines += ["## Summary", "",
              "Pass rates are over applicable cases: cases needing a feature the implementation does not "
              "declare, or skipped, are counted as not applicable and left out of the rate.", ""]
    rows = counts.summary_rows(records, "**all**")
    lines += [tabulate(rows, headers=["component", *counts.HEADERS], tablefmt="github"), ""]
    for component, items in counts.by_component(records).items():
        lines += [f"## {component}", ""]
        rows = [counts.row(f"`{feature}`", outcomes) for feature, outcomes in counts.by_feature(items).items()]
        lines += [tabulate(rows, headers=["feature", *counts.HEADERS], tablefmt="github"), ""]
    unexpected = counts.unexpected(records, strict)
    lines += ["## Unexpected outcomes", ""]
    if not unexpected:
        lines += ["None.", ""]
    for record in unexpected:
        lines += _detail(record, header)
    passes = [] if strict else counts.unexpected_passes(records)
    if passes:
        lines += ["## Unexpected passes", "",
                  "These cases pass although the expectations file says they fail: not a failure of this run "
                  "(it is under --strict); the entry can probably go.", ""]
        rows = [[f"`{r['id']}`", r["expected_outcome"], r.get("expectation_reason") or ""] for r in passes]
        lines += [tabulate(rows, headers=["case", "expected", "reason"], tablefmt="github"), ""]
    known = counts.known_failures(records)
    if known:
        lines += ["## Known failures (expectations file)", ""]
        rows = [[f"`{r['id']}`", r["expected_outcome"], r.get("expectation_reason") or ""] for r in known]
        lines += [tabulate(rows, headers=["case", "kind", "reason"], tablefmt="github"), ""]
    return "\n".join(lines).rstrip() + "\n"
