"""Pod admission through the providers, worked by hand from the seed's
numbers and upstream's hint rules."""

from reference_impl.kubelet.operations import admit

from .helpers import ALPHA, config, guaranteed, pod

GI = 1 << 30


def run(cfg, node, *events, gates=None, version="1.38"):
    evs = [e if "remove" in e else {"admit": e} for e in events]
    return admit({"kubernetesVersion": version, "featureGates": gates or {}, "kubeletConfiguration": cfg, "node": node, "events": evs})


def nodes(n, cpus, memory, **devices):
    return [{"id": i, "cpus": cpus, "memory": memory, **({"devices": dict(devices)} if devices else {})} for i in range(n)]


EX1_NODE = {
    "numaNodes": [{"id": i, "cpus": 64, "memory": "128Gi", "devices": {"nvidia.com/gpu": 4}} for i in (0, 1)],
    "allocated": [
        {"numa": 0, "cpus": 48, "memory": "64Gi", "devices": {"nvidia.com/gpu": 1}},
        {"numa": 1, "cpus": 16, "memory": "32Gi", "devices": {"nvidia.com/gpu": 3}},
    ],
}
EX1_POD = pod("gpu-pod", guaranteed("trainer", cpu=8, memory="16Gi", extra={"nvidia.com/gpu": 1}))


def only(result, i=0):
    return result["pods"][i]["containers"][0]


def test_example1_most_allocated_unset_weights_picks_numa0():
    r = run(config(scope="pod", numa_allocation_strategy="most-allocated"), EX1_NODE, EX1_POD, gates=ALPHA)
    c = only(r)
    assert (c["affinity"], c["preferred"], c["cpus"], c["memory"], c["devices"]) == (
        [0], True, {"0": 8}, {"0": 16 * GI}, {"nvidia.com/gpu": {"0": 1}})
    # the baseline holds numa0's highest ids 16-63
    assert c["cpuIDs"] == list(range(0, 8))
    assert r["allocation"]["0"] == {"cpus": 56, "memory": 80 * GI, "devices": {"nvidia.com/gpu": 2}}
    assert r["metrics"]["numa_score_selection_total"] == {}
    assert r["metrics"]["numa_container_count"] == {"0": 1, "1": 0}


def test_example1_gpu_weight_flips_to_numa1_and_least_allocated_back():
    r = run(config(scope="pod", numa_allocation_strategy="most-allocated", numa_score_weights="nvidia.com/gpu=10"),
            EX1_NODE, EX1_POD, gates=ALPHA)
    assert only(r)["affinity"] == [1]
    assert r["allocation"]["1"] == {"cpus": 24, "memory": 48 * GI, "devices": {"nvidia.com/gpu": 4}}
    assert r["metrics"]["numa_score_selection_total"] == {"most-allocated": 1}
    r = run(config(scope="pod", numa_allocation_strategy="least-allocated", numa_score_weights="nvidia.com/gpu=10"),
            EX1_NODE, EX1_POD, gates=ALPHA)
    assert only(r)["affinity"] == [0]
    assert r["metrics"]["numa_score_selection_total"] == {}


def test_example1_gate_off_is_structural():
    r = run(config(scope="pod", numa_allocation_strategy="most-allocated", numa_score_weights="nvidia.com/gpu=10"),
            EX1_NODE, EX1_POD, gates=ALPHA | {"TopologyManagerPolicyAlphaOptions": False})
    assert r["started"] is False and r["refused"]["reason"] == "PolicyOptionNotAvailable"


EX2_NODE = {
    "numaNodes": [{"id": i, "cpus": 32, "memory": "128Gi", "devices": {"intel.com/sriov-nic": 8}} for i in range(4)],
    "allocated": [
        {"numa": 0, "cpus": 8, "memory": "32Gi", "devices": {"intel.com/sriov-nic": 6}},
        {"numa": 1, "cpus": 24, "memory": "96Gi", "devices": {"intel.com/sriov-nic": 2}},
        {"numa": 2, "cpus": 16, "memory": "64Gi", "devices": {"intel.com/sriov-nic": 4}},
        {"numa": 3, "cpus": 16, "memory": "64Gi", "devices": {"intel.com/sriov-nic": 4}},
    ],
}


def vf_pod(name):
    return pod(name, guaranteed("cnf", cpu=2, memory="2Gi", extra={"intel.com/sriov-nic": 1}))


