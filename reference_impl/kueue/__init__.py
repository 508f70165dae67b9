"""Kueue Topology Aware Scheduling: topology and capacity, placement, slices,
balanced placement, annotation validation, node hot swap and provisioning."""
