"""The fuzzing summary of one implementation release: summary.json and summary.md.

Runs of a release are usually split (an operation at a time, valid and invalid
inputs apart, many seeds), each writing its own fuzz.json
(schemas/fuzz.schema.json) into a folder below the release's folder. The runs
are working files, not committed; what is committed is the summary. summary.json
(schemas/fuzz-summary.schema.json) keeps every run's fuzz.json, without the
disagreements' inputs (the fixture written for each holds it), so a new run adds
to the summary instead of replacing it, and summary.md is rendered from it: how
many generated cases each component has seen against the implementation, how
many were outside its features, how many met a known difference, and which
disagreements were found. How each finding was resolved is in the release's
findings ledger, docs/findings/<implementation>-<version>.md, which the summary
names when it exists.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

from tabulate import tabulate

from conformance import schemas

RUN_SCHEMA = "fuzz.schema.json"
SUMMARY_SCHEMA = "fuzz-summary.schema.json"


class BadRun(ValueError):
    """A fuzz.json or summary.json that does not follow its schema."""


def read(path: Path, schema: str) -> dict[str, Any]:
    """The document at path, checked against its schema."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BadRun(f"{path}: not readable as JSON: {exc}") from None
    for where, rule, message in schemas.errors(schema, document):
        raise BadRun(f"{path}: {schemas.path_pointer(where) or '/'}: [{rule}] {message} (schemas/{schema})")
    return document


def _runs(directory: Path) -> dict[str, dict]:
    found = {}
    for path in sorted(directory.rglob("fuzz.json")):
        run = path.parent.relative_to(directory).as_posix()
        found["." if run == "" else run] = read(path, RUN_SCHEMA)
    return found


def _shown(path: str) -> str:
    """A fixture path as a reader of the repository finds it: relative to the
    working directory when it lies below it, else its name alone."""
    candidate = Path(path)
    try:
        return candidate.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return candidate.name


def _kept(document: dict) -> dict:
    """A run as the summary keeps it."""
    kept = dict(document)
    kept["fixtures"] = [_shown(p) for p in document["fixtures"]]
    kept["operations"] = [{**op, "disagreement": None if op["disagreement"] is None
                           else {"diff": op["disagreement"]["diff"]}}
                          for op in document["operations"]]
    return kept


def _ledger(directory: Path) -> str | None:
    """The release's findings ledger, relative to the summary, if there is one."""
    for parent in directory.resolve().parents:
        ledger = parent / "docs" / "findings" / f"{directory.name}.md"
        if ledger.is_file():
            return Path(os.path.relpath(ledger, directory.resolve())).as_posix()
    return None


def write(directory: Path) -> Path:
    """Add the runs below directory to its summary.json (a run found replaces the
    one of the same name) and render summary.md."""
    runs = _runs(directory)
    stored = directory / "summary.json"
    kept = read(stored, SUMMARY_SCHEMA)["runs"] if stored.exists() else {}
    if not runs and not kept:
        raise FileNotFoundError(f"{directory}: no fuzz.json below it and no summary.json in it")
    kept.update({name: _kept(document) for name, document in runs.items()})
    stored.write_text(json.dumps({"format": 1, "runs": dict(sorted(kept.items()))}, indent=1, sort_keys=True) + "\n")
    path = directory / "summary.md"
    path.write_text(render(kept, _ledger(directory)))
    return path


def render(runs: dict[str, dict], ledger: str | None = None) -> str:
    implementations = sorted({str(document.get("implementation", "?")) for document in runs.values()})
    oracles = sorted({str(document.get("against", "?")) for document in runs.values()})
    totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    rows, known, findings = [], defaultdict(int), []
    for run, document in sorted(runs.items()):
        for op in document["operations"]:
            kind = "invalid" if op.get("invalid_inputs") else "valid"
            examples, found = op.get("examples", 0), op.get("disagreement")
            claimed = sum(op.get("known", {}).values())
            total = totals[op["component"]]
            total[kind] += examples
            total["outside"] += op.get("unsupported", 0)
            total["known"] += claimed
            total["disagreements"] += 1 if found else 0
            for case, count in op.get("known", {}).items():
                known[case] += count
            rows.append([op.get("component", "?"), op.get("operation", "?"), kind, examples, op.get("unsupported", 0),
                         claimed, round(op.get("seconds", 0)), "yes" if found else "no", run])
            if found:
                findings.append(f"- {op.get('component')}.{op.get('operation')} ({kind}, run `{run}`): "
                                + "; ".join(found.get("diff", [])[:3]))
        for fixture in document.get("fixtures", []):
            findings.append(f"  - fixture written: `{fixture}`")
    per_component = [[c, t["valid"], t["invalid"], t["valid"] + t["invalid"], t["outside"],
                      t["valid"] + t["invalid"] - t["outside"], t["known"], t["disagreements"]]
                     for c, t in sorted(totals.items())]
    lines = [f"# Differential fuzzing: {', '.join(implementations)} against {', '.join(oracles)}", "",
             "Each run is `topoconf fuzz --impl ... --against ... --component C [--operation O] --examples N "
             "[--seed S] [--invalid]`, named in the last column; its fuzz.json is kept in summary.json beside "
             "this file (the run folders themselves are not committed). "
             "Generated cases outside the implementation's features (or answered `unsupported`) are counted "
             "but compared with nothing; a known difference is an input on which the implementation answers "
             "as a corpus case with an expectations entry says it does.", "",
             "## Per component", "",
             tabulate(per_component, headers=["component", "valid cases", "invalid cases", "total",
                                              "outside its features", "compared", "known differences",
                                              "disagreements"],
                      tablefmt="github"), "",
             "## Per run", "",
             tabulate(sorted(rows), headers=["component", "operation", "inputs", "generated cases",
                                             "outside its features", "known differences", "seconds",
                                             "disagreement", "run"], tablefmt="github"), ""]
    if known:
        lines += ["## Known differences met", ""]
        lines += [f"- `{case}`: {count} generated cases" for case, count in sorted(known.items())]
        lines.append("")
    lines += ["## Disagreements", ""]
    lines += findings or ["None found."]
    lines.append("")
    if ledger:
        lines += [f"How each disagreement was resolved (a fix, or a corpus case with an expectations entry): "
                  f"[the findings ledger]({ledger}).", ""]
    return "\n".join(lines).rstrip() + "\n"
