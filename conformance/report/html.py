"""compliance.html: the report as one self-contained page to publish or link from
a pull request.

The summary comes first (per component and per feature, the pass rate over
applicable cases with the not-applicable count beside it); then a filter bar
(outcome, component, feature, id), the unexpected outcomes with what is needed
to act on them, the unexpected passes, the known failures, and every case.
Matrix rows that fail the same way are one block listing the rows. Each case
and feature has an anchor. Pictures of the node or topology are drawn inline.

Everything that comes from an implementation or a fixture is escaped, and the
page's Content-Security-Policy lets only its own script and style run, so a
published page cannot be turned against its readers.
"""

from __future__ import annotations

from html import escape
from typing import Any

from conformance.model import ALL_OUTCOMES, XPASS
from conformance.report import counts, details, html_assets, markdown
from conformance.report.pictures import has_picture, picture

# A folded block opens by itself when it is shorter than this.
FOLD_LINES = 40


def anchor(kind: str, name: str) -> str:
    """A fragment-safe id: letters, digits, '.', '-' kept; anything else as _hh."""
    safe = "".join(c if c.isascii() and (c.isalnum() or c in ".-") else f"_{ord(c):02x}" for c in name)
    return f"{kind}-{safe}"


def _outcome(outcome: str) -> str:
    return f'<span class="outcome o-{escape(outcome)}">{escape(outcome)}</span>'


def _rate(tally: counts.Tally) -> str:
    if tally.rate is None:
        kind = "none"
    elif tally.rate >= 0.99:
        kind = "good"
    elif tally.rate >= 0.9:
        kind = "fair"
    else:
        kind = "poor"
    return f'<span class="rate rate-{kind}">{escape(tally.passing())}</span>'


def _pre(text: str) -> str:
    return "<pre>" + escape(text) + "</pre>"


def _folded(summary: str, text: str) -> str:
    opened = " open" if text.count("\n") < FOLD_LINES else ""
    return f"<details{opened}><summary>{escape(summary)} ({text.count(chr(10)) + 1} lines)</summary>{_pre(text)}</details>"


def _case_attrs(record: dict[str, Any]) -> str:
    return (f' data-case="{escape(record["id"])}" data-outcome="{escape(record["outcome"])}"'
            f' data-component="{escape(record["component"])}"'
            f' data-features="{escape(" ".join(record["features"]))}"')


def _tally_cells(tally: counts.Tally, component: str, feature: str = "") -> str:
    where = f' data-component="{escape(component)}"' + (f' data-feature="{escape(feature)}"' if feature else "")
    cells = [("cases", tally.cases), ("not-applicable", tally.not_applicable), ("applicable", tally.applicable),
             ("passed", tally.passed), ("failed", tally.failed), ("errors", tally.errors), ("xfail", tally.xfail)]
    out = "".join(f'<td class="n" data-count="{name}"{where}>{value}</td>' for name, value in cells)
    return out + f'<td data-count="passing"{where}>{_rate(tally)}</td>'


def _summary(records: list[dict[str, Any]]) -> list[str]:
    head = "".join(f"<th>{escape(h)}</th>" for h in ["component", *counts.HEADERS])
    parts = ['<section id="summary"><h2>Summary</h2>',
             "<p>Pass rates are over applicable cases: a case needing a feature the implementation does not "
             "declare (unsupported), or skipped, is counted as not applicable, beside the rate.</p>",
             f'<table class="summary"><tr>{head}</tr>']
    for component, items in counts.by_component(records).items():
        tally = counts.tally([r["outcome"] for r in items])
        parts.append(f'<tr><td><a href="#{anchor("component", component)}">{escape(component)}</a></td>'
                     f"{_tally_cells(tally, component)}</tr>")
    tally = counts.tally([r["outcome"] for r in records])
    parts.append(f"<tr><td>all</td>{_tally_cells(tally, '*')}</tr></table>")
    head = "".join(f"<th>{escape(h)}</th>" for h in ["feature", *counts.HEADERS])
    for component, items in counts.by_component(records).items():
        parts.append(f'<h3 id="{anchor("component", component)}">{escape(component)}: per feature</h3>'
                     f'<table class="features"><tr>{head}</tr>')
        for feature, outcomes in counts.by_feature(items).items():
            parts.append(f'<tr id="{anchor("feature", feature)}"><td><code>{escape(feature)}</code> '
                         f'<a class="permalink" href="#{anchor("feature", feature)}" title="permalink">¶</a></td>'
                         f"{_tally_cells(counts.tally(outcomes), component, feature)}</tr>")
        parts.append("</table>")
    parts.append("</section>")
    return parts