def test_example2_unset_weights_exhaust_numa0_vfs():
    r = run(config(scope="pod", numa_allocation_strategy="least-allocated"), EX2_NODE,
            vf_pod("a"), vf_pod("b"), vf_pod("c"), gates=ALPHA)
    # a: numa0 (25+25+75)/3 = 41 < 50 < 58
    # b: numa0 cpu 10/32 = 31, memory 34/128 = 26, VF 7/8 = 87 -> 48 < 50
    # c: numa0 has no VF left; numa2 and numa3 tie at 50 -> numa2; numa1 (58) keeps 6 VFs idle
    assert [only(r, i)["affinity"] for i in range(3)] == [[0], [0], [2]]
    assert r["allocation"]["0"]["devices"] == {"intel.com/sriov-nic": 8}
    assert r["allocation"]["1"]["devices"] == {"intel.com/sriov-nic": 2}


def test_example2_zero_cpu_memory_weights_follow_free_vfs():
    r = run(config(scope="pod", numa_allocation_strategy="least-allocated", numa_score_weights="cpu=0,memory=0"),
            EX2_NODE, vf_pod("a"), gates=ALPHA)
    assert only(r)["affinity"] == [1]
    assert r["metrics"]["numa_score_selection_total"] == {"least-allocated": 1}


def test_cpu_preferred_width_comes_from_capacity_not_usage():
    node = {"numaNodes": nodes(2, 4, "8Gi"), "allocated": [{"numa": 0, "cpus": 3}, {"numa": 1, "cpus": 2}]}
    p = pod("p", guaranteed("c", cpu=3, memory="1Gi"))
    # {0} has 1 free, {1} has 2 free: no single node fits; {0,1} fits but is wider than the
    # minimal width 1 (each node has 4 CPUs): not preferred
    r = run(config("restricted"), node, p)
    assert r["pods"][0]["admitted"] is False and r["pods"][0]["reason"] == "TopologyAffinityError"
    r = run(config("best-effort"), node, p)
    c = only(r)
    assert c["affinity"] == [0, 1] and c["preferred"] is False
    assert sum(c["cpus"].values()) == 3
    assert r["metrics"]["admission_errors_total"] == 0


def test_non_integer_cpu_and_burstable_get_nothing_exclusive():
    node = {"numaNodes": nodes(2, 4, "8Gi", **{"example.com/dev": 2})}
    frac = pod("frac", guaranteed("c", cpu="1500m", memory="1Gi"))
    r = run(config("single-numa-node"), node, frac)
    c = only(r)
    assert c["cpus"] == {} and c["cpuIDs"] == []
    # still Guaranteed: the memory manager pins memory
    assert c["memory"] == {"0": GI}
    burst = pod("b", {"name": "c", "resources": {"requests": {"cpu": "1", "example.com/dev": "1"}, "limits": {"example.com/dev": "1"}}})
    r = run(config("single-numa-node"), node, burst)
    c = only(r)
    assert c["cpus"] == {} and c["memory"] == {} and c["devices"] == {"example.com/dev": {"0": 1}}


def test_init_container_cpus_are_reused_but_sidecars_are_not():
    node = {"numaNodes": nodes(2, 8, "16Gi")}
    p = pod("p", guaranteed("app", cpu=4), init=[guaranteed("init", cpu=4)])
    r = run(config("single-numa-node"), node, p)
    init, app = r["pods"][0]["containers"]
    assert init["cpuIDs"] == app["cpuIDs"] == [0, 1, 2, 3]
    assert r["allocation"]["0"]["cpus"] == 4
    side = dict(guaranteed("side", cpu=2), restartPolicy="Always")
    p = pod("q", guaranteed("app", cpu=4), init=[side])
    r = run(config("single-numa-node"), node, p)
    side_c, app_c = r["pods"][0]["containers"]
    assert set(side_c["cpuIDs"]).isdisjoint(app_c["cpuIDs"])
    assert r["allocation"]["0"]["cpus"] == 6


def test_a_sidecar_keeps_cpus_it_took_from_a_finished_init_container():
    node = {"numaNodes": nodes(1, 8, "16Gi")}
    side = dict(guaranteed("side", cpu=2), restartPolicy="Always")
    p = pod("p", guaranteed("app", cpu=4), init=[guaranteed("init", cpu=2), side])
    r = run(config("single-numa-node"), node, p)
    init, side_c, app = r["pods"][0]["containers"]
    # the sidecar reuses the init container's CPUs 0-1; the app may not take them again
    assert side_c["cpuIDs"] == init["cpuIDs"] == [0, 1]
    assert app["cpuIDs"] == [2, 3, 4, 5]
    assert r["allocation"]["0"]["cpus"] == 6


