"""The static CPU policy over cores with hyperthreads and sockets, and its
full-pcpus-only option, through `admit`."""

from reference_impl.kubelet.cpu_topology import CPUTopology, take_distributed, take_packed
from reference_impl.kubelet.operations import admit

from .helpers import guaranteed, pod

# two NUMA nodes of four 2-thread cores, the second thread of core k is k + 8
SMT_NODE = {
    "threadsPerCore": 2,
    "numaNodes": [
        {"id": 0, "cpus": [0, 8, 1, 9, 2, 10, 3, 11], "memory": "16Gi"},
        {"id": 1, "cpus": [4, 12, 5, 13, 6, 14, 7, 15], "memory": "16Gi"},
    ],
}


def run(cfg, node, *pods):
    config = {"topologyManagerPolicy": "single-numa-node", "memoryManagerPolicy": "None", **cfg}
    return admit({"kubeletConfiguration": config, "node": node, "events": [{"admit": p} for p in pods]})


def cpu_ids(result, i):
    return result["pods"][i]["containers"][0]["cpuIDs"]


def test_whole_cores_before_single_threads():
    r = run({}, SMT_NODE, pod("a", guaranteed("app", cpu=4)), pod("b", guaranteed("app", cpu=1)),
            pod("c", guaranteed("app", cpu=2)), pod("d", guaranteed("app", cpu=1)))
    assert [cpu_ids(r, i) for i in range(4)] == [[0, 1, 8, 9], [2], [3, 11], [10]]


def test_one_thread_per_core_keeps_the_lowest_ids_of_the_fullest_node():
    node = {"numaNodes": [{"id": 0, "cpus": 4, "memory": "4Gi"}, {"id": 1, "cpus": 4, "memory": "4Gi"}]}
    r = run({"topologyManagerPolicy": "none"}, node, pod("a", guaranteed("app", cpu=2)), pod("b", guaranteed("app", cpu=3)))
    # b: node 0 has 2 candidates left, node 1 has 4; the fuller node first
    assert [cpu_ids(r, 0), cpu_ids(r, 1)] == [[0, 1], [2, 3, 4]]


def test_full_pcpus_only_refuses_a_part_of_a_core():
    r = run({"cpuManagerPolicyOptions": {"full-pcpus-only": "true"}}, SMT_NODE, pod("a", guaranteed("app", cpu=3)))
    entry = r["pods"][0]
    assert (entry["admitted"], entry["reason"]) == (False, "SMTAlignmentError")
    assert entry["message"] == "SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2"
    assert r["allocation"]["0"]["cpus"] == 0


def test_full_pcpus_only_counts_reserved_cores_whole():
    cfg = {"topologyManagerPolicy": "none", "reservedSystemCPUs": "0,4", "cpuManagerPolicyOptions": {"full-pcpus-only": "true"}}
    r = run(cfg, SMT_NODE, pod("a", guaranteed("app", cpu=14)), pod("b", guaranteed("app", cpu=12)))
    assert r["pods"][0]["reason"] == "SMTAlignmentError"
    assert "available physical CPUs = 12, requested CPUs = 14" in r["pods"][0]["message"]
    assert cpu_ids(r, 1) == [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15]


def test_without_the_option_an_odd_request_splits_a_core():
    r = run({"cpuManagerPolicyOptions": {"full-pcpus-only": "false"}}, SMT_NODE, pod("a", guaranteed("app", cpu=3)))
    assert cpu_ids(r, 0) == [0, 1, 8]


def test_option_refusals_come_after_the_topology_manager():
    r = run({"topologyManagerPolicy": "bogus", "cpuManagerPolicyOptions": {"nope": "true"}}, SMT_NODE)
    assert r["refused"]["reason"] == "UnknownPolicy"
    r = run({"cpuManagerPolicyOptions": {"nope": "true"}}, SMT_NODE)
    assert r["refused"] == {"reason": "UnknownCPUManagerPolicyOption", "message": 'unknown CPU Manager Policy option: "nope"'}


