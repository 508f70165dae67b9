"""Reference implementation of kubelet Topology Manager, Koordinator NUMA/device
allocation and Kueue Topology Aware Scheduling, as a plain library.

What the three components share has one module each: `quantity` (Kubernetes
quantities and their integer views), `cpuset` (Linux CPU lists), `refusal` (a
domain refusal and its answer) and `errors` (input that breaks a contract)."""

__version__ = "0.1.0"
