"""Nodes over a small domain tree (labels, allocatable, Ready conditions,
taints, cordons), and what already uses them: non-TAS pods and admitted
workloads."""

from __future__ import annotations

from hypothesis import strategies as st

from reference_impl.kueue import annotations as ann
from reference_impl.kueue.objects import HOSTNAME

from .values import EFFECTS, GROUP_LABEL, RACK, TAINT_KEYS, ZONE


@st.composite
def taint(draw):
    out = {"key": draw(st.sampled_from(TAINT_KEYS)), "effect": draw(st.sampled_from(EFFECTS))}
    if draw(st.booleans()):
        out["value"] = "present"
    return out

# What is odd about a generated node, by a draw of 0 to 19: one time in twenty
# each, it lacks the flavor's node label, lacks its outermost level's label, is
# cordoned, has no pods allocatable, is not Ready (for a while), or has no
# conditions at all; otherwise nothing.
NODE_ODDITY_DRAW = {1: "no-flavor-label", 2: "no-top-level-label", 3: "cordoned", 4: "no-pods-allocatable",
                    5: "not-ready", 6: "no-conditions"}

# With edge_memory (the capacity and assign inputs, where a node's allocatable
# is what the answer is about), one node in eight has its memory written at the
# quantity grammar's edges: an exponent, a value below one nano unit (1n, so 1
# byte), zero written with an exponent, half a byte, a decimal suffix. A parser
# can get these wrong while every round value above still reads right. All of
# them add up without overflow; the int64 cap (8Ei) would not, and the corpus
# pins it instead (fixtures/kueue/quantity-grammar.yaml).
EDGE_MEMORY = ("1e-10001", "0e-10001", "0.5", "1.5e1", "1E3", "64e9", "68719476736e0", "16G")


@st.composite
def node(draw, name: str, levels: list[str], path: list[str], healthy: bool = False, edge_memory: bool = False):
    labels = {}
    for level, value in zip(levels, path, strict=True):
        labels[level] = name if level == HOSTNAME else value
    odd = "none" if healthy else NODE_ODDITY_DRAW.get(draw(st.integers(0, 19)), "none")
    if odd != "no-flavor-label":
        labels[GROUP_LABEL] = "tas-group"
    if odd == "no-top-level-label":
        del labels[levels[0]]
    if HOSTNAME not in labels and draw(st.booleans()):
        labels[HOSTNAME] = name
    spec: dict = {}
    if odd == "cordoned":
        spec["unschedulable"] = True
    if not healthy and draw(st.integers(0, 5)) == 0:
        spec["taints"] = [draw(taint())]
    edge = edge_memory and draw(st.integers(0, 7)) == 0
    memory = draw(st.sampled_from(EDGE_MEMORY if edge else ("16Gi", "32Gi", "64Gi")))
    allocatable = {"cpu": draw(st.sampled_from(("4", "8", "16", "16", "32", "3500m"))),
                   "memory": memory,
                   "pods": draw(st.sampled_from(("110", "110", "110", "4", "8")))}
    if draw(st.integers(0, 3)) == 0:
        allocatable["nvidia.com/gpu"] = str(draw(st.integers(0, 8)))
    if odd == "no-pods-allocatable":
        del allocatable["pods"]
    ready = {"type": "Ready", "status": "True", "lastTransitionTime": 0}
    if odd == "not-ready":
        ready["status"] = draw(st.sampled_from(("False", "Unknown")))
        ready["lastTransitionTime"] = draw(st.sampled_from((0, -20, -40)))
    conditions = [] if odd == "no-conditions" else [ready]
    if draw(st.integers(0, 5)) == 0:
        conditions.insert(0, {"type": "MemoryPressure", "status": "False"})
    out = {"metadata": {"name": name, "labels": labels}, "status": {"allocatable": allocatable,
                                                                     "conditions": conditions}}
    if spec:
        out["spec"] = spec
    return out


@st.composite
def cluster(draw, levels: list[str], max_nodes: int = 8, healthy: bool = False, edge_memory: bool = False):
    """Nodes over a small domain tree: each level above the hostname has one or
    two values per parent (a rack value may repeat under two blocks)."""
    count = draw(st.integers(1, max_nodes))
    nodes = []
    above = [lv for lv in levels if lv != HOSTNAME]
    for i in range(count):
        path = []
        for depth, level in enumerate(above):
            short = level.rsplit("-", 1)[-1][:1] if level != ZONE else "z"
            path.append(f"{short}{draw(st.integers(1, 2 if depth < len(above) - 1 else 3))}")
        if HOSTNAME in levels:
            path.append(f"n{i}")
        nodes.append(draw(node(f"n{i}", levels, path, healthy, edge_memory)))
    return nodes


@st.composite
def requests(draw, gpu: bool = True):
    out = {"cpu": draw(st.sampled_from(("1", "1", "500m", "2", "4", "3")))}
    if draw(st.booleans()):
        out["memory"] = draw(st.sampled_from(("1Gi", "200Mi", "4Gi")))
    if gpu and draw(st.integers(0, 5)) == 0:
        out["nvidia.com/gpu"] = "1"
    return out


@st.composite
def usage_pods(draw, nodes: list[dict]):
    pods = []
    for i in range(draw(st.integers(0, 2))):
        pod: dict = {"metadata": {"name": f"ds-{i}"},
                     "spec": {"containers": [{"resources": {"requests": draw(requests(gpu=False))}}]},
                     "status": {"phase": draw(st.sampled_from(("Running", "Running", "Pending", "Succeeded", "Failed")))}}
        if nodes and draw(st.integers(0, 5)):
            pod["spec"]["nodeName"] = draw(st.sampled_from(nodes))["metadata"]["name"]
        if draw(st.integers(0, 7)) == 0:
            pod["metadata"]["annotations"] = {ann.REQUIRED: RACK}
        pods.append(pod)
    return pods


def _leaf_values(node_: dict, levels: list[str]) -> list[str]:
    labels = node_["metadata"]["labels"]
    if levels[-1] == HOSTNAME:
        return [node_["metadata"]["name"]]
    return [labels.get(level, "") for level in levels]


@st.composite
def admitted_workloads(draw, nodes: list[dict], levels: list[str]):
    if not nodes or draw(st.integers(0, 2)):
        return []
    hosted = [n for n in nodes if all(lv in n["metadata"]["labels"] for lv in levels)] or nodes
    chosen = draw(st.lists(st.sampled_from(hosted), min_size=1, max_size=2, unique_by=lambda n: n["metadata"]["name"]))
    assignment_levels = [HOSTNAME] if levels[-1] == HOSTNAME else list(levels)
    domains = [{"values": _leaf_values(n, levels), "count": draw(st.integers(0, 3))} for n in chosen]
    return [{"name": "other", "podSets": [{"name": "main", "requests": draw(requests(gpu=False)),
                                           "topologyAssignment": {"levels": assignment_levels, "domains": domains}}]}]
