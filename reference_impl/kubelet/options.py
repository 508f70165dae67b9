"""Topology Manager policy options: availability per version and gate, value
parsing and validation, as the kubelet applies them at start-up."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..refusal import Refusal
from . import gates as g
from . import refusals as r
from .refusals import go_quote

STRATEGY_NONE = "none"
MOST_ALLOCATED = "most-allocated"
LEAST_ALLOCATED = "least-allocated"
STRATEGIES = (STRATEGY_NONE, MOST_ALLOCATED, LEAST_ALLOCATED)

DEFAULT_MAX_ALLOWABLE_NUMA_NODES = 8
MAX_WEIGHT = 100

_GO_INT = re.compile(r"[+-]?[0-9]+\Z")
_GO_BOOL_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_GO_BOOL_FALSE = {"0", "f", "F", "FALSE", "false", "False"}
_INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class PolicyOptions:
    prefer_closest: bool = False
    max_allowable_numa_nodes: int = DEFAULT_MAX_ALLOWABLE_NUMA_NODES
    strategy: str = STRATEGY_NONE
    weights: Mapping[str, int] = field(default_factory=dict)

    def as_dict(self, scoring_active: bool) -> dict:
        return {
            "preferClosestNUMA": self.prefer_closest,
            "maxAllowableNUMANodes": self.max_allowable_numa_nodes,
            "numaAllocationStrategy": self.strategy,
            "numaScoreWeights": dict(self.weights),
            "scoringActive": scoring_active,
        }


def _bad_value(option: str, value: str, detail: str) -> Refusal:
    return Refusal(r.INVALID_POLICY_OPTION_VALUE, f"bad value for option {option!r} ({value!r}): {detail}")


def _refused_value(message: str) -> Refusal:
    return Refusal(r.INVALID_POLICY_OPTION_VALUE, message)


def parse_go_bool(text: str) -> bool | None:
    """Go's strconv.ParseBool; None where it fails."""
    if text in _GO_BOOL_TRUE:
        return True
    if text in _GO_BOOL_FALSE:
        return False
    return None


def _parse_bool(option: str, value: str) -> bool:
    if value in _GO_BOOL_TRUE:
        return True
    if value in _GO_BOOL_FALSE:
        return False
    # the kubelet's wording: strconv.ParseBool's error wrapped by NewPolicyOptions
    raise _refused_value(f"bad value for option {go_quote(option)}: strconv.ParseBool: parsing {go_quote(value)}: invalid syntax")


def _parse_go_int(text: str) -> int | None:
    if not _GO_INT.match(text):
        return None
    n = int(text)
    if n > _INT64_MAX or n < -_INT64_MAX - 1:
        return None
    return n


def parse_weights(value: str) -> dict[str, int]:
    """`res=w,res=w`; whitespace around names and values and empty entries
    (a trailing comma) are tolerated; weights are integers in [0, 100]."""
    option = g.WEIGHTS
    weights: dict[str, int] = {}
    for raw in value.split(","):
        entry = raw.strip()
        if not entry:
            continue
        name, sep, text = entry.partition("=")
        if not sep:
            raise _bad_value(option, value, f"invalid weight entry {entry!r}: expected resource=weight")
        name, text = name.strip(), text.strip()
        if not name:
            raise _bad_value(option, value, f"empty resource name in weight entry {entry!r}")
        n = _parse_go_int(text)
        if n is None:
            raise _bad_value(option, value, f"invalid weight value for {name!r}: {text!r} is not an integer")
        if n < 0 or n > MAX_WEIGHT:
            raise _bad_value(option, value, f"weight for {name!r} must be in range [0, {MAX_WEIGHT}], got {n}")
        weights[name] = n
    return weights


def parse_value(option: str, value: object, options: dict) -> None:
    if not isinstance(value, str):
        raise _bad_value(option, str(value), "option values are strings")
    if option == g.PREFER_CLOSEST:
        options["prefer_closest"] = _parse_bool(option, value)
    elif option == g.MAX_ALLOWABLE:
        n = _parse_go_int(value)
        if n is None:
            why = "value out of range" if re.match(r"[+-]?[0-9]+\Z", value) else "invalid syntax"
            raise _refused_value(
                f"unable to convert policy option to integer {go_quote(option)}: strconv.Atoi: parsing {go_quote(value)}: {why}"
            )
        if n < DEFAULT_MAX_ALLOWABLE_NUMA_NODES:
            raise _refused_value(f"the minimum value of {go_quote(option)} should not be less than {DEFAULT_MAX_ALLOWABLE_NUMA_NODES}")
        options["max_allowable_numa_nodes"] = n
    elif option == g.STRATEGY:
        strategy = STRATEGY_NONE if value == "" else value
        if strategy not in STRATEGIES:
            raise _bad_value(option, value, f"must be one of {', '.join(STRATEGIES)}")
        options["strategy"] = strategy
    elif option == g.WEIGHTS:
        options["weights"] = parse_weights(value)
    else:
        raise Refusal(r.UNKNOWN_POLICY_OPTION, f"unknown Topology Manager Policy option: {go_quote(option)}")


def check_available(option: str, gates: g.Gates) -> None:
    maturity = g.option_maturity(option, gates.minor)
    if maturity is None:
        raise Refusal(r.UNKNOWN_POLICY_OPTION, f"unknown Topology Manager Policy option: {go_quote(option)}")
    if maturity == g.ALPHA and not gates.alpha_options:
        raise Refusal(
            r.POLICY_OPTION_NOT_AVAILABLE,
            f"topology manager policy alpha-level options not enabled, but option {go_quote(option)} provided",
        )
    if maturity == g.BETA and not gates.beta_options:
        raise Refusal(
            r.POLICY_OPTION_NOT_AVAILABLE,
            f"topology manager policy beta-level options not enabled, but option {go_quote(option)} provided",
        )


def parse_policy_options(raw: Mapping[str, object] | None, gates: g.Gates | None) -> PolicyOptions:
    """Parse and validate; `gates=None` parses values without checking the
    options' availability (the merge operation's mode). Options are visited in
    the order given and the first problem is reported."""
    values: dict = {}
    for option, value in (raw or {}).items():
        if gates is not None:
            check_available(option, gates)
        parse_value(option, value, values)
    return PolicyOptions(**values)


def scoring_active(opts: PolicyOptions, gates: g.Gates) -> bool:
    """The merge consults scores only with a strategy set and the alpha gate on,
    however the options reached it."""
    return opts.strategy != STRATEGY_NONE and gates.alpha_options