def test_sockets_first_when_a_socket_holds_two_numa_nodes():
    # one socket over NUMA nodes 0 and 1 (4 CPUs each), a second socket of its own on node 2
    topo = CPUTopology(
        numa={c: c // 4 for c in range(12)},
        socket={c: 0 if c < 8 else 1 for c in range(12)},
        core={c: c for c in range(12)},
        threads_per_core=1,
    )
    assert not topo.numa_first
    # 8 CPUs: whole sockets from the one with fewer free CPUs: socket 1 (4),
    # then socket 0 (8) is more than the 4 still needed; whole NUMA nodes of
    # socket 0 next: node 0
    assert take_packed(topo, range(12), 8) == [0, 1, 2, 3, 8, 9, 10, 11]
    # with CPU 0 gone socket 0 is not whole; NUMA node 2 (socket 1) is, and is
    # taken; the rest comes from the socket with fewer free CPUs, node 0 first
    assert take_packed(topo, range(1, 12), 6) == [1, 2, 8, 9, 10, 11]


def _flat(numa_nodes: int, cpus: int) -> CPUTopology:
    return CPUTopology(
        numa={c: c // cpus for c in range(numa_nodes * cpus)},
        socket={c: c // cpus for c in range(numa_nodes * cpus)},
        core={c: c for c in range(numa_nodes * cpus)},
        threads_per_core=1,
    )


def test_distributed_shares_evenly_and_packs_otherwise():
    topo = _flat(2, 8)
    assert take_distributed(topo, range(16), 10, 1) == [0, 1, 2, 3, 4, 8, 9, 10, 11, 12]
    assert take_packed(topo, range(16), 10) == list(range(10))


def test_distributed_remainder_goes_where_the_free_cpus_stay_most_even():
    topo = _flat(4, 4)
    # free 1, 1, 4, 4: only nodes 2 and 3 can share 5 (2 each), node 2 takes the fifth
    free = [3, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    assert take_distributed(topo, free, 5, 1) == [8, 9, 10, 12, 13]


def test_distributed_in_whole_cores_falls_back_to_packed_for_a_partial_group():
    topo = CPUTopology(numa={c: c // 4 for c in range(8)}, socket={c: c // 4 for c in range(8)},
                       core={c: c - c % 2 for c in range(8)}, threads_per_core=2)
    assert take_distributed(topo, range(8), 6, 2) == [0, 1, 2, 3, 4, 5]
    assert take_distributed(topo, range(8), 5, 2) == take_packed(topo, range(8), 5)


def test_align_by_socket_prefers_the_same_socket_pair():
    node = {"numaNodes": [{"id": i, "cpus": 2, "socket": i // 2, "memory": "8Gi"} for i in range(4)]}
    events = [pod(n, guaranteed("app", cpu=1)) for n in "abcd"]
    evs = [{"admit": p} for p in events] + [{"remove": "a"}, {"remove": "c"}, {"admit": pod("e", guaranteed("app", cpu=2))}]

    def last(options, gates):
        cfg = {"topologyManagerPolicy": "restricted", "memoryManagerPolicy": "None", "reservedSystemCPUs": "5,7",
               "cpuManagerPolicyOptions": options}
        return admit({"kubeletConfiguration": cfg, "featureGates": gates, "node": node, "events": evs})["pods"][-1]

    aligned = last({"align-by-socket": "true"}, {"CPUManagerPolicyAlphaOptions": True})
    assert (aligned["admitted"], aligned["containers"][0]["affinity"], aligned["containers"][0]["cpuIDs"]) == (True, [0, 1], [0, 2])
    assert last({}, {})["reason"] == "TopologyAffinityError"


def test_align_by_socket_is_refused_with_single_numa_node():
    cfg = {"cpuManagerPolicyOptions": {"align-by-socket": "true"}}
    r = admit({"kubeletConfiguration": {"topologyManagerPolicy": "single-numa-node", "memoryManagerPolicy": "None", **cfg},
               "featureGates": {"CPUManagerPolicyAlphaOptions": True}, "node": SMT_NODE, "events": []})
    assert r["refused"]["reason"] == "IncompatibleCPUManagerPolicyOption"
