"""Koordinator's scheduler-side NUMA and device topology allocation: the topology
manager merge, NodeNUMAResource and DeviceShare, for one pod at a time."""
