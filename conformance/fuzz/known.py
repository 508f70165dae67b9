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
from dataclasses import dataclass
from typing import Any

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


def _reference_answers_with(order_name: str, operation: str):
    """The difference recognised exactly: the implementation's answer is the
    reference's own when it splits multi-NUMA requests in the named order."""
    def applies(data: dict[str, Any], result: dict[str, Any]) -> bool:
        import json

        from conformance.fuzz.differential import strip_paths
        from conformance.fuzz.strategies import IGNORED
        from reference_impl import dispatch
        from reference_impl.koordinator import split_order

        try:
            with split_order.using(getattr(split_order, order_name)):
                answer = json.loads(json.dumps(dispatch.run("koordinator", operation, data)))
        except Exception:  # noqa: BLE001 - an input the variant cannot answer is not this difference
            return False
        ignored = IGNORED.get(("koordinator", operation), ())
        return strip_paths(answer, ignored) == strip_paths(result, ignored)
    return applies


for _operation in ("filter", "score"):
    register(KnownDifference("koord.filter.policy.split-visits-the-fuller-node-first", "koordinator", "v1.8.0",
                             "koordinator", _operation, _reference_answers_with("slice_position_v1_8", _operation)))
