"""Generated Koordinator inputs (docs/operations/koordinator.md): nodes with CPU
topologies (sockets, NUMA nodes, cores, hyper-threads, compact or explicit),
NUMA zones, devices under PCIe switches with VF groups, GPU partition tables,
placed pods, pods with the scheduling annotations in their JSON shapes, plugin
arguments, and raw provider hints for the Topology Manager merge.

Sizes stay small (at most 2 sockets x 2 NUMA nodes x 4 cores x 2 threads, 8
devices, 3 placed pods, 3 nodes to score) so a hundred examples of one
operation run in seconds.
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

from reference_impl.koordinator import annotations as ann

from .mutators import apply_one

NUMA_POLICIES = ("", "None", "BestEffort", "Restricted", "SingleNUMANode")
EXCLUSIVES = ("", "Preferred", "Required")
BIND_POLICIES = ("", "Default", "FullPCPUs", "SpreadByPCPUs", "ConstrainedBurst")
CPU_EXCLUSIVES = ("", "None", "PCPULevel", "NUMANodeLevel")
NODE_STRATEGIES = ("", "MostAllocated", "LeastAllocated", "DistributeEvenly")
NODE_BIND_POLICIES = ("None", "FullPCPUsOnly", "SpreadByPCPUs")
KUBELET_POLICIES = (None, "None", "BestEffort", "Restricted", "SingleNUMANodePodLevel", "SingleNUMANodeContainerLevel")
DEVICE_TYPES = ("gpu", "rdma", "fpga")
SCOPES = ("", "Device", "PCIe", "NUMANode", "Node")
DEVICE_EXCLUSIVES = ("", "DeviceLevel", "PCIeLevel")
SCORING = ("MostAllocated", "LeastAllocated", "BalancedAllocation")
MERGE_POLICIES = ("", "None", "BestEffort", "Restricted", "SingleNUMANode")
STATUSES = ("idle", "shared", "single")


def _json(value) -> str:
    return json.dumps(value, separators=(",", ":"))


# ---------------------------------------------------------------- CPU topology

@st.composite
def compact_topology(draw):
    return {"sockets": draw(st.integers(1, 2)), "numaNodesPerSocket": draw(st.integers(1, 2)),
            "coresPerNUMANode": draw(st.integers(1, 4)), "threadsPerCore": draw(st.integers(1, 2))}


def cpus_of(topology: dict) -> list[dict]:
    """The explicit CPU list of a compact topology, with the documented id order."""
    if "cpus" in topology:
        return topology["cpus"]
    out = []
    per_socket, cores, threads = topology["numaNodesPerSocket"], topology["coresPerNUMANode"], topology["threadsPerCore"]
    for s in range(topology["sockets"]):
        for n in range(per_socket):
            node = s * per_socket + n
            for c in range(cores):
                core = node * cores + c
                for t in range(threads):
                    out.append({"id": core * threads + t, "core": core, "socket": s, "node": node})
    return out


@st.composite
def cpu_topology(draw):
    """Compact, or the explicit NRT form of one (optionally shuffled), with core
    ids that are per socket as NRT writes them."""
    compact = draw(compact_topology())
    if draw(st.integers(0, 3)):
        return compact
    cpus = [dict(c) for c in cpus_of(compact)]
    if draw(st.booleans()):
        cores_per_socket = compact["numaNodesPerSocket"] * compact["coresPerNUMANode"]
        for c in cpus:
            c["core"] = c["core"] % cores_per_socket
    return {"cpus": draw(st.permutations(cpus))}


def numa_ids(topology: dict) -> list[int]:
    return sorted({c.get("node", 0) for c in cpus_of(topology)})


def cpuset_value(draw, ids: list[int]):
    """A CPU set in either documented spelling."""
    ids = sorted(ids)
    if draw(st.booleans()):
        return ids
    parts, start = [], None
    for i, c in enumerate(ids):
        if start is None:
            start = c
        if i + 1 == len(ids) or ids[i + 1] != c + 1:
            parts.append(str(start) if start == c else f"{start}-{c}")
            start = None
    return ",".join(parts)


# ---------------------------------------------------------------- devices

@st.composite
def server_devices(draw, numa: list[int]):
    """A server's layout: every PCIe switch on one NUMA node, one or two GPUs
    under each, RDMA NICs under some switches only (none, one or two each), so
    several GPUs span several switches and the switches differ in their NICs,
    which joint allocation without a required scope tells apart. Drawn for
    filter only: on score inputs they meet, in most runs, v1.8.0's device score
    of a GPU share over GPUs of several NUMA nodes or of a partition, which
    differs from the contract's and is not yet resolved."""
    out: list[dict] = []
    ids = numa or [None]
    gpu_minor = rdma_minor = 0
    for index in range(draw(st.sampled_from((1, 2, 2, 3, 4)))):
        pcie, nid = f"pci{index}", ids[index % len(ids)]
        for _ in range(draw(st.integers(1, 2))):
            out.append({"type": "gpu", "minor": gpu_minor, "numaNode": nid, "pcie": pcie,
                        "busID": f"0000:{0x10 + gpu_minor:02x}:00.0"})
            gpu_minor += 1
        for _ in range(draw(st.sampled_from((0, 1, 1, 2)))):
            nic = {"type": "rdma", "minor": rdma_minor, "numaNode": nid, "pcie": pcie,
                   "busID": f"0000:{0x20 + rdma_minor:02x}:00.0"}
            if draw(st.booleans()):
                nic["vfGroups"] = [{"labels": {"type": "general"},
                                    "vfs": [{"minor": 0, "busID": f"0000:{0x40 + rdma_minor:02x}:00.2"}]}]
            out.append(nic)
            rdma_minor += 1
    return out


