"""Cases from upstream's table tests (pkg/cache/scheduler/tas_cache_test.go,
TestFindTopologyAssignments), rewritten as operator input; each test names the
upstream case it mirrors."""

from reference_impl.kueue.operations import OPERATIONS

B, SB, R, H = "cloud.provider.com/topology-block", "cloud.provider.com/topology-subblock", \
    "cloud.provider.com/topology-rack", "kubernetes.io/hostname"
GPU = "example.com/gpu"
PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
SLICE_TOPOLOGY = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
BALANCED = {"TASBalancedPlacement": True}


def _node(name, labels, gpu, pods):
    return {"metadata": {"name": name, "labels": {**labels, "pool": "tas"}},
            "status": {"allocatable": {GPU: str(gpu), "pods": str(pods)},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def _assign(nodes, levels, annotations, count, gates):
    result = OPERATIONS["assign"]({
        "topology": {"metadata": {"name": "default"}, "spec": {"levels": [{"nodeLabel": lv} for lv in levels]}},
        "resourceFlavor": {"metadata": {"name": "tas"}, "spec": {"topologyName": "default",
                                                                 "nodeLabels": {"pool": "tas"}}},
        "nodes": nodes, "featureGates": gates,
        "workload": {"name": "w", "podSets": [{"name": "main", "count": count, "annotations": annotations,
                                               "requests": {GPU: "1"}}]}})
    assignment = result["podSets"][0]["topologyAssignment"]
    return [(tuple(d["values"]), d["count"]) for d in assignment["domains"]]


def _four_level(capacities, hostname=True):
    layout = [("b1", "sb1", "r1", "x1"), ("b1", "sb1", "r2", "x2"), ("b1", "sb2", "r3", "x3"),
              ("b1", "sb2", "r4", "x4"), ("b1", "sb2", "r4", "x5")]
    nodes = []
    for (b, sb, r, x), gpu in zip(layout, capacities, strict=False):
        labels = {B: b, SB: sb, R: r}
        if hostname:
            labels[H] = x
        nodes.append(_node(f"{b}-{sb}-{r}-{x}", labels, gpu, 20))
    return nodes


def test_balanced_four_level_balance_on_sub_block_level():
    # "balanced placement; four level topology; balance on sub-block level":
    # below the slice level (rack) the smaller node is filled first.
    nodes = _four_level([18, 8, 15, 9, 7])
    annotations = {PREFERRED: SB, SLICE_TOPOLOGY: R, SLICE_SIZE: "2"}
    assert _assign(nodes, [B, SB, R, H], annotations, 20, BALANCED) == [
        (("x3",), 10), (("x4",), 3), (("x5",), 7)]


def test_balanced_four_level_slice_not_on_the_lowest_level():
    # "balanced placement; four level topology; balance on rack level; slice not on the lowest level"
    nodes = _four_level([18, 8, 15, 15], hostname=False)[:4]
    annotations = {PREFERRED: SB, SLICE_TOPOLOGY: R, SLICE_SIZE: "2"}
    assert _assign(nodes, [B, SB, R], annotations, 20, BALANCED) == [
        (("b1", "sb2", "r3"), 10), (("b1", "sb2", "r4"), 10)]


def test_balanced_three_level_balance_on_the_slice_level():
    # "balanced placement; three level topology; balance on the same level as slice":
    # x1:15, x2:13, x3:10 in r1; x4:20, x5:8 in r2; 22 pods in slices of 2 -> x2:12, x3:10
    layout = [("r1", "x1", 15), ("r1", "x2", 13), ("r1", "x3", 10), ("r2", "x4", 20), ("r2", "x5", 8)]
    nodes = [_node(f"b1-{r}-{x}", {B: "b1", R: r, H: x}, gpu, 22) for r, x, gpu in layout]
    annotations = {PREFERRED: H, SLICE_TOPOLOGY: H, SLICE_SIZE: "2"}
    assert _assign(nodes, [B, R, H], annotations, 22, BALANCED) == [(("x2",), 12), (("x3",), 10)]
