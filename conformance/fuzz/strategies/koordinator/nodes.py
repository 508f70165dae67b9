"""Nodes: labels, kubelet policies, CPU topology, NUMA zones, devices and the
pods already placed on them."""

from __future__ import annotations

from hypothesis import strategies as st

from reference_impl.koordinator import annotations as ann
from reference_impl.koordinator.amplification import ANNOTATION as AMPLIFICATION

from .cpus import cpu_topology, cpus_of, cpuset_value, numa_ids
from .devices import devices, partition_table, server_devices
from .values import (
    AMPLIFICATION_RATIOS,
    CPU_EXCLUSIVES,
    KUBELET_POLICIES,
    NODE_BIND_POLICIES,
    NODE_STRATEGIES,
    UNDECODABLE_AMPLIFICATION_RATIOS,
)

# Which devices a node of a filter input gets, by a draw of 0 to 5: none one
# time in six, a server layout two times, a free layout three times.
SERVER_LAYOUT_DRAW = ("none", "server", "server", "free", "free", "free")


@st.composite
def amplification_ratio(draw):
    """The annotation's value: one that decodes nine times in ten."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(UNDECODABLE_AMPLIFICATION_RATIOS))
    return draw(st.sampled_from(AMPLIFICATION_RATIOS))


@st.composite
def placed_pods(draw, topology: dict | None, free: list[int], numa: list[int], node_devices: list[dict]):
    pods = []
    free = list(free)
    for i in range(draw(st.integers(0, 3))):
        pod: dict = {"name": f"placed-{i}"}
        if topology is not None and free and draw(st.booleans()):
            take = draw(st.lists(st.sampled_from(free), min_size=1, max_size=min(4, len(free)), unique=True))
            free = [c for c in free if c not in take]
            pod["cpuset"] = cpuset_value(draw, take)
            pod["cpuExclusivePolicy"] = draw(st.sampled_from(CPU_EXCLUSIVES))
        if numa and draw(st.booleans()):
            pod["numaResources"] = {str(n): {"cpu": str(draw(st.integers(0, 2))), "memory": f"{draw(st.integers(0, 4))}Gi"}
                                    for n in draw(st.lists(st.sampled_from(numa), min_size=1, max_size=2, unique=True))}
        if draw(st.booleans()):
            pod["requests"] = {"cpu": draw(st.sampled_from(("1", "2", "500m"))), "memory": f"{draw(st.integers(1, 4))}Gi"}
        if node_devices and draw(st.booleans()):
            dtype = draw(st.sampled_from(sorted({d["type"] for d in node_devices})))
            of_type = [d["minor"] for d in node_devices if d["type"] == dtype]
            chosen = draw(st.lists(st.sampled_from(of_type), min_size=1, max_size=2, unique=True))
            if draw(st.booleans()):
                pod["devices"] = {dtype: chosen}
            else:
                pod["devices"] = {dtype: [{"minor": m, "percent": draw(st.sampled_from((1, 25, 50, 100)))}
                                          for m in chosen]}
        pods.append(pod)
    return pods


@st.composite
def node(draw, name: str = "node", server_layouts: bool = False, joint_layout: bool = False):
    """`joint_layout` gives the node a server layout drawn for joint allocation
    (see server_devices) and no GPU held by a placed pod, so that a joint pod
    can fit; everything else is drawn as for any node."""
    topology = draw(st.one_of(cpu_topology(), st.none()) if draw(st.integers(0, 9)) == 0 else cpu_topology())
    cpu_ids = sorted(c["id"] for c in cpus_of(topology)) if topology else []
    ids = numa_ids(topology) if topology else [0, 1]
    spec: dict = {"name": name}
    labels: dict[str, str] = {}
    if draw(st.booleans()):
        labels[ann.LABEL_NUMA_TOPOLOGY_POLICY] = draw(st.sampled_from(("None", "BestEffort", "Restricted", "SingleNUMANode")))
    if draw(st.integers(0, 2)) == 0:
        labels[ann.LABEL_NUMA_ALLOCATE_STRATEGY] = draw(st.sampled_from(NODE_STRATEGIES))
    if draw(st.integers(0, 3)) == 0:
        labels[ann.LABEL_CPU_BIND_POLICY] = draw(st.sampled_from(NODE_BIND_POLICIES))
    if draw(st.integers(0, 3)) == 0:
        labels[ann.LABEL_GPU_PARTITION_POLICY] = draw(st.sampled_from(("Honor", "Prefer")))
    if draw(st.integers(0, 3)) == 0:
        labels[ann.LABEL_GPU_MODEL] = draw(st.sampled_from(("H100", "H800", "H20", "A100")))
    if draw(st.integers(0, 4)) == 0:
        labels["topology.kubernetes.io/zone"] = "zone-a"
    if labels or draw(st.booleans()):
        spec["labels"] = labels
    if draw(st.integers(0, 2)) == 0:
        spec["kubeletTopologyPolicy"] = draw(st.sampled_from(KUBELET_POLICIES))
    if draw(st.integers(0, 5)) == 0:
        options = {"full-pcpus-only": draw(st.sampled_from(("true", "false")))} if draw(st.booleans()) else {}
        spec["kubeletCPUManagerPolicy"] = {"policy": draw(st.sampled_from(("static", "none"))), "options": options}
    if topology is not None:
        spec["cpuTopology"] = topology
    reserved: list[int] = []
    if cpu_ids and draw(st.integers(0, 3)) == 0:
        reserved = draw(st.lists(st.sampled_from(cpu_ids), min_size=1, max_size=2, unique=True))
        spec["reservedCPUs"] = cpuset_value(draw, reserved)
    exposes_numa = draw(st.integers(0, 7)) > 0
    numa = ids if exposes_numa else []
    if exposes_numa:
        zones = []
        for nid in ids:
            zone: dict = {"id": nid, "memory": draw(st.sampled_from(("16Gi", "32Gi", "64Gi", "8Gi")))}
            if draw(st.integers(0, 5)) == 0:
                zone["cpu"] = str(draw(st.integers(1, 8)))
            zones.append(zone)
        spec["numaNodes"] = zones
    elif draw(st.booleans()):
        spec["numaNodes"] = []
    if draw(st.integers(0, 4)) == 0:
        spec["allocatable"] = {"cpu": str(draw(st.integers(1, 32))), "memory": f"{draw(st.integers(8, 128))}Gi"}
    if draw(st.integers(0, 3)) == 0:
        spec["annotations"] = {AMPLIFICATION: draw(amplification_ratio())}
    if draw(st.integers(0, 7)) == 0:
        # The NodeResourceTopology's own ratio, which counts the NUMA nodes instead.
        spec["topologyAnnotations"] = {AMPLIFICATION: draw(amplification_ratio())}
    if joint_layout:
        server = True
        node_devices = draw(server_devices(numa, joint=True))
    elif server_layouts:
        layout = SERVER_LAYOUT_DRAW[draw(st.integers(0, 5))]
        server = layout == "server"
        node_devices = [] if layout == "none" else draw(server_devices(numa)) if server else draw(devices(numa))
    else:
        server = False
        node_devices = draw(devices(numa)) if draw(st.integers(0, 2)) else []
    if server:
        # GPU partitions stay with the free layouts, as before the server layouts
        # existed: a whole partition of shared GPUs is scored otherwise by v1.8.0
        # (an open difference), and these layouts would meet it in most runs.
        labels.pop(ann.LABEL_GPU_MODEL, None)
    if joint_layout:
        # Honoured partitions need a table these layouts never have.
        labels.pop(ann.LABEL_GPU_PARTITION_POLICY, None)
    if node_devices:
        spec["devices"] = node_devices
        gpu_minors = [d["minor"] for d in node_devices if d["type"] == "gpu"]
        if gpu_minors and not server and draw(st.booleans()):
            spec["deviceAnnotations"] = {ann.GPU_PARTITIONS: draw(partition_table(gpu_minors))}
            if draw(st.booleans()):
                spec["deviceLabels"] = {ann.LABEL_GPU_PARTITION_POLICY: draw(st.sampled_from(("Honor", "Prefer")))}
    free = [c for c in cpu_ids if c not in reserved]
    held = [d for d in node_devices if d["type"] != "gpu"] if joint_layout else node_devices
    pods = draw(placed_pods(topology, free, numa, held))
    if pods:
        spec["pods"] = pods
    return spec
