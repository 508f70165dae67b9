"""The recognisers of known differences that must be code, looked up by name
from the `fuzz:` blocks of the expectations files (conformance/fuzz/known.py).

Four kinds, each a table of plain functions:
- WHEN: input guards, (input) -> bool: the input has what the difference needs;
- REWRITES: (input) -> the input as the release reads it, or None when the
  input does not have the difference at all; the release's answer is then the
  reference's for the rewritten input;
- NONDETERMINISM: (operation, input, error message) -> bool: the error answer
  is the shim's report that a release's repeated runs differed in the way named;
- PREDICATES: (input, answer) -> bool: the answer shows the difference itself.

A recogniser must be narrow: a disagreement it claims is one the run no longer
looks at, so it recognises the difference in the answer where it can. Why each
difference exists is written in its expectations entry, not here.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable, Iterator
from typing import Any

from reference_impl import dispatch
from reference_impl.kueue import gates
from reference_impl.quantity import parse

Data = dict[str, Any]

# ---------------------------------------------------------------- input guards


def unequal_numa_cpu_counts(data: Data) -> bool:
    counts = set()
    for node in data.get("node", {}).get("numaNodes", []):
        cpus = node.get("cpus")
        counts.add(len(cpus) if isinstance(cpus, list) else cpus)
    return len(counts) > 1


def _device_hint(data: Data) -> dict | None:
    """The pod's device-allocate-hint annotation decoded, when it is a JSON object."""
    raw = ((data.get("pod") or {}).get("annotations") or {}).get(KOORD_DEVICE_HINT)
    try:
        hint = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return None
    return hint if isinstance(hint, dict) else None


def _without_in_device_hint(data: Data, drop: Callable[[dict], bool]) -> Data | None:
    """The input with the device hint as `drop` leaves it, or None when the hint
    is unreadable or `drop` took nothing out of it."""
    hint = _device_hint(data)
    if hint is None or not drop(hint):
        return None
    copied = copy.deepcopy(data)
    copied["pod"]["annotations"][KOORD_DEVICE_HINT] = json.dumps(hint)
    return copied


def gpu_device_scope(data: Data) -> bool:
    gpu = (_device_hint(data) or {}).get("gpu")
    return isinstance(gpu, dict) and gpu.get("requiredTopologyScope") == "Device"


def _gates_enabled(data: Data, *names: str) -> bool | None:
    """Whether every named Kueue gate is on; None for input the gates refuse."""
    try:
        resolved = gates.resolve(data)
        return all(resolved.enabled(name) for name in names)
    except Exception:  # noqa: BLE001 - an input the gates refuse is no difference's
        return None


def replace_on_termination_and_fixed_time(data: Data) -> bool:
    return bool(_gates_enabled(data, "TASReplaceNodeOnPodTermination", "TASReplaceNodeDueToNotReadyOverFixedTime"))


# -------------------------------------------------------------------- rewrites

KOORD_DEVICE_RESOURCES = ("nvidia.com/gpu", "koordinator.sh/gpu", "koordinator.sh/gpu-core",
                          "koordinator.sh/gpu-memory-ratio", "koordinator.sh/rdma", "koordinator.sh/fpga")
KOORD_DEVICE_HINT = "scheduling.koordinator.sh/device-allocate-hint"
KOORD_GPU_PARTITIONS = "scheduling.koordinator.sh/gpu-partitions"


def _koord_resource_lists(data: Data) -> Iterator[dict]:
    for container in (data.get("pod") or {}).get("containers") or []:
        resources = (container or {}).get("resources") or {}
        for part in ("requests", "limits"):
            if isinstance(resources.get(part), dict):
                yield resources[part]


def fractions_rounded_up(data: Data) -> Data | None:
    """Positive fractional device quantities read whole, rounded up."""
    copied = copy.deepcopy(data)
    changed = False
    for resources in _koord_resource_lists(copied):
        for name in KOORD_DEVICE_RESOURCES:
            if name in resources:
                value = parse(resources[name])
                if value > 0 and value.denominator != 1:
                    resources[name], changed = str(math.ceil(value)), True
    return copied if changed else None


