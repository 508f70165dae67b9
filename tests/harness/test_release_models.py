"""Release models: each behaviour names only seams the component has, and the
contract's seams are what the reference uses when given none."""

import dataclasses

import pytest

from conformance.releases import MODELS, model_for


@pytest.mark.parametrize("model", MODELS, ids=lambda m: f"{m.implementation}-{m.version}")
def test_every_behaviour_changes_seams_the_component_has(model):
    fields = {f.name for f in dataclasses.fields(model.contract)}
    for behaviour in model.behaviours.values():
        assert behaviour.changes and set(behaviour.changes) <= fields, behaviour.name
        assert model.seams([behaviour.name]) != model.contract, behaviour.name


def test_models_are_found_by_implementation_and_version():
    assert model_for("koordinator", "v1.8.0").component == "koordinator"
    assert model_for("kueue", "v0.17.0").component == "kueue"
    assert model_for("kubelet", "v1.37.2") is None
