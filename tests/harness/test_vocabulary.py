"""The reference declares exactly the vocabulary of every component it serves,
and every feature of the vocabulary is exercised by at least one case."""

import pytest

from conformance import corpus as corpus_mod
from reference_impl import dispatch

CORPUS = corpus_mod.load()


@pytest.mark.parametrize("component", dispatch.available_components())
def test_reference_features_equal_the_vocabulary(component):
    vocabulary = {name for name, info in CORPUS.features.items() if info["component"] == component}
    declared = {f for f in dispatch.features() if f.startswith(component + ".")}
    assert declared == vocabulary


@pytest.mark.parametrize("component", dispatch.available_components())
def test_every_feature_has_cases(component):
    used = {f for case in CORPUS.cases for f in case.features}
    unused = sorted(name for name, info in CORPUS.features.items() if info["component"] == component and name not in used)
    assert unused == []
