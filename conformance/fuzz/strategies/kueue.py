"""Generated Kueue inputs (docs/operations/kueue.md): topologies of 1 to 4
levels (hostname-lowest or not), node sets with topology and flavor labels,
allocatable, Ready conditions, taints and cordons, non-TAS pods and admitted
workloads as usage, podsets with every annotation kind (required, preferred,
unconstrained, group name, slices, multi-layer slice constraints), feature gates
valid for the Kueue version, hot-swap event timelines and provisioning flows.

Sizes stay small (at most 8 nodes, 3 podsets of at most 8 pods, 6 events) so a
hundred examples of one operation run in seconds.
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

from reference_impl.kueue import annotations as ann
from reference_impl.kueue import gates
from reference_impl.kueue.objects import HOSTNAME

from .mutators import apply_one

SUPERBLOCK = "cloud.provider.com/topology-superblock"
BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"
ZONE = "topology.kubernetes.io/zone"
GROUP_LABEL = "cloud.provider.com/node-group"


# gate -> the minor version it first exists in.
GATES = {gate: gates.introduced_in(gate)[1] for gate in gates.GATES}
PLACEMENT_GATES = (gates.PROFILE_MIXED, gates.BALANCED, gates.MULTI_LAYER)
HOT_SWAP_GATES = (gates.FAILED_NODE_REPLACEMENT, gates.FAIL_FAST, gates.REPLACE_ON_POD_TERMINATION, gates.FIXED_TIME,
                  gates.NODE_TAINTS, gates.SKIP_POD_OWNED)
TAINT_KEYS = ("nvidia.com/gpu", "node.kubernetes.io/unreachable", "maintenance")
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _minor(version: str) -> int:
    return int(version.split(".")[1])


# ---------------------------------------------------------------- versions and gates

@st.composite
def version_and_gates(draw, names=PLACEMENT_GATES, tas_on: bool = True):
    """A Kueue version (or none: the default 0.19) and gates that version knows.
    With `tas_on`, versions before 0.14 switch TopologyAwareScheduling on."""
    version = draw(st.sampled_from((None, "0.19", "0.19", "0.20", "0.18", "0.17", "0.16", "0.15", "0.14",
                                    "0.13", "0.12", "0.10", "0.9", "v0.19.2")))
    minor = 19 if version is None else _minor(version.lstrip("v"))
    gates: dict[str, bool] = {}
    for name in draw(st.lists(st.sampled_from(names), max_size=3, unique=True)):
        if GATES[name] <= minor:
            gates[name] = draw(st.booleans())
    if tas_on and minor < 14:
        gates["TopologyAwareScheduling"] = True
    out: dict = {}
    if version is not None:
        out["kueueVersion"] = version
    if gates or draw(st.booleans()):
        out["featureGates"] = gates
    return out


def multi_layer_on(data: dict) -> bool:
    """TASMultiLayerTopology as the version and gates of `data` set it (exists
    from 0.17, on by default from 0.19)."""
    minor = _minor(data.get("kueueVersion", "0.19").lstrip("v"))
    return minor >= 17 and data.get("featureGates", {}).get("TASMultiLayerTopology", minor >= 19)


def drop_constraints(sets: list[dict]) -> None:
    for ps in sets:
        notes = ps["template"]["metadata"]["annotations"] if "template" in ps else ps["annotations"]
        notes.pop(ann.SLICE_CONSTRAINTS, None)


@st.composite
def gate_consistent(draw, data: dict, sets: list[dict], always: bool = False) -> None:
    """Mostly keep multi-layer constraints to versions and gates that allow
    them, so most generated workloads get past the webhook."""
    if not multi_layer_on(data) and (always or draw(st.integers(0, 3))):
        drop_constraints(sets)


# ---------------------------------------------------------------- topology and flavor

@st.composite
def topology_levels(draw, hostname: bool | None = None):
    """1 to 4 levels, outermost first; hostname-lowest unless told otherwise."""
    with_host = draw(st.integers(0, 3)) > 0 if hostname is None else hostname
    above = draw(st.sampled_from(([], [BLOCK], [RACK], [BLOCK, RACK], [ZONE, RACK], [SUPERBLOCK, BLOCK, RACK])))
    levels = above + [HOSTNAME] if with_host else above or [RACK]
    return levels[-4:]


def topology(levels: list[str], name: str = "default") -> dict:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": name},
            "spec": {"levels": [{"nodeLabel": level} for level in levels]}}


@st.composite
def resource_flavor(draw):
    spec: dict = {"nodeLabels": {GROUP_LABEL: "tas-group"}, "topologyName": "default"}
    if draw(st.integers(0, 4)) == 0:
        spec["tolerations"] = [{"key": draw(st.sampled_from(TAINT_KEYS)), "operator": "Exists",
                                "effect": draw(st.sampled_from(("NoSchedule", "NoExecute", "")))}]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "tas-flavor"},
            "spec": spec}


# ---------------------------------------------------------------- nodes and usage

@st.composite
def taint(draw):
    out = {"key": draw(st.sampled_from(TAINT_KEYS)), "effect": draw(st.sampled_from(EFFECTS))}
    if draw(st.booleans()):
        out["value"] = "present"
    return out


# One node in eight has its memory written at the quantity grammar's edges: an
# exponent, a value below one nano unit (1n, so 1 byte), zero written with an
# exponent, half a byte, a decimal suffix. A parser can get these wrong while
# every round value above still reads right. All of them add up without
# overflow; the int64 cap (8Ei) would not, and the corpus pins it instead
# (fixtures/kueue/quantity-grammar.yaml).
_EDGE_MEMORY = ("1e-10001", "0e-10001", "0.5", "1.5e1", "1E3", "64e9", "68719476736e0", "16G")


@st.composite
def node(draw, name: str, levels: list[str], path: list[str], healthy: bool = False):
    labels = {}
    for level, value in zip(levels, path, strict=True):
        labels[level] = name if level == HOSTNAME else value
    odd = 0 if healthy else draw(st.integers(0, 19))
    if odd != 1:
        labels[GROUP_LABEL] = "tas-group"
    if odd == 2:
        del labels[levels[0]]
    if HOSTNAME not in labels and draw(st.booleans()):
        labels[HOSTNAME] = name
    spec: dict = {}
    if odd == 3:
        spec["unschedulable"] = True
    if not healthy and draw(st.integers(0, 5)) == 0:
        spec["taints"] = [draw(taint())]
    memory = draw(st.sampled_from(("16Gi", "32Gi", "64Gi") if draw(st.integers(0, 7)) else _EDGE_MEMORY))
    allocatable = {"cpu": draw(st.sampled_from(("4", "8", "16", "16", "32", "3500m"))),
                   "memory": memory,
                   "pods": draw(st.sampled_from(("110", "110", "110", "4", "8")))}
    if draw(st.integers(0, 3)) == 0:
        allocatable["nvidia.com/gpu"] = str(draw(st.integers(0, 8)))
    if odd == 4:
        del allocatable["pods"]
    ready = {"type": "Ready", "status": "True", "lastTransitionTime": 0}
    if odd == 5:
        ready["status"] = draw(st.sampled_from(("False", "Unknown")))
        ready["lastTransitionTime"] = draw(st.sampled_from((0, -20, -40)))
    conditions = [] if odd == 6 else [ready]
    if draw(st.integers(0, 5)) == 0:
        conditions.insert(0, {"type": "MemoryPressure", "status": "False"})
    out = {"metadata": {"name": name, "labels": labels}, "status": {"allocatable": allocatable,
                                                                     "conditions": conditions}}
    if spec:
        out["spec"] = spec
    return out


@st.composite
def cluster(draw, levels: list[str], max_nodes: int = 8, healthy: bool = False):
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
        nodes.append(draw(node(f"n{i}", levels, path, healthy)))
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


# ---------------------------------------------------------------- podsets

@st.composite
def annotations(draw, levels: list[str], count: int, group: str | None = None):
    """One podset's TAS annotations: a mode (or none), maybe slices, maybe a
    multi-layer constraint list, maybe a group name; mostly consistent with the
    topology, sometimes naming a level it does not have."""
    pool = levels + ([ZONE] if draw(st.integers(0, 9)) == 0 else [])
    out: dict[str, str] = {}
    mode = draw(st.sampled_from(("required", "preferred", "unconstrained", "none", "required", "preferred")))
    level = draw(st.sampled_from(pool))
    if mode == "required":
        out[ann.REQUIRED] = level
    elif mode == "preferred":
        out[ann.PREFERRED] = level
    elif mode == "unconstrained":
        out[ann.UNCONSTRAINED] = draw(st.sampled_from(("true", "true", "false", "1", "True", "t")))
    if group is not None and mode in ("required", "preferred"):
        out[ann.GROUP_NAME] = group
        return out
    slices = draw(st.integers(0, 3))
    below = levels[levels.index(level):] if level in levels else levels
    if slices == 1:
        out[ann.SLICE_REQUIRED] = draw(st.sampled_from(below))
        out[ann.SLICE_SIZE] = str(draw(st.integers(1, max(1, count))))
    elif slices == 2:
        layers = sorted(draw(st.lists(st.sampled_from(below), min_size=1, max_size=min(3, len(below)), unique=True)),
                        key=levels.index)
        size = draw(st.integers(1, max(1, count)))
        constraint = []
        for layer in layers:
            constraint.append({"topology": layer, "size": size})
            divisors = [d for d in range(1, size + 1) if size % d == 0]
            size = draw(st.sampled_from(divisors))
        out[ann.SLICE_CONSTRAINTS] = json.dumps(constraint)
    return out


@st.composite
def required_node_affinity(draw, levels: list[str]):
    """Required node affinity over the level labels and node names the
    cluster strategy writes (well-formed selectors only; preferred terms need a
    gate the placement gates leave out)."""
    keys = [lv for lv in levels if lv != HOSTNAME] + [HOSTNAME, "example.com/missing"]
    values = ("b1", "b2", "r1", "r2", "s1", "z1", "n0", "n1", "n2")
    terms = []
    for _ in range(draw(st.integers(1, 2))):
        if draw(st.integers(0, 4)) == 0:
            terms.append({"matchFields": [{"key": "metadata.name", "operator": draw(st.sampled_from(("In", "NotIn"))),
                                           "values": [f"n{draw(st.integers(0, 7))}"]}]})
            continue
        exprs = []
        for _ in range(draw(st.integers(1, 2))):
            expr = {"key": draw(st.sampled_from(keys)),
                    "operator": draw(st.sampled_from(("In", "NotIn", "Exists", "DoesNotExist")))}
            if expr["operator"] in ("In", "NotIn"):
                expr["values"] = draw(st.lists(st.sampled_from(values), min_size=1, max_size=2, unique=True))
            exprs.append(expr)
        terms.append({"matchExpressions": exprs})
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}


@st.composite
def pod_set(draw, name: str, levels: list[str], group: str | None = None, count: int | None = None):
    count = draw(st.integers(0, 8) if draw(st.integers(0, 9)) == 0 else st.integers(1, 8)) if count is None else count
    notes = draw(annotations(levels, count, group))
    req = draw(requests())
    tolerations = []
    if draw(st.integers(0, 3)) == 0:
        toleration = {"key": draw(st.sampled_from(TAINT_KEYS)), "operator": draw(st.sampled_from(("Exists", "Equal")))}
        if toleration["operator"] == "Equal":
            toleration["value"] = "present"
        if draw(st.booleans()):
            toleration["effect"] = draw(st.sampled_from(("NoSchedule", "NoExecute", "")))
        if draw(st.integers(0, 2)) == 0:
            toleration["tolerationSeconds"] = draw(st.sampled_from((0, 10, 45)))
        tolerations.append(toleration)
    selector = {GROUP_LABEL: "tas-group"} if draw(st.integers(0, 5)) == 0 else None
    affinity = draw(required_node_affinity(levels)) if draw(st.integers(0, 4)) == 0 else None
    if draw(st.integers(0, 3)) == 0:
        spec: dict = {"containers": [{"name": "app", "resources": {"requests": req}}]}
        if draw(st.integers(0, 3)) == 0:
            spec["initContainers"] = [{"name": "init", "resources": {"requests": {"cpu": "2"}}}]
        if tolerations:
            spec["tolerations"] = tolerations
        if selector:
            spec["nodeSelector"] = selector
        if affinity:
            spec["affinity"] = affinity
        return {"name": name, "count": count, "template": {"metadata": {"annotations": notes}, "spec": spec}}
    out = {"name": name, "count": count, "annotations": notes, "requests": req}
    if tolerations:
        out["tolerations"] = tolerations
    if selector:
        out["nodeSelector"] = selector
    if affinity:
        out["affinity"] = affinity
    return out


@st.composite
def pod_sets(draw, levels: list[str], max_sets: int = 3):
    if draw(st.integers(0, 4)) == 0:
        # A leader / workers pair in one group, as the multi-podset integrations write it.
        group = draw(st.sampled_from(("ps-group", "team-a")))
        leader = draw(pod_set("leader", levels, group, count=1))
        workers = draw(pod_set("workers", levels, group))
        same = leader.get("annotations", {}) if "annotations" in leader else leader["template"]["metadata"]["annotations"]
        for target in (workers.get("annotations"), workers.get("template", {}).get("metadata", {}).get("annotations")):
            if target is not None and ann.GROUP_NAME in same and ann.GROUP_NAME in target:
                for key in (ann.REQUIRED, ann.PREFERRED):
                    target.pop(key, None)
                target.update({k: v for k, v in same.items() if k in (ann.REQUIRED, ann.PREFERRED)})
        return [leader, workers]
    return [draw(pod_set(f"ps{i}", levels)) for i in range(draw(st.integers(1, max_sets)))]


# ---------------------------------------------------------------- operations

@st.composite
def snapshot(draw, levels=None, hostname=None, healthy=False, max_nodes=8):
    levels = draw(topology_levels(hostname)) if levels is None else levels
    nodes = draw(cluster(levels, max_nodes, healthy))
    data = {"topology": topology(levels), "resourceFlavor": draw(resource_flavor()), "nodes": nodes}
    pods = draw(usage_pods(nodes))
    if pods:
        data["pods"] = pods
    admitted = draw(admitted_workloads(nodes, levels))
    if admitted:
        data["admittedWorkloads"] = admitted
    return levels, data


@st.composite
def validate_input(draw):
    levels = draw(topology_levels())
    data = {**draw(version_and_gates(tas_on=False)), "podSets": draw(pod_sets(levels))}
    draw(gate_consistent(data, data["podSets"]))
    if draw(st.booleans()):
        data["topology"] = topology(levels)
    return data


@st.composite
def capacity_input(draw):
    levels, data = draw(snapshot())
    data.update(draw(version_and_gates()))
    if draw(st.booleans()):
        data["podSet"] = draw(pod_set("probe", levels))
    return data


@st.composite
def assign_input(draw):
    levels, data = draw(snapshot())
    data.update(draw(version_and_gates()))
    data["workload"] = {"name": "sample", "podSets": draw(pod_sets(levels))}
    draw(gate_consistent(data, data["workload"]["podSets"]))
    return data


def _spread(total: int, hosts: list[str], draw) -> list[dict]:
    counts = dict.fromkeys(hosts, 0)
    for _ in range(total):
        counts[draw(st.sampled_from(hosts))] += 1
    return [{"values": [h], "count": c} for h, c in counts.items() if c]


@st.composite
def hot_swap_event(draw, present: list[str], gone: list[str], at: float, spare: int):
    kind = draw(st.sampled_from(("NodeNotReady", "NodeNotReady", "NodeReady", "NodeReadyConditionRemoved",
                                 "NodeDeleted", "NodeAdded", "NodeTainted", "NodeUntainted", "NodeCordoned",
                                 "NodeUncordoned", "Wait", "PodsRunning", "PodsTerminating", "PodsTerminated")))
    if kind == "NodeAdded" or (not present and kind != "Wait"):
        name = f"spare{spare}"
        return {"type": "NodeAdded", "at": at, "nodeObject": None, "_name": name}
    if kind == "Wait":
        return {"type": "Wait", "at": at}
    host = draw(st.sampled_from(present + gone if kind.startswith("Pods") and gone else present))
    event: dict = {"type": kind, "node": host, "at": at}
    if kind == "NodeNotReady" and draw(st.integers(0, 3)) == 0:
        event["status"] = "Unknown"
    if kind in ("NodeTainted", "NodeUntainted"):
        event["taint"] = draw(taint())
    return event


@st.composite
def timeline(draw, nodes: list[dict], levels: list[str], timed: bool, max_events: int = 6):
    present = [n["metadata"]["name"] for n in nodes]
    gone: list[str] = []
    events = []
    at = 0.0
    spare = 0
    for _ in range(draw(st.integers(0 if not timed else 1, max_events))):
        if timed:
            at += draw(st.sampled_from((0, 0, 5, 10, 25, 30, 31, 60)))
        event = draw(hot_swap_event(present, gone, at, spare))
        if event["type"] == "NodeAdded":
            name = event.pop("_name")
            spare += 1
            path = [f"{lv.rsplit('-', 1)[-1][:1]}1" for lv in levels if lv != HOSTNAME] + [name]
            event["nodeObject"] = draw(node(name, levels, path if HOSTNAME in levels else path[:-1], healthy=True))
            present.append(name)
        elif event["type"] == "NodeDeleted":
            present.remove(event["node"])
            gone.append(event["node"])
        if not timed:
            event.pop("at", None)
        events.append(event)
    return events


@st.composite
def hot_swap_input(draw):
    levels, data = draw(snapshot(hostname=True, max_nodes=6))
    data.update(draw(version_and_gates(HOT_SWAP_GATES)))
    hosts = [n["metadata"]["name"] for n in data["nodes"]]
    sets = []
    for i in range(draw(st.integers(1, 2))):
        ps = draw(pod_set(f"ps{i}", levels, count=draw(st.integers(1, 6))))
        chosen = draw(st.lists(st.sampled_from(hosts), min_size=1, max_size=min(3, len(hosts)), unique=True))
        ps["topologyAssignment"] = {"levels": [HOSTNAME], "domains": _spread(ps["count"], chosen, draw)}
        sets.append(ps)
    # An admitted workload passed the webhook (docs/operations/kueue.md, hot_swap).
    draw(gate_consistent(data, sets, always=True))
    workload: dict = {"name": "sample", "podSets": sets}
    owner = draw(st.integers(0, 3))
    if owner == 1:
        workload["owners"] = [{"apiVersion": "v1", "kind": "Pod", "name": "solo"}]
    elif owner == 2:
        workload["owners"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "sample"}]
    if owner == 1 and draw(st.integers(0, 2)) == 0:
        workload["annotations"] = {"kueue.x-k8s.io/is-group-workload": "true"}
    assigned = sorted({d["values"][0] for ps in sets for d in ps["topologyAssignment"]["domains"]})
    if draw(st.integers(0, 2)) == 0:
        workload["podStates"] = {h: draw(st.sampled_from(("Running", "Pending", "Gated", "Terminating", "Terminated")))
                                 for h in draw(st.lists(st.sampled_from(assigned), max_size=2, unique=True))}
    if draw(st.integers(0, 5)) == 0:
        workload["unhealthyNodes"] = [draw(st.sampled_from(assigned))]
    data["workload"] = workload
    if draw(st.integers(0, 3)) == 0:
        data["taintEvictionController"] = draw(st.booleans())
    data["events"] = draw(timeline(data["nodes"], levels, timed=True))
    return data


@st.composite
def provision_input(draw):
    levels, data = draw(snapshot())
    data.update(draw(version_and_gates()))
    data["workload"] = {"name": "sample", "podSets": draw(pod_sets(levels, max_sets=2))}
    draw(gate_consistent(data, data["workload"]["podSets"]))
    if draw(st.booleans()):
        data["clusterQueue"] = {"spec": {"resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [
            {"name": "tas-flavor", "resources": [
                {"name": "cpu", "nominalQuota": draw(st.sampled_from((4, 16, 100, "8")))},
                {"name": "memory", "nominalQuota": draw(st.sampled_from(("16Gi", "100Gi")))}]}]}]}}
    checks = draw(st.lists(st.sampled_from(("prov", "extra")), max_size=2, unique=True))
    data["admissionChecks"] = checks
    events = draw(timeline(data["nodes"], levels, timed=False, max_events=3))
    for _ in range(draw(st.integers(0, 3)) if checks else 0):
        event: dict = {"type": "AdmissionCheckState", "check": draw(st.sampled_from(checks)),
                       "state": draw(st.sampled_from(("Ready", "Ready", "Ready", "Pending", "Retry", "Rejected")))}
        if event["state"] == "Ready" and draw(st.integers(0, 3)) == 0:
            update: dict = {"name": data["workload"]["podSets"][0]["name"], "nodeSelector": {GROUP_LABEL: "tas-group"}}
            if draw(st.booleans()):
                update["tolerations"] = [{"key": draw(st.sampled_from(TAINT_KEYS)), "operator": "Exists"}]
            event["podSetUpdates"] = [update]
        events.insert(draw(st.integers(0, len(events))), event)
    data["events"] = [e for e in events if e["type"] not in ("PodsRunning", "PodsTerminating", "PodsTerminated")]
    return data


# ---------------------------------------------------------------- invalid inputs

BAD_LABEL_NAMES = ("-rack", "rack-", "a/b/c", "cloud provider/rack", "UPPER_/x", "/rack", "rack/", "", "x" * 64,
                   "kubernetes.io/", "café/rack")
BAD_SLICE_SIZES = ("0", "-1", "two", "1.5", "", " 2", "99999999999", "0x4")
BAD_CONSTRAINTS = (
    "{", "", "not json", "{}", '{"topology": "r"}', "[]", "null", '"x"',
    json.dumps([{"topology": RACK, "size": "4"}]), json.dumps([{"topology": RACK, "size": 0}]),
    json.dumps([{"topology": RACK, "size": -2}]), json.dumps([{"topology": RACK, "size": 1.5}]),
    json.dumps([{"topology": 7, "size": 2}]), json.dumps([{"topology": RACK, "size": 2}] * 2),
    json.dumps([{"topology": BLOCK, "size": 4}, {"topology": RACK, "size": 3}]),
    json.dumps([{"topology": SUPERBLOCK, "size": 8}, {"topology": BLOCK, "size": 4}, {"topology": RACK, "size": 2},
                {"topology": HOSTNAME, "size": 1}]),
    json.dumps([{"topology": "-bad", "size": 2}]), json.dumps([[RACK, 2]]),
)
BAD_BOOLEANS = ("yes", "no", "on", "", "TRUE ", "2")
BAD_GROUPS = ("42", "0", "007")


def _notes(ps: dict) -> dict:
    return ps["template"].setdefault("metadata", {}).setdefault("annotations", {}) if "template" in ps \
        else ps.setdefault("annotations", {})


def _bad_level_name(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes[draw(st.sampled_from((ann.REQUIRED, ann.PREFERRED, ann.SLICE_REQUIRED)))] = draw(st.sampled_from(BAD_LABEL_NAMES))
    if ann.SLICE_REQUIRED in notes:
        notes.setdefault(ann.SLICE_SIZE, "1")


def _required_and_preferred(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes[ann.REQUIRED], notes[ann.PREFERRED] = levels[0], levels[-1]


def _bad_unconstrained(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes[ann.UNCONSTRAINED] = draw(st.sampled_from(BAD_BOOLEANS))


def _bad_slice_size(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes[ann.SLICE_REQUIRED] = levels[-1]
    notes[ann.SLICE_SIZE] = draw(st.sampled_from(BAD_SLICE_SIZES))


def _slice_size_without_topology(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes.pop(ann.SLICE_REQUIRED, None)
    notes.pop(ann.SLICE_CONSTRAINTS, None)
    notes[ann.SLICE_SIZE] = "2"


def _slice_topology_without_size(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes.pop(ann.SLICE_SIZE, None)
    notes.pop(ann.SLICE_CONSTRAINTS, None)
    notes[ann.SLICE_REQUIRED] = levels[-1]


def _bad_slice_constraints(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes.pop(ann.SLICE_REQUIRED, None)
    notes.pop(ann.SLICE_SIZE, None)
    notes[ann.SLICE_CONSTRAINTS] = draw(st.sampled_from(BAD_CONSTRAINTS))


def _bad_group_name(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes[ann.GROUP_NAME] = draw(st.sampled_from(BAD_GROUPS))
    notes.setdefault(ann.REQUIRED, levels[0])


def _group_without_topology(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes[ann.GROUP_NAME] = "g"
    for key in (ann.REQUIRED, ann.PREFERRED):
        notes.pop(key, None)


def _slice_larger_than_podset(draw, notes: dict, ps: dict, levels: list[str]) -> None:
    notes.pop(ann.SLICE_CONSTRAINTS, None)
    notes[ann.SLICE_REQUIRED] = levels[-1]
    notes[ann.SLICE_SIZE] = str(ps["count"] + draw(st.integers(1, 5)))


ANNOTATION_BREAKAGES = (_bad_level_name, _required_and_preferred, _bad_unconstrained, _bad_slice_size,
                        _slice_size_without_topology, _slice_topology_without_size, _bad_slice_constraints,
                        _bad_group_name, _group_without_topology, _slice_larger_than_podset)


@st.composite
def broken_annotations(draw, ps: dict, levels: list[str]) -> None:
    """Break one podset's annotations the way the webhook refuses."""
    apply_one(draw, ANNOTATION_BREAKAGES, _notes(ps), ps, levels)


