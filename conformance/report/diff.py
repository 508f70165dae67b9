"""`topoconf diff OLD NEW`: what changed between two runs, as Markdown."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from conformance.model import PASS


def _implementation(document: dict[str, Any]) -> str:
    implementation = document["header"]["implementation"]["implementation"]
    return f"{implementation['name']} {implementation['version']}"


def render(old: dict[str, Any], new: dict[str, Any]) -> str:
    before = {r["id"]: r["outcome"] for r in old["records"]}
    after = {r["id"]: r["outcome"] for r in new["records"]}
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    common = sorted(set(before) & set(after))
    fixed = [i for i in common if before[i] != PASS and after[i] == PASS]
    regressed = [i for i in common if before[i] == PASS and after[i] != PASS]
    changed = [i for i in common if before[i] != after[i] and i not in fixed and i not in regressed]
    lines = [f"# {_implementation(old)} -> {_implementation(new)}", ""]
    summary = [["new passes", len(fixed)], ["regressions", len(regressed)], ["other changes", len(changed)],
               ["added cases", len(added)], ["removed cases", len(removed)]]
    lines += [tabulate(summary, headers=["", "cases"], tablefmt="github"), ""]
    for title, ids in (("Regressions", regressed), ("New passes", fixed), ("Other changes", changed)):
        if ids:
            rows = [[f"`{i}`", before[i], after[i]] for i in ids]
            lines += [f"## {title}", "", tabulate(rows, headers=["case", "before", "after"], tablefmt="github"), ""]
    for title, ids, source in (("Added cases", added, after), ("Removed cases", removed, before)):
        if ids:
            rows = [[f"`{i}`", source[i]] for i in ids]
            lines += [f"## {title}", "", tabulate(rows, headers=["case", "outcome"], tablefmt="github"), ""]
    return "\n".join(lines).rstrip() + "\n"


def has_regressions(old: dict[str, Any], new: dict[str, Any]) -> bool:
    before = {r["id"]: r["outcome"] for r in old["records"]}
    return any(before.get(r["id"]) == PASS and r["outcome"] != PASS for r in new["records"])
