"""A release model: the named behaviours of one implementation release that
differ from the contract, each a change to the reference's seams
(reference_impl/<component>/seams.py). The reference run under a model's
behaviours answers as that release does for the inputs the behaviour concerns,
which is how a generated input is recognised as a known difference."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from reference_impl import dispatch


@dataclass(frozen=True)
class Behaviour:
    name: str
    summary: str                      # what the release does, in one sentence
    changes: Mapping[str, Any]        # seam field -> the release's rule


@dataclass(frozen=True)
class ReleaseModel:
    implementation: str
    version: str
    component: str
    contract: Any                     # the component's seams with the contract's rules
    behaviours: Mapping[str, Behaviour]

    def seams(self, names: Iterable[str]) -> Any:
        """The contract's seams with the named behaviours in place; an unknown
        name is a KeyError naming it."""
        changes: dict[str, Any] = {}
        for name in names:
            if name not in self.behaviours:
                raise KeyError(f"{self.implementation} {self.version} has no behaviour {name!r}")
            changes.update(self.behaviours[name].changes)
        return dataclasses.replace(self.contract, **changes)

    def run(self, operation: str, data: Mapping[str, Any], names: Iterable[str]) -> dict[str, Any]:
        return dispatch.run(self.component, operation, data, seams=self.seams(names))


def behaviours(*items: Behaviour) -> dict[str, Behaviour]:
    return {b.name: b for b in items}
