"""The kubelet component's operations: `merge`, `start`, `admit`
(docs/operations/kubelet.md)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..errors import InvalidInput
from ..numa import bitmask
from ..numa.numa_info import NUMAInfo
from ..refusal import Refusal
from . import gates as g
from . import hint_columns
from .cpu_options import check_against_machine, parse_cpu_policy_options
from .discovery import Machine
from .hints import TopologyHint
from .kubelet import Kubelet
from .node import build_node
from .options import parse_policy_options, scoring_active
from .pods import parse_pod
from .policies import FULL, NONE, POLICIES, PREFERRED_FIRST, Policy
from .refusals import UNKNOWN_POLICY
from .startup import check_numa, effective_weights, numa_from, start
from .supplied import SuppliedAdmission, parse_pod_names, parse_providers, pod_level_set

FEATURES: tuple[str, ...] = (
    "kubelet.merge",
    "kubelet.policy.none",
    "kubelet.policy.best-effort",
    "kubelet.policy.restricted",
    "kubelet.policy.single-numa-node",
    "kubelet.scope.container",
    "kubelet.scope.pod",
    "kubelet.option.prefer-closest-numa-nodes",
    "kubelet.option.max-allowable-numa-nodes",
    "kubelet.option.numa-allocation-strategy",
    "kubelet.option.numa-score-weights",
    "kubelet.option.validation",
    "kubelet.gates.policy-options",
    "kubelet.hint-score",
    "kubelet.provider.cpu",
    "kubelet.provider.memory",
    "kubelet.provider.device",
    "kubelet.init-containers",
    "kubelet.metrics.admission",
    "kubelet.metrics.numa-score-selection",
    "kubelet.metrics.numa-container-count",
    "kubelet.merge-preferred",
    "kubelet.admit-hints",
    "kubelet.numa-discovery",
    "kubelet.restart",
    "kubelet.pod-level-resources",
    "kubelet.pod-level-resources.managers",
    "kubelet.cpu-topology",
    "kubelet.cpu-option.full-pcpus-only",
    "kubelet.cpu-option.distribute-cpus-across-numa",
    "kubelet.cpu-option.align-by-socket",
)


def _mapping(value: object, field: str) -> Mapping:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInput(field, "must be a mapping")
    return value


def _hint(raw: object, where: str, index: int) -> TopologyHint:
    """One hint; `where`/`index` name it in an error (the path is built only then:
    a provider may send hundreds of thousands of hints)."""
    # `type(raw) is dict` spares the abstract-class check on the usual input
    if not (type(raw) is dict or isinstance(raw, Mapping)) or "affinity" not in raw \
            or not isinstance(raw.get("preferred"), bool):
        raise InvalidInput(f"{where}/{index}", "a hint is {affinity: [ids] | null, preferred: bool, score?: int}")
    affinity = raw["affinity"]
    if affinity is None:
        mask = None
    elif isinstance(affinity, list):
        try:
            mask = bitmask.from_bits(affinity)
        except bitmask.BitMaskError as exc:
            raise InvalidInput(f"{where}/{index}/affinity", str(exc)) from None
    else:
        raise InvalidInput(f"{where}/{index}/affinity", "a list of NUMA node ids or null")
    score = raw.get("score", 0)
    if type(score) is not int and (not isinstance(score, int) or isinstance(score, bool)) or score < 0:
        raise InvalidInput(f"{where}/{index}/score", "a non-negative integer")
    return TopologyHint(mask, raw["preferred"], score)


def _providers(raw: object) -> list:
    if not isinstance(raw, list):
        raise InvalidInput("providers", "a list with one entry per provider")
    return [_provider_hints(provider, f"providers/{i}") for i, provider in enumerate(raw)]


def _provider_hints(provider: object, field: str) -> dict | None:
    """One provider's hints: null (a nil map) or resource -> null | [hint]."""
    if provider is None:
        return None
    if not isinstance(provider, Mapping):
        raise InvalidInput(field, "null or a map of resource name to hint list")
    resources = {}
    for resource, hints in provider.items():
        f = f"{field}/{resource}"
        if hints is None:
            resources[resource] = None
        elif isinstance(hints, list):
            resources[resource] = hint_columns.parse(hints, f, _hint)
        else:
            raise InvalidInput(f, "null or a list of hints")
    return resources


def _algorithm(raw: object) -> str:
    algorithm = raw if raw is not None else FULL
    if algorithm not in (FULL, PREFERRED_FIRST):
        raise InvalidInput("mergeAlgorithm", f"one of {FULL}, {PREFERRED_FIRST}")
    return algorithm


def merge(input_: Mapping[str, Any]) -> dict:
    gates = g.resolve(input_.get("kubernetesVersion"), _mapping(input_.get("featureGates"), "featureGates"))
    nodes, distances = numa_from(input_.get("numa"))
    providers = _providers(input_.get("providers"))
    algorithm = _algorithm(input_.get("mergeAlgorithm"))
    policy_name = input_.get("policy")
    if policy_name not in POLICIES:
        # NewManager writes the name between plain quotes, unescaped (not %q)
        return {"refused": {"reason": UNKNOWN_POLICY, "message": f'unknown policy: "{policy_name}"'}}
    if policy_name == NONE:
        return {"affinity": None, "preferred": False, "score": 0, "admit": True, "scoreDecided": False}
    try:
        opts = parse_policy_options(_mapping(input_.get("options"), "options"), None)
        check_numa(opts, nodes, distances)
    except Refusal as refusal:
        return refusal.as_result()
    policy = Policy(
        policy_name,
        NUMAInfo.build(nodes, distances),
        opts,
        scoring_active(opts, gates),
        effective_weights(opts, gates),
        algorithm,
    )
    outcome = policy.merge(providers)
    return {
        "affinity": outcome.hint.affinity(),
        "preferred": outcome.hint.preferred,
        "score": outcome.hint.score,
        "admit": outcome.admit,
        "scoreDecided": outcome.score_decided,
    }


