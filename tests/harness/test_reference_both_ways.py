"""The reference gives the same outcome for every case of the real corpus
in-process and behind the subprocess protocol."""

import sys

from conformance import corpus as corpus_mod
from conformance.adapters import Limits, from_spec
from conformance.runner import run


def outcomes(corpus, spec):
    adapter = from_spec(spec, Limits(case_timeout=60))
    hello = adapter.start()
    try:
        result = run(corpus.cases, corpus.broken, adapter, hello)
    finally:
        adapter.close()
    return {r.id: (r.outcome, r.diff) for r in result.records}


def test_in_process_and_exec_agree_on_every_case():
    corpus = corpus_mod.load()
    inprocess = outcomes(corpus, "reference")
    subprocess = outcomes(corpus, f"exec:{sys.executable} -m reference_impl")
    assert len(inprocess) == len(corpus.cases) + len(corpus.broken) > 0
    assert inprocess == subprocess