def memory_ratio_as_gpu_share(data: Data) -> Data | None:
    """koordinator.sh/gpu-memory-ratio without gpu-core written as koordinator.sh/gpu."""
    named = {name for resources in _koord_resource_lists(data) for name in resources}
    if "koordinator.sh/gpu-memory-ratio" not in named or named & {"nvidia.com/gpu", "koordinator.sh/gpu",
                                                                 "koordinator.sh/gpu-core"}:
        return None
    copied = copy.deepcopy(data)
    for resources in _koord_resource_lists(copied):
        if "koordinator.sh/gpu-memory-ratio" in resources:
            resources["koordinator.sh/gpu"] = resources.pop("koordinator.sh/gpu-memory-ratio")
    return copied


def device_hint_unread(data: Data) -> Data | None:
    """device-allocate-hint left out for a pod without device requests."""
    pod = data.get("pod") or {}
    if KOORD_DEVICE_HINT not in (pod.get("annotations") or {}):
        return None
    for container in pod.get("containers") or []:
        requests = ((container or {}).get("resources") or {}).get("requests") or {}
        if any(name in requests and parse(requests[name]) != 0 for name in KOORD_DEVICE_RESOURCES):
            return None
    copied = copy.deepcopy(data)
    del copied["pod"]["annotations"][KOORD_DEVICE_HINT]
    return copied


def secondary_scope_unread(data: Data) -> Data | None:
    """requiredTopologyScope left out of the rdma and fpga entries of the
    device-allocate-hint (the release reads it for GPUs only)."""
    def drop(hint: dict) -> bool:
        changed = False
        for dtype in ("rdma", "fpga"):
            entry = hint.get(dtype)
            if isinstance(entry, dict) and entry.get("requiredTopologyScope"):
                del entry["requiredTopologyScope"]
                changed = True
        return changed

    return _without_in_device_hint(data, drop)


def pcie_level_unread(data: Data) -> Data | None:
    """exclusivePolicy PCIeLevel left out of the device-allocate-hint (the
    release declares the value and acts on it nowhere)."""
    def drop(hint: dict) -> bool:
        changed = False
        for entry in hint.values():
            if isinstance(entry, dict) and entry.get("exclusivePolicy") == "PCIeLevel":
                del entry["exclusivePolicy"]
                changed = True
        return changed

    return _without_in_device_hint(data, drop)


def _decodes_as_quantity(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return False
    try:
        parse(str(value))
    except Exception:  # noqa: BLE001 - any refusal of the text is a quantity that does not decode
        return False
    return True


def _whole(value: Any) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool))


def _partition_undecodable(partition: Any) -> bool:
    """A partition encoding/json cannot decode into a GPUPartition: field names
    match case-blind, null stands for the zero value."""
    if partition is None:
        return False
    if not isinstance(partition, dict):
        return True
    for field, value in partition.items():
        name = field.lower()
        if name == "minors" and not (value is None or (isinstance(value, list) and all(map(_whole, value)))):
            return True
        if name == "allocationscore" and not _whole(value):
            return True
        if name == "gpulinktype" and not (value is None or isinstance(value, str)):
            return True
        if name == "ringbusbandwidth" and not _decodes_as_quantity(value):
            return True
    return False


def partition_table_undecodable(raw: Any) -> bool:
    """Whether the annotation is read as no table: empty, or not decodable into
    map[int][]GPUPartition, or null."""
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
        if not isinstance(partitions, list) or any(map(_partition_undecodable, partitions)):
            return True
    return False


def partition_table_dropped(data: Data) -> Data | None:
    """Partition tables that do not decode left out of the Device CRs."""
    copied = copy.deepcopy(data)
    nodes = copied.get("nodes") if isinstance(copied.get("nodes"), list) else [copied.get("node")]
    changed = False
    for node in nodes:
        annotations = (node or {}).get("deviceAnnotations")
        if isinstance(annotations, dict) and KOORD_GPU_PARTITIONS in annotations \
                and partition_table_undecodable(annotations[KOORD_GPU_PARTITIONS]):
            del annotations[KOORD_GPU_PARTITIONS]
            changed = True
    return copied if changed else None


def flavor_tolerations_dropped(data: Data) -> Data | None:
    """The ResourceFlavor's tolerations left out (exact where no NoExecute taint
    is involved: those reach the pods)."""
    if not ((data.get("resourceFlavor") or {}).get("spec") or {}).get("tolerations"):
        return None
    copied = copy.deepcopy(data)
    spec = (copied.get("resourceFlavor") or {}).get("spec") or {}
    spec.pop("tolerations", None)
    return copied


