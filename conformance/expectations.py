"""Per-implementation expectations: the outcomes a release is known to have.

An entry names a case id or an id glob, the kind of outcome, and why. A case whose
outcome is the expected kind becomes `xfail`; a case that passes despite an entry
becomes `xpass` (a failure under --strict); an entry that matches no case in the
corpus is stale, which is an error.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

from conformance import schemas, yamlload
from conformance.model import PASS, UNSUPPORTED, XFAIL, XPASS, Problem, Record


@dataclass(frozen=True)
class Entry:
    match: str
    outcome: str
    reason: str
    line: int | None

    @property
    def is_glob(self) -> bool:
        return any(ch in self.match for ch in "*?[")

    def matches(self, case_id: str) -> bool:
        return fnmatch.fnmatchcase(case_id, self.match) if self.is_glob else case_id == self.match


@dataclass
class Expectations:
    file: str | None
    entries: list[Entry]

    def entry_for(self, case_id: str) -> Entry | None:
        # An exact id beats any glob; among globs the first written wins.
        for entry in self.entries:
            if not entry.is_glob and entry.match == case_id:
                return entry
        for entry in self.entries:
            if entry.is_glob and entry.matches(case_id):
                return entry
        return None

    def stale(self, all_ids: set[str]) -> list[Problem]:
        found = []
        for entry in self.entries:
            if not any(entry.matches(case_id) for case_id in all_ids):
                found.append(Problem(self.file or "<expectations>", entry.line, None, "/entries", "stale-entry",
                                     f"entry {entry.match!r} matches no case in the corpus"))
        return found

    def apply(self, record: Record) -> Record:
        entry = self.entry_for(record.id)
        if entry is None:
            return record
        record.expected_outcome = entry.outcome
        record.expectation_reason = entry.reason
        if record.outcome == entry.outcome and entry.outcome != UNSUPPORTED:
            record.outcome = XFAIL
        elif record.outcome == PASS:
            record.outcome = XPASS
        return record


NONE = Expectations(None, [])


def load(path: Path) -> tuple[Expectations, list[Problem]]:
    rel = str(path)
    try:
        doc = yamlload.load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        return NONE, [Problem(rel, None, None, "", "read", str(exc))]
    except yamlload.YAMLError as exc:
        return NONE, [Problem(rel, exc.line, None, "", "yaml", exc.message)]
    problems = [
        Problem(rel, yamlload.line_of(doc, p), None, schemas.path_pointer(p), rule, message)
        for p, rule, message in schemas.errors("expectations.schema.json", doc)
    ]
    if problems:
        return NONE, problems
    entries = [
        Entry(item["match"], item["outcome"], item["reason"], yamlload.line_of(doc, ["entries", i]))
        for i, item in enumerate(doc["entries"])
    ]
    return Expectations(rel, entries), []
