"""compliance.html: the same report as compliance.md, as one self-contained
page to publish or attach to a CI run, with every case listed and each
unexpected outcome's diff and rerun command at hand."""

from __future__ import annotations

from html import escape
from typing import Any

from tabulate import tabulate

from conformance.report import counts, details, markdown

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
    # tabulate's html format escapes every cell.
    return tabulate(rows, headers=headers, tablefmt="html")


def _outcome(outcome: str) -> str:
    return f'<span class="{escape(outcome)}">{escape(outcome)}</span>'


def _pre(text: str, cls: str = "") -> str:
    return f'<pre{f" class={chr(34)}{cls}{chr(34)}" if cls else ""}>' + escape(text) + "</pre>"


def _detail(record: dict[str, Any], header: dict[str, Any]) -> list[str]:
    d = details.of(record, header)
    parts = [f'<h3 id="{escape(d.id)}"><code>{escape(d.id)}</code>: {_outcome(d.outcome)}</h3>']
    if d.title:
        parts.append(f"<p><strong>{escape(d.title)}</strong></p>")
    facts = [f"file <code>{escape(d.where)}</code>"]
    if d.source:
        facts.append(f"source: {escape(d.source)}")
    parts.append("<ul>" + "".join(f"<li>{fact}</li>" for fact in facts) + "</ul>")
    for text in (d.message, d.expectation):
        if text:
            parts.append(f"<p>{escape(text)}</p>")
    if d.diff:
        parts += ["<p>Differences (expected, then what came back):</p>", _pre("\n".join(d.diff))]
    if d.actual is not None:
        parts += ["<p>The implementation's answer:</p>", _pre(d.actual)]
    if d.stderr:
        parts += ["<p>stderr (last lines):</p>", _pre("\n".join(d.stderr))]
    if d.notes:
        parts += ["<p>Notes from the fixture:</p>", _pre(d.notes)]
    if d.input is not None:
        parts.append("<details><summary>Input sent</summary>" + _pre(d.input) + "</details>")
    parts.append(f"<p>Rerun: <code>{escape(d.rerun)}</code></p>")
    return parts


def render(document: dict[str, Any]) -> str:
    header, records = document["header"], document["records"]
    implementation = header["implementation"]["implementation"]
    strict = bool(header.get("strict"))
    title = f"Compliance: {implementation['name']} {implementation['version']}"
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
    ]
    # The preamble is the Markdown view's, as plain paragraphs.
    for paragraph in "\n".join(markdown.preamble(document)).split("\n\n"):
        parts.append(f"<p>{escape(paragraph.replace('`', '').replace('**', ''))}</p>")
    parts += ["<h2>Summary</h2>",
              "<p>Pass rates are over applicable cases: cases needing a feature the implementation does not "
              "declare, or skipped, are counted as not applicable and left out of the rate.</p>"]
    grouped = counts.by_component(records)
    parts.append(_table(counts.summary_rows(records, "all"), ["component", *counts.HEADERS]))

    unexpected = counts.unexpected(records, strict)
    parts.append("<h2>Unexpected outcomes</h2>")
    if not unexpected:
        parts.append("<p>None.</p>")
    for record in unexpected:
        parts += _detail(record, header)

    passes = [] if strict else counts.unexpected_passes(records)
    if passes:
        parts.append("<h2>Unexpected passes</h2><p>These cases pass although the expectations file says they fail: "
                     "not a failure of this run (it is under --strict).</p>")
        parts.append(_table([[r["id"], r["expected_outcome"], r.get("expectation_reason") or ""] for r in passes],
                            ["case", "expected", "reason"]))

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
            where = f"{record['file']}:{record['line']}" if record.get("line") else record["file"]
            parts.append(f"<tr><td><code>{escape(record['id'])}</code></td><td>{_outcome(record['outcome'])}</td>"
                         f"<td>{escape(where)}</td></tr>")
        parts.append("</table></details>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
