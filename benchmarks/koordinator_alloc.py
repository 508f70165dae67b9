"""Koordinator CPU set selection and GPU allocation, reference against v1.8.0.

CPU sets: the CPU accumulator (`cpuset`) on 2 sockets x 1, 2 or 4 NUMA nodes
per socket x 16 hyper-threaded cores per NUMA node (64 to 256 logical CPUs),
a third of the cores already held, for FullPCPUs/MostAllocated and
SpreadByPCPUs/LeastAllocated requests of 4, 16 and 64 CPUs.

Devices: DeviceShare's `filter` on such a node with 8 or 16 GPUs (two under
each PCIe switch, switches spread over the NUMA nodes), some in use, for pods
asking 1 to 8 GPUs (as many as are free at most); the 8-GPU node carries an NVLink partition table (pairs,
quads and the whole board, as upstream's Hopper layout, all of one score and
bandwidth: where scores differ the contract follows the document's order, not
v1.8.0's, see conformance/expectations), the 16-GPU node none.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from reference_impl import dispatch

from .shim import ShimProcess, same_answer
from .timing import Sample, interleaved

NUMA_PER_SOCKET = (1, 2, 4)
CORES_PER_NUMA = 16
NEEDS = (4, 16, 64)
POLICIES = (("FullPCPUs", "MostAllocated"), ("SpreadByPCPUs", "LeastAllocated"))
GPU_COUNTS = (8, 16)
# per GPU count: requests that fit beside the two GPUs in use
GPU_REQUESTS = {8: (1, 2, 4, 6), 16: (1, 2, 4, 8)}


def topology(numa_per_socket: int) -> dict:
    return {"sockets": 2, "numaNodesPerSocket": numa_per_socket, "coresPerNUMANode": CORES_PER_NUMA,
            "threadsPerCore": 2}


def cpuset_input(numa_per_socket: int, need: int, policy: str, strategy: str) -> dict:
    cpus = 2 * numa_per_socket * CORES_PER_NUMA * 2
    # every third core held by some pod, whole cores, the odd ones exclusively
    held = [{"cpuset": f"{c}-{c + 1}", **({"cpuExclusivePolicy": "PCPULevel"} if (c // 2) % 2 else {})}
            for c in range(0, cpus, 6)]
    return {"cpuTopology": topology(numa_per_socket), "reservedCPUs": "0-1", "allocated": held, "need": need,
            "cpuBindPolicy": policy, "required": False, "cpuExclusivePolicy": "None",
            "numaAllocateStrategy": strategy}


def _partitions() -> str:
    def group(minors, bandwidth, score):
        return {"minors": minors, "gpuLinkType": "NVLink", "ringBusBandwidth": bandwidth, "allocationScore": score}

    table = {
        "1": [{"minors": [m], "allocationScore": 1} for m in range(8)],
        "2": [group([m, m + 1], "400Gi", 1) for m in range(0, 8, 2)],
        "4": [group([0, 1, 2, 3], "400Gi", 1), group([4, 5, 6, 7], "400Gi", 1)],
        "8": [group(list(range(8)), "400Gi", 1)],
    }
    return json.dumps(table)


def filter_input(numa_per_socket: int, gpus: int, request: int) -> dict:
    numa = 2 * numa_per_socket
    devices = [{"type": "gpu", "minor": m, "numaNode": (m // 2) * numa // (gpus // 2) if gpus >= numa else m % numa,
                "pcie": f"pci{m // 2}", "busID": f"0000:{m + 8:02x}:00.0"} for m in range(gpus)]
    node = {"name": "gpu-node", "cpuTopology": topology(numa_per_socket),
            "numaNodes": [{"id": i, "memory": "256Gi"} for i in range(numa)],
            "devices": devices,
            "pods": [{"name": "busy", "devices": {"gpu": [1, gpus - 2]}}]}
    if gpus == 8:
        node["deviceAnnotations"] = {"scheduling.koordinator.sh/gpu-partitions": _partitions()}
        node["deviceLabels"] = {"node.koordinator.sh/gpu-partition-policy": "Prefer"}
    pod = {"name": "trainer", "labels": {"koordinator.sh/qosClass": "LS"},
           "containers": [{"name": "app", "resources": {
               "requests": {"cpu": "8", "nvidia.com/gpu": str(request)},
               "limits": {"cpu": "8", "nvidia.com/gpu": str(request)}}}]}
    return {"node": node, "pod": pod}


def canonical(result: dict) -> dict:
    """Device lists are sets: order them by minor (the corpus compares them unordered)."""
    devices = result.get("devices")
    if isinstance(devices, dict):
        result = dict(result, devices={k: sorted(v, key=lambda d: json.dumps(d, sort_keys=True))
                                       for k, v in devices.items()})
    return result


@dataclass
class KoordRow:
    operation: str
    shape: str
    cpus: int
    detail: str
    outcome: str
    reference: Sample
    upstream: Sample | None


def run(shim: ShimProcess | None, target_s: float, log: Callable[[str], None]) -> list[KoordRow]:
    rows = []
    for nps in NUMA_PER_SOCKET:
        cpus = 2 * nps * CORES_PER_NUMA * 2
        for policy, strategy in POLICIES:
            for need in NEEDS:
                input_ = cpuset_input(nps, need, policy, strategy)
                rows.append(_one(shim, "cpuset", "cpuset", input_, f"2x{nps} NUMA", cpus,
                                 f"{policy}/{strategy}, {need} CPUs", target_s, log))
        for gpus in GPU_COUNTS:
            for request in GPU_REQUESTS[gpus]:
                input_ = filter_input(nps, gpus, request)
                rows.append(_one(shim, "filter", "filter", input_, f"2x{nps} NUMA", cpus,
                                 f"{gpus} GPUs{' (NVLink partitions)' if gpus == 8 else ''}, {request} requested",
                                 target_s, log))
    return rows


def _one(shim, operation, section, input_, shape, cpus, detail, target_s, log) -> KoordRow:
    name = f"koordinator {operation} {shape} {cpus} CPUs, {detail}"

    def reference():
        return dispatch.run("koordinator", operation, input_)

    def upstream():
        t = shim.bench(operation, input_, 1)
        return t.section_s(section)[0], t.answer

    ref, up, ref_answer, up_answer = interleaved(reference, upstream if shim is not None else None, target_s)
    if shim is not None:
        up_result = up_answer.get("result")
        same_answer(name, canonical(ref_answer), {**up_answer, "result": canonical(up_result)} if up_result else up_answer)
    outcome = _outcome(ref_answer)
    log(f"{name} ({outcome}): reference {ref.median_s * 1e3:.2f} ms"
        + (f", upstream {up.median_s * 1e3:.2f} ms" if up else ""))
    return KoordRow(operation, shape, cpus, detail, outcome, ref, up)


def _outcome(answer: dict) -> str:
    if "allocated" in answer:
        return f"{len(answer.get('cpuset', []))} CPUs" if answer["allocated"] else answer.get("reason", "refused")
    if answer.get("fits"):
        return "GPUs " + ",".join(str(d.get("minor")) for d in answer.get("devices", {}).get("gpu", []))
    return answer.get("reason", "no fit")
