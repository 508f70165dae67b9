"""The label keys, gates, taints and versions the generated Kueue inputs use."""

from __future__ import annotations

from reference_impl.kueue import gates

SUPERBLOCK = "cloud.provider.com/topology-superblock"
BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"
ZONE = "topology.kubernetes.io/zone"
GROUP_LABEL = "cloud.provider.com/node-group"


# gate -> the minor version it first exists in.
GATES = {gate: gates.introduced_in(gate)[1] for gate in gates.GATES}
PLACEMENT_GATES = (gates.PROFILE_MIXED, gates.BALANCED, gates.MULTI_LAYER)
HOT_SWAP_GATES = (gates.FAILED_NODE_REPLACEMENT, gates.FAIL_FAST, gates.REPLACE_ON_POD_TERMINATION, gates.FIXED_TIME,
                  gates.NODE_TAINTS, gates.SKIP_POD_OWNED)
TAINT_KEYS = ("nvidia.com/gpu", "node.kubernetes.io/unreachable", "maintenance")
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def minor_of(version: str) -> int:
    return int(version.split(".")[1])
