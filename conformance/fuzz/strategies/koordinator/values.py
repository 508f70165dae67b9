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
# The Node's resource-amplification-ratio annotation: CPU ratios below, at and
# above 1 (1.1 and 1.7 round up in float64), other resources' keys, a null, and
# values that do not decode (refused for a pod with a CPU request).
AMPLIFICATION_RATIOS = (
    '{"cpu":1.5}', '{"cpu":2}', '{"cpu":1.1}', '{"cpu":1.7}', '{"cpu":1}', '{"cpu":0.5}',
    '{"memory":1.5}', '{"cpu":1.5,"memory":2}', '{"nvidia.com/gpu":2}', "{}", "null", '{"cpu":null}',
)
UNDECODABLE_AMPLIFICATION_RATIOS = ("{", "[1.5]", '{"cpu":"1.5"}', "1.5", '{"cpu":true}')
# A GPU's memory on the Device CR (koordinator.sh/gpu-memory); absent is 16Gi.
GPU_MEMORIES = ("16Gi", "24Gi", "40Gi", "80Gi")


def as_json(value) -> str:
    return json.dumps(value, separators=(",", ":"))
