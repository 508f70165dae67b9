"""compliance.html: the same report as compliance.md, as one self-contained
page to publish or attach to a CI run, with every case listed and each
unexpected outcome's diff and rerun command at hand."""

from __future__ import annotations

from html import escape
from typing import Any

from tabulate import tabulate

from conformance.report import counts
from conformance.report.results import rerun_command

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border: 1px solid #ccc; padding: .2em .6em; }
th { background: #f3f3f3; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; }
code { font-size: 95%; }
.pass, .xfail { color: #1a7f37; } .unsupported, .skip { color: #6e7781; }
.fail, .error, .xpass, .crash, .timeout, .malformed, .bad-seq, .invalid-result, .notrun, .invalid-fixture {
  color: #cf222e; font-weight: bold; }
"""


def _table(rows: list[list[Any]], headers: list[str]) -> str:
    return tabulate(rows, headers=headers, tablefmt="html")


def _outcome(outcome: str) -> str:
    return f'<span class="{escape(outcome)}">{escape(outcome)}</span>'


def render(document: dict[str, Any]) -> str:
    header, footer, records = document["header"], document["footer"], document["records"]
    implementation = header["implementation"]["implementation"]
    suite = header["suite"]
    title = f"Compliance: {implementation['name']} {implementation['version']}"
    expectations = header.get("expectations")
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f"<p>Suite {escape(suite['name'])} {escape(suite['version'])} (fixture format {suite['format']}, "
        f"protocol {suite['protocol']}), corpus <code>{escape(suite['corpus'])}</code>. Implementation reached "
        f"as <code>{escape(header['impl_spec'])}</code>"
        + (f", expectations <code>{escape(expectations)}</code>." if expectations else ", no expectations file.")
        + "</p>",
        f"<p>Run complete: {'yes' if footer['complete'] else '<strong>NO</strong>: some cases were not run'}. "
        f"Cases: {footer['total']}; unexpected outcomes: {footer['unexpected']}.</p>",
        "<h2>Summary</h2>",
    ]
    grouped = counts.by_component(records)
    parts.append(_table(counts.summary_rows(records, "all"), ["component", *counts.HEADERS]))

    unexpected = counts.unexpected(records)
    parts.append("<h2>Unexpected outcomes</h2>")
    if not unexpected:
        parts.append("<p>None.</p>")
    for record in unexpected:
        parts.append(f'<h3 id="{escape(record["id"])}"><code>{escape(record["id"])}</code>: '
                     f"{_outcome(record['outcome'])}</h3>")
        parts.append(f"<p>From <code>{escape(record['file'])}</code>. {escape(record.get('message') or '')}</p>")
        if record.get("diff"):
            parts.append("<pre>" + escape("\n".join(record["diff"])) + "</pre>")
        parts.append(f"<p>Rerun: <code>{escape(rerun_command(header['impl_spec'], record['id']))}</code></p>")

    known = counts.known_failures(records)
    if known:
        parts.append("<h2>Known failures (expectations file)</h2>")
        parts.append(_table([[r["id"], r["expected_outcome"], r.get("expectation_reason") or ""] for r in known],
                            ["case", "kind", "reason"]))

    for component, items in grouped.items():
        parts.append(f"<h2>{escape(component)}</h2>")
        rows = [counts.row(feature, outcomes) for feature, outcomes in counts.by_feature(items).items()]
        parts.append(_table(rows, ["feature", *counts.HEADERS]))
        parts.append(f"<details><summary>All {len(items)} cases</summary><table>"
                     "<tr><th>case</th><th>outcome</th><th>file</th></tr>")
        for record in items:
            parts.append(f"<tr><td><code>{escape(record['id'])}</code></td><td>{_outcome(record['outcome'])}</td>"
                         f"<td>{escape(record['file'])}</td></tr>")
        parts.append("</table></details>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
