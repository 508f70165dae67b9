"""The findings ledgers (docs/findings/) name cases the corpus has: an id, an id
glob (`*`), or a matrix base followed by `[...]` for any of its rows; one ledger
per release with an expectations file."""

import fnmatch
import re
from pathlib import Path

import pytest

from conformance import corpus as corpus_mod
from conformance.paths import expectations_dir

FINDINGS = Path(__file__).resolve().parents[2] / "docs" / "findings"
_CASE = re.compile(r"`((?:kubelet|koord|kueue)\.[^`\s]+)`")
_FILE = re.compile(r"`(fixtures/[^`\s]+)`")


@pytest.fixture(scope="module")
def corpus():
    return corpus_mod.load()


@pytest.fixture(scope="module")
def all_ids(corpus):
    return corpus.all_ids


def _named(reference: str, all_ids) -> bool:
    if reference in all_ids:
        return True
    pattern = re.sub(r"\[[^\]]*\.\.\.\]", "[[]*", reference)
    return any(fnmatch.fnmatchcase(case_id, pattern) for case_id in all_ids)


@pytest.mark.parametrize("ledger", sorted(FINDINGS.glob("*-*.md")), ids=lambda p: p.stem)
def test_every_case_a_ledger_names_is_in_the_corpus(ledger, all_ids, corpus):
    text = ledger.read_text(encoding="utf-8")
    # A feature name in backticks is no case reference.
    named = [name for name in _CASE.findall(text) if name not in corpus.features]
    assert named
    assert [r for r in named if not _named(r, all_ids)] == []
    root = FINDINGS.parents[1]
    assert [f for f in _FILE.findall(text) if not (root / f).exists()] == []


def test_every_release_with_expectations_has_a_ledger():
    releases = {p.stem for p in expectations_dir().glob("*.yaml")}
    assert releases <= {p.stem for p in FINDINGS.glob("*-*.md")}