@st.composite
def devices(draw, numa: list[int]):
    out: list[dict] = []
    numa_choices = [*numa, None, -1] if numa else [None]
    for dtype in draw(st.lists(st.sampled_from(DEVICE_TYPES), max_size=3, unique=True)):
        count = draw(st.integers(1, 4 if dtype == "gpu" else 2))
        for minor in range(count):
            nid = draw(st.sampled_from(numa_choices))
            device = {"type": dtype, "minor": minor, "numaNode": nid,
                      "pcie": draw(st.sampled_from(("pci0", "pci1", "pci2", 0, 1, None))),
                      "busID": f"0000:{16 * (DEVICE_TYPES.index(dtype) + 1) + minor:02x}:00.0"}
            if draw(st.integers(0, 7)) == 0:
                device["health"] = False
            if draw(st.booleans()):
                device["labels"] = {"model": draw(st.sampled_from(("A100", "H100", "cx6")))}
            if dtype == "rdma" and draw(st.integers(0, 2)):
                device["vfGroups"] = [{
                    "labels": {"type": draw(st.sampled_from(("general", "fast")))},
                    "vfs": [{"minor": v, "busID": f"0000:{0x40 + minor:02x}:00.{v + 2}"}
                            for v in range(draw(st.integers(1, 3)))],
                }]
            out.append(device)
    return out


@st.composite
def partition_table(draw, gpu_minors: list[int]):
    """A Device CR gpu-partitions table over the node's GPU minors."""
    table: dict[str, list] = {}
    minors = sorted(gpu_minors)
    for size in (1, 2, 4):
        if size > len(minors) or not draw(st.integers(0, 3)):
            continue
        rows = []
        for start in range(0, len(minors) - size + 1, size):
            row = {"minors": minors[start:start + size], "allocationScore": draw(st.integers(0, 3))}
            if size > 1 and draw(st.booleans()):
                row["gpuLinkType"] = "NVLink"
                row["ringBusBandwidth"] = draw(st.sampled_from(("200Gi", "400Gi", 100)))
            rows.append(row)
        table[str(size)] = rows
    return _json(table)


# ---------------------------------------------------------------- nodes

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
def node(draw, name: str = "node", server_layouts: bool = False):
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
    if server_layouts:
        layout = draw(st.integers(0, 5))
        server = 1 <= layout <= 2
        node_devices = [] if layout == 0 else draw(server_devices(numa)) if server else draw(devices(numa))
    else:
        server = False
        node_devices = draw(devices(numa)) if draw(st.integers(0, 2)) else []
    if server:
        # GPU partitions stay with the free layouts, as before the server layouts
        # existed: a whole partition of shared GPUs is scored otherwise by v1.8.0
        # (an open difference), and these layouts would meet it in most runs.
        labels.pop(ann.LABEL_GPU_MODEL, None)
    if node_devices:
        spec["devices"] = node_devices
        gpu_minors = [d["minor"] for d in node_devices if d["type"] == "gpu"]
        if gpu_minors and not server and draw(st.booleans()):
            spec["deviceAnnotations"] = {ann.GPU_PARTITIONS: draw(partition_table(gpu_minors))}
            if draw(st.booleans()):
                spec["deviceLabels"] = {ann.LABEL_GPU_PARTITION_POLICY: draw(st.sampled_from(("Honor", "Prefer")))}
    free = [c for c in cpu_ids if c not in reserved]
    pods = draw(placed_pods(topology, free, numa, node_devices))
    if pods:
        spec["pods"] = pods
    return spec


