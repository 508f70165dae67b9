"""A pod's device requests, grouped per device type and read through the
device-allocate-hint (ApplyForAll / RequestsAsCount)."""

from __future__ import annotations

from dataclasses import dataclass

from ..refusal import Refusal
from . import annotations as ann
from . import selectors
from .devices import FULL
from .node import Node
from .pod import Pod

GPU_WHOLE = "nvidia.com/gpu"
GPU_PERCENT = "koordinator.sh/gpu"
GPU_CORE = "koordinator.sh/gpu-core"
GPU_RATIO = "koordinator.sh/gpu-memory-ratio"
PERCENT_RESOURCES = {"rdma": "koordinator.sh/rdma", "fpga": "koordinator.sh/fpga"}
DEVICE_RESOURCES = (GPU_WHOLE, GPU_PERCENT, GPU_CORE, GPU_RATIO, *PERCENT_RESOURCES.values())


@dataclass(frozen=True)
class DeviceRequest:
    type: str
    count: int
    per_device: int        # percent of one device
    hint: ann.DeviceHint

    @property
    def shared(self) -> bool:
        return self.per_device < FULL


def _integer(pod: Pod, name: str) -> int:
    value = pod.requests[name]
    if value.denominator != 1 or value < 0:
        raise Refusal("InvalidDeviceRequest", f"{name} must be a non-negative integer, got {float(value):g}", "PreFilter")
    return int(value)


def _percent(name: str, value: int) -> tuple[int, int]:
    if value > FULL:
        if value % FULL:
            raise Refusal("InvalidDeviceRequest", f"{name} above 100 must be a multiple of 100, got {value}", "PreFilter")
        return value // FULL, FULL
    return 1, value


def parse_requests(pod: Pod, hints: dict[str, ann.DeviceHint]) -> dict[str, tuple[int, int, str | None]]:
    """PreFilter: type -> (count, per-device percent, strategy to apply on the node)."""
    out: dict[str, tuple[int, int, str | None]] = {}
    has = {name: name in pod.requests and pod.requests[name] != 0 for name in DEVICE_RESOURCES}
    if has[GPU_WHOLE] and (has[GPU_PERCENT] or has[GPU_CORE] or has[GPU_RATIO]):
        raise Refusal("InvalidDeviceRequest", f"{GPU_WHOLE} cannot be combined with koordinator.sh GPU resources",
                      "PreFilter")
    if has[GPU_PERCENT] and (has[GPU_CORE] or has[GPU_RATIO]):
        raise Refusal("InvalidDeviceRequest", f"{GPU_PERCENT} cannot be combined with {GPU_CORE} / {GPU_RATIO}",
                      "PreFilter")
    if has[GPU_WHOLE]:
        out["gpu"] = (_integer(pod, GPU_WHOLE), FULL, None)
    elif has[GPU_PERCENT]:
        out["gpu"] = (*_percent(GPU_PERCENT, _integer(pod, GPU_PERCENT)), None)
    elif has[GPU_CORE] or has[GPU_RATIO]:
        core = _integer(pod, GPU_CORE) if has[GPU_CORE] else None
        ratio = _integer(pod, GPU_RATIO) if has[GPU_RATIO] else None
        if core is None or ratio is None or core != ratio:
            raise Refusal("InvalidDeviceRequest",
                          f"{GPU_CORE} and {GPU_RATIO} must be requested together and equal", "PreFilter")
        out["gpu"] = (*_percent(GPU_RATIO, ratio), None)
    for dtype, name in PERCENT_RESOURCES.items():
        if not has[name]:
            continue
        q = _integer(pod, name)
        hint = hints.get(dtype, ann.DeviceHint())
        if q > FULL and q % FULL == 0:
            out[dtype] = (q // FULL, FULL, None)
        elif hint.allocate_strategy == "RequestsAsCount":
            out[dtype] = (q, FULL if hint.exclusive == "DeviceLevel" else 1, None)
        elif hint.allocate_strategy == "ApplyForAll":
            out[dtype] = (0, min(q, FULL), "ApplyForAll")
        else:
            out[dtype] = (*_percent(name, q), None)
    return out


def on_node(node: Node, parsed: dict[str, tuple[int, int, str | None]],
            hints: dict[str, ann.DeviceHint]) -> dict[str, DeviceRequest]:
    """Filter: the requests against this node's devices."""
    out = {}
    for dtype, (count, per, strategy) in parsed.items():
        hint = hints.get(dtype, ann.DeviceHint())
        of_type = [d for d in node.devices if d.type == dtype]
        if not of_type:
            raise Refusal("InsufficientDevices", f"Insufficient {dtype} devices", "Filter")
        if strategy == "ApplyForAll":
            count = sum(1 for d in of_type if selectors.matches(hint.selector, d.labels))
            if count == 0:
                raise Refusal("InsufficientDevices", f"Insufficient {dtype} devices", "Filter")
        if hint.vf_selector is not None and not any(d.vf_groups for d in of_type):
            raise Refusal("InsufficientVirtualFunctions", f"Insufficient {dtype} VirtualFunctions", "Filter")
        out[dtype] = DeviceRequest(dtype, count, per, hint)
    return out
