"""summary.md: every fuzzing run under one folder, added up.

Runs of a component are usually split (an operation at a time, valid and
invalid inputs apart), each writing its own fuzz.json; the summary is what a
reader wants first: how many generated cases each component has seen against
the implementation, how many were outside its features, how many met a known
difference, and which disagreements were found. A `notes.md` beside the runs,
written by whoever reviewed them, is carried over as it is.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from tabulate import tabulate


class BadRun(ValueError):
    """A fuzz.json that is not a fuzzing report."""


def _runs(directory: Path) -> list[tuple[str, dict]]:
    found = []
    for path in sorted(directory.rglob("fuzz.json")):
        run = path.parent.relative_to(directory).as_posix()
        try:
            document = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise BadRun(f"{path}: not readable as JSON: {exc}") from None
        if not isinstance(document, dict) or not isinstance(document.get("operations"), list):
            raise BadRun(f"{path}: not a fuzzing report (no operations list)")
        found.append(("." if run == "" else run, document))
    return found


def _shown(path: str) -> str:
    """A fixture path as a reader of the repository finds it: relative to the
    working directory when it lies below it, else its name alone."""
    candidate = Path(path)
    try:
        return candidate.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return candidate.name


def write(directory: Path) -> Path:
    runs = _runs(directory)
    if not runs:
        raise FileNotFoundError(f"{directory}: no fuzz.json below it")
    implementations = sorted({str(document.get("implementation", "?")) for _, document in runs})
    oracles = sorted({str(document.get("against", "?")) for _, document in runs})
    totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    rows, known, findings = [], defaultdict(int), []
    for run, document in runs:
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
            findings.append(f"  - fixture written: `{_shown(fixture)}`")
    per_component = [[c, t["valid"], t["invalid"], t["valid"] + t["invalid"], t["outside"],
                      t["valid"] + t["invalid"] - t["outside"], t["known"], t["disagreements"]]
                     for c, t in sorted(totals.items())]
    lines = [f"# Differential fuzzing: {', '.join(implementations)} against {', '.join(oracles)}", "",
             "Each run is `topoconf fuzz --impl ... --against ... --component C [--operation O] --examples N "
             "[--seed S] [--invalid]`; its fuzz.md and fuzz.json are in the folder named in the last column. "
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
    notes = directory / "notes.md"
    if notes.exists():
        lines += ["## Notes", "", notes.read_text().strip(), ""]
    path = directory / "summary.md"
    path.write_text("\n".join(lines).rstrip() + "\n")
    return path
