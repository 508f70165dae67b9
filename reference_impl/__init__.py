"""Reference implementation of kubelet Topology Manager, Koordinator NUMA/device
allocation and Kueue Topology Aware Scheduling, as a plain library."""

__version__ = "0.1.0"