def fixed_time_gate_off(data: Data) -> Data | None:
    copied = dict(data)
    copied["featureGates"] = {**(data.get("featureGates") or {}), "TASReplaceNodeDueToNotReadyOverFixedTime": False}
    return copied


# ------------------------------------------------------------- non-determinism

NOT_DETERMINISTIC = "not deterministic"
MERGE_REASONS_ORDER_MARKER = "apart from that order every run gave "
RUNS_REFUSALS_MARKER = "the runs' refusals: "
DEVICE_TYPES_MARKER = "device types in Go map order"

KOORD_DEVICE_REFUSALS = frozenset({
    "InsufficientDevices", "InsufficientVirtualFunctions", "InsufficientTopologyScopedDevices",
    "JointAllocateViolation", "MissingGPUPartitionTable",
    "UnsupportedGPUPartitionCount", "InsufficientPartitionedGPUs", "InvalidGPUPartitionTable"})
_KOORD_DEVICE_TYPES = {"nvidia.com/gpu": "gpu", "koordinator.sh/gpu": "gpu", "koordinator.sh/gpu-core": "gpu",
                       "koordinator.sh/gpu-memory-ratio": "gpu", "koordinator.sh/gpu-memory": "gpu",
                       "koordinator.sh/rdma": "rdma",
                       "koordinator.sh/fpga": "fpga"}


def repeated_runs_differ(operation: str, data: Data, message: str) -> bool:
    """Any report of repeated runs that gave different results."""
    return NOT_DETERMINISTIC in message


def koord_device_types_requested(data: Data) -> int:
    found = set()
    for container in (data.get("pod") or {}).get("containers") or []:
        requests = ((container or {}).get("resources") or {}).get("requests") or {}
        for name, kind in _KOORD_DEVICE_TYPES.items():
            try:
                if name in requests and parse(str(requests[name])) != 0:
                    found.add(kind)
            except Exception:  # noqa: BLE001 - a request that does not parse names no type
                continue
    return len(found)


def _reference(component: str, operation: str, data: Data) -> Any:
    """The reference's answer, or None where it refuses the input outright."""
    try:
        return json.loads(json.dumps(dispatch.run(component, operation, data)))
    except Exception:  # noqa: BLE001 - an input the reference refuses is not the difference
        return None


def merge_reasons_in_map_order(operation: str, data: Data, message: str) -> bool:
    """The runs differ only in the order of one provider's unsatisfied reasons,
    and the result the shim reports with them sorted is the reference's, sorted."""
    if not message.startswith(NOT_DETERMINISTIC + ": ") or MERGE_REASONS_ORDER_MARKER not in message:
        return False
    try:
        release = json.loads(message.split(MERGE_REASONS_ORDER_MARKER, 1)[1])
    except ValueError:
        return False
    answer = _reference("koordinator", "merge", data)
    reasons = answer.get("reasons") if isinstance(answer, dict) else None
    if not isinstance(reasons, list) or len(reasons) < 2:
        return False
    return {**answer, "reasons": sorted(reasons)} == release


def merge_refusal_same_in_every_run(operation: str, data: Data, message: str) -> bool:
    """Two or more device types requested, and every run refused as the
    reference does (UnsatisfiedNUMAResource): they differ only in the order of
    the unsatisfied reasons."""
    if not message.startswith(NOT_DETERMINISTIC) or RUNS_REFUSALS_MARKER not in message \
            or koord_device_types_requested(data) < 2:
        return False
    answer = _reference("koordinator", "filter", data)
    if not isinstance(answer, dict) or answer.get("fits") or answer.get("reason") != "UnsatisfiedNUMAResource":
        return False
    return message.split(RUNS_REFUSALS_MARKER, 1)[1].split(" | ") == ["UnsatisfiedNUMAResource"]


def device_types_in_map_order(operation: str, data: Data, message: str) -> bool:
    """Two or more device types requested, the reference refuses the pod (on
    some node, for score) with a DeviceShare refusal, and one of the runs gave
    exactly the reference's refusal codes (per node, for score)."""
    if not message.startswith(NOT_DETERMINISTIC) or DEVICE_TYPES_MARKER not in message \
            or RUNS_REFUSALS_MARKER not in message:
        return False
    if koord_device_types_requested(data) < 2:
        return False
    answer = _reference("koordinator", operation, data)
    if not isinstance(answer, dict):
        return False
    rows = answer.get("nodes", []) if operation == "score" else [answer]
    if not any(not row.get("fits") and row.get("reason") in KOORD_DEVICE_REFUSALS for row in rows):
        return False
    codes = ",".join("fits" if row.get("fits") else str(row.get("reason")) for row in rows)
    return codes in message.split(RUNS_REFUSALS_MARKER, 1)[1].split(" | ")


