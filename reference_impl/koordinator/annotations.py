"""Pod annotations and node labels of the NUMA and device protocols, with their
JSON shapes validated. Keys are the ones clusters carry (`scheduling.koordinator.sh/`
for pod annotations, `node.koordinator.sh/` for labels)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from .. import quantity
from ..refusal import Refusal
from . import selectors
from .devices import DEVICE_TYPES

NUMA_TOPOLOGY_SPEC = "scheduling.koordinator.sh/numa-topology-spec"
RESOURCE_SPEC = "scheduling.koordinator.sh/resource-spec"
DEVICE_ALLOCATE_HINT = "scheduling.koordinator.sh/device-allocate-hint"
DEVICE_JOINT_ALLOCATE = "scheduling.koordinator.sh/device-joint-allocate"
GPU_PARTITION_SPEC = "scheduling.koordinator.sh/gpu-partition-spec"
GPU_PARTITIONS = "scheduling.koordinator.sh/gpu-partitions"

LABEL_NUMA_TOPOLOGY_POLICY = "node.koordinator.sh/numa-topology-policy"
LABEL_NUMA_ALLOCATE_STRATEGY = "node.koordinator.sh/numa-allocate-strategy"
LABEL_CPU_BIND_POLICY = "node.koordinator.sh/cpu-bind-policy"
LABEL_GPU_PARTITION_POLICY = "node.koordinator.sh/gpu-partition-policy"
LABEL_GPU_MODEL = "node.koordinator.sh/gpu-model"
LABEL_QOS = "koordinator.sh/qosClass"
LABEL_PRIORITY_CLASS = "koordinator.sh/priority-class"

NUMA_POLICIES = ("", "None", "BestEffort", "Restricted", "SingleNUMANode")
EXCLUSIVES = ("", "Preferred", "Required")
STRATEGIES = ("", "MostAllocated", "LeastAllocated", "DistributeEvenly")
BIND_POLICIES = ("", "Default", "FullPCPUs", "SpreadByPCPUs", "ConstrainedBurst")
CPU_EXCLUSIVES = ("", "None", "PCPULevel", "NUMANodeLevel")
NODE_BIND_POLICIES = ("", "None", "FullPCPUsOnly", "SpreadByPCPUs")
ALLOCATE_STRATEGIES = ("", "ApplyForAll", "RequestsAsCount")
SCOPES = ("", "Device", "PCIe", "NUMANode", "Node")
DEVICE_EXCLUSIVES = ("", "DeviceLevel", "PCIeLevel")
JOINT_SCOPES = ("", "SamePCIe")
PARTITION_POLICIES = ("", "Restricted", "BestEffort")
NODE_PARTITION_POLICIES = ("", "Honor", "Prefer")


def _object(annotations: Mapping[str, str], key: str, reason: str):
    raw = annotations.get(key)
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except (TypeError, ValueError) as exc:
        raise Refusal(reason, f"annotation {key} is not valid JSON: {exc}", "PreFilter") from None
    if not isinstance(value, dict):
        raise Refusal(reason, f"annotation {key} must be a JSON object", "PreFilter")
    return value


def _enum(obj: Mapping, name: str, allowed, key: str, reason: str) -> str:
    value = obj.get(name, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise Refusal(reason, f"annotation {key}: {name} must be a string, got {json.dumps(value)}", "PreFilter")
    if value not in allowed:
        raise Refusal(reason, f"annotation {key}: unknown {name} {value!r}", "PreFilter")
    return value


@dataclass(frozen=True)
class NUMATopologySpec:
    policy: str = ""
    exclusive: str = ""
    strategy: str = ""


def _enums(annotations: Mapping[str, str], key: str, reason: str, fields) -> tuple[str, ...] | None:
    """The string fields of one JSON annotation, each from its allowed set,
    checked in the order given (the first bad one is the refusal); None when
    the pod has no such annotation."""
    obj = _object(annotations, key, reason)
    if obj is None:
        return None
    return tuple(_enum(obj, name, allowed, key, reason) for name, allowed in fields)


def numa_topology_spec(annotations: Mapping[str, str]) -> NUMATopologySpec:
    fields = _enums(annotations, NUMA_TOPOLOGY_SPEC, "InvalidNUMATopologySpec",
                    (("numaTopologyPolicy", NUMA_POLICIES), ("singleNUMANodeExclusive", EXCLUSIVES),
                     ("numaAllocateStrategy", STRATEGIES)))
    if fields is None:
        return NUMATopologySpec()
    policy, exclusive, strategy = fields
    if strategy in ("MostAllocated", "LeastAllocated"):
        raise Refusal("PodNUMAAllocateStrategyNotSupported",
                      f"annotation {NUMA_TOPOLOGY_SPEC}: numaAllocateStrategy {strategy} is a node-level strategy; "
                      "only DistributeEvenly is honoured on a pod", "PreFilter")
    return NUMATopologySpec("" if policy == "None" else policy, exclusive, strategy)


@dataclass(frozen=True)
class ResourceSpec:
    required: str = ""
    preferred: str = ""
    exclusive: str = ""


def resource_spec(annotations: Mapping[str, str]) -> ResourceSpec:
    fields = _enums(annotations, RESOURCE_SPEC, "InvalidResourceSpec",
                    (("requiredCPUBindPolicy", BIND_POLICIES), ("preferredCPUBindPolicy", BIND_POLICIES),
                     ("preferredCPUExclusivePolicy", CPU_EXCLUSIVES)))
    return ResourceSpec() if fields is None else ResourceSpec(*fields)


@dataclass(frozen=True)
class DeviceHint:
    selector: Mapping | None = None
    vf_selector: Mapping | None = None
    allocate_strategy: str = ""
    scope: str = ""
    exclusive: str = ""

    def to_json(self) -> dict:
        out: dict = {}
        if self.selector is not None:
            out["selector"] = self.selector
        if self.vf_selector is not None:
            out["vfSelector"] = self.vf_selector
        if self.allocate_strategy:
            out["allocateStrategy"] = self.allocate_strategy
        if self.scope:
            out["requiredTopologyScope"] = self.scope
        if self.exclusive:
            out["exclusivePolicy"] = self.exclusive
        return out


def device_hints(annotations: Mapping[str, str]) -> dict[str, DeviceHint]:
    key, reason = DEVICE_ALLOCATE_HINT, "InvalidDeviceAllocateHint"
    obj = _object(annotations, key, reason)
    if obj is None:
        return {}
    out = {}
    for dtype, hint in obj.items():
        if dtype not in DEVICE_TYPES:
            raise Refusal(reason, f"annotation {key}: unknown device type {dtype!r}", "PreFilter")
        if hint is None:
            hint = {}
        if not isinstance(hint, dict):
            raise Refusal(reason, f"annotation {key}: the hint for {dtype} must be an object", "PreFilter")
        sel = {}
        for name in ("selector", "vfSelector"):
            if hint.get(name) is not None:
                try:
                    selectors.validate(hint[name])
                except selectors.SelectorError as exc:
                    raise Refusal(reason, f"annotation {key}: {dtype}.{name}: {exc}", "PreFilter") from None
                sel[name] = hint[name]
        out[dtype] = DeviceHint(
            selector=sel.get("selector"),
            vf_selector=sel.get("vfSelector"),
            allocate_strategy=_enum(hint, "allocateStrategy", ALLOCATE_STRATEGIES, key, reason),
            scope=_enum(hint, "requiredTopologyScope", SCOPES, key, reason),
            exclusive=_enum(hint, "exclusivePolicy", DEVICE_EXCLUSIVES, key, reason),
        )
    return out


@dataclass(frozen=True)
class JointAllocate:
    device_types: tuple[str, ...]
    scope: str = ""

    def to_json(self) -> dict:
        return {"deviceTypes": list(self.device_types), "requiredScope": self.scope}


def joint_allocate(annotations: Mapping[str, str]) -> JointAllocate | None:
    key, reason = DEVICE_JOINT_ALLOCATE, "InvalidDeviceJointAllocate"
    obj = _object(annotations, key, reason)
    if obj is None:
        return None
    types = obj.get("deviceTypes")
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        raise Refusal(reason, f"annotation {key}: deviceTypes must be a list of device types", "PreFilter")
    unknown = [t for t in types if t not in DEVICE_TYPES]
    if unknown:
        raise Refusal(reason, f"annotation {key}: unknown device types {unknown}", "PreFilter")
    if len(set(types)) < 2 or len(set(types)) != len(types):
        raise Refusal(reason, f"annotation {key}: deviceTypes must name at least two distinct device types", "PreFilter")
    return JointAllocate(tuple(types), _enum(obj, "requiredScope", JOINT_SCOPES, key, reason))


@dataclass(frozen=True)
class GPUPartitionSpec:
    policy: str = "BestEffort"
    ring_bus_bandwidth: int | None = None

    def to_json(self) -> dict:
        return {"allocatePolicy": self.policy, "ringBusBandwidth": self.ring_bus_bandwidth}


def gpu_partition_spec(annotations: Mapping[str, str]) -> GPUPartitionSpec | None:
    key, reason = GPU_PARTITION_SPEC, "InvalidGPUPartitionSpec"
    obj = _object(annotations, key, reason)
    if obj is None:
        return None
    policy = _enum(obj, "allocatePolicy", PARTITION_POLICIES, key, reason) or "BestEffort"
    bandwidth = None
    if obj.get("ringBusBandwidth") is not None:
        try:
            bandwidth = quantity.value(quantity.parse(obj["ringBusBandwidth"]))
        except quantity.QuantityError:
            raise Refusal(reason, f"annotation {key}: ringBusBandwidth {obj['ringBusBandwidth']!r} is not a quantity",
                          "PreFilter") from None
        if bandwidth < 0:
            raise Refusal(reason, f"annotation {key}: ringBusBandwidth must not be negative", "PreFilter")
    return GPUPartitionSpec(policy, bandwidth)


def node_label(labels: Mapping[str, str], key: str, allowed) -> str:
    value = labels.get(key, "")
    if value not in allowed:
        raise Refusal("InvalidNodeLabel", f"label {key} has unknown value {value!r}", "Filter")
    return value
