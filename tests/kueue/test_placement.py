"""Placement: required, preferred, unconstrained, orders, groups, slices,
multi-layer slices, balanced placement and the rendering of assignments."""

from .helpers import (
    BLOCK,
    CONSTRAINTS,
    GROUP,
    HOST,
    PREFERRED,
    RACK,
    REQUIRED,
    SLICE_SIZE,
    SLICE_TOPOLOGY,
    UNCONSTRAINED,
    assign,
    cluster,
    constraints,
    flavor,
    node,
    not_fit,
    placed,
    pod_set,
)

BALANCED = {"TASBalancedPlacement": True}


def test_required_rack_fills_one_rack_largest_node_first():
    # racks of 2 x 8 CPU; 10 pods fit only in one rack: 8 + 2
    result = assign(cluster(), [pod_set(count=10, annotations={REQUIRED: RACK})])
    assert placed(result) == [("b1-r1-n1", 8), ("b1-r1-n2", 2)]


def test_required_rack_best_fit_picks_tightest_rack():
    caps = {"b1-r1-n1": 8, "b1-r1-n2": 8, "b1-r2-n1": 4, "b1-r2-n2": 2,
            "b2-r1-n1": 3, "b2-r1-n2": 3, "b2-r2-n1": 8, "b2-r2-n2": 8}
    # racks hold 16, 6, 6, 16; 5 pods: the tightest fitting rack is b1/r2 (6 < b2/r1's 6 by path)
    result = assign(cluster(capacities=caps), [pod_set(count=5, annotations={REQUIRED: RACK})])
    assert placed(result) == [("b1-r2-n1", 4), ("b1-r2-n2", 1)]


def test_required_never_spills_over():
    result = assign(cluster(), [pod_set(count=17, annotations={REQUIRED: RACK})])
    assert result["admitted"] is False
    assert not_fit(result) == {"reason": "TopologyNotFit",
                               "message": 'topology "default" allows to fit only 16 out of 17 pod(s)'}


def test_preferred_climbs_to_block_then_spreads_at_top():
    # a rack holds 16, a block 32: 20 pods fit in one block
    result = assign(cluster(), [pod_set(count=20, annotations={PREFERRED: RACK})])
    assert [h for h, _ in placed(result)] == ["b1-r1-n1", "b1-r1-n2", "b1-r2-n1"]
    assert sum(c for _, c in placed(result)) == 20
    # 40 pods: no block fits, spread over the two blocks
    result = assign(cluster(), [pod_set(count=40, annotations={PREFERRED: RACK})])
    counts = dict(placed(result))
    assert sum(counts.values()) == 40
    assert sum(c for h, c in counts.items() if h.startswith("b1")) == 32


def test_preferred_that_cannot_fit_anywhere():
    result = assign(cluster(), [pod_set(count=65, annotations={PREFERRED: BLOCK})])
    assert not_fit(result)["message"] == 'topology "default" allows to fit only 64 out of 65 pod(s)'


def test_unconstrained_uses_least_free_capacity_first():
    caps = {"b1-r1-n1": 8, "b1-r1-n2": 1, "b1-r2-n1": 3, "b1-r2-n2": 8,
            "b2-r1-n1": 8, "b2-r1-n2": 8, "b2-r2-n1": 8, "b2-r2-n2": 8}
    # LeastFreeCapacity: the first node (ascending) that fits 3 is b1-r2-n1
    result = assign(cluster(capacities=caps), [pod_set(count=3, annotations={UNCONSTRAINED: "true"})])
    assert placed(result) == [("b1-r2-n1", 3)]
    # 4 pods: the first node in ascending order holding 4 is an 8-CPU one
    result = assign(cluster(capacities=caps), [pod_set(count=4, annotations={UNCONSTRAINED: "true"})])
    assert placed(result) == [("b1-r1-n1", 4)]
    # 9 pods fit in no node: smallest first, 1 + 3 + 5 of the first 8
    result = assign(cluster(capacities=caps), [pod_set(count=9, annotations={UNCONSTRAINED: "true"})])
    assert placed(result) == [("b1-r1-n1", 5), ("b1-r1-n2", 1), ("b1-r2-n1", 3)]
    # with TASProfileMixed off, BestFit: the tightest node holding 4 is an 8
    result = assign(cluster(capacities=caps), [pod_set(count=4, annotations={UNCONSTRAINED: "true"})],
                    gates={"TASProfileMixed": False})
    assert placed(result) == [("b1-r1-n1", 4)]


def test_implied_podset_behaves_as_unconstrained():
    caps = {"b1-r1-n1": 8, "b1-r1-n2": 1, "b1-r2-n1": 3}
    nodes = [n for n in cluster(capacities=caps) if n["metadata"]["name"] in caps]
    assert placed(assign(nodes, [pod_set(count=3)])) == [("b1-r2-n1", 3)]


