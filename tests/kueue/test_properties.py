"""Invariants of the placement and the hot swap, over random clusters."""

from hypothesis import assume, given
from hypothesis import strategies as st

from .helpers import (
    BLOCK,
    HOST,
    PREFERRED,
    RACK,
    REQUIRED,
    SLICE_SIZE,
    SLICE_TOPOLOGY,
    UNCONSTRAINED,
    assign,
    hot_swap,
    node,
    pod_set,
)

LEVELS = (BLOCK, RACK, HOST)


@st.composite
def clusters(draw):
    blocks = draw(st.integers(1, 3))
    nodes = []
    for b in range(1, blocks + 1):
        for r in range(1, draw(st.integers(1, 3)) + 1):
            for n in range(1, draw(st.integers(1, 3)) + 1):
                name = f"b{b}-r{r}-n{n}"
                nodes.append(node(name, f"b{b}", f"r{r}", cpu=str(draw(st.integers(0, 8)))))
    return nodes


@st.composite
def requests(draw):
    mode = draw(st.sampled_from(["required", "preferred", "unconstrained"]))
    annotations = {}
    if mode == "required":
        annotations[REQUIRED] = draw(st.sampled_from(LEVELS))
    elif mode == "preferred":
        annotations[PREFERRED] = draw(st.sampled_from(LEVELS))
    else:
        annotations[UNCONSTRAINED] = "true"
    if mode != "unconstrained" and draw(st.booleans()):
        level = annotations.get(REQUIRED) or annotations.get(PREFERRED)
        below = LEVELS[LEVELS.index(level):]
        annotations[SLICE_TOPOLOGY] = draw(st.sampled_from(below))
        annotations[SLICE_SIZE] = str(draw(st.integers(1, 4)))
    count = draw(st.integers(1, 40))
    if SLICE_SIZE in annotations:
        count = max(count, int(annotations[SLICE_SIZE]))
    return annotations, count


def cpu_of(nodes):
    return {n["metadata"]["name"]: int(n["status"]["allocatable"]["cpu"]) for n in nodes}


def path_of(nodes):
    return {n["metadata"]["name"]: tuple(n["metadata"]["labels"][level] for level in LEVELS) for n in nodes}


def assigned(result):
    ps = result["podSets"][0]
    if ps["topologyAssignment"] is None:
        return None
    return {d["values"][-1]: d["count"] for d in ps["topologyAssignment"]["domains"]}