# ---------------------------------------------------------------- pods

@st.composite
def selector(draw):
    out: dict = {}
    if draw(st.booleans()):
        out["matchLabels"] = {draw(st.sampled_from(("model", "type"))): draw(st.sampled_from(("A100", "H100", "general")))}
    if draw(st.integers(0, 2)) == 0:
        op = draw(st.sampled_from(("In", "NotIn", "Exists", "DoesNotExist")))
        expr = {"key": draw(st.sampled_from(("model", "type"))), "operator": op}
        if op in ("In", "NotIn"):
            expr["values"] = draw(st.lists(st.sampled_from(("A100", "H100", "general", "fast")), min_size=1,
                                           max_size=2, unique=True))
        out["matchExpressions"] = [expr]
    return out


@st.composite
def device_hint(draw, types: list[str]):
    hint: dict = {}
    for dtype in types:
        one: dict = {}
        if draw(st.integers(0, 3)) == 0:
            one["selector"] = draw(selector())
        if dtype == "rdma" and draw(st.integers(0, 2)) == 0:
            one["vfSelector"] = draw(selector())
        if dtype != "gpu" and draw(st.integers(0, 3)) == 0:
            one["allocateStrategy"] = draw(st.sampled_from(("ApplyForAll", "RequestsAsCount")))
        if draw(st.integers(0, 2)) == 0:
            one["requiredTopologyScope"] = draw(st.sampled_from(SCOPES))
        if draw(st.integers(0, 3)) == 0:
            one["exclusivePolicy"] = draw(st.sampled_from(DEVICE_EXCLUSIVES))
        hint[dtype] = one
    return _json(hint)


@st.composite
def device_requests(draw, types=DEVICE_TYPES):
    """Device requests of the given types (the node's, mostly, so that some fit)."""
    requests: dict[str, str] = {}
    gpu = draw(st.integers(0, 5)) if "gpu" in types else 0
    if gpu == 1:
        requests["nvidia.com/gpu"] = str(draw(st.integers(1, 4)))
    elif gpu == 2:
        requests["koordinator.sh/gpu"] = str(draw(st.sampled_from((25, 50, 100, 200))))
    elif gpu == 3:
        share = str(draw(st.sampled_from((25, 50, 100))))
        requests["koordinator.sh/gpu-core"] = share
        requests["koordinator.sh/gpu-memory-ratio"] = share
    if "rdma" in types and draw(st.integers(0, 3)) == 0:
        requests["koordinator.sh/rdma"] = str(draw(st.sampled_from((1, 50, 100, 200))))
    if "fpga" in types and draw(st.integers(0, 5)) == 0:
        requests["koordinator.sh/fpga"] = str(draw(st.sampled_from((1, 100, 200))))
    return requests


@st.composite
def joint_requests(draw):
    """Whole GPUs (one to four) or a share of one, with one or two NICs."""
    requests = {"koordinator.sh/rdma": str(draw(st.sampled_from((1, 1, 100, 200))))}
    if draw(st.integers(0, 3)):
        requests["nvidia.com/gpu"] = str(draw(st.sampled_from((1, 2, 2, 3, 4))))
    else:
        requests["koordinator.sh/gpu"] = str(draw(st.sampled_from((50, 100))))
    return requests