def _start_from(input_: Mapping[str, Any], nodes, distances, machine=None):
    """Start-up with the version, gates and kubelet configuration an input carries."""
    return start(
        input_.get("kubernetesVersion"),
        _mapping(input_.get("featureGates"), "featureGates"),
        _mapping(input_.get("kubeletConfiguration"), "kubeletConfiguration"),
        nodes,
        distances,
        machine=machine,
    )


def start_operation(input_: Mapping[str, Any]) -> dict:
    nodes, distances = numa_from(input_["numa"]) if input_.get("numa") is not None else ([0], None)
    machine = None
    if input_.get("machine") is not None:
        if input_.get("numa") is not None:
            raise InvalidInput("machine", "give the topology either as numa or as machine, not both")
        machine = Machine.parse(input_["machine"])
    try:
        started = _start_from(input_, nodes, distances, machine=machine)
    except Refusal as refusal:
        return {"started": False, **refusal.as_result()}
    return started.as_dict()


# the restart event in an admit sequence
RESTART = object()

CPU_POLICIES = {"static": True, "none": False}
MEMORY_POLICIES = {"Static": True, "None": False}


def admit(input_: Mapping[str, Any]) -> dict:
    config = _mapping(input_.get("kubeletConfiguration"), "kubeletConfiguration")
    cpu_policy = config.get("cpuManagerPolicy", "static")
    if not isinstance(cpu_policy, str) or cpu_policy not in CPU_POLICIES:
        raise InvalidInput("kubeletConfiguration/cpuManagerPolicy", "static or none")
    memory_policy = config.get("memoryManagerPolicy", "Static")
    if not isinstance(memory_policy, str) or memory_policy not in MEMORY_POLICIES:
        raise InvalidInput("kubeletConfiguration/memoryManagerPolicy", "Static or None")
    node_raw = input_.get("node")
    state = build_node(_mapping(node_raw, "node"), config.get("reservedSystemCPUs"))
    events = input_.get("events") or []
    if not isinstance(events, list):
        raise InvalidInput("events", "a list of {admit: pod} / {remove: name}")
    pods = []
    for i, event in enumerate(events):
        if not isinstance(event, Mapping) or len(event) != 1 or next(iter(event)) not in ("admit", "remove", "restart"):
            raise InvalidInput(f"events/{i}", "each event is {admit: pod}, {remove: name} or {restart: true}")
        if "admit" in event:
            pods.append(parse_pod(event["admit"], f"events/{i}/admit"))
        elif "restart" in event:
            if event["restart"] is not True:
                raise InvalidInput(f"events/{i}/restart", "a restart is {restart: true}")
            pods.append(RESTART)
        else:
            if not isinstance(event["remove"], str):
                raise InvalidInput(f"events/{i}/remove", "a pod name")
            pods.append(event["remove"])
    try:
        started = start(
            input_.get("kubernetesVersion"),
            _mapping(input_.get("featureGates"), "featureGates"),
            config,
            list(state.nodes),
            node_raw.get("distances"),
        )
    except Refusal as refusal:
        return {"started": False, **refusal.as_result()}
    cpu_raw = config.get("cpuManagerPolicyOptions")
    if cpu_raw and cpu_policy != "static":
        raise InvalidInput("kubeletConfiguration/cpuManagerPolicyOptions", "options are for the static CPU manager policy")
    try:
        cpu_options = parse_cpu_policy_options(cpu_raw, started.gates.minor,
                                               _mapping(input_.get("featureGates"), "featureGates"))
        check_against_machine(cpu_options, started.policy.name)
    except Refusal as refusal:
        return {"started": False, **refusal.as_result()}
    kubelet = Kubelet(started, state, CPU_POLICIES[cpu_policy], MEMORY_POLICIES[memory_policy], cpu_options)
    results = []
    for item in pods:
        if item is RESTART:
            kubelet.restart()
        elif isinstance(item, str):
            kubelet.remove(item)
        else:
            results.append(kubelet.admit(item))
    return {
        "started": True,
        "pods": results,
        "metrics": kubelet.metrics_dict(),
        "allocation": kubelet.allocation(),
    }


def admit_hints(input_: Mapping[str, Any]) -> dict:
    pod = parse_pod_names(input_.get("pod"))
    providers = parse_providers(input_.get("providers"), pod, _provider_hints)
    nodes, distances = numa_from(input_.get("numa"))
    try:
        started = _start_from(input_, nodes, distances)
    except Refusal as refusal:
        return {"started": False, **refusal.as_result()}
    pod_level = pod_level_set(input_["pod"].get("resources"))
    return SuppliedAdmission(started, providers).admit(pod, pod_level)


OPERATIONS: dict[str, Callable[[Mapping[str, Any]], dict]] = {
    "merge": merge,
    "start": start_operation,
    "admit": admit,
    "admit_hints": admit_hints,
}
