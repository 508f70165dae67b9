"""What loading a corpus gives: the cases, the cases that could not be loaded,
and every problem found."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from conformance.corpus.extra import ExtraCorpus
from conformance.corpus.files import corpus_hash
from conformance.model import Case, Problem


@dataclass
class BrokenCase:
    """A case that could not be loaded; a run reports it as an error."""

    id: str
    component: str
    file: str
    problems: list[Problem]
    line: int | None = None


@dataclass
class Corpus:
    root: Path
    cases: list[Case] = field(default_factory=list)
    broken: list[BrokenCase] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    features: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    # User folders layered over root (see conformance/corpus/extra.py).
    extra: tuple[ExtraCorpus, ...] = ()

    @cached_property
    def by_id(self) -> dict[str, Case]:
        return {case.id: case for case in self.cases}

    @cached_property
    def all_ids(self) -> set[str]:
        return set(self.by_id) | {b.id for b in self.broken}

    def hash(self) -> str:
        return corpus_hash(self.root, [e.path for e in self.extra])

    def unattributed_problems(self) -> list[Problem]:
        """Problems no broken case stands for: a file, a vocabulary or an id that
        cannot be loaded, so a run could not report the cases it loses."""
        attributed = {p for b in self.broken for p in b.problems}
        return [p for p in self.problems if p not in attributed]
