"""Rerunning some parts of a benchmark run into an existing report.

`run.py --update --only kubelet` measures one part again after a change to it
and replaces, in benchmarks.md and benchmarks.json, only what that part wrote:
its section, its rows of the targets table and its raw numbers. The other
parts keep the numbers of the run that measured them, and the report says
which part was rerun, when, and under what load, so no number is presented
as coming from a run it did not come from.
"""

from __future__ import annotations

import json
from pathlib import Path

from .report import _plain

# what each part writes into benchmarks.md
HEADINGS = {"kubelet": "## kubelet merge", "kueue": "## Kueue placement", "koordinator": "## Koordinator",
            "protocol": "## What the protocol costs", "corpus": "## The whole corpus"}
TARGET_PREFIXES = {"kubelet": "| kubelet:", "kueue": "| Kueue"}
NOTE_START = "**Rerun:** "


def rerun_note(parts: list[str], header: dict) -> str:
    upstream = ", ".join(f"{k} {v}" for k, v in header["upstream"].items() if v) or "none"
    return (f"{NOTE_START}the {', '.join(parts)} part{'s' if len(parts) > 1 else ''} on {header['generated_at']} "
            f"({header['wall_clock_s']:.0f} s; load average {header['load_average_at_start'][0]} at the start, "
            f"{header['load_average_at_end'][0]} at the end; upstream: {upstream}). Everything else on this page "
            "is from the run above.\n")


def splice_markdown(old: str, sections: dict[str, str], targets: dict[str, list[str]], note: str) -> str:
    text = old
    for part, section in sections.items():
        start = text.find(HEADINGS[part])
        if start == -1:
            text = text.rstrip("\n") + "\n\n" + section
            continue
        following = text.find("\n## ", start + 1)
        text = text[:start] + section + ("" if following == -1 else "\n" + text[following + 1:])
    lines = text.split("\n")
    for part, rows in targets.items():
        prefix = TARGET_PREFIXES[part]
        at = [i for i, line in enumerate(lines) if line.startswith(prefix)]
        if not at:
            continue
        lines = lines[:at[0]] + rows + [line for line in lines[at[0]:] if not line.startswith(prefix)]
    # one note per set of parts, as a paragraph of its own after the first
    # one (which describes the original run)
    same_parts = note.split(" on ")[0]
    for i, line in enumerate(lines):
        if line.startswith(NOTE_START) and line.split(" on ")[0] == same_parts:
            del lines[i:i + 2]
            break
    after_intro = lines.index("", lines.index("") + 1) + 1
    lines[after_intro:after_intro] = [note.rstrip("\n"), ""]
    return "\n".join(lines)


def update_json(path: Path, header: dict, results: dict) -> None:
    data = json.loads(path.read_text())
    for part, value in results.items():
        data[part] = _plain(value)
    rerun = {k: header[k] for k in ("generated_at", "load_average_at_start", "load_average_at_end", "wall_clock_s",
                                    "upstream")}
    rerun["parts"] = sorted(results)
    data["header"]["reruns"] = [r for r in data["header"].get("reruns", []) if r["parts"] != rerun["parts"]] + [rerun]
    data["header"]["upstream"].update(header["upstream"])
    path.write_text(json.dumps(data, indent=1) + "\n")