@given(clusters(), requests(), st.booleans(), st.booleans())
def test_assignment_invariants(nodes, request, balanced, mixed):
    annotations, count = request
    gates = {"TASBalancedPlacement": balanced, "TASProfileMixed": mixed}
    result = assign(nodes, [pod_set(count=count, annotations=annotations)], gates=gates)
    placement = assigned(result)
    assume(placement is not None)
    cpu, path = cpu_of(nodes), path_of(nodes)
    size = int(annotations.get(SLICE_SIZE, "1"))
    # never more pods on a node than its free capacity (one CPU per pod)
    assert all(0 < c <= cpu[h] for h, c in placement.items())
    # the pod counts add up to the pod set count (the remainder of count mod
    # slice size is dropped, upstream v0.19 / v0.20)
    assert sum(placement.values()) == (count // size) * size
    # required placement stays within one domain of its level
    if REQUIRED in annotations:
        depth = LEVELS.index(annotations[REQUIRED]) + 1
        assert len({path[h][:depth] for h in placement}) == 1
    # slices are never split below their level
    if SLICE_TOPOLOGY in annotations:
        depth = LEVELS.index(annotations[SLICE_TOPOLOGY]) + 1
        per_domain = {}
        for h, c in placement.items():
            per_domain[path[h][:depth]] = per_domain.get(path[h][:depth], 0) + c
        assert all(c % size == 0 for c in per_domain.values())


@given(clusters(), st.integers(1, 40), st.sampled_from([BLOCK, RACK]))
def test_balanced_minimum_is_never_below_greedy(nodes, count, level):
    pod_sets = [pod_set(count=count, annotations={PREFERRED: level})]
    greedy = assigned(assign(nodes, pod_sets))
    balanced = assigned(assign(nodes, pod_sets, gates={"TASBalancedPlacement": True}))
    assume(greedy is not None and balanced is not None)
    path = path_of(nodes)
    depth = LEVELS.index(level) + 2

    def minimum(placement):
        per_domain = {}
        for h, c in placement.items():
            per_domain[path[h][:depth]] = per_domain.get(path[h][:depth], 0) + c
        return min(per_domain.values())

    assert minimum(balanced) >= minimum(greedy)


@given(clusters(), st.data())
def test_replacement_stays_in_the_required_domain(nodes, data):
    cpu, path = cpu_of(nodes), path_of(nodes)
    level = data.draw(st.sampled_from([BLOCK, RACK]))
    count = data.draw(st.integers(1, 16))
    admitted = assign(nodes, [pod_set(count=count, annotations={REQUIRED: level})])
    placement = assigned(admitted)
    assume(placement is not None)
    failed = data.draw(st.sampled_from(sorted(placement)))
    pod_sets = [pod_set(count=count, annotations={REQUIRED: level},
                        topologyAssignment=admitted["podSets"][0]["topologyAssignment"])]
    result = hot_swap(nodes, pod_sets, [{"at": 0, "type": "NodeDeleted", "node": failed}])
    state = result["states"][-1]
    assume(not state["evicted"])
    after = {d["values"][-1]: d["count"] for d in state["podSets"][0]["topologyAssignment"]["domains"]}
    depth = LEVELS.index(level) + 1
    # every node, the replacements included, lies in one domain of the required
    # level; it is the original one unless the failed node held every pod (then
    # nothing is left to confine the search, upstream `requiredReplacementDomain`)
    assert len({path[h][:depth] for h in after}) == 1
    if len(placement) > 1:
        assert path[failed][:depth] == next(iter({path[h][:depth] for h in after}))
    assert failed not in after
    # the rest of the assignment is unchanged
    replaced = [a for a in state["actions"] if a["type"] == "NodeReplaced"][0]["replacement"]
    for host, c in placement.items():
        if host != failed and host not in replaced:
            assert after[host] == c
    assert sum(after.values()) == count
    assert all(after[h] <= cpu[h] for h in after)


EVENT_KINDS = ["NodeNotReady", "NodeReady", "NodeDeleted", "PodsTerminated", "PodsTerminating", "NodeTainted",
               "NodeUntainted", "NodeReadyConditionRemoved", "Wait"]


@st.composite
def timelines(draw):
    names = [f"n{i}" for i in range(1, 7)]
    events = []
    at = 0
    deleted: set[str] = set()
    for _ in range(draw(st.integers(1, 6))):
        at += draw(st.sampled_from([0, 1, 10, 31]))
        kind = draw(st.sampled_from(EVENT_KINDS))
        event = {"at": at, "type": kind}
        if kind != "Wait":
            event["node"] = draw(st.sampled_from(names[:4]))
            if event["node"] in deleted:
                # a node that is gone takes no further events
                event = {"at": at, "type": "Wait"}
            elif kind == "NodeDeleted":
                deleted.add(event["node"])
        if event["type"] in ("NodeTainted", "NodeUntainted"):
            event["taint"] = {"key": "maintenance", "effect": draw(st.sampled_from(["NoSchedule", "NoExecute"]))}
        events.append(event)
    gates = {gate: draw(st.booleans()) for gate in (
        "TASFailedNodeReplacement", "TASReplaceNodeOnPodTermination", "TASFailedNodeReplacementFailFast",
        "TASReplaceNodeDueToNotReadyOverFixedTime", "TASReplaceNodeOnNodeTaints")}
    return events, gates


@given(timelines())
def test_hot_swap_timeline_invariants(timeline):
    events, gates = timeline
    nodes = [node(f"n{i}", "b1", "r1" if i <= 4 else "r2", cpu="4") for i in range(1, 7)]
    assignment = {"levels": [HOST], "domains": [{"values": ["n1"], "count": 4}, {"values": ["n2"], "count": 4}]}
    pod_sets = [pod_set(count=8, annotations={REQUIRED: BLOCK}, topologyAssignment=assignment)]
    result = hot_swap(nodes, pod_sets, events, gates=gates)
    gone_at: dict[str, float] = {}
    for event, state in zip(events, result["states"], strict=True):
        if event["type"] == "NodeDeleted":
            gone_at.setdefault(event["node"], event["at"])
        # only one failed node is handled at a time
        assert len(state["unhealthyNodes"]) <= 1
        if not gates["TASFailedNodeReplacement"]:
            # only the taint eviction controller acts; Kueue marks and replaces nothing
            assert all(a["type"] == "PodsEvicted" for a in state["actions"]) and state["unhealthyNodes"] == []
        if state["evicted"]:
            assert state["eviction"]["reason"] == "NodeFailures" and state["requeued"] is True
            continue
        domains = state["podSets"][0]["topologyAssignment"]["domains"]
        assert sum(d["count"] for d in domains) == 8
        for action in state["actions"]:
            if action["type"] == "NodeReplaced":
                # a replacement never lands on a node that is gone by then, nor on the failed one
                assert action["node"] not in action["replacement"]
                assert all(gone_at.get(host, float("inf")) > action["at"] for host in action["replacement"])