def test_pod_scope_demand_is_max_of_init_peak_and_long_running():
    node = {"numaNodes": nodes(2, 8, "16Gi")}
    # init 6, apps 3 + 3: demand max(6, 6) = 6 fits one node
    p = pod("p", guaranteed("a", cpu=3), guaranteed("b", cpu=3), init=[guaranteed("i", cpu=6)])
    for scope in ("pod", "container"):
        r = run(config("single-numa-node", scope), node, p)
        assert r["pods"][0]["admitted"], scope
        assert {tuple(c["affinity"]) for c in r["pods"][0]["containers"]} == {(0,)}, scope
        assert r["allocation"]["0"]["cpus"] == 6, scope
    # a sidecar runs alongside: 2 + (3 + 3) = 8 > init 6; demand 8 still fits
    p = pod("p", guaranteed("a", cpu=3), guaranteed("b", cpu=3),
            init=[dict(guaranteed("s", cpu=2), restartPolicy="Always"), guaranteed("i", cpu=6)])
    r = run(config("single-numa-node", "pod"), node, p)
    assert r["pods"][0]["admitted"] and r["allocation"]["0"]["cpus"] == 8
    # init after the sidecar peaks at 2 + 7 = 9 > 8 CPUs of a node: no single node, rejected
    p = pod("p", guaranteed("a", cpu=1), init=[dict(guaranteed("s", cpu=2), restartPolicy="Always"), guaranteed("i", cpu=7)])
    r = run(config("single-numa-node", "pod"), node, p)
    assert r["pods"][0]["reason"] == "TopologyAffinityError"
    assert r["allocation"]["0"]["cpus"] == 0 and r["allocation"]["1"]["cpus"] == 0


def test_container_scope_least_allocated_spreads_and_pod_scope_shares():
    node = {"numaNodes": nodes(2, 16, "32Gi")}
    p = pod("p", guaranteed("a", cpu=8, memory="8Gi"), guaranteed("b", cpu=8, memory="8Gi"))
    cfg = config("single-numa-node", "container", numa_allocation_strategy="least-allocated")
    r = run(cfg, node, p, gates=ALPHA)
    # a: tie at 1 -> numa0; b: numa0 (50 + 25) / 2 = 37 vs 1 -> numa1
    assert [c["affinity"] for c in r["pods"][0]["containers"]] == [[0], [1]]
    assert r["metrics"]["numa_score_selection_total"] == {"least-allocated": 1}
    assert r["metrics"]["numa_container_count"] == {"0": 1, "1": 1}
    r = run(config("single-numa-node", "pod", numa_allocation_strategy="least-allocated"), node, p, gates=ALPHA)
    assert [c["affinity"] for c in r["pods"][0]["containers"]] == [[0], [0]]
    r = run(config("single-numa-node", "container", numa_allocation_strategy="most-allocated"), node, p, gates=ALPHA)
    assert [c["affinity"] for c in r["pods"][0]["containers"]] == [[0], [0]]


def test_score_quantisation_keeps_small_containers_together():
    node = {"numaNodes": nodes(2, 128, "256Gi")}
    p = pod("p", *[guaranteed(f"c{i}", cpu=1, memory="100Mi") for i in range(3)])
    cfg = config("single-numa-node", "container", numa_allocation_strategy="least-allocated")
    r = run(cfg, node, p, gates=ALPHA)
    # 1*100/128 and 100Mi*100/256Gi truncate to 0: every score stays max(1, 0) = 1
    assert [c["affinity"] for c in r["pods"][0]["containers"]] == [[0], [0], [0]]
    assert r["metrics"]["numa_score_selection_total"] == {}


def test_remove_releases_everything():
    node = {"numaNodes": nodes(2, 8, "16Gi", **{"example.com/dev": 1})}
    p = pod("p", guaranteed("c", cpu=4, memory="4Gi", extra={"example.com/dev": 1}))
    r = run(config("single-numa-node"), node, p, {"remove": "p"}, p)
    assert only(r, 0)["cpuIDs"] == only(r, 1)["cpuIDs"]
    r = run(config("single-numa-node"), node, p, {"remove": "p"})
    assert r["allocation"]["0"] == {"cpus": 0, "memory": 0, "devices": {"example.com/dev": 0}}
    assert r["metrics"]["numa_container_count"] == {"0": 0, "1": 0}
    assert r["metrics"]["admission_requests_total"] == 1


def test_rejected_pod_is_released_and_counted():
    node = {"numaNodes": nodes(2, 4, "8Gi")}
    big = pod("big", guaranteed("a", cpu=2), guaranteed("b", cpu=4), guaranteed("c", cpu=4))
    r = run(config("single-numa-node"), node, big)
    entry = r["pods"][0]
    assert entry["admitted"] is False and entry["reason"] == "TopologyAffinityError"
    assert entry["message"] == "Resources cannot be allocated with Topology locality"
    # a and b were placed before c failed; all of it is released
    assert [c["name"] for c in entry["containers"]] == ["a", "b"]
    assert r["allocation"]["0"]["cpus"] == 0 and r["allocation"]["1"]["cpus"] == 0
    assert r["metrics"]["admission_errors_total"] == 1