def _filters(records: list[dict[str, Any]]) -> list[str]:
    present = {r["outcome"] for r in records}
    boxes = "".join(f'<label><input type="checkbox" name="outcome" value="{escape(o)}" checked> {_outcome(o)}</label>'
                    for o in ALL_OUTCOMES if o in present)
    components = sorted({r["component"] for r in records})
    features = sorted({f for r in records for f in r["features"]})
    component_options = "".join(f'<option value="{escape(c)}">{escape(c)}</option>' for c in components)
    feature_options = "".join(f'<option value="{escape(f)}">{escape(f)}</option>' for f in features)
    return ['<form id="filters" autocomplete="off">',
            f"<fieldset><legend>outcome</legend> {boxes}</fieldset>",
            f'<label>component <select name="component"><option value="">all</option>{component_options}</select>'
            "</label>",
            f'<label>feature <select name="feature"><option value="">all</option>{feature_options}</select></label>',
            '<label>id <input type="search" name="q" placeholder="part of a case id"></label>',
            '<button type="reset">show all</button>',
            f'<span><span id="shown">{len(records)}</span> of {len(records)} cases shown</span>',
            "</form>"]


def _group_key(record: dict[str, Any]) -> tuple:
    base = record["id"].split("[", 1)[0]
    return (base, record["outcome"], record.get("message"), tuple(record.get("diff") or ()),
            record.get("expectation_reason"))


