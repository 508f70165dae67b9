"""The corpus: fixture files, building blocks, defaults and matrices loaded into
cases, and every check `topoconf validate` reports.

Loading never stops at the first problem: each problem is recorded with its file,
line, case id, JSON pointer and rule, and every case that is sound is still loaded.

| module | what it is |
| --- | --- |
| files | which files make up a corpus, its hash, the ids a file writes |
| extra | folders of a user's own fixtures layered over the bundled corpus |
| blocks | `{$block: NAME}` resolution |
| matrix | parameter matrices and `{{param}}` substitution |
| budget | how far one file may expand (values built, cases made) |
| loader | reading files and cases, running the checks |
| cache | the loaded whole corpus kept in the user's cache folder, keyed by its files and the harness |
| records | `Corpus`, `BrokenCase` |
| checks/ | one module per validation rule |
| problem_report | problems grouped per base case, in file and line order |
"""

from conformance.corpus.blocks import deep_merge
from conformance.corpus.files import corpus_hash, fixture_files
from conformance.corpus.loader import COMPONENTS, load
from conformance.corpus.matrix import ROW_FEATURES, substitute
from conformance.corpus.records import BrokenCase, Corpus
from conformance.model import Problem

__all__ = ["COMPONENTS", "ROW_FEATURES", "BrokenCase", "Corpus", "Problem", "corpus_hash", "deep_merge", "fixture_files",
           "load", "substitute"]