@st.composite
def pod(draw, device_types=DEVICE_TYPES, joint_pods: bool = False):
    labels: dict[str, str] = {}
    qos = draw(st.sampled_from(("LSE", "LSR", "LSR", "LS", "BE", None)))
    if qos:
        labels[ann.LABEL_QOS] = qos
    if draw(st.integers(0, 3)) == 0:
        labels[ann.LABEL_PRIORITY_CLASS] = draw(st.sampled_from(("koord-prod", "koord-batch")))
    spec: dict = {"name": "pod", "labels": labels}
    if draw(st.integers(0, 4)) == 0:
        spec["priority"] = draw(st.sampled_from((9000, 9500, 7000, 0)))
    annotations: dict[str, str] = {}
    if draw(st.booleans()):
        numa_spec: dict = {"numaTopologyPolicy": draw(st.sampled_from(NUMA_POLICIES))}
        if draw(st.booleans()):
            numa_spec["singleNUMANodeExclusive"] = draw(st.sampled_from(EXCLUSIVES))
        if draw(st.integers(0, 3)) == 0:
            numa_spec["numaAllocateStrategy"] = "DistributeEvenly"
        annotations[ann.NUMA_TOPOLOGY_SPEC] = _json(numa_spec)
    if draw(st.booleans()):
        resource: dict = {}
        if draw(st.booleans()):
            resource["requiredCPUBindPolicy"] = draw(st.sampled_from(BIND_POLICIES))
        if draw(st.booleans()):
            resource["preferredCPUBindPolicy"] = draw(st.sampled_from(BIND_POLICIES))
        if draw(st.booleans()):
            resource["preferredCPUExclusivePolicy"] = draw(st.sampled_from(CPU_EXCLUSIVES))
        annotations[ann.RESOURCE_SPEC] = _json(resource)
    cpu = draw(st.sampled_from(("1", "2", "2", "4", "6", "8", "500m", "1500m", None)))
    requests: dict[str, str] = {}
    if cpu is not None:
        requests["cpu"] = cpu
    if draw(st.integers(0, 4)):
        requests["memory"] = draw(st.sampled_from(("1Gi", "4Gi", "8Gi", "24Gi", "512Mi")))
    # A GPU with NICs asked jointly is how such pods are written, so it is drawn
    # on its own, often, rather than left to the chance of the free draw below.
    joint = joint_pods and {"gpu", "rdma"} <= set(device_types) and draw(st.integers(0, 3)) == 0
    if joint:
        extra = draw(joint_requests())
    else:
        extra = draw(device_requests(device_types)) if draw(st.integers(0, 2)) == 0 else {}
    types = sorted({"gpu" if r.startswith(("nvidia.com/gpu", "koordinator.sh/gpu")) else r.split("/")[1]
                    for r in extra})
    if types and (draw(st.integers(0, 3)) == 0 if joint else draw(st.booleans())):
        annotations[ann.DEVICE_ALLOCATE_HINT] = draw(device_hint(types))
    if joint:
        order = ["gpu", "rdma"] if draw(st.integers(0, 3)) else ["rdma", "gpu"]
        joint_spec: dict = {"deviceTypes": order}
        scope = draw(st.sampled_from(("", "", None, "SamePCIe")))
        if scope is not None:
            joint_spec["requiredScope"] = scope
        annotations[ann.DEVICE_JOINT_ALLOCATE] = _json(joint_spec)
    elif len(types) >= 2 and draw(st.booleans()):
        annotations[ann.DEVICE_JOINT_ALLOCATE] = _json({"deviceTypes": draw(st.permutations(types)),
                                    "requiredScope": draw(st.sampled_from(("", "SamePCIe")))})
    if "nvidia.com/gpu" in extra and draw(st.booleans()):
        partition: dict = {"allocatePolicy": draw(st.sampled_from(("Restricted", "BestEffort", "")))}
        if draw(st.booleans()):
            partition["ringBusBandwidth"] = draw(st.sampled_from(("200Gi", "400Gi", "1Ti")))
        annotations[ann.GPU_PARTITION_SPEC] = _json(partition)
    if draw(st.integers(0, 9)) == 0:
        # The document's abbreviated key is an unrelated annotation.
        annotations["koordinator.sh/numa-topology-spec"] = _json({"numaTopologyPolicy": "Restricted"})
    spec["annotations"] = annotations
    containers = [{"name": "app", "resources": {"requests": {**requests, **extra}, "limits": {**requests, **extra}}}]
    if draw(st.integers(0, 4)) == 0:
        side = {"cpu": draw(st.sampled_from(("1", "500m"))), "memory": "1Gi"}
        containers.append({"name": "sidecar", "resources": {"requests": side, "limits": side}})
    spec["containers"] = containers
    return spec


@st.composite
def scoring_strategy(draw, types=SCORING, names=("cpu", "memory")):
    out: dict = {"type": draw(st.sampled_from(types))}
    if draw(st.booleans()):
        out["resources"] = [{"name": n, "weight": draw(st.integers(0, 3))}
                            for n in draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names), unique=True))]
    return out


