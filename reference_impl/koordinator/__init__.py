"""Koordinator's scheduler-side NUMA and device topology allocation: the topology
manager merge, NodeNUMAResource and DeviceShare, for one pod at a time.

Reading order: `operations` (the protocol's entry points) -> `pipeline` (one pod on
one node) -> `policy` (which policies apply) -> `numa_resources` and
`cpu_accumulator` (NodeNUMAResource) / `deviceshare`, `device_allocation`,
`partitions` (DeviceShare) -> `merge` (the topology manager). Inputs are parsed by
`node`, `pod`, `args`, `annotations` and `device_requests`.
"""
