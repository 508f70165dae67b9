"""Differences an implementation is known to have, for generated inputs.

A disagreement the fuzzer found is resolved either by fixing the reference or by
a corpus case plus an expectations entry that says why the implementation
answers otherwise. Once resolved the second way, the same difference would stop
every later run at its first occurrence and hide whatever else there is to find.
So each one is also declared here: the corpus case that pins it (its
expectations entry carries the reason and the upstream file) and a predicate
that recognises the generated inputs it concerns, given the input and the
implementation's result. A disagreement it claims is counted under that case
instead of failing the run.

The predicate must be narrow: it is applied only when the two answers already
differ, but any disagreement it claims is one the run no longer looks at, so
it should recognise the difference itself in the answer where it can. The
tests check that every declared case exists and is expected to fail for the
release named.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from reference_impl.koordinator import release_variants as koordinator_variants
from reference_impl.kueue import release_variants


@dataclass(frozen=True)
class KnownDifference:
    case: str  # the corpus case pinning it; its expectations entry says why
    implementation: str
    version: str
    component: str
    operation: str
    # (input, the implementation's result, or {"error": message} for an error answer)
    applies: Callable[[dict[str, Any], dict[str, Any]], bool]


KNOWN: list[KnownDifference] = []


def register(difference: KnownDifference) -> KnownDifference:
    KNOWN.append(difference)
    return difference


def for_operation(implementation: str, version: str, component: str, operation: str) -> tuple[KnownDifference, ...]:
    return tuple(k for k in KNOWN if (k.implementation, k.version, k.component, k.operation)
                 == (implementation, version, component, operation))


def claimed_by(known: tuple[KnownDifference, ...], data: dict[str, Any],
               result: dict[str, Any]) -> KnownDifference | None:
    for difference in known:
        if difference.applies(data, result):
            return difference
    return None


# --- kubelet v1.37.2


def _unequal_numa_cpu_counts(data: dict[str, Any]) -> bool:
    counts = set()
    for node in data.get("node", {}).get("numaNodes", []):
        cpus = node.get("cpus")
        counts.add(len(cpus) if isinstance(cpus, list) else cpus)
    return len(counts) > 1


def _cpu_given_twice(data: dict[str, Any], result: dict[str, Any]) -> bool:
    """At some event two live containers hold one exclusive CPU: of different
    pods, or both app containers of one pod (only a regular init container's
    CPUs pass on to its pod's later containers)."""
    answers = iter(result.get("pods", []))
    held: dict[int, tuple[str, str, bool]] = {}  # cpu -> pod, container, is an init container
    for event in data.get("events", []):
        if "remove" in event:
            held = {cpu: owner for cpu, owner in held.items() if owner[0] != event["remove"]}
            continue
        if "admit" not in event:
            continue
        pod = next(answers, None)
        if pod is None or not pod.get("admitted"):
            continue
        inits = {c["name"] for c in event["admit"].get("initContainers", [])}
        for container in pod.get("containers", []):
            is_init = container["name"] in inits
            for cpu in container.get("cpuIDs") or []:
                owner = held.get(cpu)
                if owner is not None:
                    other_pod = owner[0] != pod["name"]
                    two_apps = not owner[2] and not is_init and owner[1] != container["name"]
                    if other_pod or two_apps:
                        return True
                if owner is None or not is_init:
                    held[cpu] = (pod["name"], container["name"], is_init)
    return False


register(KnownDifference(
    "kubelet.upstream.cpu.unequal-numa-nodes-socket-judged-by-average", "kubelet", "v1.37.2", "kubelet", "admit",
    lambda data, result: _unequal_numa_cpu_counts(data) and _cpu_given_twice(data, result)))



def _reused_devices_not_deterministic(data: dict[str, Any], result: dict[str, Any]) -> bool:
    # The shim repeats an admit where a container may take devices an init
    # container left, and answers an error naming the distinct results.
    return "not deterministic" in str(result.get("error", ""))


register(KnownDifference("kubelet.upstream.devices.reuse-from-init-container-lowest-numa-first", "kubelet", "v1.37.2",
                         "kubelet", "admit", _reused_devices_not_deterministic))

# The older releases served by the Go module proxy share both behaviours (their
# expectations files declare the same two cases), so a run against any of them
# counts such inputs under the same cases.
for _release in ("v1.36.5", "v1.35.6", "v1.34.5"):
    for _difference in [k for k in KNOWN if k.implementation == "kubelet" and k.version == "v1.37.2"]:
        register(replace(_difference, version=_release))


def _locked_gate_turned_off(data: dict[str, Any], result: dict[str, Any]) -> bool:
    # Before v1.36 TopologyManagerPolicyOptions is GA without the lock: turning
    # it off is accepted, and the kubelet starts or stops at a later check,
    # where the contract refuses the gate first.
    return ((data.get("featureGates") or {}).get("TopologyManagerPolicyOptions") is False and "started" in result
            and (result.get("refused") or {}).get("reason") != "FeatureGateLocked")


for _release in ("v1.35.6", "v1.34.5"):
    register(KnownDifference("kubelet.gates.policy-options-gate-locked-no-options[version=1.38]", "kubelet", _release,
                             "kubelet", "start", _locked_gate_turned_off))

# --- Kueue v0.17.0


def _not_deterministic(data: dict[str, Any], result: dict[str, Any]) -> bool:
    # The shim runs a balanced placement many times and answers an error naming
    # the distinct results when v0.17.0's order of tied domains varies.
    return "not deterministic" in str(result.get("error", ""))


register(KnownDifference("kueue.balanced.two-level-20", "kueue", "v0.17.0", "kueue", "assign", _not_deterministic))


def _listed_unhealthy_node_acted_on_without_fnr(data: dict[str, Any], result: dict[str, Any]) -> bool:
    from reference_impl.kueue import gates

    if not (data.get("workload") or {}).get("unhealthyNodes"):
        return False
    try:
        if gates.resolve(data).enabled("TASFailedNodeReplacement"):
            return False
    except Exception:  # noqa: BLE001 - an input the gates refuse is not this difference
        return False
    acted = {"NodeReplaced", "ReplacementFailed", "Evicted"}
    return any(action.get("type") in acted for state in result.get("states", []) for action in state.get("actions", []))


register(KnownDifference("kueue.hotswap.fnr-off.listed-unhealthy-node-left-alone", "kueue", "v0.17.0", "kueue",
                         "hot_swap", _listed_unhealthy_node_acted_on_without_fnr))



def _without(value: Any, keys: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys and not k.endswith("message")}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


def _kueue_reference_answers(operation: str, transform=lambda data: data, variants: tuple[str, ...] = (),
                             ignoring: frozenset[str] = frozenset()):
    """The difference recognised exactly: the implementation's answer is the
    reference's own for the input as the release reads it (`transform`), or
    with a release behaviour of reference_impl/kueue/release_variants.py on.
    Messages are the implementation's own wording, as in the comparison."""
    def applies(data: dict[str, Any], result: dict[str, Any]) -> bool:
        import json

        from reference_impl import dispatch

        try:
            with release_variants.using(*variants):
                answer = json.loads(json.dumps(dispatch.run("kueue", operation, transform(data))))
        except Exception:  # noqa: BLE001 - an input the variant cannot answer is not this difference
            return False
        return _without(answer, ignoring) == _without(result, ignoring)
    return applies


register(KnownDifference("kueue.capacity.pods-slots-used-by-an-earlier-podset", "kueue", "v0.17.0", "kueue", "assign",
                         _kueue_reference_answers(
                             "assign", variants=(release_variants.PODSET_USAGE_WITHOUT_POD_SLOTS,))))


register(KnownDifference("kueue.group.leader-needs-gpu", "kueue", "v0.17.0", "kueue", "assign",
                         _kueue_reference_answers("assign", variants=(release_variants.LEADER_DESCENT_V0_17,))))


register(KnownDifference("kueue.group.best-fit-domain-without-room-for-the-leader", "kueue", "v0.17.0", "kueue",
                         "assign", _kueue_reference_answers(
                             "assign", variants=(release_variants.LEADER_CAPACITY_V0_17,
                                                 release_variants.LEADER_DESCENT_V0_17))))


register(KnownDifference("kueue.hotswap.required-hostname-replaced-on-the-remaining-host", "kueue", "v0.17.0",
                         "kueue", "hot_swap", _kueue_reference_answers(
                             "hot_swap", variants=(release_variants.HOSTNAME_REPLACEMENT_DOMAIN_V0_17,))))


def _without_flavor_tolerations(data: dict[str, Any]) -> dict[str, Any]:
    # v0.17.0's node controller judges taints by the Workload's podset
    # tolerations; the flavor's reach only the pods, for NoExecute eviction.
    # Dropping them is exact where no NoExecute taint is involved.
    import copy

    copied = copy.deepcopy(data)
    spec = (copied.get("resourceFlavor") or {}).get("spec") or {}
    spec.pop("tolerations", None)
    return copied


def _flavor_tolerations_unread(data: dict[str, Any], result: dict[str, Any]) -> bool:
    if not ((data.get("resourceFlavor") or {}).get("spec") or {}).get("tolerations"):
        return False
    return _kueue_reference_answers("hot_swap", _without_flavor_tolerations)(data, result)


register(KnownDifference("kueue.hotswap.taint.noschedule-tolerated-by-flavor.repl.not-failed"
                         "[FNR=true,TT=true,RNO=true,FNFF=true]", "kueue", "v0.17.0", "kueue", "hot_swap",
                         _flavor_tolerations_unread))


def _with_fixed_time_off(data: dict[str, Any]) -> dict[str, Any]:
    copied = dict(data)
    copied["featureGates"] = {**(data.get("featureGates") or {}), "TASReplaceNodeDueToNotReadyOverFixedTime": False}
    return copied


def _marked_and_unmarked_while_pods_run(data: dict[str, Any], result: dict[str, Any]) -> bool:
    """v0.17.0 unmarks a NotReady node in the reconcile that marked it after 30 s
    while the workload's pods still run there, so the node fails only once they
    stop, as with the fixed-time gate off; the trigger it names then may be the
    timer's."""
    from reference_impl.kueue import gates

    try:
        resolved = gates.resolve(data)
        if not (resolved.enabled("TASReplaceNodeOnPodTermination")
                and resolved.enabled("TASReplaceNodeDueToNotReadyOverFixedTime")):
            return False
    except Exception:  # noqa: BLE001 - an input the gates refuse is not this difference
        return False
    return _kueue_reference_answers("hot_swap", _with_fixed_time_off, ignoring=frozenset({"trigger"}))(data, result)


register(KnownDifference("kueue.hotswap.not-ready-boundary", "kueue", "v0.17.0", "kueue", "hot_swap",
                         _marked_and_unmarked_while_pods_run))


def _negative_pod_count(data: dict[str, Any], result: dict[str, Any]) -> bool:
    # The contract never counts fewer than 0 pods in a domain.
    return any(isinstance(d.get("podCount"), int) and d["podCount"] < 0 for d in result.get("domains") or [])


register(KnownDifference("kueue.capacity.overcommitted-node", "kueue", "v0.17.0", "kueue", "capacity",
                         _negative_pod_count))


def _admitted_with_nowhere_to_run(data: dict[str, Any], result: dict[str, Any]) -> bool:
    # The contract admits only with every podset of a positive count placed.
    if result.get("admitted") is not True:
        return False
    counts = {p.get("name"): p.get("count", 0) for p in (data.get("workload") or {}).get("podSets") or []}
    return any(counts.get(p.get("name"), 0) > 0 and not ((p.get("topologyAssignment") or {}).get("domains"))
               for p in result.get("podSets") or [])


register(KnownDifference("kueue.group.required-block-not-fit-beside-tainted-node", "kueue", "v0.17.0", "kueue",
                         "assign", _admitted_with_nowhere_to_run))


# --- Koordinator v1.8.0


def _koordinator_answers_under(operation: str, switched_on):
    """The difference recognised exactly: the implementation's answer is the
    reference's own inside `switched_on()`, a context that turns one v1.8.0
    behaviour on."""
    def applies(data: dict[str, Any], result: dict[str, Any]) -> bool:
        import json

        from conformance.fuzz.differential import strip_paths
        from conformance.fuzz.strategies import IGNORED
        from reference_impl import dispatch

        try:
            with switched_on():
                answer = json.loads(json.dumps(dispatch.run("koordinator", operation, data)))
        except Exception:  # noqa: BLE001 - an input the variant cannot answer is not this difference
            return False
        ignored = IGNORED.get(("koordinator", operation), ())
        return strip_paths(answer, ignored) == strip_paths(result, ignored)
    return applies


def _reference_answers_with(order_name: str, operation: str):
    """v1.8.0 recognised by the reference splitting multi-NUMA requests in the named order."""
    from reference_impl.koordinator import split_order

    return _koordinator_answers_under(operation, lambda: split_order.using(getattr(split_order, order_name)))


for _operation in ("filter", "score"):
    register(KnownDifference("koord.filter.policy.split-visits-the-fuller-node-first", "koordinator", "v1.8.0",
                             "koordinator", _operation, _reference_answers_with("slice_position_v1_8", _operation)))


def _koordinator_reference_answers(operation: str, *variants: str):
    """v1.8.0 recognised by the reference with the named behaviours of
    reference_impl/koordinator/release_variants.py on."""
    return _koordinator_answers_under(operation, lambda: koordinator_variants.using(*variants))


register(KnownDifference("koord.score.node.best-effort-numa-allocation", "koordinator", "v1.8.0", "koordinator",
                         "score", _koordinator_reference_answers(
                             "score", koordinator_variants.BEST_EFFORT_SCORED_NODE_WIDE_V1_8)))
register(KnownDifference("koord.score.node.numa-cpu-binding-pod-counts-bound-cpus-node-wide", "koordinator", "v1.8.0",
                         "koordinator", "score", _koordinator_reference_answers(
                             "score", koordinator_variants.NUMA_CPU_AS_BOUND_CPUS_V1_8)))
register(KnownDifference("koord.score.node.whole-node-cpu-binding-pod", "koordinator", "v1.8.0", "koordinator",
                         "score", _koordinator_reference_answers(
                             "score", koordinator_variants.WHOLE_NODE_CPU_AS_BOUND_CPUS_V1_8)))

for _operation in ("filter", "score"):
    register(KnownDifference("koord.filter.numa.placed-pods-without-cpu-topology", "koordinator", "v1.8.0",
                             "koordinator", _operation, _koordinator_reference_answers(
                                 _operation, koordinator_variants.PLACED_NUMA_UNRECORDED_WITHOUT_CPU_TOPOLOGY_V1_8)))
    register(KnownDifference("koord.filter.numa.node-bind-policy-without-cpu-request", "koordinator", "v1.8.0",
                             "koordinator", _operation, _koordinator_reference_answers(
                                 _operation, koordinator_variants.NODE_BIND_TRIMS_WITHOUT_CPU_REQUEST_V1_8)))

for _operation in ("merge", "filter", "score"):
    register(KnownDifference("koord.merge.equal-width-higher-score-mask-order", "koordinator", "v1.8.0",
                             "koordinator", _operation, _koordinator_reference_answers(
                                 _operation, koordinator_variants.LOWER_MASK_BEFORE_SCORE_V1_8)))


_KOORD_DEVICE_RESOURCES = ("nvidia.com/gpu", "koordinator.sh/gpu", "koordinator.sh/gpu-core",
                           "koordinator.sh/gpu-memory-ratio", "koordinator.sh/rdma", "koordinator.sh/fpga")
_KOORD_DEVICE_HINT = "scheduling.koordinator.sh/device-allocate-hint"


def _koord_reference_answers_for(operation: str, read_as):
    """The difference recognised exactly: the implementation's answer is the
    reference's own for the input as the release reads it (`read_as` gives that
    input, or None when the input does not have the difference at all)."""
    def applies(data: dict[str, Any], result: dict[str, Any]) -> bool:
        import json

        from conformance.fuzz.differential import strip_paths
        from conformance.fuzz.strategies import IGNORED
        from reference_impl import dispatch

        try:
            read = read_as(data)
            if read is None:
                return False
            answer = json.loads(json.dumps(dispatch.run("koordinator", operation, read)))
        except Exception:  # noqa: BLE001 - an input the reading cannot answer is not this difference
            return False
        ignored = IGNORED.get(("koordinator", operation), ())
        return strip_paths(answer, ignored) == strip_paths(result, ignored)
    return applies


def _koord_resource_lists(data: dict[str, Any]):
    for container in (data.get("pod") or {}).get("containers") or []:
        resources = (container or {}).get("resources") or {}
        for part in ("requests", "limits"):
            if isinstance(resources.get(part), dict):
                yield resources[part]


def _fractions_rounded_up(data: dict[str, Any]) -> dict[str, Any] | None:
    """v1.8.0's DeviceShare reads a device quantity through Quantity.Value(),
    which rounds a positive fraction up; the input with those values whole."""
    import copy
    import math

    from reference_impl.quantity import parse

    copied = copy.deepcopy(data)
    changed = False
    for resources in _koord_resource_lists(copied):
        for name in _KOORD_DEVICE_RESOURCES:
            if name in resources:
                value = parse(resources[name])
                if value > 0 and value.denominator != 1:
                    resources[name], changed = str(math.ceil(value)), True
    return copied if changed else None


def _memory_ratio_share_as_gpu_percent(data: dict[str, Any]) -> dict[str, Any] | None:
    """v1.8.0 takes koordinator.sh/gpu-memory-ratio without gpu-core as a share
    of its own; the input with that share written as koordinator.sh/gpu."""
    import copy

    named = {name for resources in _koord_resource_lists(data) for name in resources}
    if "koordinator.sh/gpu-memory-ratio" not in named or named & {"nvidia.com/gpu", "koordinator.sh/gpu",
                                                                 "koordinator.sh/gpu-core"}:
        return None
    copied = copy.deepcopy(data)
    for resources in _koord_resource_lists(copied):
        if "koordinator.sh/gpu-memory-ratio" in resources:
            resources["koordinator.sh/gpu"] = resources.pop("koordinator.sh/gpu-memory-ratio")
    return copied


def _device_hint_unread(data: dict[str, Any]) -> dict[str, Any] | None:
    """v1.8.0 parses device-allocate-hint only for a pod with device requests;
    for a pod without any, the input with the annotation left out."""
    import copy

    from reference_impl.quantity import parse

    pod = data.get("pod") or {}
    if _KOORD_DEVICE_HINT not in (pod.get("annotations") or {}):
        return None
    for container in pod.get("containers") or []:
        requests = ((container or {}).get("resources") or {}).get("requests") or {}
        if any(name in requests and parse(requests[name]) != 0 for name in _KOORD_DEVICE_RESOURCES):
            return None
    copied = copy.deepcopy(data)
    del copied["pod"]["annotations"][_KOORD_DEVICE_HINT]
    return copied


for _operation, _fraction_case, _share_case, _hint_case in (
        ("resolve", "koord.device-request.fractional.resolve[resource=koordinator.sh/gpu,q=0.5]",
         "koord.device-request.gpu-share.resolve[what=ratio-only,resources=#1]",
         "koord.malformed.device-allocate-hint[what=not-json,annotations=#1]"),
        ("filter", "koord.device-request.fractional.filter[resource=koordinator.sh/gpu,q=0.5]",
         "koord.device-request.gpu-share.filter[what=ratio-only,resources=#1]",
         "koord.device-request.unread-hint.filter"),
        ("score", "koord.device-request.fractional.score[resource=koordinator.sh/gpu,q=0.5]",
         "koord.device-request.gpu-share.score[what=ratio-only,resources=#1]",
         "koord.device-request.unread-hint.score")):
    register(KnownDifference(_fraction_case, "koordinator", "v1.8.0", "koordinator", _operation,
                             _koord_reference_answers_for(_operation, _fractions_rounded_up)))
    register(KnownDifference(_share_case, "koordinator", "v1.8.0", "koordinator", _operation,
                             _koord_reference_answers_for(_operation, _memory_ratio_share_as_gpu_percent)))
    register(KnownDifference(_hint_case, "koordinator", "v1.8.0", "koordinator", _operation,
                             _koord_reference_answers_for(_operation, _device_hint_unread)))


_KOORD_GPU_PARTITIONS = "scheduling.koordinator.sh/gpu-partitions"


def _decodes_as_quantity(value: Any) -> bool:
    from reference_impl.quantity import parse

    if value is None:
        return True
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return False
    try:
        parse(str(value))
    except Exception:  # noqa: BLE001 - any refusal of the text is a quantity that does not decode
        return False
    return True


def _partition_table_undecodable_v1_8(raw: Any) -> bool:
    """Whether v1.8.0 drops the annotation as no table: it skips an empty value
    and logs one that does not decode into map[int][]GPUPartition, or decodes to
    null (apis/extension GetGPUPartitionTable). Field names match case-blind,
    null stands for the zero value, as encoding/json reads them."""
    import json
    import re

    def whole(v: Any) -> bool:
        return v is None or (isinstance(v, int) and not isinstance(v, bool))

    if not isinstance(raw, str):
        return False
    if raw == "":
        return True
    try:
        table = json.loads(raw)
    except ValueError:
        return True
    if not isinstance(table, dict):
        return True
    for key, partitions in table.items():
        if not re.fullmatch(r"[+-]?[0-9]+", key):
            return True
        if partitions is None:
            continue
        if not isinstance(partitions, list):
            return True
        for partition in partitions:
            if partition is None:
                continue
            if not isinstance(partition, dict):
                return True
            for field, value in partition.items():
                name = field.lower()
                if name == "minors" and not (value is None or (isinstance(value, list) and all(map(whole, value)))):
                    return True
                if name == "allocationscore" and not whole(value):
                    return True
                if name == "gpulinktype" and not (value is None or isinstance(value, str)):
                    return True
                if name == "ringbusbandwidth" and not _decodes_as_quantity(value):
                    return True
    return False


def _partition_table_dropped(data: dict[str, Any]) -> dict[str, Any] | None:
    """v1.8.0 reads a partition table it cannot decode as no table; the input
    with such tables left out of the Device CRs."""
    import copy

    copied = copy.deepcopy(data)
    nodes = copied.get("nodes") if isinstance(copied.get("nodes"), list) else [copied.get("node")]
    changed = False
    for node in nodes:
        annotations = (node or {}).get("deviceAnnotations")
        if isinstance(annotations, dict) and _KOORD_GPU_PARTITIONS in annotations \
                and _partition_table_undecodable_v1_8(annotations[_KOORD_GPU_PARTITIONS]):
            del annotations[_KOORD_GPU_PARTITIONS]
            changed = True
    return copied if changed else None


def _koord_gpu_device_scope(data: dict[str, Any]) -> bool:
    import json

    raw = ((data.get("pod") or {}).get("annotations") or {}).get(_KOORD_DEVICE_HINT)
    try:
        hint = (json.loads(raw) or {}).get("gpu") if isinstance(raw, str) else None
    except (ValueError, AttributeError):
        return False
    return isinstance(hint, dict) and hint.get("requiredTopologyScope") == "Device"


def _device_scope_never_met(operation: str):
    """v1.8.0 never meets requiredTopologyScope Device and checks it only after
    honoured partitions: the reference's answer with that behaviour on, for a
    pod whose GPU hint asks scope Device."""
    answers = _koordinator_reference_answers(operation, koordinator_variants.DEVICE_SCOPE_NEVER_MET_V1_8)
    return lambda data, result: _koord_gpu_device_scope(data) and answers(data, result)


for _operation in ("filter", "score"):
    register(KnownDifference("koord.partition-table.unreadable[reading=device-label-honor,nodeLabels=#1,"
                             "deviceLabels=#1,annotations=#1]", "koordinator", "v1.8.0", "koordinator", _operation,
                             _koord_reference_answers_for(_operation, _partition_table_dropped)))
    register(KnownDifference("koord.filter.device.scope[scope=Device,gpus=1,busy=#6,want=#6,devs=#6]", "koordinator",
                             "v1.8.0", "koordinator", _operation, _device_scope_never_met(_operation)))


_MERGE_REASONS_ORDER_MARKER = "apart from that order every run gave "


def _merge_reasons_in_map_order(data: dict[str, Any], result: dict[str, Any]) -> bool:
    """v1.8.0 names one provider's empty hint lists in Go map order. The shim
    repeats such a merge and, when the runs differ in that order alone, answers
    an error carrying the result with its reasons sorted (shims/koordinator
    merge.go). Recognised when that is the reference's answer, reasons sorted."""
    import json

    from reference_impl import dispatch

    message = str(result.get("error", ""))
    if not message.startswith("not deterministic: ") or _MERGE_REASONS_ORDER_MARKER not in message:
        return False
    try:
        release = json.loads(message.split(_MERGE_REASONS_ORDER_MARKER, 1)[1])
        answer = json.loads(json.dumps(dispatch.run("koordinator", "merge", data)))
    except Exception:  # noqa: BLE001 - an input the reference refuses is not this difference
        return False
    reasons = answer.get("reasons") if isinstance(answer, dict) else None
    if not isinstance(reasons, list) or len(reasons) < 2:
        return False
    return {**answer, "reasons": sorted(reasons)} == release


register(KnownDifference("koord.merge.unsatisfied-reasons.order-written", "koordinator", "v1.8.0", "koordinator",
                         "merge", _merge_reasons_in_map_order))


_KOORD_DEVICE_REFUSALS = frozenset({
    "InsufficientDevices", "InsufficientVirtualFunctions", "InsufficientTopologyScopedDevices",
    "JointAllocateViolation", "InsufficientPrimaryDevice", "MissingGPUPartitionTable",
    "UnsupportedGPUPartitionCount", "InsufficientPartitionedGPUs", "InvalidGPUPartitionTable"})


def _koord_device_types_requested(data: dict[str, Any]) -> int:
    from reference_impl.quantity import parse

    kinds = {"nvidia.com/gpu": "gpu", "koordinator.sh/gpu": "gpu", "koordinator.sh/gpu-core": "gpu",
             "koordinator.sh/gpu-memory-ratio": "gpu", "koordinator.sh/rdma": "rdma", "koordinator.sh/fpga": "fpga"}
    found = set()
    for container in (data.get("pod") or {}).get("containers") or []:
        requests = ((container or {}).get("resources") or {}).get("requests") or {}
        for name, kind in kinds.items():
            try:
                if name in requests and parse(str(requests[name])) != 0:
                    found.add(kind)
            except Exception:  # noqa: BLE001 - a request that does not parse names no type
                continue
    return len(found)


def _device_types_in_map_order(operation: str):
    """v1.8.0 allocates a pod's device types in Go map order; the shim runs a
    pod requesting two or more of them repeatedly and answers an error when
    the runs differ, listing the refusal codes each run gave (per node, for
    score). Claimed where the reference refuses the pod (on some node, for
    score) with a DeviceShare refusal and one of the runs gave exactly the
    reference's codes: the release then answers as the contract does in the
    order it happened to take."""
    marker = "the runs' refusals: "

    def applies(data: dict[str, Any], result: dict[str, Any]) -> bool:
        from reference_impl import dispatch

        message = str(result.get("error", ""))
        if not message.startswith("not deterministic") or "device types in Go map order" not in message \
                or marker not in message:
            return False
        if _koord_device_types_requested(data) < 2:
            return False
        try:
            answer = dispatch.run("koordinator", operation, data)
        except Exception:  # noqa: BLE001 - an input the reference refuses outright is not this difference
            return False
        rows = answer.get("nodes", []) if operation == "score" else [answer]
        if not any(not row.get("fits") and row.get("reason") in _KOORD_DEVICE_REFUSALS for row in rows):
            return False
        codes = ",".join("fits" if row.get("fits") else str(row.get("reason")) for row in rows)
        return codes in message.split(marker, 1)[1].split(" | ")
    return applies


def _merge_refusal_same_in_every_run(data: dict[str, Any], result: dict[str, Any]) -> bool:
    """The same map order reaches Filter's merge: with two or more device types
    requested, the release's runs differ only in the order of the unsatisfied
    reasons, every run refusing as the reference does (UnsatisfiedNUMAResource),
    as the merge case pins for the merge operation."""
    from reference_impl import dispatch

    message = str(result.get("error", ""))
    marker = "the runs' refusals: "
    if not message.startswith("not deterministic") or marker not in message \
            or _koord_device_types_requested(data) < 2:
        return False
    try:
        answer = dispatch.run("koordinator", "filter", data)
    except Exception:  # noqa: BLE001 - an input the reference refuses outright is not this difference
        return False
    if answer.get("fits") or answer.get("reason") != "UnsatisfiedNUMAResource":
        return False
    return message.split(marker, 1)[1].split(" | ") == ["UnsatisfiedNUMAResource"]


register(KnownDifference("koord.merge.unsatisfied-reasons.order-written", "koordinator", "v1.8.0", "koordinator",
                         "filter", _merge_refusal_same_in_every_run))


for _operation in ("filter", "score"):
    register(KnownDifference("koord.filter.device-order.gpu-refusal-first[gpus=missing-table,annotations=#1,"
                             "busyGPUs=#1,reason=MissingGPUPartitionTable,message=missing GPU Partition Table]",
                             "koordinator", "v1.8.0", "koordinator", _operation,
                             _device_types_in_map_order(_operation)))