@st.composite
def args(draw):
    out: dict = {}
    if draw(st.booleans()):
        numa: dict = {}
        if draw(st.booleans()):
            numa["defaultCPUBindPolicy"] = draw(st.sampled_from(("FullPCPUs", "SpreadByPCPUs", "Default", "ConstrainedBurst")))
        if draw(st.booleans()):
            numa["numaAllocateStrategy"] = draw(st.sampled_from(NODE_STRATEGIES))
        if draw(st.booleans()):
            numa["scoringStrategy"] = draw(scoring_strategy())
        if draw(st.booleans()):
            numa["numaScoringStrategy"] = draw(scoring_strategy())
        out["nodeNUMAResource"] = numa
    if draw(st.integers(0, 2)) == 0:
        share: dict = {}
        if draw(st.booleans()):
            share["disableDeviceNUMATopologyAlignment"] = draw(st.booleans())
        if draw(st.booleans()):
            share["scoringStrategy"] = draw(scoring_strategy(
                ("MostAllocated", "LeastAllocated"),
                ("koordinator.sh/gpu-memory-ratio", "koordinator.sh/rdma", "koordinator.sh/fpga")))
        out["deviceShare"] = share
    return out


# ---------------------------------------------------------------- operations

@st.composite
def resolve_input(draw):
    data: dict = {"pod": draw(pod())}
    if draw(st.integers(0, 5)):
        data["node"] = draw(node())
    if draw(st.booleans()):
        data["args"] = draw(args())
    return data


def _node_types(*nodes: dict) -> tuple[str, ...]:
    """The device types some node has; every type when none has devices, so
    requests on device-less nodes (which cannot fit) still come up."""
    return tuple(sorted({d["type"] for n in nodes for d in n.get("devices", [])})) or DEVICE_TYPES


@st.composite
def filter_input(draw):
    # Server layouts and joint pods for filter only, whose result holds the
    # chosen devices; score keeps its earlier inputs (see server_devices).
    spec = draw(node(server_layouts=True))
    data = {"node": spec, "pod": draw(pod(_node_types(spec), joint_pods=True))}
    if draw(st.booleans()):
        data["args"] = draw(args())
    return data


@st.composite
def score_input(draw):
    count = draw(st.integers(1, 3))
    nodes = [draw(node(f"node-{i}")) for i in range(count)]
    data = {"nodes": nodes, "pod": draw(pod(_node_types(*nodes)))}
    if draw(st.booleans()):
        data["args"] = draw(args())
    return data


@st.composite
def merge_hint(draw, nodes: list[int]):
    affinity = draw(st.one_of(st.none(), st.just([]),
                              st.lists(st.sampled_from(nodes), min_size=1, max_size=len(nodes), unique=True).map(sorted)))
    hint: dict = {"affinity": affinity, "preferred": draw(st.booleans())}
    if draw(st.integers(0, 2)):
        hint["score"] = draw(st.integers(0, 600))
    if draw(st.integers(0, 9)) == 0:
        hint["unsatisfied"] = draw(st.booleans())
    return hint


@st.composite
def merge_provider(draw, nodes: list[int]):
    if draw(st.integers(0, 7)) == 0:
        return None
    out = {}
    for resource in draw(st.lists(st.sampled_from(("cpu", "memory", "gpu", "rdma")), max_size=2, unique=True)):
        shape = draw(st.integers(0, 9))
        out[resource] = None if shape == 0 else [] if shape == 1 else draw(
            st.lists(merge_hint(nodes), min_size=1, max_size=3))
    return out


@st.composite
def merge_input(draw):
    nodes = sorted(draw(st.lists(st.integers(0, 7), min_size=1, max_size=4, unique=True)))
    data: dict = {"numaNodes": nodes, "providers": draw(st.lists(merge_provider(nodes), max_size=3))}
    if draw(st.integers(0, 5)):
        data["policy"] = draw(st.sampled_from(MERGE_POLICIES))
    if draw(st.booleans()):
        data["singleNUMANodeExclusive"] = draw(st.sampled_from(("", "Preferred", "Required", None)))
    if draw(st.booleans()):
        data["numaNodeStatus"] = {str(n): draw(st.sampled_from(STATUSES))
                                  for n in draw(st.lists(st.sampled_from(nodes), max_size=len(nodes), unique=True))}
    return data


