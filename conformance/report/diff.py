"""`topoconf diff OLD NEW`: what changed between two runs, as Markdown.

The question a release manager asks is "does the new build pass everything the
old one passed?". A regression is a case that passed (pass, or xpass) in the old
run and now fails in any way (fail, error, crash, timeout, malformed, bad-seq,
invalid-result, or xfail: an expectations entry explains a failure, it does not
undo it). A case that passed and is now unsupported, skipped or not run is no
longer checked: listed, not a regression.

Cases present in only one run are told apart by why: the other run's selection
left them out, or the corpus gained or lost them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabulate import tabulate

from conformance import schemas
from conformance.model import BAD_SEQ, CRASH, ERROR, FAIL, INVALID_RESULT, MALFORMED, PASS, TIMEOUT, XFAIL, XPASS
from conformance.runner import Selection

PASSING = (PASS, XPASS)
FAILING = (FAIL, ERROR, CRASH, TIMEOUT, MALFORMED, BAD_SEQ, INVALID_RESULT, XFAIL)


class NotAReport(ValueError):
    """An argument of `topoconf diff` that is not a run's report; one line."""


def load(argument: str | Path) -> dict[str, Any]:
    """A run's report from a results.json file or a report folder holding one."""
    path = Path(argument)
    if path.is_dir():
        if not (path / "results.json").is_file():
            raise NotAReport(f"{path}: a folder without results.json (give a report folder or its results.json)")
        path = path / "results.json"
    elif not path.exists():
        raise NotAReport(f"{path}: no such file or folder")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise NotAReport(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        hint = " (compliance.md is a view; compare the results.json beside it)" if path.suffix == ".md" else ""
        raise NotAReport(f"{path}: not a results.json report: not JSON{hint}") from None
    except ValueError as exc:
        raise NotAReport(f"{path}: not a results.json report: {exc}") from None
    try:
        problems = schemas.errors("report.schema.json", document)
    except RecursionError:
        problems = [([], "depth", "nested too deep")]
    if problems:
        where, _rule, message = problems[0]
        detail = f"{schemas.path_pointer(where) or '/'}: {message}"
        # A schema message can quote a whole value; the answer stays one short line.
        detail = detail.splitlines()[0] if detail else ""
        raise NotAReport(f"{path}: not a results.json report (at {detail[:200]})")
    return document


@dataclass
class Changes:
    old_name: str
    new_name: str
    notes: list[str] = field(default_factory=list)
    regressions: list[str] = field(default_factory=list)
    new_passes: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    outside_new_selection: list[str] = field(default_factory=list)
    outside_old_selection: list[str] = field(default_factory=list)
    before: dict[str, str] = field(default_factory=dict)
    after: dict[str, str] = field(default_factory=dict)


def _implementation(document: dict[str, Any]) -> str:
    implementation = document["header"]["implementation"]["implementation"]
    return f"{implementation['name']} {implementation['version']}"


def _selection(document: dict[str, Any]) -> Selection:
    described = document["header"].get("selection") or {}
    return Selection(**{k: tuple(v) for k, v in described.items() if k in Selection.__dataclass_fields__})


def _describe(selection: Selection) -> str:
    parts = [f"{k.replace('_', '-')}: {', '.join(v)}" for k, v in selection.describe().items()]
    return "; ".join(parts) if parts else "the whole corpus"


def compare(old: dict[str, Any], new: dict[str, Any]) -> Changes:
    changes = Changes(_implementation(old), _implementation(new))
    records_old = {r["id"]: r for r in old["records"]}
    records_new = {r["id"]: r for r in new["records"]}
    changes.before = {i: r["outcome"] for i, r in records_old.items()}
    changes.after = {i: r["outcome"] for i, r in records_new.items()}
    before, after = changes.before, changes.after

    corpus_old, corpus_new = old["header"]["suite"]["corpus"], new["header"]["suite"]["corpus"]
    same_corpus = corpus_old == corpus_new
    if not same_corpus:
        changes.notes.append(f"The corpus differs between the runs ({corpus_old} -> {corpus_new}): "
                             "added and removed cases come from that change.")
    select_old, select_new = _selection(old), _selection(new)
    if select_old != select_new:
        changes.notes.append(f"The selection differs: old run {_describe(select_old)}; new run "
                             f"{_describe(select_new)}. Cases only one selection takes are listed apart, "
                             "not as added or removed.")
    for flag, document in (("old", old), ("new", new)):
        if not document["footer"].get("complete", True):
            changes.notes.append(f"The {flag} run is incomplete: some cases were not run.")

    for case_id in sorted(set(before) & set(after)):
        was, now = before[case_id], after[case_id]
        if was == now:
            continue
        if was in PASSING and now in FAILING:
            changes.regressions.append(case_id)
        elif now in PASSING and was not in PASSING:
            changes.new_passes.append(case_id)
        elif was in PASSING:
            changes.unchecked.append(case_id)
        else:
            changes.other.append(case_id)

    def wanted(selection: Selection, record: dict[str, Any]) -> bool:
        return selection.wants(record["id"], record["component"], record.get("features", ()))

    for case_id in sorted(set(after) - set(before)):
        bucket = changes.added if wanted(select_old, records_new[case_id]) else changes.outside_old_selection
        bucket.append(case_id)
    for case_id in sorted(set(before) - set(after)):
        bucket = changes.removed if wanted(select_new, records_old[case_id]) else changes.outside_new_selection
        bucket.append(case_id)
    if same_corpus and (changes.added or changes.removed):
        changes.notes.append("The corpus is the same, yet some cases its selection takes appear in only one run "
                             "(listed as added or removed).")
    return changes


def render(old: dict[str, Any], new: dict[str, Any]) -> str:
    return render_changes(compare(old, new))


def render_changes(changes: Changes) -> str:
    before, after = changes.before, changes.after
    lines = [f"# {changes.old_name} -> {changes.new_name}", ""]
    if changes.notes:
        lines += [f"- {note}" for note in changes.notes] + [""]
    summary = [
        ["regressions (passed, now fail)", len(changes.regressions)],
        ["new passes", len(changes.new_passes)],
        ["no longer checked (passed, now unsupported, skipped or not run)", len(changes.unchecked)],
        ["other changes", len(changes.other)],
        ["added cases", len(changes.added)],
        ["removed cases", len(changes.removed)],
        ["only in the old run (outside the new run's selection)", len(changes.outside_new_selection)],
        ["only in the new run (outside the old run's selection)", len(changes.outside_old_selection)],
    ]
    lines += [tabulate(summary, headers=["", "cases"], tablefmt="github"), ""]
    for title, ids in (("Regressions", changes.regressions), ("New passes", changes.new_passes),
                       ("No longer checked", changes.unchecked), ("Other changes", changes.other)):
        if ids:
            rows = [[f"`{i}`", before[i], after[i]] for i in ids]
            lines += [f"## {title}", "", tabulate(rows, headers=["case", "before", "after"], tablefmt="github"), ""]
    for title, ids, source in (
        ("Added cases", changes.added, after),
        ("Removed cases", changes.removed, before),
        ("Only in the old run (outside the new run's selection)", changes.outside_new_selection, before),
        ("Only in the new run (outside the old run's selection)", changes.outside_old_selection, after),
    ):
        if ids:
            rows = [[f"`{i}`", source[i]] for i in ids]
            lines += [f"## {title}", "", tabulate(rows, headers=["case", "outcome"], tablefmt="github"), ""]
    return "\n".join(lines).rstrip() + "\n"


def has_regressions(old: dict[str, Any], new: dict[str, Any]) -> bool:
    return bool(compare(old, new).regressions)
