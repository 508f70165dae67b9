"""Pods: QoS and priority, the scheduling annotations in their JSON shapes,
and CPU, memory and device requests (joint GPU and NIC requests among them)."""

from __future__ import annotations

from hypothesis import strategies as st

from reference_impl.koordinator import annotations as ann

from .values import (
    BIND_POLICIES,
    CPU_EXCLUSIVES,
    DEVICE_EXCLUSIVES,
    DEVICE_TYPES,
    EXCLUSIVES,
    NUMA_POLICIES,
    SCOPES,
    as_json,
)

# How a pod asks for GPUs, by a draw of 0 to 8: whole GPUs, a koordinator.sh/gpu
# share, GPU core and memory ratio, GPU memory in bytes (alone or with GPU core;
# drawn twice as often, being the newest), or (four times in nine) none.
GPU_REQUEST_DRAW = ("none", "whole", "share", "core-and-memory", "memory-bytes", "memory-bytes", "none", "none",
                    "none")


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
    return as_json(hint)


@st.composite
def device_requests(draw, types=DEVICE_TYPES):
    """Device requests of the given types (the node's, mostly, so that some fit)."""
    requests: dict[str, str] = {}
    gpu = GPU_REQUEST_DRAW[draw(st.integers(0, len(GPU_REQUEST_DRAW) - 1))] if "gpu" in types else "none"
    if gpu == "whole":
        requests["nvidia.com/gpu"] = str(draw(st.integers(1, 4)))
    elif gpu == "share":
        requests["koordinator.sh/gpu"] = str(draw(st.sampled_from((25, 50, 100, 200))))
    elif gpu == "core-and-memory":
        share = str(draw(st.sampled_from((25, 50, 100))))
        requests["koordinator.sh/gpu-core"] = share
        requests["koordinator.sh/gpu-memory-ratio"] = share
    elif gpu == "memory-bytes":
        requests["koordinator.sh/gpu-memory"] = draw(st.sampled_from(("4Gi", "8Gi", "16Gi", "20Gi", "40Gi", "80Gi")))
        if draw(st.booleans()):
            requests["koordinator.sh/gpu-core"] = str(draw(st.sampled_from((25, 50, 100))))
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
        annotations[ann.NUMA_TOPOLOGY_SPEC] = as_json(numa_spec)
    if draw(st.booleans()):
        resource: dict = {}
        if draw(st.booleans()):
            resource["requiredCPUBindPolicy"] = draw(st.sampled_from(BIND_POLICIES))
        if draw(st.booleans()):
            resource["preferredCPUBindPolicy"] = draw(st.sampled_from(BIND_POLICIES))
        if draw(st.booleans()):
            resource["preferredCPUExclusivePolicy"] = draw(st.sampled_from(CPU_EXCLUSIVES))
        annotations[ann.RESOURCE_SPEC] = as_json(resource)
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
        annotations[ann.DEVICE_JOINT_ALLOCATE] = as_json(joint_spec)
    elif len(types) >= 2 and draw(st.booleans()):
        annotations[ann.DEVICE_JOINT_ALLOCATE] = as_json({"deviceTypes": draw(st.permutations(types)),
                                    "requiredScope": draw(st.sampled_from(("", "SamePCIe")))})
    if "nvidia.com/gpu" in extra and draw(st.booleans()):
        partition: dict = {"allocatePolicy": draw(st.sampled_from(("Restricted", "BestEffort", "")))}
        if draw(st.booleans()):
            partition["ringBusBandwidth"] = draw(st.sampled_from(("200Gi", "400Gi", "1Ti")))
        annotations[ann.GPU_PARTITION_SPEC] = as_json(partition)
    if draw(st.integers(0, 9)) == 0:
        # The document's abbreviated key is an unrelated annotation.
        annotations["koordinator.sh/numa-topology-spec"] = as_json({"numaTopologyPolicy": "Restricted"})
    spec["annotations"] = annotations
    containers = [{"name": "app", "resources": {"requests": {**requests, **extra}, "limits": {**requests, **extra}}}]
    if draw(st.integers(0, 4)) == 0:
        side = {"cpu": draw(st.sampled_from(("1", "500m"))), "memory": "1Gi"}
        containers.append({"name": "sidecar", "resources": {"requests": side, "limits": side}})
    spec["containers"] = containers
    return spec


@st.composite
def joint_fitting_pod(draw, gpus: int):
    """A pod that asks, jointly and without a required scope, for two or more
    of the node's `gpus` whole GPUs and for one NIC (or a share of one), and
    nothing that would keep it off a server layout drawn for it: no device
    hint, no partition spec. Its CPU, memory, QoS and NUMA annotations are
    drawn as for any pod, so it still fits only most of the time. GPUs over
    several switches with fewer NICs asked than switches are where the
    secondary type takes more than its count."""
    spec = draw(pod(device_types=()))
    # Every GPU of the node twice as often as two: all of them span every
    # switch, where two may share one.
    asked = {"nvidia.com/gpu": str(draw(st.sampled_from((2, max(2, gpus), max(2, gpus))))),
             "koordinator.sh/rdma": draw(st.sampled_from(("1", "100", "100", "50")))}
    resources = spec["containers"][0]["resources"]
    for key in ("requests", "limits"):
        resources[key] = {**resources[key], **asked}
    joint_spec: dict = {"deviceTypes": ["gpu", "rdma"]}
    if draw(st.booleans()):
        joint_spec["requiredScope"] = ""
    spec["annotations"] = {**spec["annotations"], ann.DEVICE_JOINT_ALLOCATE: as_json(joint_spec)}
    return spec