# ------------------------------------------------------------------ predicates


def cpu_given_twice(data: Data, result: Data) -> bool:
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


def listed_unhealthy_node_acted_on_without_fnr(data: Data, result: Data) -> bool:
    """A workload already lists an unhealthy node, TASFailedNodeReplacement is
    off, and the answer still replaces, fails or evicts."""
    if not (data.get("workload") or {}).get("unhealthyNodes"):
        return False
    if _gates_enabled(data, "TASFailedNodeReplacement") is not False:
        return False
    acted = {"NodeReplaced", "ReplacementFailed", "Evicted"}
    return any(action.get("type") in acted for state in result.get("states", []) for action in state.get("actions", []))


def _not_ready_timeouts(result: Data | None) -> set[tuple[str, Any]]:
    return {(a.get("node"), a.get("at")) for state in (result or {}).get("states", []) for a in state.get("actions", [])
            if a.get("type") == "NodeFailed" and a.get("trigger") == "NotReadyTimeout"}


def not_ready_timeout_missed(data: Data, result: Data) -> bool:
    """The contract fails a node by the NotReady timeout at an instant where the
    answer does not (it fails it later, at another event, or never)."""
    reference = _reference("kueue", "hot_swap", data)
    return bool(_not_ready_timeouts(reference) - _not_ready_timeouts(result))


def negative_pod_count(data: Data, result: Data) -> bool:
    return any(isinstance(d.get("podCount"), int) and d["podCount"] < 0 for d in result.get("domains") or [])


def admitted_with_nowhere_to_run(data: Data, result: Data) -> bool:
    """Admitted with a pod set of a positive count that has no domains."""
    if result.get("admitted") is not True:
        return False
    counts = {p.get("name"): p.get("count", 0) for p in (data.get("workload") or {}).get("podSets") or []}
    return any(counts.get(p.get("name"), 0) > 0 and not ((p.get("topologyAssignment") or {}).get("domains"))
               for p in result.get("podSets") or [])


WHEN: dict[str, Callable[[Data], bool]] = {
    "unequal-numa-cpu-counts": unequal_numa_cpu_counts,
    "gpu-device-scope": gpu_device_scope,
    "replace-on-termination-and-fixed-time": replace_on_termination_and_fixed_time,
}

REWRITES: dict[str, Callable[[Data], Data | None]] = {
    "fractions-rounded-up": fractions_rounded_up,
    "memory-ratio-as-gpu-share": memory_ratio_as_gpu_share,
    "device-hint-unread": device_hint_unread,
    "secondary-scope-unread": secondary_scope_unread,
    "pcie-level-unread": pcie_level_unread,
    "partition-table-dropped": partition_table_dropped,
    "flavor-tolerations-dropped": flavor_tolerations_dropped,
    "fixed-time-gate-off": fixed_time_gate_off,
}

NONDETERMINISM: dict[str, Callable[[str, Data, str], bool]] = {
    "repeated-runs-differ": repeated_runs_differ,
    "merge-reasons-in-map-order": merge_reasons_in_map_order,
    "merge-refusal-same-in-every-run": merge_refusal_same_in_every_run,
    "device-types-in-map-order": device_types_in_map_order,
}

def locked_gate_turned_off_accepted(data: Data, result: Data) -> bool:
    """A start with TopologyManagerPolicyOptions set off that the release did
    not refuse for the lock: it started, or stopped at a later check."""
    return ((data.get("featureGates") or {}).get("TopologyManagerPolicyOptions") is False and "started" in result
            and (result.get("refused") or {}).get("reason") != "FeatureGateLocked")


PREDICATES: dict[str, Callable[[Data, Data], bool]] = {
    "cpu-given-twice": cpu_given_twice,
    "locked-gate-turned-off-accepted": locked_gate_turned_off_accepted,
    "listed-unhealthy-node-acted-on-without-fnr": listed_unhealthy_node_acted_on_without_fnr,
    "negative-pod-count": negative_pod_count,
    "not-ready-timeout-missed": not_ready_timeout_missed,
    "admitted-with-nowhere-to-run": admitted_with_nowhere_to_run,
}