def test_unconstrained_false_has_no_level():
    result = assign(cluster(), [pod_set(count=1, annotations={UNCONSTRAINED: "false"})])
    assert not_fit(result)["reason"] == "TopologyLevelNotSpecified"


def test_unknown_level_is_not_fit():
    result = assign(cluster(), [pod_set(count=1, annotations={REQUIRED: "example.com/zone"})])
    assert not_fit(result) == {"reason": "UnknownTopologyLevel",
                               "message": 'Flavor "tas-flavor" does not contain the requested level'}


def test_assignment_sorted_by_path_not_hostname():
    nodes = [node("zz", "b1", "r1", cpu="2"), node("aa", "b2", "r1", cpu="2")]
    result = assign(nodes, [pod_set(count=4, annotations={PREFERRED: BLOCK})])
    assert placed(result) == [("zz", 2), ("aa", 2)]


def test_non_hostname_lowest_level_merges_nodes_and_ignores_taints():
    nodes = [node("n1", "b1", "r1", cpu="4", taints=[{"key": "k", "effect": "NoSchedule"}]),
             node("n2", "b1", "r1", cpu="4"), node("n3", "b1", "r2", cpu="4")]
    result = assign(nodes, [pod_set(count=8, annotations={REQUIRED: RACK})], levels=(BLOCK, RACK))
    ps = result["podSets"][0]["topologyAssignment"]
    assert ps == {"levels": [BLOCK, RACK], "domains": [{"values": ["b1", "r1"], "count": 8}]}