@st.composite
def cpuset_input(draw):
    topology = draw(cpu_topology())
    cpu_ids = sorted(c["id"] for c in cpus_of(topology))
    data: dict = {"cpuTopology": topology}
    free = list(cpu_ids)
    if draw(st.integers(0, 3)) == 0:
        reserved = draw(st.lists(st.sampled_from(cpu_ids), min_size=1, max_size=2, unique=True))
        data["reservedCPUs"] = cpuset_value(draw, reserved)
        free = [c for c in free if c not in reserved]
    allocated = []
    for _ in range(draw(st.integers(0, 3))):
        if not free:
            break
        take = draw(st.lists(st.sampled_from(free), min_size=1, max_size=min(4, len(free)), unique=True))
        free = [c for c in free if c not in take]
        entry: dict = {"cpuset": cpuset_value(draw, take)}
        if draw(st.booleans()):
            entry["cpuExclusivePolicy"] = draw(st.sampled_from(CPU_EXCLUSIVES))
        allocated.append(entry)
    if allocated:
        data["allocated"] = allocated
    data["need"] = draw(st.integers(0, len(cpu_ids) + 1))
    if draw(st.integers(0, 4)):
        data["cpuBindPolicy"] = draw(st.sampled_from(("Default", "FullPCPUs", "SpreadByPCPUs")))
    if draw(st.booleans()):
        data["required"] = draw(st.booleans())
    if draw(st.booleans()):
        data["cpuExclusivePolicy"] = draw(st.sampled_from(CPU_EXCLUSIVES))
    if draw(st.booleans()):
        data["numaAllocateStrategy"] = draw(st.sampled_from(("MostAllocated", "LeastAllocated", "DistributeEvenly")))
    if draw(st.integers(0, 2)) == 0:
        ids = numa_ids(topology)
        data["numaNodes"] = sorted(draw(st.lists(st.sampled_from(ids), min_size=1, max_size=len(ids), unique=True)))
    return data


# ---------------------------------------------------------------- invalid inputs

NOT_JSON = ("{", "", "not json", "{'numaTopologyPolicy': 'Restricted'}", "[1, 2", "nul", '{"a":1}}')

BAD_ANNOTATIONS = {
    ann.NUMA_TOPOLOGY_SPEC: NOT_JSON + (
        "[]", '"Restricted"', "42", "null",
        _json({"numaTopologyPolicy": "Strict"}), _json({"numaTopologyPolicy": 1}),
        _json({"numaTopologyPolicy": "restricted"}),
        _json({"singleNUMANodeExclusive": "Always"}), _json({"singleNUMANodeExclusive": True}),
        _json({"numaAllocateStrategy": "MostAllocated"}), _json({"numaAllocateStrategy": "LeastAllocated"}),
        _json({"numaAllocateStrategy": "Spread"}), _json({"numaAllocateStrategy": ["DistributeEvenly"]}),
    ),
    ann.RESOURCE_SPEC: NOT_JSON + (
        "[]", "true",
        _json({"requiredCPUBindPolicy": "FullPCPU"}), _json({"preferredCPUBindPolicy": 2}),
        _json({"preferredCPUExclusivePolicy": "CoreLevel"}), _json({"requiredCPUBindPolicy": {"x": 1}}),
    ),
    ann.DEVICE_ALLOCATE_HINT: NOT_JSON + (
        "[]", _json({"tpu": {}}), _json({"gpu": "PCIe"}), _json({"gpu": [1]}),
        _json({"gpu": {"requiredTopologyScope": "Rack"}}), _json({"gpu": {"requiredTopologyScope": 3}}),
        _json({"rdma": {"allocateStrategy": "All"}}), _json({"rdma": {"exclusivePolicy": "NodeLevel"}}),
        _json({"gpu": {"selector": {"matchLabels": {"model": 1}}}}),
        _json({"gpu": {"selector": {"matchExpressions": [{"key": "model", "operator": "Equals", "values": ["a"]}]}}}),
        _json({"gpu": {"selector": {"matchExpressions": [{"key": "model", "operator": "In"}]}}}),
        _json({"gpu": {"selector": {"matchExpressions": [{"key": "model", "operator": "Exists", "values": ["a"]}]}}}),
        _json({"gpu": {"selector": {"matchExpressions": {"key": "model"}}}}),
        _json({"gpu": {"selector": {"matchFields": {}}}}),
        _json({"rdma": {"vfSelector": []}}), _json({"rdma": {"vfSelector": "general"}}),
    ),
    ann.DEVICE_JOINT_ALLOCATE: NOT_JSON + (
        "[]", _json({}), _json({"deviceTypes": "gpu,rdma"}), _json({"deviceTypes": ["gpu"]}),
        _json({"deviceTypes": ["gpu", "gpu"]}), _json({"deviceTypes": ["gpu", "tpu"]}),
        _json({"deviceTypes": ["gpu", 1]}), _json({"deviceTypes": ["gpu", "rdma"], "requiredScope": "SameNUMA"}),
        _json({"deviceTypes": ["gpu", "rdma"], "requiredScope": True}),
    ),
    ann.GPU_PARTITION_SPEC: NOT_JSON + (
        "[]", _json({"allocatePolicy": "Strict"}), _json({"allocatePolicy": 1}),
        _json({"ringBusBandwidth": "fast"}), _json({"ringBusBandwidth": "-1Gi"}),
        _json({"ringBusBandwidth": [400]}), _json({"ringBusBandwidth": "400 Gi"}),
    ),
}

