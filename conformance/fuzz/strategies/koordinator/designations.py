"""A pod's designated devices (`device-allocated`), as a rescheduled pod carries
them: some of the node's devices of the types the pod requests (now and then a
minor the node lacks), at a share a placed pod could hold, with a VF of the
device for NICs, handed over to DeviceShare by the scheduling hint or not."""

from __future__ import annotations

import json

from hypothesis import strategies as st

HINT = "internal.scheduling.koordinator.sh/scheduling-hint"
DEVICE_ALLOCATED = "scheduling.koordinator.sh/device-allocated"
# A minor no drawn node has: designated devices that are gone.
ABSENT_MINOR = 99
_RESOURCE_TYPES = {"nvidia.com/gpu": "gpu", "koordinator.sh/gpu": "gpu", "koordinator.sh/gpu-core": "gpu",
                   "koordinator.sh/gpu-memory-ratio": "gpu", "koordinator.sh/gpu-memory": "gpu",
                   "koordinator.sh/rdma": "rdma", "koordinator.sh/fpga": "fpga"}


def requested_types(pod: dict) -> list[str]:
    names = {n for c in pod.get("containers", []) for n, q in c.get("resources", {}).get("requests", {}).items()
             if str(q) not in ("0", "")}
    return sorted({_RESOURCE_TYPES[n] for n in names if n in _RESOURCE_TYPES})


@st.composite
def _entry(draw, device: dict | None, dtype: str) -> dict:
    minor = ABSENT_MINOR if device is None else device["minor"]
    percent = draw(st.sampled_from((100, 100, 50, 25)))
    if dtype == "gpu":
        resources = {"koordinator.sh/gpu-core": str(percent), "koordinator.sh/gpu-memory-ratio": str(percent)}
        if draw(st.booleans()):
            resources["koordinator.sh/gpu-memory"] = f"{percent * 16 // 100}Gi"
    else:
        resources = {f"koordinator.sh/{dtype}": str(draw(st.sampled_from((1, percent))))}
    entry: dict = {"minor": minor, "resources": resources}
    vfs = [vf["busID"] for g in (device or {}).get("vfGroups", []) for vf in g.get("vfs", [])]
    if vfs and draw(st.booleans()):
        entry["extension"] = {"vfs": [{"busID": draw(st.sampled_from(vfs))}]}
    return entry


@st.composite
def device_designation(draw, node: dict, pod: dict) -> dict[str, str]:
    """The annotations to add to the pod; {} when it requests no device."""
    types = requested_types(pod)
    if not types:
        return {}
    allocations: dict[str, list[dict]] = {}
    for dtype in types:
        devices = [d for d in node.get("devices", []) if d["type"] == dtype]
        if not devices or not draw(st.integers(0, 5)):
            chosen: list[dict | None] = [None]
        else:
            chosen = draw(st.lists(st.sampled_from(devices), min_size=1, max_size=min(2, len(devices)),
                                   unique_by=lambda d: d["minor"]))
        allocations[dtype] = [draw(_entry(d, dtype)) for d in chosen]
    out = {DEVICE_ALLOCATED: json.dumps(allocations)}
    if draw(st.integers(0, 2)):
        out[HINT] = json.dumps({"extensions": {"DeviceShare": {}}})
    return out
