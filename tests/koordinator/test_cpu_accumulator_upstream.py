"""The CPU accumulator against upstream's observed selections
(nodenumaresource cpu_accumulator tests, maxRefCount 1). Topology shapes are
(sockets, NUMA nodes per socket, cores per NUMA node, threads per core) with the
compact numbering, which matches upstream's test topologies."""

import pytest

from reference_impl import cpuset
from reference_impl.koordinator import topology
from reference_impl.koordinator.cpu_accumulator import take_cpus


def shape(s, n, c, p):
    return topology.build({"sockets": s, "numaNodesPerSocket": n, "coresPerNUMANode": c, "threadsPerCore": p})


CASES = [
    # FullPCPUs, MostAllocated
    ("FullPCPUs", "MostAllocated", (1, 1, 4, 2), "", 2, "0-1"),
    ("FullPCPUs", "MostAllocated", (1, 1, 4, 2), "0-1", 2, "2-3"),
    ("FullPCPUs", "MostAllocated", (2, 1, 4, 2), "", 8, "0-7"),
    ("FullPCPUs", "MostAllocated", (2, 1, 4, 2), "", 12, "0-11"),
    ("FullPCPUs", "MostAllocated", (2, 1, 4, 2), "0-1", 8, "8-15"),
    ("FullPCPUs", "MostAllocated", (2, 2, 4, 2), "0-5,16-23", 6, "24-29"),
    ("FullPCPUs", "MostAllocated", (2, 2, 4, 2), "0-5,16-23", 12, "6-15,24-25"),
    ("FullPCPUs", "MostAllocated", (2, 2, 4, 2), "0-3,8-11", 4, "4-7"),
    ("FullPCPUs", "MostAllocated", (2, 2, 2, 2), "0,2,4,8,12", 4, "10-11,14-15"),
    ("FullPCPUs", "MostAllocated", (2, 2, 2, 2), "0,2,4,8,10,12", 6, "5-7,13-15"),
    ("FullPCPUs", "MostAllocated", (2, 2, 2, 2), "0,2,4,8-10,12", 6, "6-7,11,13-15"),
    # FullPCPUs, LeastAllocated
    ("FullPCPUs", "LeastAllocated", (2, 2, 4, 2), "0-5,16-23", 6, "8-13"),
    ("FullPCPUs", "LeastAllocated", (2, 2, 4, 2), "0-5,16-23", 12, "6-15,24-25"),
    ("FullPCPUs", "LeastAllocated", (2, 2, 4, 2), "0-3,8-11", 4, "16-19"),
    ("FullPCPUs", "LeastAllocated", (2, 2, 2, 2), "0,2,4,8,12", 4, "10-11,14-15"),
    ("FullPCPUs", "LeastAllocated", (2, 2, 2, 2), "0,2,4,8,10,12", 6, "1,3,6-7,14-15"),
    ("FullPCPUs", "LeastAllocated", (2, 2, 4, 2), "0,2,4,8-10,12", 6, "16-21"),
    # SpreadByPCPUs
    ("SpreadByPCPUs", "MostAllocated", (1, 1, 4, 2), "", 4, "0,2,4,6"),
    ("SpreadByPCPUs", "MostAllocated", (2, 1, 4, 2), "0,2", 4, "1,3-4,6"),
    ("SpreadByPCPUs", "MostAllocated", (2, 1, 4, 2), "0-3", 4, "8,10,12,14"),
    ("SpreadByPCPUs", "MostAllocated", (2, 1, 4, 2), "0,2", 6, "1,3-7"),
    ("SpreadByPCPUs", "LeastAllocated", (2, 1, 4, 2), "0,2", 4, "8,10,12,14"),
    ("SpreadByPCPUs", "LeastAllocated", (2, 1, 4, 2), "0-3", 4, "8,10,12,14"),
    ("SpreadByPCPUs", "LeastAllocated", (2, 1, 4, 2), "0,2", 6, "8-12,14"),
]


@pytest.mark.parametrize("policy, strategy, dims, held, need, want", CASES)
def test_selection(policy, strategy, dims, held, need, want):
    topo = shape(*dims)
    allocated = {c: "None" for c in cpuset.parse(held)}
    got = take_cpus(topo, set(topo.cpus) - set(allocated), allocated, need, policy, "None", strategy)
    assert cpuset.render(got) == want


EXCLUSIVE = [
    # (dims, held, holder policy, pod policy, bind, need, want), MostAllocated
    ((2, 1, 4, 2), "0,2", "PCPULevel", "PCPULevel", "SpreadByPCPUs", 4, "8,10,12,14"),
    ((2, 1, 4, 2), "", "PCPULevel", "PCPULevel", "SpreadByPCPUs", 10, "0-4,6,8,10,12,14"),
    ((2, 1, 8, 2), "0,2", "PCPULevel", "PCPULevel", "SpreadByPCPUs", 4, "4,6,8,10"),
    ((2, 1, 8, 2), "0,2", "PCPULevel", "None", "SpreadByPCPUs", 4, "1,3-4,6"),
    ((2, 1, 4, 2), "0,2", "NUMANodeLevel", "NUMANodeLevel", "SpreadByPCPUs", 4, "8,10,12,14"),
    ((2, 1, 4, 2), "0,2", "NUMANodeLevel", "None", "SpreadByPCPUs", 4, "1,3-4,6"),
    ((2, 1, 4, 2), "0,2", "NUMANodeLevel", "NUMANodeLevel", "FullPCPUs", 4, "8-11"),
    ((2, 1, 4, 2), "0,2", "NUMANodeLevel", "None", "FullPCPUs", 4, "4-7"),
]


@pytest.mark.parametrize("dims, held, holder, exclusive, bind, need, want", EXCLUSIVE)
def test_selection_with_exclusivity(dims, held, holder, exclusive, bind, need, want):
    topo = shape(*dims)
    allocated = {c: holder for c in cpuset.parse(held)}
    got = take_cpus(topo, set(topo.cpus) - set(allocated), allocated, need, bind, exclusive, "MostAllocated")
    assert cpuset.render(got) == want
