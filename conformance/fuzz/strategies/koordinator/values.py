"""The values the Koordinator documents give each generated field, and the
JSON spelling of annotation values."""

from __future__ import annotations

import json

NUMA_POLICIES = ("", "None", "BestEffort", "Restricted", "SingleNUMANode")
EXCLUSIVES = ("", "Preferred", "Required")
BIND_POLICIES = ("", "Default", "FullPCPUs", "SpreadByPCPUs", "ConstrainedBurst")
CPU_EXCLUSIVES = ("", "None", "PCPULevel", "NUMANodeLevel")
NODE_STRATEGIES = ("", "MostAllocated", "LeastAllocated", "DistributeEvenly")
NODE_BIND_POLICIES = ("None", "FullPCPUsOnly", "SpreadByPCPUs")
KUBELET_POLICIES = (None, "None", "BestEffort", "Restricted", "SingleNUMANodePodLevel", "SingleNUMANodeContainerLevel")
DEVICE_TYPES = ("gpu", "rdma", "fpga")
SCOPES = ("", "Device", "PCIe", "NUMANode", "Node")
DEVICE_EXCLUSIVES = ("", "DeviceLevel", "PCIeLevel")
SCORING = ("MostAllocated", "LeastAllocated", "BalancedAllocation")
MERGE_POLICIES = ("", "None", "BestEffort", "Restricted", "SingleNUMANode")
STATUSES = ("idle", "shared", "single")


def as_json(value) -> str:
    return json.dumps(value, separators=(",", ":"))
