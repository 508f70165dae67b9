"""Reference kubelet Topology Manager with KEP-6007's allocation-aware options,
and the CPU, memory and device managers as hint providers."""
