"""Kubelet start-up as far as the Topology Manager goes: configuration
validation, policy options, NUMA discovery, the NUMA node limit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import InvalidInput
from ..refusal import Refusal
from . import gates as g
from . import refusals as r
from .discovery import Machine
from .options import PolicyOptions, parse_policy_options, scoring_active
from .policies import FULL, NONE, POLICIES, Policy
from .scopes import CONTAINER, POD, SCOPES


@dataclass(frozen=True)
class Started:
    policy: Policy
    scope: str
    gates: g.Gates
    # what NUMA discovery read (docs/operations/kubelet.md, start); None under
    # policy none, which reads no NUMA information
    discovered: dict | None = None

    def as_dict(self) -> dict:
        return {
            "started": True,
            "policy": self.policy.name,
            "scope": self.scope,
            "options": self.policy.options.as_dict(self.policy.scoring_active),
            "numa": self.discovered,
        }


def numa_from(raw: object, field: str = "numa") -> tuple[list[int], list[list[int]] | None]:
    if not isinstance(raw, Mapping):
        raise InvalidInput(field, "must be {nodes: [...], distances: [[...]]}")
    nodes = raw.get("nodes")
    if not isinstance(nodes, list) or not nodes or not all(
        isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 63 for n in nodes
    ):
        raise InvalidInput(f"{field}/nodes", "a non-empty list of NUMA node ids 0-63")
    if len(set(nodes)) != len(nodes):
        raise InvalidInput(f"{field}/nodes", "NUMA node ids must be unique")
    distances = raw.get("distances")
    if distances is not None:
        if not isinstance(distances, list) or len(distances) != len(nodes) or not all(
            isinstance(row, list) and len(row) == len(nodes) and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in row)
            for row in distances
        ):
            raise InvalidInput(f"{field}/distances", "a square matrix of non-negative integers, one row per node")
    return nodes, distances


def check_numa(opts: PolicyOptions, nodes: Sequence[int], distances, missing: bool | None = None) -> None:
    """`missing` (whether some node reports no distances) defaults to
    `distances is None`."""
    if opts.prefer_closest and (distances is None if missing is None else missing):
        raise Refusal(
            r.MISSING_NUMA_DISTANCES,
            "cannot discover NUMA topology: error getting NUMA distances from cadvisor",
        )
    if len(nodes) > opts.max_allowable_numa_nodes:
        raise Refusal(
            r.TOO_MANY_NUMA_NODES,
            f"unsupported on machines with more than {opts.max_allowable_numa_nodes} NUMA Nodes",
        )


def effective_weights(opts: PolicyOptions, gates: g.Gates) -> Mapping[str, int]:
    return opts.weights if gates.alpha_options else {}


def _choice(config: Mapping, key: str, default: str, allowed, reason: str, message) -> str:
    """A configuration value from a fixed set, null meaning the default; any
    other value is refused with `message` of its Go-quoted spelling."""
    value = config.get(key, default)
    if value is None:
        value = default
    if value not in allowed:
        raise Refusal(reason, message(r.go_quote(str(value))))
    return value


def start(
    version: object,
    feature_gates: Mapping | None,
    config: Mapping | None,
    nodes: Sequence[int],
    distances: Sequence[Sequence[int]] | None,
    algorithm: str = FULL,
    machine: Machine | None = None,
) -> Started:
    """Raise Refusal when the kubelet would not start. `machine`, when given,
    is the machine information itself and replaces `nodes` and `distances`."""
    if machine is None:
        machine = Machine.from_numa(nodes, distances)
    nodes = machine.nodes
    gates = g.resolve(version, feature_gates)
    config = config or {}
    if not isinstance(config, Mapping):
        raise InvalidInput("kubeletConfiguration", "must be a mapping")
    if gates.locked_violation:
        gate, value = gates.locked_violation
        raise Refusal(
            r.FEATURE_GATE_LOCKED,
            f"cannot set feature gate {gate} to {str(value).lower()}, feature is locked to {str(not value).lower()}",
        )
    # the kubelet's configuration validation, word for word
    policy_name = _choice(config, "topologyManagerPolicy", NONE, POLICIES, r.UNKNOWN_POLICY,
                          lambda quoted: f"invalid configuration: topologyManagerPolicy (--topology-manager-policy) "
                          f"{quoted} must be one of: [{' '.join(r.go_quote(p) for p in POLICIES)}]")
    scope = _choice(config, "topologyManagerScope", CONTAINER, SCOPES, r.UNKNOWN_SCOPE,
                    lambda quoted: f"invalid configuration: topologyManagerScope (--topology-manager-scope) "
                    f'{quoted} must be one of: "{CONTAINER}", or "{POD}"')
    raw_options = config.get("topologyManagerPolicyOptions") or {}
    if not isinstance(raw_options, Mapping):
        raise InvalidInput("kubeletConfiguration/topologyManagerPolicyOptions", "must map option names to string values")
    if raw_options and not gates.policy_options:
        raise Refusal(
            r.POLICY_OPTIONS_NOT_ENABLED,
            f"invalid configuration: topologyManagerPolicyOptions requires feature gate {g.POLICY_OPTIONS} enabled",
        )
    if policy_name == NONE:
        opts = PolicyOptions()
        return Started(Policy(NONE, machine.numa_info(False), opts, False, {}, algorithm), scope, gates)
    opts = parse_policy_options(raw_options, gates)
    check_numa(opts, nodes, None, missing=machine.missing_distances)
    # distances are only read when prefer-closest asks for them
    numa = machine.numa_info(opts.prefer_closest)
    policy = Policy(policy_name, numa, opts, scoring_active(opts, gates), effective_weights(opts, gates), algorithm)
    return Started(policy, scope, gates, machine.discovered(opts.prefer_closest))
