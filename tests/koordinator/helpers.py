"""Small builders for Koordinator test inputs."""

from __future__ import annotations

import json

from reference_impl import dispatch

LSR = {"koordinator.sh/qosClass": "LSR"}
NUMA_SPEC = "scheduling.koordinator.sh/numa-topology-spec"
RESOURCE_SPEC = "scheduling.koordinator.sh/resource-spec"
DEVICE_HINT = "scheduling.koordinator.sh/device-allocate-hint"
JOINT = "scheduling.koordinator.sh/device-joint-allocate"
PARTITION_SPEC = "scheduling.koordinator.sh/gpu-partition-spec"


def run(op: str, input_: dict) -> dict:
    return dispatch.run("koordinator", op, input_)


def topology(sockets=2, nodes_per_socket=1, cores=4, threads=2) -> dict:
    return {"sockets": sockets, "numaNodesPerSocket": nodes_per_socket, "coresPerNUMANode": cores,
            "threadsPerCore": threads}


def node(numa=2, cores=4, threads=2, memory="32Gi", **extra) -> dict:
    out = {
        "cpuTopology": topology(numa, 1, cores, threads),
        "numaNodes": [{"id": i, "memory": memory} for i in range(numa)],
    }
    out.update(extra)
    return out


def pod(cpu="4", memory="8Gi", labels=None, annotations=None, **more) -> dict:
    requests = {}
    if cpu is not None:
        requests["cpu"] = cpu
    if memory is not None:
        requests["memory"] = memory
    requests.update(more)
    return {
        "labels": dict(labels or {}),
        "annotations": {k: v if isinstance(v, str) else json.dumps(v) for k, v in (annotations or {}).items()},
        "containers": [{"name": "c", "resources": {"requests": requests, "limits": requests}}],
    }


def gpus(per_numa=4, numa=2, pcie_per_numa=2, rdma=True) -> list[dict]:
    out = []
    minor = 0
    per_pcie = per_numa // pcie_per_numa
    for n in range(numa):
        for i in range(per_numa):
            out.append({"type": "gpu", "minor": minor, "numaNode": n, "pcie": f"pci{n}{i // per_pcie}"})
            minor += 1
    if rdma:
        r = 0
        for n in range(numa):
            for p in range(pcie_per_numa):
                out.append({"type": "rdma", "minor": r, "numaNode": n, "pcie": f"pci{n}{p}",
                            "vfGroups": [{"labels": {"type": "general"},
                                          "vfs": [{"busID": f"0000:{r:02x}:00.{v}"} for v in range(2, 5)]}]})
                r += 1
    return out
