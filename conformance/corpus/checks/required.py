"""What a case must say, in the case itself or in the file's defaults: its
operation, its source and at least one feature."""

from __future__ import annotations

from conformance.model import Problem

RULE = "required"


def problems(rel: str, line: int | None, case_id: str | None, index: int, merged: dict) -> list[Problem]:
    found = [Problem(rel, line, case_id, f"/cases/{index}", RULE, f"{key!r} is required (in the case or in defaults)")
             for key in ("operation", "source") if key not in merged]
    if not merged["features"]:
        found.append(Problem(rel, line, case_id, f"/cases/{index}", RULE,
                             "a case names at least one feature (in the case or in defaults)"))
    return found
