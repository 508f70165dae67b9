"""Node, NUMA and device scores."""

import pytest

from reference_impl.koordinator import scoring

from .helpers import NUMA_SPEC, gpus, node, pod, run


def test_formulas():
    assert scoring.least_allocated(6000, 8000) == 25
    assert scoring.most_allocated(6000, 8000) == 75
    assert scoring.least_allocated(9, 8) == 0
    assert scoring.most_allocated(9, 8) == 100
    weights = (("cpu", 1), ("memory", 1))
    assert scoring.score("LeastAllocated", weights, {"cpu": 2000}, {"cpu": 8000, "memory": 100}, {"cpu": 4000, "memory": 25}) == 50
    assert scoring.score("BalancedAllocation", weights, {}, {"cpu": 100, "memory": 100}, {"cpu": 50, "memory": 50}) == 100
    assert scoring.score("BalancedAllocation", weights, {}, {"cpu": 100, "memory": 100}, {"cpu": 80, "memory": 20}) == 70
    assert scoring.score("LeastAllocated", (("cpu", 3), ("memory", 1)), {}, {"cpu": 100, "memory": 100},
                         {"cpu": 50, "memory": 10}) == (50 * 3 + 90) // 4


def two_nodes():
    busy = node(name="busy", pods=[{"name": "p", "numaResources": {"0": {"cpu": "4", "memory": "16Gi"}},
                                     "requests": {"cpu": "4", "memory": "16Gi"}}])
    idle = node(name="idle")
    return [busy, idle]


@pytest.mark.parametrize("strategy, best", [("MostAllocated", "busy"), ("LeastAllocated", "idle")])
def test_node_scoring_strategy(strategy, best):
    out = run("score", {"nodes": two_nodes(), "pod": pod(cpu="2", memory="4Gi"),
                        "args": {"nodeNUMAResource": {"scoringStrategy": {"type": strategy}}}})
    assert out["best"] == best


@pytest.mark.parametrize("strategy, numa", [("MostAllocated", [0]), ("LeastAllocated", [1])])
def test_numa_scoring_strategy_chooses_the_numa_node(strategy, numa):
    n = node(pods=[{"name": "p", "numaResources": {"0": {"cpu": "4", "memory": "16Gi"}}}])
    out = run("filter", {"node": n, "pod": pod(cpu="2", memory="4Gi", annotations={NUMA_SPEC: {"numaTopologyPolicy": "SingleNUMANode"}}),
                         "args": {"nodeNUMAResource": {"numaScoringStrategy": {"type": strategy}}}})
    assert out["hint"]["affinity"] == numa


def test_numa_scores_per_mask():
    n = node(pods=[{"name": "p", "numaResources": {"0": {"cpu": "4", "memory": "16Gi"}}}])
    out = run("score", {"nodes": [n], "pod": pod(cpu="2", memory="4Gi")})
    # LeastAllocated: NUMA 0 cpu (8-6)/8 = 25, memory (32-20)/32 = 37 -> 31; NUMA 1 cpu 75, memory 87 -> 81
    assert out["nodes"][0]["numaScores"]["0"] == 31 and out["nodes"][0]["numaScores"]["1"] == 81


def test_balanced_allocation_is_accepted():
    out = run("score", {"nodes": two_nodes(), "pod": pod(cpu="2", memory="4Gi"),
                        "args": {"nodeNUMAResource": {"scoringStrategy": {"type": "BalancedAllocation"}}}})
    assert all(0 <= r["score"] <= 100 for r in out["nodes"])


@pytest.mark.parametrize("strategy, best", [("MostAllocated", "used"), ("LeastAllocated", "free")])
def test_device_scoring(strategy, best):
    used = node(name="used", devices=gpus(rdma=False), pods=[{"name": "g", "devices": {"gpu": [0, 1, 2]}}])
    free = node(name="free", devices=gpus(rdma=False))
    out = run("score", {"nodes": [used, free], "pod": pod(cpu=None, memory=None, **{"nvidia.com/gpu": "1"}),
                        "args": {"deviceShare": {"scoringStrategy": {"type": strategy}}}})
    by_name = {r["name"]: r for r in out["nodes"]}
    assert by_name[best]["normalizedDeviceScore"] == 100
    assert max(by_name, key=lambda k: by_name[k]["deviceScore"]) == best


def test_unfit_nodes_score_zero():
    out = run("score", {"nodes": [node(name="small", cores=1)], "pod": pod(cpu="8", annotations={NUMA_SPEC: {"numaTopologyPolicy": "SingleNUMANode"}})})
    assert out["nodes"][0]["fits"] is False and out["nodes"][0]["score"] == 0 and out["best"] is None


def test_node_score_on_the_chosen_numa_node_matches_upstream():
    # upstream's worked example: 2 x (52 CPUs, 128Gi), SingleNUMANode, pod 21 CPUs / 40Gi, MostAllocated -> 35
    n = node(cores=26, memory="128Gi")
    out = run("score", {"nodes": [n], "pod": pod(cpu="21", memory="40Gi", annotations={NUMA_SPEC: {"numaTopologyPolicy": "SingleNUMANode"}}),
                        "args": {"nodeNUMAResource": {"scoringStrategy": {"type": "MostAllocated"}}}})
    assert out["nodes"][0]["score"] == (21 * 100 // 52 + 40 * 100 // 128) // 2 == 35