BAD_LABELS = {
    ann.LABEL_NUMA_TOPOLOGY_POLICY: ("Strict", "restricted", "single-numa-node", "true"),
    ann.LABEL_NUMA_ALLOCATE_STRATEGY: ("Spread", "mostallocated", "BinPack"),
    ann.LABEL_CPU_BIND_POLICY: ("FullPCPUs", "Full", "none", "true"),
    ann.LABEL_GPU_PARTITION_POLICY: ("Always", "honor", "Required"),
}

BAD_PARTITION_TABLES = NOT_JSON + (
    "[]", _json({"two": [{"minors": [0, 1]}]}), _json({"2": {"minors": [0, 1]}}),
    _json({"2": [{"minors": [0]}]}), _json({"2": [{"minors": "0,1"}]}), _json({"2": [{"minors": [0, "1"]}]}),
    _json({"2": [{"minors": [0, 1], "allocationScore": "high"}]}),
    _json({"2": [{"minors": [0, 1], "ringBusBandwidth": "wide"}]}), _json({"1": ["0"]}),
)

BAD_DEVICE_REQUESTS = (
    {"koordinator.sh/gpu": "150"}, {"koordinator.sh/gpu": "250"}, {"koordinator.sh/gpu": "0.5"},
    {"nvidia.com/gpu": "1", "koordinator.sh/gpu": "50"}, {"nvidia.com/gpu": "1.5"},
    {"nvidia.com/gpu": "1", "koordinator.sh/gpu-core": "50", "koordinator.sh/gpu-memory-ratio": "50"},
    {"koordinator.sh/gpu-core": "50"}, {"koordinator.sh/gpu-memory-ratio": "50"},
    {"koordinator.sh/gpu-core": "50", "koordinator.sh/gpu-memory-ratio": "25"},
    {"koordinator.sh/gpu": "50", "koordinator.sh/gpu-core": "50", "koordinator.sh/gpu-memory-ratio": "50"},
    {"koordinator.sh/rdma": "150"}, {"koordinator.sh/fpga": "250"}, {"koordinator.sh/rdma": "-100"},
)


def _break_pod(draw, spec: dict) -> None:
    """Make one pod-side part of the input break its rules (annotation JSON,
    annotation values, device requests)."""
    if draw(st.integers(0, 3)):
        key = draw(st.sampled_from(sorted(BAD_ANNOTATIONS)))
        spec.setdefault("annotations", {})[key] = draw(st.sampled_from(BAD_ANNOTATIONS[key]))
    else:
        bad = draw(st.sampled_from(BAD_DEVICE_REQUESTS))
        for container in spec["containers"][:1]:
            container["resources"]["requests"].update(bad)
            container["resources"]["limits"].update(bad)


def _break_node(draw, spec: dict, table: bool) -> bool:
    """Break a node label, or (when `table`) the Device CR's partition table;
    True when the table was broken."""
    if not table or draw(st.booleans()):
        key = draw(st.sampled_from(sorted(BAD_LABELS)))
        spec.setdefault("labels", {})[key] = draw(st.sampled_from(BAD_LABELS[key]))
        return False
    spec["devices"] = [{"type": "gpu", "minor": m, "numaNode": None, "pcie": "pci0"} for m in range(2)]
    spec["deviceAnnotations"] = {ann.GPU_PARTITIONS: draw(st.sampled_from(BAD_PARTITION_TABLES))}
    spec["deviceLabels"] = {ann.LABEL_GPU_PARTITION_POLICY: "Honor"}
    return True


