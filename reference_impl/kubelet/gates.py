"""Feature gates and option maturity per Kubernetes minor version.

Only the gates the Topology Manager consults are modelled; other gate names
in a configuration are accepted and ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import InvalidInput

DEFAULT_VERSION = "1.38"
OLDEST_MINOR = 26  # the policy options framework (KEP-3545) begins here

POLICY_OPTIONS = "TopologyManagerPolicyOptions"
BETA_OPTIONS = "TopologyManagerPolicyBetaOptions"
ALPHA_OPTIONS = "TopologyManagerPolicyAlphaOptions"
# pod-level resources through the Topology Manager's scopes: alpha in 1.36,
# beta (still off by default) from 1.37; unknown, and ignored, before 1.36
POD_LEVEL_RESOURCE_MANAGERS = "PodLevelResourceManagers"
POD_LEVEL_RESOURCE_MANAGERS_SINCE = 36

# gate -> [(first minor, default, locked)], later rows override earlier ones.
_GATE_HISTORY: dict[str, list[tuple[int, bool, bool]]] = {
    POLICY_OPTIONS: [(26, False, False), (28, True, False), (32, True, True)],
    BETA_OPTIONS: [(26, False, False), (28, True, False)],
    ALPHA_OPTIONS: [(26, False, False)],
}

ALPHA, BETA, GA = "alpha", "beta", "ga"

PREFER_CLOSEST = "prefer-closest-numa-nodes"
MAX_ALLOWABLE = "max-allowable-numa-nodes"
STRATEGY = "numa-allocation-strategy"
WEIGHTS = "numa-score-weights"

# option -> [(first minor, maturity)]
_OPTION_HISTORY: dict[str, list[tuple[int, str]]] = {
    PREFER_CLOSEST: [(26, ALPHA), (28, BETA), (32, GA)],
    MAX_ALLOWABLE: [(31, BETA), (35, GA)],
    STRATEGY: [(38, ALPHA)],
    WEIGHTS: [(38, ALPHA)],
}


def parse_minor(version: object) -> int:
    if not isinstance(version, str):
        raise InvalidInput("kubernetesVersion", f'must be a string "1.N", got {version!r}')
    parts = version.strip().lstrip("v").split(".")
    if len(parts) < 2 or parts[0] != "1" or not parts[1].isdigit():
        raise InvalidInput("kubernetesVersion", f'must look like "1.N", got {version!r}')
    minor = int(parts[1])
    if minor < OLDEST_MINOR:
        raise InvalidInput("kubernetesVersion", f"versions before 1.{OLDEST_MINOR} are not modelled, got {version!r}")
    return minor


def _row(history, minor):
    found = None
    for row in history:
        if row[0] <= minor:
            found = row
    return found


def gate_default(gate: str, minor: int) -> bool:
    return _row(_GATE_HISTORY[gate], minor)[1]


def gate_locked(gate: str, minor: int) -> bool:
    return _row(_GATE_HISTORY[gate], minor)[2]


def option_maturity(option: str, minor: int) -> str | None:
    """alpha / beta / ga, or None when the version does not know the option."""
    history = _OPTION_HISTORY.get(option)
    if history is None:
        return None
    row = _row(history, minor)
    return row[1] if row else None


@dataclass(frozen=True)
class Gates:
    minor: int
    policy_options: bool
    beta_options: bool
    alpha_options: bool
    # (gate, value) for an attempt to set a locked gate away from its default
    locked_violation: tuple[str, bool] | None = None
    pod_level_resource_managers: bool = False


def resolve(version: object, gates: Mapping[str, object] | None) -> Gates:
    minor = parse_minor(version if version is not None else DEFAULT_VERSION)
    given = dict(gates or {})
    for name, value in given.items():
        if not isinstance(value, bool):
            raise InvalidInput(f"featureGates/{name}", f"must be a boolean, got {value!r}")
    values = {}
    violation = None
    for gate in _GATE_HISTORY:
        default = gate_default(gate, minor)
        value = given.get(gate, default)
        if value != default and gate_locked(gate, minor) and violation is None:
            violation = (gate, value)
            value = default
        values[gate] = value
    pod_level = minor >= POD_LEVEL_RESOURCE_MANAGERS_SINCE and given.get(POD_LEVEL_RESOURCE_MANAGERS, False)
    return Gates(minor, values[POLICY_OPTIONS], values[BETA_OPTIONS], values[ALPHA_OPTIONS], violation, pod_level)
