"""Invalid inputs: named breakages of a valid input's pod, node, merge input
or cpuset input, each a rule an implementation must refuse."""

from __future__ import annotations

from hypothesis import strategies as st

from reference_impl.koordinator import annotations as ann

from ..mutators import apply_one
from .operations import cpuset_input, merge_input
from .values import as_json

NOT_JSON = ("{", "", "not json", "{'numaTopologyPolicy': 'Restricted'}", "[1, 2", "nul", '{"a":1}}')

BAD_ANNOTATIONS = {
    ann.NUMA_TOPOLOGY_SPEC: NOT_JSON + (
        "[]", '"Restricted"', "42", "null",
        as_json({"numaTopologyPolicy": "Strict"}), as_json({"numaTopologyPolicy": 1}),
        as_json({"numaTopologyPolicy": "restricted"}),
        as_json({"singleNUMANodeExclusive": "Always"}), as_json({"singleNUMANodeExclusive": True}),
        as_json({"numaAllocateStrategy": "MostAllocated"}), as_json({"numaAllocateStrategy": "LeastAllocated"}),
        as_json({"numaAllocateStrategy": "Spread"}), as_json({"numaAllocateStrategy": ["DistributeEvenly"]}),
    ),
    ann.RESOURCE_SPEC: NOT_JSON + (
        "[]", "true",
        as_json({"requiredCPUBindPolicy": "FullPCPU"}), as_json({"preferredCPUBindPolicy": 2}),
        as_json({"preferredCPUExclusivePolicy": "CoreLevel"}), as_json({"requiredCPUBindPolicy": {"x": 1}}),
    ),
    ann.DEVICE_ALLOCATE_HINT: NOT_JSON + (
        "[]", as_json({"tpu": {}}), as_json({"gpu": "PCIe"}), as_json({"gpu": [1]}),
        as_json({"gpu": {"requiredTopologyScope": "Rack"}}), as_json({"gpu": {"requiredTopologyScope": 3}}),
        as_json({"rdma": {"allocateStrategy": "All"}}), as_json({"rdma": {"exclusivePolicy": "NodeLevel"}}),
        as_json({"gpu": {"selector": {"matchLabels": {"model": 1}}}}),
        as_json({"gpu": {"selector": {"matchExpressions": [{"key": "model", "operator": "Equals", "values": ["a"]}]}}}),
        as_json({"gpu": {"selector": {"matchExpressions": [{"key": "model", "operator": "In"}]}}}),
        as_json({"gpu": {"selector": {"matchExpressions": [{"key": "model", "operator": "Exists", "values": ["a"]}]}}}),
        as_json({"gpu": {"selector": {"matchExpressions": {"key": "model"}}}}),
        as_json({"gpu": {"selector": {"matchLabels": ["model"]}}}),
        as_json({"rdma": {"vfSelector": []}}), as_json({"rdma": {"vfSelector": "general"}}),
    ),
    ann.DEVICE_JOINT_ALLOCATE: NOT_JSON + (
        "[]", as_json({}), as_json({"deviceTypes": "gpu,rdma"}), as_json({"deviceTypes": ["gpu"]}),
        as_json({"deviceTypes": ["gpu", "gpu"]}), as_json({"deviceTypes": ["gpu", "tpu"]}),
        as_json({"deviceTypes": ["gpu", 1]}), as_json({"deviceTypes": ["gpu", "rdma"], "requiredScope": "SameNUMA"}),
        as_json({"deviceTypes": ["gpu", "rdma"], "requiredScope": True}),
    ),
    ann.GPU_PARTITION_SPEC: NOT_JSON + (
        "[]", as_json({"allocatePolicy": "Strict"}), as_json({"allocatePolicy": 1}),
        as_json({"ringBusBandwidth": "fast"}), as_json({"ringBusBandwidth": "-1Gi"}),
        as_json({"ringBusBandwidth": [400]}), as_json({"ringBusBandwidth": "400 Gi"}),
    ),
}

BAD_LABELS = {
    ann.LABEL_NUMA_TOPOLOGY_POLICY: ("Strict", "restricted", "single-numa-node", "true"),
    ann.LABEL_NUMA_ALLOCATE_STRATEGY: ("Spread", "mostallocated", "BinPack"),
    ann.LABEL_CPU_BIND_POLICY: ("FullPCPUs", "Full", "none", "true"),
    ann.LABEL_GPU_PARTITION_POLICY: ("Always", "honor", "Required"),
}

BAD_PARTITION_TABLES = NOT_JSON + (
    "[]", as_json({"two": [{"minors": [0, 1]}]}), as_json({"2": {"minors": [0, 1]}}),
    as_json({"2": [{"minors": [0]}]}), as_json({"2": [{"minors": "0,1"}]}), as_json({"2": [{"minors": [0, "1"]}]}),
    as_json({"2": [{"minors": [0, 1], "allocationScore": "high"}]}),
    as_json({"2": [{"minors": [0, 1], "ringBusBandwidth": "wide"}]}), as_json({"1": ["0"]}),
)

