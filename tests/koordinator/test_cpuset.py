"""CPU set selection (the accumulator), on upstream's worked examples and the bind rules."""

import pytest

from .helpers import run, topology

TOPO = topology(2, 1, 4, 2)   # 2 sockets x 1 NUMA node x 4 cores x 2 threads, siblings adjacent


def cpuset(**kw):
    return run("cpuset", {"cpuTopology": TOPO, **kw})


def test_full_pcpus_takes_one_numa_node():
    assert cpuset(need=8, cpuBindPolicy="FullPCPUs")["cpuset"] == list(range(8))


def test_full_pcpus_beyond_a_socket_takes_whole_sockets_then_cores():
    assert cpuset(need=12, cpuBindPolicy="FullPCPUs")["cpusetString"] == "0-11"


@pytest.mark.parametrize("strategy, expected", [("MostAllocated", [1, 3, 4, 6]), ("LeastAllocated", [8, 10, 12, 14])])
def test_spread_follows_the_numa_allocate_strategy(strategy, expected):
    out = cpuset(need=4, cpuBindPolicy="SpreadByPCPUs", allocated=[{"cpuset": "0,2"}], numaAllocateStrategy=strategy)
    assert out["cpuset"] == expected


def test_pcpu_exclusive_avoids_cores_of_exclusive_pods():
    out = cpuset(need=4, cpuBindPolicy="SpreadByPCPUs", cpuExclusivePolicy="PCPULevel",
                 allocated=[{"cpuset": "0,2", "cpuExclusivePolicy": "PCPULevel"}], numaAllocateStrategy="MostAllocated")
    assert out["cpuset"] == [8, 10, 12, 14]


def test_numa_exclusive_avoids_numa_nodes_of_exclusive_pods():
    out = cpuset(need=4, cpuBindPolicy="FullPCPUs", cpuExclusivePolicy="NUMANodeLevel",
                 allocated=[{"cpuset": "0,1", "cpuExclusivePolicy": "NUMANodeLevel"}], numaAllocateStrategy="MostAllocated")
    assert out["cpuset"] == [8, 9, 10, 11]


def test_exclusivity_is_a_preference():
    out = cpuset(need=12, cpuBindPolicy="SpreadByPCPUs", cpuExclusivePolicy="PCPULevel",
                 allocated=[{"cpuset": "0,2,4,6", "cpuExclusivePolicy": "PCPULevel"}])
    assert out["allocated"] and len(out["cpuset"]) == 12


def test_required_full_pcpus_refuses_half_cores():
    out = cpuset(need=6, cpuBindPolicy="FullPCPUs", required=True,
                 allocated=[{"cpuset": "0,2,4,6,8,10,12"}])
    assert out == {"allocated": False, "reason": "InsufficientCPUs", "message": "not enough cpus available to satisfy request"}


def test_preferred_full_pcpus_takes_half_cores_when_it_must():
    out = cpuset(need=6, cpuBindPolicy="FullPCPUs", allocated=[{"cpuset": "0,2,4,6,8,10,12"}])
    assert out["allocated"] and len(out["cpuset"]) == 6


def test_numa_restriction_and_reserved_cpus():
    out = cpuset(need=4, cpuBindPolicy="FullPCPUs", numaNodes=[1], reservedCPUs="8-9")
    assert out["cpuset"] == [10, 11, 12, 13]


def test_too_many():
    out = cpuset(need=17, cpuBindPolicy="Default")
    assert out["allocated"] is False and out["reason"] == "InsufficientCPUs"