@st.composite
def invalid_validate_input(draw):
    data = draw(validate_input())
    levels = [lv["nodeLabel"] for lv in data["topology"]["spec"]["levels"]] if "topology" in data else [RACK, HOSTNAME]
    target = draw(st.sampled_from(data["podSets"]))
    draw(broken_annotations(target, levels))
    return data


def _no_levels(draw, data: dict) -> None:
    data["topology"]["spec"]["levels"].clear()


def _repeated_level(draw, data: dict) -> None:
    levels = data["topology"]["spec"]["levels"]
    levels.append(dict(levels[0]))


def _hostname_not_lowest(draw, data: dict) -> None:
    levels = data["topology"]["spec"]["levels"]
    levels.insert(0, {"nodeLabel": HOSTNAME})
    if len(levels) > 1 and levels[-1]["nodeLabel"] == HOSTNAME:
        levels[-1] = {"nodeLabel": "cloud.provider.com/topology-host"}


def _flavor_without_node_labels(draw, data: dict) -> None:
    data["resourceFlavor"]["spec"]["nodeLabels"] = {}


def _flavor_of_another_topology(draw, data: dict) -> None:
    data["resourceFlavor"]["spec"]["topologyName"] = "other"


def _unknown_gate(draw, data: dict) -> None:
    data["featureGates"] = {draw(st.sampled_from(("TASFancyPlacement", "TopologyAwareSchedulingV2"))): True}


