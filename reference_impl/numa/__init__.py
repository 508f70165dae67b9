"""NUMA primitives shared by the kubelet and Koordinator parts: bitmasks and
NUMA node information with distances."""
