"""fuzz.json (schemas/fuzz.schema.json) and fuzz.md: what a fuzzing run tried and what it found."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from tabulate import tabulate

from conformance.fuzz.differential import FuzzReport


def run_name(parts: tuple[str, ...], invalid: bool, seed: int | None) -> str:
    """A run's folder name: what it fuzzed, which inputs, which seed."""
    return (f"{'+'.join(parts)}-{'invalid' if invalid else 'valid'}-"
            f"{'derandomized' if seed is None else f'seed-{seed}'}")


def write(report: FuzzReport, fixtures: list[Path], directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    rows = [
        {"component": o.component, "operation": o.operation, "invalid_inputs": o.invalid_inputs,
         "examples": o.examples, "unsupported": o.unsupported, "known": dict(sorted(o.known.items())),
         "seconds": round(o.seconds, 2),
         "disagreement": None if o.disagreement is None else {"diff": o.disagreement.diff,
                                                               "input": o.disagreement.input}}
        for o in report.operations
    ]
    document = {"implementation": report.implementation, "against": report.against, "seed": report.seed,
                "generated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "examples": report.examples, "disagreements": len(report.disagreements),
                "fixtures": [str(p) for p in fixtures], "operations": rows}
    (directory / "fuzz.json").write_text(json.dumps(document, indent=1) + "\n")
    table = tabulate([[r["component"], r["operation"], "invalid" if r["invalid_inputs"] else "valid", r["examples"],
                       r["unsupported"], sum(r["known"].values()), "yes" if r["disagreement"] else "no"]
                      for r in rows],
                     headers=["component", "operation", "inputs", "generated cases", "outside its features",
                              "known differences", "disagreement"], tablefmt="github")
    lines = [f"# Differential fuzzing: {report.implementation} against {report.against}", "",
             f"Seed: {'derandomized' if report.seed is None else report.seed}. Generated cases: {report.examples}. "
             f"Disagreements: {len(report.disagreements)}.", "", table, ""]
    claimed = sorted({case for r in rows for case in r["known"]})
    if claimed:
        lines += ["Known differences (generated inputs on which the implementation answers as the corpus case "
                  "says it does; the case's expectations entry gives the reason):", ""]
        lines += [f"- `{case}`: {sum(r['known'].get(case, 0) for r in rows)} generated cases" for case in claimed]
        lines.append("")
    for path in fixtures:
        lines.append(f"- fixture written: `{path}`")
    path = directory / "fuzz.md"
    path.write_text("\n".join(lines).rstrip() + "\n")
    return path
