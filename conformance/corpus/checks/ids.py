"""Case ids are unique across the whole corpus and its extra folders: as written,
and as a matrix derives them for its rows."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from conformance.corpus.files import written_ids
from conformance.model import Case, Problem

RULE = "duplicate-id"

Written = tuple[str, str, int | None]    # (id, file, line)


def _place(file: str, line: int | None) -> str:
    return f"{file}:{line}" if line else file


def reused(written: list[Written]) -> list[Problem]:
    """An id written a second time, pointing at its first use."""
    first: dict[str, tuple[str, int | None]] = {}
    found = []
    for case_id, file, line in written:
        if case_id in first:
            found.append(Problem(file, line, case_id, "/id", RULE,
                                 f"id {case_id!r} is already used in {_place(*first[case_id])}"))
        else:
            first[case_id] = (file, line)
    return found


def used_elsewhere(written: list[Written], others: Iterable[Path], rel_of: Callable[[Path], str]) -> list[Problem]:
    """An id of the files loaded that one of the other files (not loaded) also
    writes."""
    mine: dict[str, tuple[str, int | None]] = {}
    for case_id, file, line in written:
        mine.setdefault(case_id, (file, line))
    found = []
    for path in others:
        for case_id, line in written_ids(path):
            if case_id in mine:
                file, own_line = mine[case_id]
                found.append(Problem(file, own_line, case_id, "/id", RULE,
                                     f"id {case_id!r} is already used in {_place(rel_of(path), line)}"))
    return found


def one_record_each(cases: list[Case], broken: list) -> tuple[list[Case], list, list[Problem]]:
    """The cases and broken cases with each id once. An id written twice is
    reported by `reused`; what is left is a matrix deriving the same row twice."""
    seen: dict[str, object] = {}
    unique: list[Case] = []
    unique_broken: list = []
    found = []
    for record in [*cases, *broken]:
        first = seen.get(record.id)
        if first is None:
            seen[record.id] = record
            (unique if isinstance(record, Case) else unique_broken).append(record)
        elif (first.file, first.line) == (record.file, record.line):
            found.append(Problem(record.file, record.line or None, record.id, "/id", RULE,
                                 f"the matrix gives the id {record.id!r} to two rows"))
    return unique, unique_broken, found
