"""The static CPU policy's options (`cpuManagerPolicyOptions`): which names a
version knows, their maturity and gates, and their values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import InvalidInput
from ..refusal import Refusal
from .options import parse_go_bool
from .refusals import go_quote

FULL_PCPUS_ONLY = "full-pcpus-only"
DISTRIBUTE_ACROSS_NUMA = "distribute-cpus-across-numa"
ALIGN_BY_SOCKET = "align-by-socket"
DISTRIBUTE_ACROSS_CORES = "distribute-cpus-across-cores"
STRICT_RESERVATION = "strict-cpu-reservation"
ALIGN_BY_UNCORE_CACHE = "prefer-align-cpus-by-uncorecache"

ALPHA_GATE = "CPUManagerPolicyAlphaOptions"     # off by default
BETA_GATE = "CPUManagerPolicyBetaOptions"       # on by default

# the oldest release whose option table the contract states
OLDEST_MINOR = 34

# option -> [(first minor, maturity)], later rows override earlier ones
_MATURITY: dict[str, list[tuple[int, str]]] = {
    FULL_PCPUS_ONLY: [(34, "ga")],
    DISTRIBUTE_ACROSS_NUMA: [(34, "beta")],
    ALIGN_BY_SOCKET: [(34, "alpha")],
    DISTRIBUTE_ACROSS_CORES: [(34, "alpha")],
    STRICT_RESERVATION: [(34, "beta"), (35, "ga")],
    ALIGN_BY_UNCORE_CACHE: [(34, "beta"), (36, "ga")],
}

# the options whose effect the contract models; the others may be given as
# false only
MODELLED = (FULL_PCPUS_ONLY, DISTRIBUTE_ACROSS_NUMA, ALIGN_BY_SOCKET)

UNKNOWN = "UnknownCPUManagerPolicyOption"
NOT_AVAILABLE = "CPUManagerPolicyOptionNotAvailable"
INVALID_VALUE = "InvalidCPUManagerPolicyOptionValue"
INCOMPATIBLE = "IncompatibleCPUManagerPolicyOption"


@dataclass(frozen=True)
class CPUPolicyOptions:
    full_pcpus_only: bool = False
    distribute_across_numa: bool = False
    align_by_socket: bool = False


def maturity(option: str, minor: int) -> str | None:
    found = None
    for first, level in _MATURITY.get(option, []):
        if first <= minor:
            found = level
    return found


def parse_cpu_policy_options(raw: object, minor: int, gates: Mapping[str, object]) -> CPUPolicyOptions:
    """Raises Refusal for what the kubelet refuses to start with (the CPU
    manager is built after the Topology Manager, so those refusals win)."""
    if raw is None:
        return CPUPolicyOptions()
    if not isinstance(raw, Mapping) or not all(isinstance(v, str) for v in raw.values()):
        raise InvalidInput("kubeletConfiguration/cpuManagerPolicyOptions", "a map of option name to string value")
    if raw and minor < OLDEST_MINOR:
        raise InvalidInput("kubeletConfiguration/cpuManagerPolicyOptions",
                           f"CPU manager options are modelled from 1.{OLDEST_MINOR}")
    alpha = gates.get(ALPHA_GATE, False) is True
    beta = gates.get(BETA_GATE, True) is not False
    values: dict[str, bool] = {}
    for name, value in raw.items():
        level = maturity(name, minor)
        if level is None:
            raise Refusal(UNKNOWN, f"unknown CPU Manager Policy option: {go_quote(name)}")
        if level == "alpha" and not alpha:
            raise Refusal(NOT_AVAILABLE, f"CPU Manager Policy Alpha-level Options not enabled, but option {go_quote(name)} provided")
        if level == "beta" and not beta:
            raise Refusal(NOT_AVAILABLE, f"CPU Manager Policy Beta-level Options not enabled, but option {go_quote(name)} provided")
        parsed = parse_go_bool(value)
        if parsed is None:
            raise Refusal(INVALID_VALUE, f"bad value for option {go_quote(name)}: strconv.ParseBool: parsing {go_quote(value)}: invalid syntax")
        values[name] = parsed
    for name, on in values.items():
        if on and name not in MODELLED:
            raise InvalidInput(f"kubeletConfiguration/cpuManagerPolicyOptions/{name}",
                               "the contract does not model this option's effect; only false is accepted")
    opts = CPUPolicyOptions(full_pcpus_only=values.get(FULL_PCPUS_ONLY, False),
                            distribute_across_numa=values.get(DISTRIBUTE_ACROSS_NUMA, False),
                            align_by_socket=values.get(ALIGN_BY_SOCKET, False))
    if opts.align_by_socket and opts.distribute_across_numa:
        raise InvalidInput("kubeletConfiguration/cpuManagerPolicyOptions",
                           "align-by-socket together with distribute-cpus-across-numa is not modelled")
    return opts


def check_against_machine(opts: CPUPolicyOptions, topology_policy: str) -> None:
    """What the static policy checks of its options against the Topology
    Manager's policy once both exist. (Its other check, more sockets than
    NUMA nodes, cannot arise: the contract puts each NUMA node in one socket.)"""
    if opts.align_by_socket and topology_policy == "single-numa-node":
        # the kubelet's wording, spelling included
        raise Refusal(INCOMPATIBLE, "Topolgy manager single-numa-node policy is incompatible with "
                                    "CPUManager align-by-socket policy option")