def _gate_before_its_version(draw, data: dict) -> None:
    data["kueueVersion"] = "0.13"
    data["featureGates"] = {gates.MULTI_LAYER: True}


COMMON_BREAKAGES = (_no_levels, _repeated_level, _hostname_not_lowest, _flavor_without_node_labels,
                    _flavor_of_another_topology, _unknown_gate, _gate_before_its_version)


@st.composite
def broken_common(draw, data: dict) -> None:
    """Break what every operation but validate checks first: the topology, the
    flavor, the gates."""
    apply_one(draw, COMMON_BREAKAGES, data)


@st.composite
def invalid_with_workload(draw, base):
    data = draw(base)
    if draw(st.booleans()) or "workload" not in data:
        draw(broken_common(data))
        return data
    levels = [lv["nodeLabel"] for lv in data["topology"]["spec"]["levels"]]
    draw(broken_annotations(draw(st.sampled_from(data["workload"]["podSets"])), levels))
    return data


@st.composite
def invalid_capacity_input(draw):
    data = draw(capacity_input())
    draw(broken_common(data))
    return data


VALID = {
    "validate": validate_input(),
    "capacity": capacity_input(),
    "assign": assign_input(),
    "hot_swap": hot_swap_input(),
    "provision": provision_input(),
}
INVALID = {
    "validate": invalid_validate_input(),
    "capacity": invalid_capacity_input(),
    "assign": invalid_with_workload(assign_input()),
    "hot_swap": invalid_with_workload(hot_swap_input()),
    "provision": invalid_with_workload(provision_input()),
}
# Messages: the contract fixes reason codes and message fragments only (the
# corpus matches messages with $contains, docs/fixture-format.md), so the rest
# of the wording is the implementation's. Nothing else in a Kueue result is
# left open: domain orders and tie-breaks are all specified.
IGNORED = {op: ["*message"] for op in VALID}
