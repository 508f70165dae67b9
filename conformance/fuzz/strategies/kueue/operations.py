"""One valid input per operation: validate, capacity, assign, hot_swap,
provision."""

from __future__ import annotations

from hypothesis import strategies as st

from reference_impl.kueue.objects import HOSTNAME

from .events import timeline
from .nodes import admitted_workloads, cluster, usage_pods
from .podsets import pod_set, pod_sets
from .topology import resource_flavor, topology, topology_levels
from .values import GROUP_LABEL, HOT_SWAP_GATES, TAINT_KEYS
from .versions import gate_consistent, version_and_gates


@st.composite
def snapshot(draw, levels=None, hostname=None, healthy=False, max_nodes=8, edge_memory=False):
    levels = draw(topology_levels(hostname)) if levels is None else levels
    nodes = draw(cluster(levels, max_nodes, healthy, edge_memory))
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
    levels, data = draw(snapshot(edge_memory=True))
    data.update(draw(version_and_gates()))
    if draw(st.booleans()):
        data["podSet"] = draw(pod_set("probe", levels))
    return data


@st.composite
def assign_input(draw):
    levels, data = draw(snapshot(edge_memory=True))
    data.update(draw(version_and_gates()))
    data["workload"] = {"name": "sample", "podSets": draw(pod_sets(levels))}
    draw(gate_consistent(data, data["workload"]["podSets"]))
    return data


def _spread(total: int, hosts: list[str], draw) -> list[dict]:
    counts = dict.fromkeys(hosts, 0)
    for _ in range(total):
        counts[draw(st.sampled_from(hosts))] += 1
    return [{"values": [h], "count": c} for h, c in counts.items() if c]


# Who owns the hot-swapped workload, by a draw of 0 to 3: a plain pod once, a
# Job once, nobody otherwise.
OWNER_DRAW = ("none", "pod", "job", "none")


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
    owner = OWNER_DRAW[draw(st.integers(0, 3))]
    if owner == "pod":
        workload["owners"] = [{"apiVersion": "v1", "kind": "Pod", "name": "solo"}]
    elif owner == "job":
        workload["owners"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "sample"}]
    if owner == "pod" and draw(st.integers(0, 2)) == 0:
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
