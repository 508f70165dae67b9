"""Devices of a node (the Device CR) and what placed pods use of them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .. import quantity
from ..errors import InvalidInput

DEVICE_TYPES = ("gpu", "rdma", "fpga")
FULL = 100   # a device's capacity in percent
# A GPU's memory when the case does not give one: koordlet always reports a
# size, and cases about anything else should not have to write it.
DEFAULT_GPU_MEMORY = 16 * 2**30


@dataclass(frozen=True)
class VF:
    minor: int | None
    bus_id: str


@dataclass(frozen=True)
class VFGroup:
    labels: Mapping[str, str]
    vfs: tuple[VF, ...]


@dataclass(frozen=True)
class Device:
    type: str
    minor: int
    numa: int | None
    pcie: str | None
    bus_id: str | None
    healthy: bool
    labels: Mapping[str, str]
    vf_groups: tuple[VFGroup, ...] = field(default=())
    # GPU memory in bytes (the Device CR's koordinator.sh/gpu-memory); 0 for other types.
    memory: int = 0

    @property
    def capacity(self) -> int:
        return FULL if self.healthy else 0

    @property
    def memory_capacity(self) -> int:
        return self.memory if self.healthy else 0

    def memory_of(self, percent: int) -> int:
        """Bytes of this GPU's memory a share of `percent` stands for, rounded down."""
        return percent * self.memory // FULL


def parse_devices(spec, where: str) -> list[Device]:
    if spec is None:
        return []
    if not isinstance(spec, list):
        raise InvalidInput(where, "expected a list of devices")
    out: list[Device] = []
    seen = set()
    for i, d in enumerate(spec):
        w = f"{where}/{i}"
        if not isinstance(d, Mapping):
            raise InvalidInput(w, "expected a mapping")
        dtype = d.get("type")
        if dtype not in DEVICE_TYPES:
            raise InvalidInput(w + "/type", f"unknown device type {dtype!r}")
        minor = d.get("minor")
        if not isinstance(minor, int) or isinstance(minor, bool) or minor < 0:
            raise InvalidInput(w + "/minor", "expected a non-negative integer")
        if (dtype, minor) in seen:
            raise InvalidInput(w + "/minor", f"duplicate {dtype} minor {minor}")
        seen.add((dtype, minor))
        numa = d.get("numaNode")
        if numa is not None and (not isinstance(numa, int) or isinstance(numa, bool)):
            raise InvalidInput(w + "/numaNode", "expected an integer or null")
        if numa is not None and numa < 0:
            numa = None
        groups = []
        for j, g in enumerate(d.get("vfGroups") or []):
            if not isinstance(g, Mapping):
                raise InvalidInput(f"{w}/vfGroups/{j}", "expected a mapping")
            vfs = tuple(VF(v.get("minor"), str(v["busID"])) for v in (g.get("vfs") or []))
            groups.append(VFGroup(dict(g.get("labels") or {}), vfs))
        pcie = d.get("pcie")
        memory = 0
        if dtype == "gpu":
            memory = DEFAULT_GPU_MEMORY
            if d.get("memory") is not None:
                memory = quantity.value(quantity.parse_input(d["memory"], w + "/memory"))
        elif d.get("memory") is not None:
            raise InvalidInput(w + "/memory", "only a GPU has memory")
        out.append(Device(
            type=dtype, minor=minor, numa=numa,
            pcie=None if pcie is None else str(pcie),
            bus_id=d.get("busID"),
            healthy=d.get("health", True) is not False,
            labels=dict(d.get("labels") or {}),
            vf_groups=tuple(groups),
            memory=memory,
        ))
    return out


def parse_placed_devices(spec, where: str) -> dict[str, list[dict]]:
    """Placed device allocations: type -> [{minor, percent, vf}]."""
    if spec is None:
        return {}
    if not isinstance(spec, Mapping):
        raise InvalidInput(where, "expected a mapping of device type to allocations")
    out: dict[str, list[dict]] = {}
    for dtype, allocations in spec.items():
        if dtype not in DEVICE_TYPES:
            raise InvalidInput(f"{where}/{dtype}", f"unknown device type {dtype!r}")
        if not isinstance(allocations, list):
            raise InvalidInput(f"{where}/{dtype}", "expected a list")
        items = []
        for a in allocations:
            if isinstance(a, int) and not isinstance(a, bool):
                items.append({"minor": a, "percent": FULL, "vf": None})
            elif isinstance(a, Mapping) and isinstance(a.get("minor"), int):
                items.append({"minor": a["minor"], "percent": int(a.get("percent", FULL)), "vf": a.get("vf")})
            else:
                raise InvalidInput(f"{where}/{dtype}", f"bad device allocation {a!r}")
        out[dtype] = items
    return out
