"""Release models: how a named implementation release answers where it differs
from the contract, as behaviours plugging into the reference's seams. The
expectations file of the release names them (an entry's `fuzz:` block) and
says why; a model states only the rule."""

from __future__ import annotations

from . import koordinator_v1_8, kueue_v0_17
from .model import Behaviour, ReleaseModel

MODELS: tuple[ReleaseModel, ...] = (koordinator_v1_8.MODEL, koordinator_v1_8.MODEL_MAIN_A7A1B76B, kueue_v0_17.MODEL)


def model_for(implementation: str, version: str) -> ReleaseModel | None:
    for model in MODELS:
        if (model.implementation, model.version) == (implementation, version):
            return model
    return None


__all__ = ["MODELS", "Behaviour", "ReleaseModel", "model_for"]
