"""`topoconf matrix --html`: the cross-release table as a page. Rows are features,
columns are runs; each cell is passed/applicable, coloured as compliance.html
colours its rates, and links to that run's compliance.html showing only the
cases of that feature. The page has no script; its policy admits only its style."""

from __future__ import annotations

import os
from html import escape
from pathlib import Path
from urllib.parse import quote

from conformance.report import html_assets
from conformance.report.matrix import TOTAL, Cell, Column

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1em auto; max-width: 96em; padding: 0 1em; color: #24292f; }
table { border-collapse: collapse; font-size: 92%; }
th, td { border: 1px solid #d0d7de; padding: .2em .6em; } th { background: #f6f8fa; text-align: left; }
td.cell { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.cell a { color: inherit; text-decoration: none; display: block; }
.rate-good { background: #dafbe1; } .rate-fair { background: #fff1c2; } .rate-poor { background: #ffebe9; }
.rate-none { color: #6e7781; }
"""


def _kind(cell: Cell) -> str:
    if not cell.applicable:
        return "none"
    rate = cell.passed / cell.applicable
    return "good" if rate >= 0.99 else "fair" if rate >= 0.9 else "poor"


def _link(column: Column, page_dir: Path, feature: str | None) -> str:
    target = os.path.relpath(column.source / "compliance.html", page_dir)
    link = quote(target.replace(os.sep, "/"))
    return link + (f"#feature={quote(feature, safe='')}" if feature else "#cases")


def render(columns: list[Column], page: Path) -> str:
    features = sorted({f for c in columns for f in c.cells if f != TOTAL})
    policy = f"default-src 'none'; style-src '{html_assets.digest(STYLE)}'; base-uri 'none'; form-action 'none'"
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f'<meta http-equiv="Content-Security-Policy" content="{escape(policy)}">',
             f"<title>Compliance matrix</title><style>{STYLE}</style></head><body>",
             "<h1>Compliance matrix</h1>",
             "<p>Cells: passed/applicable cases (applicable: not unsupported, not skip; passed: pass or xpass); "
             "n/a: no case of the feature applied. A cell links to that run's report, showing the feature's "
             "cases.</p>",
             "<table><tr><th>feature</th>" + "".join(f"<th>{escape(c.label)}</th>" for c in columns) + "</tr>"]
    for feature in [*features, TOTAL]:
        label = f"<strong>{escape(feature)}</strong>" if feature == TOTAL else f"<code>{escape(feature)}</code>"
        row = [f"<tr><td>{label}</td>"]
        for column in columns:
            cell = column.cells.get(feature, Cell(0, 0))
            href = _link(column, page.parent, None if feature == TOTAL else feature)
            row.append(f'<td class="cell rate-{_kind(cell)}" data-run="{escape(column.label)}" '
                       f'data-feature="{escape(feature)}"><a href="{escape(href)}">{escape(cell.render())}</a></td>')
        parts.append("".join(row) + "</tr>")
    parts.append("</table><p>Sources: " + ", ".join(f"<code>{escape(str(c.source))}</code>" for c in columns)
                 + "</p></body></html>")
    return "\n".join(parts) + "\n"
