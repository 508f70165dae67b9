"""One valid input per operation: resolve, filter, score, merge, cpuset, allocate."""

from __future__ import annotations

import json

from hypothesis import strategies as st

from .args import args
from .cpus import cpu_topology, cpus_of, cpuset_value, numa_ids
from .designations import device_designation
from .nodes import node
from .pods import joint_fitting_pod, pod
from .values import CPU_EXCLUSIVES, DEVICE_TYPES, MERGE_POLICIES, STATUSES


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


# Which filter input is drawn, by a draw of 0 to 5: once in six a server
# layout with a joint GPU and NIC pod drawn to fit it (see joint_fitting_pod),
# otherwise any node with any pod. Left to the free draws, a joint pod over
# several switches that fits came up about once in 500 inputs.
JOINT_FITTING_DRAW = 0
DESIGNATED_DRAW = 0


@st.composite
def filter_input(draw):
    if draw(st.integers(0, 5)) == JOINT_FITTING_DRAW:
        spec = draw(node(joint_layout=True))
        gpus = sum(1 for d in spec.get("devices", []) if d["type"] == "gpu")
        data = {"node": spec, "pod": draw(joint_fitting_pod(gpus))}
        if draw(st.booleans()):
            data["args"] = draw(args())
        return data
    # Server layouts and joint pods for filter only, whose result holds the
    # chosen devices; score keeps its earlier inputs (see server_devices).
    spec = draw(node(server_layouts=True))
    data = {"node": spec, "pod": draw(pod(_node_types(spec), joint_pods=True))}
    if draw(st.booleans()):
        data["args"] = draw(args())
    if draw(st.integers(0, 3)) == DESIGNATED_DRAW:
        # Once in four, a rescheduled pod carrying devices (see device_designation).
        data["pod"]["annotations"] = {**data["pod"].get("annotations", {}),
                                      **draw(device_designation(spec, data["pod"]))}
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


# A provider's hints for one resource, by a draw of 0 to 9: nil (no
# preference) once, empty (no possible placement) once, hints otherwise.
HINTS_SHAPE_DRAW = {0: "nil", 1: "empty"}


@st.composite
def merge_provider(draw, nodes: list[int]):
    if draw(st.integers(0, 7)) == 0:
        return None
    out = {}
    for resource in draw(st.lists(st.sampled_from(("cpu", "memory", "gpu", "rdma")), max_size=2, unique=True)):
        shape = HINTS_SHAPE_DRAW.get(draw(st.integers(0, 9)), "hints")
        out[resource] = None if shape == "nil" else [] if shape == "empty" else draw(
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
    # Holders may overlap: a CPU held twice is shared (maxRefCount above 1) or
    # held by a reservation and a pod in it.
    overlap = draw(st.booleans())
    holdable = list(free)
    for _ in range(draw(st.integers(0, 3))):
        pool = holdable if overlap else free
        if not pool:
            break
        take = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=min(4, len(pool)), unique=True))
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
    if draw(st.integers(0, 2)) == 0:
        # Held CPUs among them too: a preferred CPU's hold is given back.
        data["preferredCPUs"] = cpuset_value(draw, draw(st.lists(st.sampled_from(cpu_ids), min_size=1,
                                                                  max_size=min(6, len(cpu_ids)), unique=True)))
    if draw(st.integers(0, 2)) == 0:
        data["maxRefCount"] = draw(st.integers(1, 3))
    return data


@st.composite
def designated_annotations(draw, spec: dict) -> dict[str, str]:
    """A scheduling hint handing a resource status to NodeNUMAResource, with
    NUMA resources over some of the node's NUMA ids and a CPU set of its CPUs
    (either may be left out)."""
    topology = spec.get("cpuTopology")
    cpu_ids = sorted(c["id"] for c in cpus_of(topology)) if topology else []
    ids = [z["id"] for z in spec.get("numaNodes") or []] or [0]
    status: dict = {}
    if draw(st.integers(0, 3)):
        status["numaNodeResources"] = [
            {"node": n, "resources": {"cpu": str(draw(st.integers(1, 8))),
                                      **({"memory": f"{draw(st.integers(1, 16))}Gi"} if draw(st.booleans()) else {})}}
            for n in sorted(draw(st.lists(st.sampled_from(ids), min_size=1, max_size=len(ids), unique=True)))]
    if cpu_ids and draw(st.integers(0, 3)):
        status["cpuset"] = cpuset_value(draw, draw(st.lists(st.sampled_from(cpu_ids), min_size=1, max_size=6,
                                                             unique=True)))
    return {"internal.scheduling.koordinator.sh/scheduling-hint": json.dumps({"extensions": {"NodeNUMAResource": {}}}),
            "scheduling.koordinator.sh/resource-status": json.dumps(status)}


@st.composite
def allocate_input(draw):
    """A filter-like input with the NUMA affinity the allocation step is given
    (a subset of the node's NUMA ids, or none), and once in three a pod carrying
    a designated allocation."""
    spec = draw(node())
    data = {"node": spec, "pod": draw(pod(_node_types(spec)))}
    if draw(st.booleans()):
        data["args"] = draw(args())
    ids = [z["id"] for z in spec.get("numaNodes") or []]
    if not ids:
        # A node without NUMA zones: an affinity there is refused, whatever its ids.
        ids = numa_ids(spec["cpuTopology"]) if spec.get("cpuTopology") else [0, 1]
    if draw(st.integers(0, 3)):
        data["affinity"] = sorted(draw(st.lists(st.sampled_from(ids), min_size=1, max_size=len(ids), unique=True)))
    if draw(st.integers(0, 2)) == 0:
        data["pod"]["annotations"] = {**data["pod"].get("annotations", {}), **draw(designated_annotations(spec))}
    return data