def groups(records: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Records of one base case that went wrong in the same way (same outcome,
    message and differences): the matrix rows of one rule, to be read once."""
    grouped: dict[tuple, list[dict[str, Any]]] = {}
    for record in records:
        grouped.setdefault(_group_key(record), []).append(record)
    return list(grouped.values())


def _picture(record: dict[str, Any]) -> str:
    if not has_picture(record["component"], record["operation"]) or "input" in (record.get("truncated") or ()):
        return ""
    truncated = set(record.get("truncated") or ())
    expected = None if "expected" in truncated else record.get("expected")
    actual = None if "actual" in truncated else record.get("actual")
    svg = picture(record["component"], record["operation"], record.get("input"), expected, actual,
                  label=f"{record['id']}: expected and actual")
    return f'<div class="picture-box">{svg}</div>' if svg else ""


def _detail(group: list[dict[str, Any]], header: dict[str, Any]) -> list[str]:
    first = group[0]
    d = details.of(first, header)
    if len(group) == 1:
        parts = [f'<section class="case" id="{anchor("case", d.id)}"{_case_attrs(first)}>']
        parts.append(f'<h3><code>{escape(d.id)}</code> {_outcome(d.outcome)}'
                     f'<a class="permalink" href="#{anchor("case", d.id)}" title="permalink">¶</a></h3>')
    else:
        parts = ['<section class="case" data-group="1">',
                 f'<h3><code>{escape(first["id"].split("[", 1)[0])}</code> {_outcome(d.outcome)} '
                 f"on {len(group)} matrix rows, the same way</h3>",
                 '<ul class="rows">']
        for record in group:
            parts.append(f'<li id="{anchor("case", record["id"])}"{_case_attrs(record)}><code>{escape(record["id"])}'
                         f'</code><a class="permalink" href="#{anchor("case", record["id"])}" title="permalink">¶</a>'
                         "</li>")
        parts += ["</ul>", f"<p>Shown below: <code>{escape(d.id)}</code>.</p>"]
    if d.title:
        parts.append(f"<p><strong>{escape(d.title)}</strong></p>")
    facts = [f"file <code>{escape(d.where)}</code>"]
    if d.source:
        facts.append(f"source: {escape(d.source)}")
    facts.append("features: " + ", ".join(f'<a href="#{anchor("feature", f)}"><code>{escape(f)}</code></a>'
                                          for f in first["features"]))
    if d.message:
        facts.append(escape(d.message))
    if d.expectation:
        facts.append(escape(d.expectation))
    parts.append('<ul class="facts">' + "".join(f"<li>{fact}</li>" for fact in facts) + "</ul>")
    parts.append(_picture(first))
    if d.diff:
        parts += ["<p>Differences (expected, then what came back):</p>", _pre("\n".join(d.diff))]
    if d.expected is not None or d.actual is not None:
        parts.append('<div class="pair">')
        for heading, text in (("Expected (from the fixture)", d.expected), ("The implementation's answer", d.actual)):
            parts.append("<div>" + (_folded(heading, text) if text is not None else
                                    f"<p>{escape(heading)}: not kept.</p>") + "</div>")
        parts.append("</div>")
    if d.stderr:
        parts += ["<p>stderr (last lines):</p>", _pre("\n".join(d.stderr))]
    if d.notes:
        parts.append(_folded("Notes from the fixture", d.notes))
    if d.input is not None:
        parts.append(_folded("Input sent", d.input))
    parts.append(f"<p>Rerun: <code>{escape(d.rerun)}</code></p></section>")
    return [p for p in parts if p]


def _section(section_id: str, title: str, intro: str, records: list[dict[str, Any]], header: dict[str, Any]) -> list[str]:
    parts = [f'<section id="{section_id}"><h2>{escape(title)} ({len(records)})</h2>']
    if intro:
        parts.append(f"<p>{escape(intro)}</p>")
    if not records:
        parts.append("<p>None.</p>")
    else:
        parts.append(f'<p data-empty="{section_id}" hidden>None with the filters chosen.</p>')
    for group in groups(records):
        parts += _detail(group, header)
    parts.append("</section>")
    return parts


def _all_cases(records: list[dict[str, Any]], detailed: set[str]) -> list[str]:
    parts = ['<section id="cases"><h2>Every case</h2>']
    for component, items in counts.by_component(records).items():
        parts.append(f'<h3>{escape(component)} ({len(items)})</h3><table class="cases">'
                     "<tr><th>case</th><th>outcome</th><th>file</th></tr>")
        for record in items:
            where = f"{record['file']}:{record['line']}" if record.get("line") else record["file"]
            name = anchor("case", record["id"])
            if record["id"] in detailed:
                cell = f'<a href="#{name}"><code>{escape(record["id"])}</code></a>'
                row_id = ""
            else:
                cell = (f'<code>{escape(record["id"])}</code><a class="permalink" href="#{name}" '
                        'title="permalink">¶</a>')
                row_id = f' id="{name}"'
            title = f"<br>{escape(record['title'])}" if record.get("title") else ""
            parts.append(f"<tr{row_id}{_case_attrs(record)}><td>{cell}{title}</td>"
                         f"<td>{_outcome(record['outcome'])}</td><td><code>{escape(where)}</code></td></tr>")
        parts.append("</table>")
    parts.append("</section>")
    return parts


def render(document: dict[str, Any]) -> str:
    header, records = document["header"], document["records"]
    implementation = header["implementation"]["implementation"]
    strict = bool(header.get("strict"))
    title = f"Compliance: {implementation['name']} {implementation['version']}"
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{escape(html_assets.policy())}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{html_assets.STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
    ]
    paragraphs = "\n".join(markdown.preamble(document)).split("\n\n")
    total = counts.tally([r["outcome"] for r in records])
    parts.append(f'<p class="headline">{_rate(total)} {escape(paragraphs[1].replace("`", "").replace("**", ""))}</p>')
    for paragraph in [paragraphs[0], *paragraphs[2:]]:
        parts.append(f"<p>{escape(paragraph.replace('`', '').replace('**', ''))}</p>")
    parts += _summary(records)
    parts += _filters(records)

    unexpected = [r for r in counts.unexpected(records, strict) if r["outcome"] != XPASS]
    parts += _section("unexpected", "Unexpected outcomes",
                      "Failures, errors, crashes and other outcomes the expectations file does not explain.",
                      unexpected, header)
    passes = counts.unexpected_passes(records)
    parts += _section("xpass", "Unexpected passes (xpass)",
                      "These cases pass although the expectations file says they fail: "
                      + ("a failure of this strict run." if strict else
                         "not a failure of this run (it is under --strict); the entry can probably go."),
                      passes, header)
    known = counts.known_failures(records)
    parts += _section("xfail", "Known failures (expectations file)",
                      "Failing as the expectations file says, each with its reason.", known, header)
    detailed = {r["id"] for r in unexpected + passes + known}
    parts += _all_cases(records, detailed)
    parts.append(f"<script>{html_assets.SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"

