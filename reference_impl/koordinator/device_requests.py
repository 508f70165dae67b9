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
GPU_MEMORY = "koordinator.sh/gpu-memory"
PERCENT_RESOURCES = {"rdma": "koordinator.sh/rdma", "fpga": "koordinator.sh/fpga"}
DEVICE_RESOURCES = (GPU_WHOLE, GPU_PERCENT, GPU_CORE, GPU_RATIO, GPU_MEMORY, *PERCENT_RESOURCES.values())


@dataclass(frozen=True)
class DeviceRequest:
    type: str
    count: int
    per_device: int        # percent of one device (for a GPU share sized in bytes, its gpu-core, else 0)
    hint: ann.DeviceHint
    memory: int | None = None   # a GPU share sized in bytes of memory (koordinator.sh/gpu-memory)

    @property
    def shared(self) -> bool:
        return self.memory is not None or self.per_device < FULL

    @property
    def ratio(self) -> int:
        """The gpu-memory-ratio (or rdma / fpga percent) the request names; a share
        sized in bytes names none, so it adds nothing to a score."""
        return 0 if self.memory is not None else self.per_device


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


def parse_requests(pod: Pod, hints: dict[str, ann.DeviceHint]) -> dict[str, tuple[int, int, str | None, int | None]]:
    """PreFilter: type -> (count, per-device percent, strategy to apply on the node,
    GPU memory in bytes for a share sized so)."""
    out: dict[str, tuple[int, int, str | None, int | None]] = {}
    has = {name: name in pod.requests and pod.requests[name] != 0 for name in DEVICE_RESOURCES}
    if has[GPU_WHOLE] and (has[GPU_PERCENT] or has[GPU_CORE] or has[GPU_RATIO] or has[GPU_MEMORY]):
        raise Refusal("InvalidDeviceRequest", f"{GPU_WHOLE} cannot be combined with koordinator.sh GPU resources",
                      "PreFilter")
    if has[GPU_PERCENT] and (has[GPU_CORE] or has[GPU_RATIO] or has[GPU_MEMORY]):
        raise Refusal("InvalidDeviceRequest",
                      f"{GPU_PERCENT} cannot be combined with {GPU_CORE} / {GPU_RATIO} / {GPU_MEMORY}", "PreFilter")
    if has[GPU_MEMORY] and has[GPU_RATIO]:
        # Two sizes of the same memory: upstream accepts no such combination,
        # whether or not they agree on this node's GPUs.
        raise Refusal("InvalidDeviceRequest", f"{GPU_MEMORY} cannot be combined with {GPU_RATIO}", "PreFilter")
    if has[GPU_WHOLE]:
        out["gpu"] = (_integer(pod, GPU_WHOLE), FULL, None, None)
    elif has[GPU_PERCENT]:
        out["gpu"] = (*_percent(GPU_PERCENT, _integer(pod, GPU_PERCENT)), None, None)
    elif has[GPU_MEMORY]:
        # One GPU with this many bytes free (and this much core, when asked).
        core = _integer(pod, GPU_CORE) if has[GPU_CORE] else 0
        _percent(GPU_CORE, core)
        out["gpu"] = (1, core, None, _integer(pod, GPU_MEMORY))
    elif has[GPU_CORE] or has[GPU_RATIO]:
        core = _integer(pod, GPU_CORE) if has[GPU_CORE] else None
        ratio = _integer(pod, GPU_RATIO) if has[GPU_RATIO] else None
        if core is None or ratio is None or core != ratio:
            raise Refusal("InvalidDeviceRequest",
                          f"{GPU_CORE} and {GPU_RATIO} must be requested together and equal", "PreFilter")
        out["gpu"] = (*_percent(GPU_RATIO, ratio), None, None)
    for dtype, name in PERCENT_RESOURCES.items():
        if not has[name]:
            continue
        q = _integer(pod, name)
        hint = hints.get(dtype, ann.DeviceHint())
        if q > FULL and q % FULL == 0:
            out[dtype] = (q // FULL, FULL, None, None)
        elif hint.allocate_strategy == "RequestsAsCount":
            out[dtype] = (q, FULL if hint.exclusive == "DeviceLevel" else 1, None, None)
        elif hint.allocate_strategy == "ApplyForAll":
            out[dtype] = (0, min(q, FULL), "ApplyForAll", None)
        else:
            out[dtype] = (*_percent(name, q), None, None)
    return out


def on_node(node: Node, parsed: dict[str, tuple[int, int, str | None, int | None]],
            hints: dict[str, ann.DeviceHint]) -> dict[str, DeviceRequest]:
    """Filter: the requests against this node's devices."""
    out = {}
    for dtype in node.seams.device_type_order(list(parsed)):
        count, per, strategy, memory = parsed[dtype]
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
        out[dtype] = DeviceRequest(dtype, count, per, hint, memory)
    return out
