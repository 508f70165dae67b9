"""The scheduler framework status code that goes with each refusal of filter.

The code tells the scheduler whether preemption could help: `Unschedulable`
(evicting pods might make room), `UnschedulableAndUnresolvable` (nothing
on this node will change the answer) or `Error` (the pod itself cannot be
read). It follows from the refusal's reason and from where in the cycle it
was met (`docs/operations/koordinator.md`, "Status codes")."""

from __future__ import annotations

from enum import Enum


class Origin(Enum):
    """Where in the scheduling cycle a refusal was met."""

    # PreFilter, a Filter check, or an allocation outside the merge: the
    # reason alone decides.
    PLUGIN = "plugin"
    # The Topology Manager's admit (providers' hints and the merge): it wraps
    # every failure it meets into one Unschedulable status of its own.
    MERGE = "merge"
    # DeviceShare's per-node check of the request against the devices the
    # node has at all (none of the type, none matching an ApplyForAll
    # selector, a vfSelector on devices without VFs).
    DEVICE_PREPARE = "device-prepare"


UNSCHEDULABLE = "Unschedulable"
UNRESOLVABLE = "UnschedulableAndUnresolvable"
ERROR = "Error"

# The code of each reason when the plugin itself refuses (Origin.PLUGIN).
BY_REASON: dict[str, str] = {
    # NodeNUMAResource cannot decode the pod's own annotations.
    "InvalidNUMATopologySpec": ERROR,
    "InvalidResourceSpec": ERROR,
    "PodNUMAAllocateStrategyNotSupported": ERROR,
    # DeviceShare's PreFilter and the node checks: no other pod's eviction helps.
    "InvalidDeviceAllocateHint": UNRESOLVABLE,
    "InvalidDeviceJointAllocate": UNRESOLVABLE,
    "InvalidGPUPartitionSpec": UNRESOLVABLE,
    "InvalidDeviceRequest": UNRESOLVABLE,
    "InvalidRequestedCPUs": UNRESOLVABLE,
    "InvalidNodeLabel": UNRESOLVABLE,
    "InvalidGPUPartitionTable": UNRESOLVABLE,
    "ErrNotMatchNUMATopology": UNRESOLVABLE,
    "MissingNUMAResources": UNRESOLVABLE,
    "InvalidCPUTopology": UNRESOLVABLE,
    "CPUBindPolicyConflict": UNRESOLVABLE,
    "SMTAlignmentError": UNRESOLVABLE,
    "MissingGPUPartitionTable": UNRESOLVABLE,
    "UnsupportedGPUPartitionCount": UNRESOLVABLE,
    "InvalidAmplificationRatio": UNRESOLVABLE,
    "InvalidDeviceAllocated": UNRESOLVABLE,
    # The pod's scheduling hint cannot be decoded, or a designated GPU the node
    # lacks leaves DeviceShare unable to size its memory: errors, not verdicts.
    "InvalidSchedulingHint": ERROR,
    "MissingDesignatedGPU": ERROR,
    # Shortages and the merge's refusals: room made by preemption may help.
    "UnsatisfiedNUMAResource": UNSCHEDULABLE,
    "UnalignedNUMAHint": UNSCHEDULABLE,
    "SingleNUMANodeExclusiveConflict": UNSCHEDULABLE,
    "InsufficientNUMAResources": UNSCHEDULABLE,
    "InsufficientCPUs": UNSCHEDULABLE,
    "InsufficientDevices": UNSCHEDULABLE,
    "InsufficientVirtualFunctions": UNSCHEDULABLE,
    "InsufficientTopologyScopedDevices": UNSCHEDULABLE,
    "JointAllocateViolation": UNSCHEDULABLE,
    "InsufficientPartitionedGPUs": UNSCHEDULABLE,
    "InsufficientAmplifiedCPU": UNSCHEDULABLE,
    "DesignatedDeviceWithoutNUMA": UNSCHEDULABLE,
}


def status_code(reason: str, origin: Origin) -> str:
    if origin is Origin.MERGE:
        return UNSCHEDULABLE
    if origin is Origin.DEVICE_PREPARE:
        return UNRESOLVABLE
    return BY_REASON[reason]