@st.composite
def invalid_pod_node_input(draw, base, table: bool = True):
    """A valid input with its pod or its node broken; the partition table is only
    read for whole-GPU requests, so a broken table comes with one."""
    data = draw(base)
    if draw(st.integers(0, 2)) or ("node" not in data and "nodes" not in data):
        _break_pod(draw, data["pod"])
        return data
    nodes = data["nodes"] if "nodes" in data else [data["node"]]
    if _break_node(draw, draw(st.sampled_from(nodes)), table):
        for container in data["pod"]["containers"][:1]:
            for part in ("requests", "limits"):
                res = container["resources"][part]
                for name in [r for r in res if "gpu" in r]:
                    del res[name]
                res["nvidia.com/gpu"] = "1"
    return data


def _bad_merge_policy(draw, data: dict) -> None:
    data["policy"] = draw(st.sampled_from(("Strict", "restricted", "single-numa-node")))


def _bad_numa_nodes(draw, data: dict) -> None:
    data["numaNodes"] = draw(st.sampled_from(([], [64], [-1], ["0"], [0, 70])))


def _bad_numa_node_status(draw, data: dict) -> None:
    data["numaNodeStatus"] = {str(data["numaNodes"][0]): draw(st.sampled_from(("busy", "Idle", "")))}


def _bad_hint_affinity(draw, data: dict) -> None:
    data["providers"] = [{"cpu": [{"affinity": draw(st.sampled_from(([64], "0", [0.5], [-1]))), "preferred": True}]}]


def _bad_hint_score(draw, data: dict) -> None:
    data["providers"] = [{"cpu": [{"affinity": [data["numaNodes"][0]], "preferred": True,
                                   "score": draw(st.sampled_from(("high", 1.5, None)))}]}]


MERGE_BREAKAGES = (_bad_merge_policy, _bad_numa_nodes, _bad_numa_node_status, _bad_hint_affinity, _bad_hint_score)


@st.composite
def invalid_merge_input(draw):
    data = draw(merge_input())
    apply_one(draw, MERGE_BREAKAGES, data)
    return data


def _bad_need(draw, data: dict) -> None:
    data["need"] = draw(st.sampled_from((-1, 1.5, "4")))


def _bad_allocated_cpuset(draw, data: dict) -> None:
    data["allocated"] = [{"cpuset": draw(st.sampled_from(("0-", "a", "3-1", "1,,2", "999")))}]


def _bad_cpu_topology(draw, data: dict) -> None:
    data["cpuTopology"] = draw(st.sampled_from(({"coresPerNUMANode": 0}, {"sockets": 0, "coresPerNUMANode": 2},
                                                {"coresPerNUMANode": 2, "threadsPerCore": -1}, {})))


def _bad_reserved_cpus(draw, data: dict) -> None:
    data["reservedCPUs"] = draw(st.sampled_from(("x", "0-", "-1")))


CPUSET_BREAKAGES = (_bad_need, _bad_allocated_cpuset, _bad_cpu_topology, _bad_reserved_cpus)


@st.composite
def invalid_cpuset_input(draw):
    data = draw(cpuset_input())
    apply_one(draw, CPUSET_BREAKAGES, data)
    return data


VALID = {
    "resolve": resolve_input(),
    "merge": merge_input(),
    "filter": filter_input(),
    "score": score_input(),
    "cpuset": cpuset_input(),
}
INVALID = {
    # resolve stops before DeviceShare reads the partition table.
    "resolve": invalid_pod_node_input(resolve_input(), table=False),
    "merge": invalid_merge_input(),
    "filter": invalid_pod_node_input(filter_input()),
    "score": invalid_pod_node_input(score_input()),
    "cpuset": invalid_cpuset_input(),
}
# Refusal messages: the contract fixes the `reason` codes and, where upstream
# has one, a text the corpus matches only by fragment ($contains,
# docs/fixture-format.md), so the full wording is the implementation's own.
# Everything else (CPU ids, device minors, scores) is fixed by the contract.
IGNORED = {
    "resolve": ["message"],
    "filter": ["message"],
    "cpuset": ["message"],
}