def test_allocation_failure_is_unexpected_admission_error():
    # best-effort admits a non-preferred hint, then the CPU manager cannot find 10 CPUs
    node = {"numaNodes": nodes(2, 4, "8Gi")}
    r = run(config("best-effort"), node, pod("p", guaranteed("c", cpu=10)))
    e = r["pods"][0]
    assert e["reason"] == "UnexpectedAdmissionError"
    assert e["message"].startswith("Allocate failed due to not enough cpus available")


def test_devices_without_topology_have_no_preference():
    node = {"numaNodes": nodes(2, 4, "8Gi"), "devicesWithoutTopology": {"example.com/foo": 2}}
    r = run(config("single-numa-node"), node, pod("p", guaranteed("c", cpu=1, extra={"example.com/foo": 1})))
    c = only(r)
    assert c["affinity"] == [0] and c["devices"] == {"example.com/foo": {"-1": 1}}
    assert r["allocation"]["-1"] == {"devices": {"example.com/foo": 1}}


def test_policy_none_allocates_without_affinity():
    node = {"numaNodes": nodes(2, 4, "8Gi"), "allocated": [{"numa": 1, "cpus": 2}]}
    r = run(config("none"), node, pod("p", guaranteed("c", cpu=2)))
    c = only(r)
    assert c["affinity"] is None and c["preferred"] is False
    # packed: the node with fewer free CPUs first
    assert c["cpus"] == {"1": 2}
    assert r["metrics"]["admission_requests_total"] == 1


def test_hugepages_are_pinned_per_size():
    node = {"numaNodes": [{"id": i, "cpus": 4, "memory": "8Gi", "hugepages-1Gi": "4Gi"} for i in (0, 1)]}
    p = pod("p", guaranteed("c", cpu=1, memory="1Gi", extra={"hugepages-1Gi": "2Gi"}))
    r = run(config("single-numa-node"), node, p)
    c = only(r)
    assert c["memory"] == {"0": GI} and c["hugepages-1Gi"] == {"0": 2 * GI}
    assert r["allocation"]["0"] == {"cpus": 1, "memory": GI, "hugepages-1Gi": 2 * GI, "devices": {}}


def test_memory_that_fits_nowhere_fails_at_allocation():
    node = {"numaNodes": [{"id": i, "cpus": 4, "memory": "8Gi", "hugepages-1Gi": "4Gi"} for i in (0, 1)]}

    def two(n):
        return pod(n, guaranteed("c", cpu=1, memory="1Gi", extra={"hugepages-1Gi": "2Gi"}))

    three = pod("x", guaranteed("c", cpu=1, memory="1Gi", extra={"hugepages-1Gi": "3Gi"}))
    cfg = config("single-numa-node", numa_allocation_strategy="least-allocated")
    r = run(cfg, node, two("a"), two("b"), three, gates=ALPHA)
    assert [only(r, i)["affinity"] for i in range(2)] == [[0], [1]]
    # no mask has 3Gi free: the memory manager has no hints (no preference), and Allocate fails
    assert r["pods"][2]["reason"] == "UnexpectedAdmissionError"
    assert "failed to find NUMA nodes to extend" in r["pods"][2]["message"]


def test_the_contract_example_without_its_init_container():
    cfg = dict(config("single-numa-node", "container", numa_allocation_strategy="least-allocated"), reservedSystemCPUs="0")
    r = run(cfg, EX1_NODE, pod("pod-a", guaranteed("app", cpu=8, memory="16Gi", extra={"nvidia.com/gpu": 1})), gates=ALPHA)
    assert r["pods"] == [{
        "name": "pod-a", "admitted": True, "reason": None, "message": None,
        "containers": [{"name": "app", "affinity": [1], "preferred": True, "cpus": {"1": 8}, "cpuIDs": list(range(64, 72)),
                        "memory": {"1": 17179869184}, "devices": {"nvidia.com/gpu": {"1": 1}}}],
    }]
    assert r["metrics"] == {"admission_requests_total": 1, "admission_errors_total": 0,
                            "numa_score_selection_total": {"least-allocated": 1}, "numa_container_count": {"0": 0, "1": 1}}
    assert r["allocation"] == {"0": {"cpus": 48, "memory": 68719476736, "devices": {"nvidia.com/gpu": 1}},
                               "1": {"cpus": 24, "memory": 51539607552, "devices": {"nvidia.com/gpu": 4}}}