BAD_DEVICE_REQUESTS = (
    {"koordinator.sh/gpu": "150"}, {"koordinator.sh/gpu": "250"}, {"koordinator.sh/gpu": "0.5"},
    {"nvidia.com/gpu": "1", "koordinator.sh/gpu": "50"}, {"nvidia.com/gpu": "1.5"},
    {"nvidia.com/gpu": "1", "koordinator.sh/gpu-core": "50", "koordinator.sh/gpu-memory-ratio": "50"},
    {"koordinator.sh/gpu-core": "50"}, {"koordinator.sh/gpu-memory-ratio": "50"},
    {"koordinator.sh/gpu-core": "50", "koordinator.sh/gpu-memory-ratio": "25"},
    {"koordinator.sh/gpu": "50", "koordinator.sh/gpu-core": "50", "koordinator.sh/gpu-memory-ratio": "50"},
    {"koordinator.sh/rdma": "150"}, {"koordinator.sh/fpga": "250"}, {"koordinator.sh/rdma": "-100"},
    # GPU memory in bytes beside a resource that sizes the same GPU otherwise
    {"koordinator.sh/gpu-memory": "8Gi", "koordinator.sh/gpu-memory-ratio": "50"},
    {"koordinator.sh/gpu-memory": "8Gi", "koordinator.sh/gpu-core": "50", "koordinator.sh/gpu-memory-ratio": "50"},
    {"koordinator.sh/gpu-memory": "8Gi", "nvidia.com/gpu": "1"},
    {"koordinator.sh/gpu-memory": "8Gi", "koordinator.sh/gpu": "50"},
    {"koordinator.sh/gpu-memory": "8Gi", "koordinator.sh/gpu-core": "150"},
)


def _bad_annotation(draw, spec: dict) -> None:
    """A scheduling annotation that is not JSON, or not of its shape or values."""
    key = draw(st.sampled_from(sorted(BAD_ANNOTATIONS)))
    spec.setdefault("annotations", {})[key] = draw(st.sampled_from(BAD_ANNOTATIONS[key]))


def _bad_device_request(draw, spec: dict) -> None:
    """Device requests the DeviceShare rules refuse (shares above 100 that are
    not whole devices, mixed whole and shared GPUs, GPU core without memory)."""
    bad = draw(st.sampled_from(BAD_DEVICE_REQUESTS))
    for container in spec["containers"][:1]:
        container["resources"]["requests"].update(bad)
        container["resources"]["limits"].update(bad)


def _bad_node_label(draw, spec: dict, data: dict) -> None:
    key = draw(st.sampled_from(sorted(BAD_LABELS)))
    spec.setdefault("labels", {})[key] = draw(st.sampled_from(BAD_LABELS[key]))


def _bad_partition_table(draw, spec: dict, data: dict) -> None:
    """A malformed Device CR partition table; the table is only read for
    whole-GPU requests, so the pod asks for one."""
    spec["devices"] = [{"type": "gpu", "minor": m, "numaNode": None, "pcie": "pci0"} for m in range(2)]
    spec["deviceAnnotations"] = {ann.GPU_PARTITIONS: draw(st.sampled_from(BAD_PARTITION_TABLES))}
    spec["deviceLabels"] = {ann.LABEL_GPU_PARTITION_POLICY: "Honor"}
    for container in data["pod"]["containers"][:1]:
        for part in ("requests", "limits"):
            res = container["resources"][part]
            for name in [r for r in res if "gpu" in r]:
                del res[name]
            res["nvidia.com/gpu"] = "1"


@st.composite
def invalid_pod_node_input(draw, base, table: bool = True):
    """A valid input with its pod broken (mostly an annotation, else the device
    requests) or one of its nodes (a label, or, when `table`, as often the
    partition table)."""
    data = draw(base)
    if draw(st.integers(0, 2)) or ("node" not in data and "nodes" not in data):
        breakage = _bad_annotation if draw(st.integers(0, 3)) else _bad_device_request
        breakage(draw, data["pod"])
        return data
    nodes = data["nodes"] if "nodes" in data else [data["node"]]
    spec = draw(st.sampled_from(nodes))
    breakage = _bad_node_label if not table or draw(st.booleans()) else _bad_partition_table
    breakage(draw, spec, data)
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


def _bad_preferred_cpus(draw, data: dict) -> None:
    data["preferredCPUs"] = draw(st.sampled_from(("x", "3-1", "999", [-1])))


def _bad_max_ref_count(draw, data: dict) -> None:
    data["maxRefCount"] = draw(st.sampled_from((0, -1, 1.5, "2", True)))


CPUSET_BREAKAGES = (_bad_need, _bad_allocated_cpuset, _bad_cpu_topology, _bad_reserved_cpus,
                    _bad_preferred_cpus, _bad_max_ref_count)


@st.composite
def invalid_cpuset_input(draw):
    data = draw(cpuset_input())
    apply_one(draw, CPUSET_BREAKAGES, data)
    return data
