"""Kueue feature gates that TAS depends on, with their defaults per Kueue version
(upstream `pkg/features/kube_features.go`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from reference_impl.errors import InvalidInput

DEFAULT_VERSION = "0.19"
MIN_VERSION = (0, 9)
MAX_VERSION = (0, 20)

TAS = "TopologyAwareScheduling"
PROFILE_MIXED = "TASProfileMixed"
BALANCED = "TASBalancedPlacement"
MULTI_LAYER = "TASMultiLayerTopology"
FAILED_NODE_REPLACEMENT = "TASFailedNodeReplacement"
FAIL_FAST = "TASFailedNodeReplacementFailFast"
REPLACE_ON_POD_TERMINATION = "TASReplaceNodeOnPodTermination"
FIXED_TIME = "TASReplaceNodeDueToNotReadyOverFixedTime"
NODE_TAINTS = "TASReplaceNodeOnNodeTaints"
SKIP_POD_OWNED = "SkipReassignmentForPodOwnedWorkloads"
PREFERRED_AFFINITY = "TASRespectNodeAffinityPreferred"
ELASTIC_JOBS = "ElasticJobsViaWorkloadSlices"
ELASTIC_JOBS_TAS = "ElasticJobsViaWorkloadSlicesWithTAS"

# gate -> [(from version, default)], the last entry not above the version wins.
_SPECS: dict[str, list[tuple[tuple[int, int], bool]]] = {
    TAS: [((0, 9), False), ((0, 14), True)],
    PROFILE_MIXED: [((0, 10), False), ((0, 15), True)],
    BALANCED: [((0, 15), False)],
    MULTI_LAYER: [((0, 17), False), ((0, 19), True)],
    FAILED_NODE_REPLACEMENT: [((0, 12), False), ((0, 14), True)],
    FAIL_FAST: [((0, 13), False), ((0, 14), True)],
    REPLACE_ON_POD_TERMINATION: [((0, 13), False), ((0, 14), True)],
    FIXED_TIME: [((0, 17), True), ((0, 19), False)],
    NODE_TAINTS: [((0, 17), True)],
    SKIP_POD_OWNED: [((0, 19), True)],
    PREFERRED_AFFINITY: [((0, 18), False)],
    ELASTIC_JOBS: [((0, 13), False), ((0, 18), True)],
    ELASTIC_JOBS_TAS: [((0, 17), False)],
}

# Behaviour that was built in before its gate existed.
_BUILT_IN_BEFORE_GATE = {FIXED_TIME: True}

GATES = tuple(_SPECS)


def introduced_in(gate: str) -> tuple[int, int]:
    """The first Kueue version (major, minor) that knows the gate."""
    return _SPECS[gate][0][0]


class UnknownGate(Exception):
    def __init__(self, name: str, version: str):
        super().__init__(name)
        self.name = name
        self.version = version


def parse_version(value) -> tuple[int, int]:
    if value is None:
        value = DEFAULT_VERSION
    if not isinstance(value, str):
        raise InvalidInput("kueueVersion", f"must be a string like \"0.19\", got {value!r}")
    match = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.\d+)?", value.strip())
    if not match:
        raise InvalidInput("kueueVersion", f"not a version: {value!r}")
    version = (int(match.group(1)), int(match.group(2)))
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise InvalidInput("kueueVersion", f"{value!r} is outside the supported range 0.9 to 0.20")
    return version


def default(gate: str, version: tuple[int, int]) -> bool | None:
    """The gate's default in `version`, or None when the gate does not exist yet."""
    result = None
    for since, value in _SPECS[gate]:
        if version >= since:
            result = value
    return result


@dataclass(frozen=True)
class Gates:
    version: tuple[int, int]
    values: Mapping[str, bool]

    def enabled(self, gate: str) -> bool:
        return self.values[gate]


def resolve(input_: Mapping) -> Gates:
    """Effective gates; raises UnknownGate for a gate the version does not know."""
    version = parse_version(input_.get("kueueVersion"))
    label = f"{version[0]}.{version[1]}"
    given = input_.get("featureGates") or {}
    if not isinstance(given, Mapping):
        raise InvalidInput("featureGates", "must be a mapping of gate name to bool")
    values: dict[str, bool] = {}
    for gate in GATES:
        existing = default(gate, version)
        values[gate] = existing if existing is not None else _BUILT_IN_BEFORE_GATE.get(gate, False)
    for name, value in given.items():
        if not isinstance(value, bool):
            raise InvalidInput(f"featureGates.{name}", "must be a bool")
        if name not in _SPECS or default(name, version) is None:
            raise UnknownGate(str(name), label)
        values[name] = value
    return Gates(version=version, values=values)
