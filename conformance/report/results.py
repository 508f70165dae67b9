"""The canonical machine-readable report of one run, and writing every view of it.

Everything in results.json follows from the inputs except `generated_at` and the
per-case `duration_ms`; compliance.md and junit.xml follow from the inputs alone.
"""

from __future__ import annotations

import json
import platform
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from conformance import FORMAT_VERSION, PROTOCOL_VERSION, REPORT_FORMAT, __version__, schemas
from conformance.model import ALL_OUTCOMES, Record
from conformance.report import html, junit, markdown
from conformance.report.counts import tally


def build(run, corpus_hash: str, *, expectations_file: str | None = None, strict: bool = False,
          invocation: dict[str, Any] | None = None, warnings: list[str] | None = None) -> dict[str, Any]:
    """The report of a run. `strict` and `invocation` travel in the header so that
    every view rendered later from this file alone judges an unexpected pass the
    same way and prints rerun commands that reproduce the run."""
    records = sorted(run.records, key=lambda r: r.id)
    counts = Counter(r.outcome for r in records)
    total = tally([r.outcome for r in records])
    return {
        "report_format": REPORT_FORMAT,
        "header": {
            "suite": {"name": "topology-conformance", "version": __version__, "format": FORMAT_VERSION,
                      "protocol": PROTOCOL_VERSION, "corpus": corpus_hash},
            "implementation": run.hello.raw,
            "impl_spec": run.impl_spec,
            "expectations": expectations_file,
            "strict": strict,
            "invocation": invocation or {},
            "selection": run.selection,
            "warnings": list(warnings or ()),
            "python": platform.python_version(),
            "generated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
        "records": [r.to_json() for r in records],
        "footer": {
            "total": len(records),
            "counts": {outcome: counts.get(outcome, 0) for outcome in ALL_OUTCOMES},
            "applicable": total.applicable,
            "passed": total.passed,
            "unexpected": sum(1 for r in records if r.unexpected(strict)),
            "complete": run.complete,
        },
    }


def load(path: Path) -> dict[str, Any]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except RecursionError:
        # A report of ours nests answers at most bounds.MAX_ANSWER_DEPTH deep.
        raise ValueError(f"{path}: nested too deeply to be a results report") from None
    problems = schemas.errors("report.schema.json", document)
    if problems:
        where, _rule, message = problems[0]
        raise ValueError(f"{path}: not a results report at {schemas.path_pointer(where) or '/'}: {message}")
    return document


def records(document: dict[str, Any]) -> list[Record]:
    return [Record.from_json(r) for r in document["records"]]


def default_dir(document: dict[str, Any], base: Path) -> Path:
    implementation = document["header"]["implementation"]["implementation"]
    return base / f"{implementation['name']}-{implementation['version']}"


def write_all(document: dict[str, Any], directory: Path) -> list[Path]:
    """results.json and every view rendered from it."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in [("results.json", json.dumps(document, indent=1, sort_keys=False) + "\n"),
                       ("compliance.md", markdown.render(document)),
                       ("compliance.html", html.render(document)),
                       ("junit.xml", junit.render(document))]:
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