def test_taint_exclusion_is_reported():
    nodes = [node("n1", cpu="4", taints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}]),
             node("n2", cpu="4")]
    result = assign(nodes, [pod_set(count=6, annotations={REQUIRED: BLOCK})])
    assert not_fit(result)["message"] == ('topology "default" allows to fit only 4 out of 6 pod(s). '
                                          'Total nodes: 2; excluded: taint "gpu=true:NoSchedule": 1')
    tolerated = assign(nodes, [pod_set(count=6, annotations={REQUIRED: BLOCK})],
                       resourceFlavor=flavor(
                           tolerations=[{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]))
    assert placed(tolerated) == [("n1", 4), ("n2", 2)]


def test_resource_exclusion_counts_leaves_that_fit_nothing():
    nodes = [node("n1", cpu="1"), node("n2", cpu="500m")]
    result = assign(nodes, [pod_set(count=2, annotations={REQUIRED: BLOCK})])
    assert not_fit(result)["message"].endswith('Total nodes: 2; excluded: resource "cpu": 1')


def test_not_ready_and_cordoned_nodes_offer_nothing():
    nodes = [node("n1", ready="False"), node("n2", unschedulable=True), node("n3", ready=None), node("n4", cpu="2")]
    result = assign(nodes, [pod_set(count=3, annotations={REQUIRED: BLOCK})])
    assert not_fit(result)["message"] == 'topology "default" allows to fit only 2 out of 3 pod(s)'


def test_non_tas_pods_and_admitted_workloads_are_subtracted():
    nodes = [node("n1", cpu="4"), node("n2", cpu="4")]
    pods = [{"metadata": {"name": "ds"}, "spec": {"nodeName": "n1",
                                                 "containers": [{"resources": {"requests": {"cpu": "1"}}}]}}]
    admitted = [{"name": "other", "podSets": [{"name": "p", "requests": {"cpu": "1"}, "topologyAssignment": {
        "levels": [HOST], "domains": [{"values": ["n2"], "count": 2}]}}]}]
    result = assign(nodes, [pod_set(count=5, annotations={REQUIRED: BLOCK})], pods=pods, admittedWorkloads=admitted)
    assert placed(result) == [("n1", 3), ("n2", 2)]
    result = assign(nodes, [pod_set(count=6, annotations={REQUIRED: BLOCK})], pods=pods, admittedWorkloads=admitted)
    assert not_fit(result)["message"].startswith('topology "default" allows to fit only 5 out of 6 pod(s)')


def test_podsets_are_placed_in_order_with_assumed_usage():
    nodes = [node("n1", cpu="4"), node("n2", cpu="4", rack="r2")]
    result = assign(nodes, [pod_set("a", 3, {REQUIRED: RACK}), pod_set("b", 3, {REQUIRED: RACK})])
    assert placed(result, "a") == [("n1", 3)]
    assert placed(result, "b") == [("n2", 3)]
    result = assign(nodes, [pod_set("a", 4, {REQUIRED: RACK}), pod_set("b", 5, {REQUIRED: RACK}),
                            pod_set("c", 1, {REQUIRED: RACK})])
    assert not_fit(result, "b")["reason"] == "TopologyNotFit"
    assert not_fit(result, "c")["reason"] == "NotEvaluated"


def test_group_places_leader_and_workers_together():
    nodes = [node("n1", rack="r1", cpu="3"), node("n2", rack="r2", cpu="4"), node("n3", rack="r2", cpu="4")]
    leader = pod_set("leader", 1, {REQUIRED: RACK, GROUP: "g"}, cpu="2")
    workers = pod_set("workers", 6, {REQUIRED: RACK, GROUP: "g"})
    result = assign(nodes, [leader, workers])
    # rack r1 cannot hold 2 + 6 CPU; rack r2 holds 8
    assert placed(result, "leader") == [("n2", 1)]
    assert placed(result, "workers") == [("n2", 2), ("n3", 4)]


def test_slices_stay_within_their_domain():
    # racks of 2 x 3 CPU hold 6; slices of 4 per rack: each rack hosts one slice
    nodes = cluster(blocks=1, racks=3, nodes=2, cpu="3")
    annotations = {PREFERRED: BLOCK, SLICE_TOPOLOGY: RACK, SLICE_SIZE: "4"}
    result = assign(nodes, [pod_set(count=8, annotations=annotations)])
    per_rack = {}
    for host, count in placed(result):
        per_rack[host.rsplit("-", 1)[0]] = per_rack.get(host.rsplit("-", 1)[0], 0) + count
    assert sorted(per_rack.values()) == [4, 4]
    result = assign(nodes, [pod_set(count=16, annotations=annotations)])
    assert not_fit(result)["message"] == 'topology "default" allows to fit only 3 out of 4 slice(s)'


def test_slice_remainder_is_dropped():
    result = assign(cluster(), [pod_set(count=6, annotations={REQUIRED: BLOCK, SLICE_TOPOLOGY: RACK,
                                                              SLICE_SIZE: "4"})])
    assert sum(c for _, c in placed(result)) == 4


def test_multi_layer_64_pods_32_per_block_16_per_rack():
    # 2 blocks x 4 racks x 2 nodes of 8 CPU, racks r3 and r4 empty: a rack holds
    # 16, a block 32, so the 64 pods take two block slices of two rack slices each
    nodes = cluster(blocks=2, racks=4, nodes=2, cpu="8")
    for n in nodes:
        name = n["metadata"]["name"]
        if name.endswith("-r3-n1") or name.endswith("-r3-n2") or name.endswith("-r4-n1") or name.endswith("-r4-n2"):
            n["status"]["allocatable"]["cpu"] = "0"
    ann = {CONSTRAINTS: constraints((BLOCK, 32), (RACK, 16))}
    result = assign(nodes, [pod_set(count=64, annotations=ann)])
    per_rack = {}
    for host, count in placed(result):
        rack = host.rsplit("-", 1)[0]
        per_rack[rack] = per_rack.get(rack, 0) + count
    assert per_rack == {"b1-r1": 16, "b1-r2": 16, "b2-r1": 16, "b2-r2": 16}


def test_multi_layer_not_fit_message():
    ann = {REQUIRED: BLOCK, CONSTRAINTS: constraints((BLOCK, 32), (RACK, 16))}
    result = assign(cluster(cpu="4"), [pod_set(count=64, annotations=ann)])
    # a block holds 16 pods: 0 of 2 block slices, 2 of 4 rack slices... of size 16 none (racks hold 8)
    assert not_fit(result)["message"] == ('topology "default" doesn\'t allow to fit; 0/2 slice(s) fit on level '
                                          f'{BLOCK}; 0/4 slice(s) fit on level {RACK}')


def test_balanced_twelve_pods_over_two_domains_of_ten():
    nodes = [node("n1", rack="r1", cpu="10"), node("n2", rack="r2", cpu="10")]
    greedy = assign(nodes, [pod_set(count=12, annotations={PREFERRED: RACK})])
    assert placed(greedy) == [("n1", 10), ("n2", 2)]
    balanced = assign(nodes, [pod_set(count=12, annotations={PREFERRED: RACK})], gates=BALANCED)
    assert placed(balanced) == [("n1", 6), ("n2", 6)]


def test_balanced_falls_back_when_one_level_above_does_not_fit():
    nodes = [node("n1", block="b1", rack="r1", cpu="10"), node("n2", block="b2", rack="r1", cpu="10")]
    # preferred rack; one level above is the block, and no block holds 12
    result = assign(nodes, [pod_set(count=12, annotations={PREFERRED: RACK})], gates=BALANCED)
    assert placed(result) == [("n1", 10), ("n2", 2)]


def test_count_zero_never_reaches_tas():
    result = assign(cluster(), [pod_set(count=0, annotations={REQUIRED: RACK})])
    assert result["podSets"][0] == {"name": "main", "topologyAssignment": None, "notFit": None}


def test_no_domains_when_no_node_matches():
    nodes = [node("n1", ready="False")]
    result = assign(nodes, [pod_set(count=1, annotations={REQUIRED: RACK})])
    assert not_fit(result) == {"reason": "NoTopologyDomains", "message": f"no topology domains at level: {RACK}"}
