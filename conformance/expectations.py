"""Per-implementation expectations: the outcomes a release is known to have.

An entry names a case id or an id glob, the kind of outcome, and why. A case whose
outcome is the expected kind becomes `xfail`; a case that passes despite an entry
becomes `xpass` (a failure under --strict); an entry that matches no case in the
corpus is stale, which is an error.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance import schemas, yamlload
from conformance.model import PASS, UNSUPPORTED, XFAIL, XPASS, Problem, Record

_DERIVED_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*\[[A-Za-z_][A-Za-z0-9_]*=[^*?\[]*\]$")


def is_glob(pattern: str) -> bool:
    # A matrix case's id ends in `[k=v,...]`, which a glob would read as a
    # character class; written out whole, it names that one case.
    if _DERIVED_ID.match(pattern):
        return False
    return any(ch in pattern for ch in "*?[")


def id_matches(pattern: str, case_id: str) -> bool:
    """A case id, or a glob over ids (`* ? [..]`; `[[]` is a literal bracket)."""
    return fnmatch.fnmatchcase(case_id, pattern) if is_glob(pattern) else case_id == pattern


@dataclass(frozen=True)
class Entry:
    match: str
    outcome: str
    reason: str
    line: int | None
    # how a generated input is recognised as this difference (conformance/fuzz/known.py)
    fuzz: tuple[Mapping[str, Any], ...] = ()
    # its row in the generated table of differences (conformance/differences.py)
    docs: Mapping[str, str] | None = None

    @property
    def is_glob(self) -> bool:
        return is_glob(self.match)

    def matches(self, case_id: str) -> bool:
        return id_matches(self.match, case_id)


@dataclass
class Expectations:
    file: str | None
    entries: list[Entry]
    implementation: str | None = None
    version: str | None = None

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
        doc = yamlload.load_file(path)
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
        Entry(item["match"], item["outcome"], item["reason"], yamlload.line_of(doc, ["entries", i]),
              tuple(item.get("fuzz") or ()), item.get("docs"))
        for i, item in enumerate(doc["entries"])
    ]
    return Expectations(rel, entries, doc["implementation"], doc.get("version")), []
