"""`topoconf matrix REPORT_DIR...`: one table over several runs, as Markdown.

Rows are features, columns are the runs (an implementation at a version: the
releases of one system, or a release beside a branch). A cell counts the cases
that applied to that run, the ones it did not answer `unsupported` or `skip`:
`passed/applicable`, where passed is `pass` or `xpass` (the run answered as the
contract says) and every other applicable outcome (`fail`, `xfail`, `error`,
...) counts against it. A feature none of whose cases applied shows `n/a`, so
the table shows where behaviour changed between runs and where a run simply
lacks the feature.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabulate import tabulate

from conformance.model import PASSED, is_applicable
from conformance.report import counts
from conformance.report import diff as report_diff

TOTAL = "all cases"


@dataclass(frozen=True)
class Cell:
    passed: int
    applicable: int

    def render(self) -> str:
        return f"{self.passed}/{self.applicable}" if self.applicable else "n/a"


@dataclass(frozen=True)
class Column:
    label: str
    source: Path
    cells: dict[str, Cell]


def cell(outcomes: list[str]) -> Cell:
    applicable = [o for o in outcomes if is_applicable(o)]
    return Cell(passed=sum(1 for o in applicable if o in PASSED), applicable=len(applicable))


def column(document: dict[str, Any], source: Path) -> Column:
    implementation = document["header"]["implementation"]["implementation"]
    records = document["records"]
    cells = {feature: cell(outcomes) for feature, outcomes in counts.by_feature(records).items()}
    cells[TOTAL] = cell([r["outcome"] for r in records])
    return Column(label=f"{implementation['name']} {implementation['version']}", source=source, cells=cells)


def load_columns(paths: list[Path]) -> list[Column]:
    """Each report (a folder or its results.json) as a column; raises
    report_diff.NotAReport naming the argument that is not a run's report."""
    columns = []
    for given in paths:
        folder = given if given.is_dir() else given.parent
        columns.append(column(report_diff.load(given), folder))
    # Two runs of the same version (say a release and a rebuilt copy) stay apart.
    labels = [c.label for c in columns]
    return [Column(label=f"{c.label} ({c.source.name})", source=c.source, cells=c.cells) if labels.count(c.label) > 1
            else c for c in columns]


def render(columns: list[Column]) -> str:
    features = sorted({f for c in columns for f in c.cells if f != TOTAL})
    rows = [[f"`{feature}`", *(c.cells.get(feature, Cell(0, 0)).render() for c in columns)] for feature in features]
    rows.append([f"**{TOTAL}**", *(c.cells[TOTAL].render() for c in columns)])
    lines = [
        tabulate(rows, headers=["feature", *(c.label for c in columns)], tablefmt="github", disable_numparse=True),
        "",
        "Cells: passed/applicable cases (applicable: not `unsupported`, not `skip`; passed: `pass` or `xpass`); "
        "`n/a`: no case of the feature applied. A case counts under every feature it names.",
        "",
        "Sources: " + ", ".join(f"`{c.source}`" for c in columns),
    ]
    return "\n".join(lines) + "\n"
