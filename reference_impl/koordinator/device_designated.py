"""A designated device allocation: the devices a pod already carries in its
`device-allocated` annotation (a rescheduled pod). Read for every pod in
PreFilter; honoured as the pod's devices only when its scheduling hint names
DeviceShare, while the virtual functions it names bind the pod's VFs on those
devices either way (upstream v1.8.0 `deviceshare` utils.go `preparePod`,
`constructDesignatedVF`; plugin.go `PreFilter`, `Filter`, `allocate`;
device_cache.go `calcFreeWithPreemptible`; device_allocator.go `allocateVF`;
topology_hint.go `generateDesignatedHints`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from .. import quantity
from ..numa import bitmask
from ..refusal import Refusal
from . import designated
from .device_allocation import Usage
from .devices import FULL, Device
from .hints import Hint
from .node import Node

DEVICE_ALLOCATED = "scheduling.koordinator.sh/device-allocated"
PLUGIN = "DeviceShare"
# The score of the one hint a designated allocation proposes (upstream's default NUMA score).
DESIGNATED_HINT_SCORE = 500
INT32 = 2**31
GPU_CORE = "koordinator.sh/gpu-core"
GPU_RATIO = "koordinator.sh/gpu-memory-ratio"
GPU_MEMORY = "koordinator.sh/gpu-memory"
PERCENT_OF = {"rdma": "koordinator.sh/rdma", "fpga": "koordinator.sh/fpga"}


@dataclass(frozen=True)
class DesignatedDevice:
    minor: int
    resources: Mapping[str, int]       # resource name -> amount (percent or bytes)
    vfs: frozenset[str] = field(default=frozenset())


@dataclass(frozen=True)
class Designation:
    by_type: Mapping[str, tuple[DesignatedDevice, ...]]
    handed_over: bool                  # the scheduling hint names DeviceShare

    def vfs_of(self, dtype: str, minor: int) -> frozenset[str] | None:
        """The VFs the pod may take on one device; None: any."""
        for d in self.by_type.get(dtype, ()):
            if d.minor == minor and d.vfs:
                return d.vfs
        return None


def _bad(message: str) -> Refusal:
    return Refusal("InvalidDeviceAllocated", f"annotation {DEVICE_ALLOCATED}: {message}", "PreFilter")


def _integer(value, where: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value < high:
        raise _bad(f"{where} must be an integer")
    return value


def _entry(raw, where: str) -> DesignatedDevice:
    if not isinstance(raw, dict):
        # A null entry too: the scheduler would follow a nil pointer.
        raise _bad(f"{where} must be an object")
    minor = _integer(raw.get("minor", 0), where + ".minor", -INT32, INT32)
    resources: dict[str, int] = {}
    given = raw.get("resources")
    if given is not None:
        if not isinstance(given, dict):
            raise _bad(f"{where}.resources must be an object of quantities")
        for name, q in given.items():
            if not isinstance(q, (str, int, float)) or isinstance(q, bool):
                raise _bad(f"{where}.resources.{name}: not a quantity")
            try:
                resources[str(name)] = quantity.value(quantity.parse(q))
            except quantity.QuantityError as exc:
                raise _bad(f"{where}.resources.{name}: {exc}") from None
    if raw.get("id") is not None and not isinstance(raw["id"], str):
        raise _bad(f"{where}.id must be a string")
    vfs: set[str] = set()
    ext = raw.get("extension")
    if ext is not None:
        if not isinstance(ext, dict):
            raise _bad(f"{where}.extension must be an object")
        listed = ext.get("vfs")
        if listed is not None and not isinstance(listed, list):
            raise _bad(f"{where}.extension.vfs must be a list")
        for i, vf in enumerate(listed or []):
            at = f"{where}.extension.vfs[{i}]"
            if vf is None:
                continue
            if not isinstance(vf, dict):
                raise _bad(f"{at} must be an object")
            _integer(vf.get("minor", 0), at + ".minor", -(2**63), 2**63)
            bus = vf.get("busID", "")
            if bus is not None and not isinstance(bus, str):
                raise _bad(f"{at}.busID must be a string")
            vfs.add(bus or "")
    return DesignatedDevice(minor, resources, frozenset(vfs))


def read(annotations: Mapping[str, str], handed_over: bool) -> Designation | None:
    """The pod's designated devices, or None when it carries none (the
    annotation absent or JSON null)."""
    raw = annotations.get(DEVICE_ALLOCATED)
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except (TypeError, ValueError) as exc:
        raise _bad(f"not valid JSON: {exc}") from None
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _bad("must be a JSON object of device type to allocations")
    by_type: dict[str, tuple[DesignatedDevice, ...]] = {}
    for dtype, entries in value.items():
        if entries is not None and not isinstance(entries, list):
            raise _bad(f"{dtype} must be a list of allocations")
        by_type[dtype] = tuple(_entry(e, f"{dtype}[{i}]") for i, e in enumerate(entries or []))
    return Designation(by_type, handed_over)


def hands_over(annotations: Mapping[str, str]) -> bool:
    return designated.hands_over(annotations, PLUGIN)


def _caps(device: Device, given: Mapping[str, int]) -> tuple[int, int]:
    """The designated share of one device: percent, and bytes for a GPU. A GPU's
    percent is the smaller of its gpu-core and gpu-memory-ratio; of memory and
    memory ratio, the one not written is derived from the other over the GPU's
    memory (a resource not written at all is none of it)."""
    if device.type != "gpu":
        return given.get(PERCENT_OF.get(device.type, ""), 0), 0
    ratio = given.get(GPU_RATIO)
    memory = given.get(GPU_MEMORY)
    if memory is None:
        memory = (ratio or 0) * device.memory // FULL
    elif ratio is None:
        ratio = int(memory / device.memory * FULL) if device.memory else 0
    # Neither memory nor memory ratio written: the ratio, like the memory, is none.
    return min(given.get(GPU_CORE, 0), ratio or 0), memory


def missing_gpu(node: Node, designation: Designation | None) -> int | None:
    """A designated GPU minor the node has no healthy GPU for: the allocation
    then cannot size the GPU's memory and fails with an error."""
    if designation is None or not designation.handed_over or not any(d.type == "gpu" for d in node.devices):
        # A node without GPUs has nothing to size them by, and is not asked.
        return None
    healthy = {d.minor for d in node.devices if d.type == "gpu" and d.healthy}
    for d in designation.by_type.get("gpu", ()):
        if d.minor not in healthy:
            return d.minor
    return None


def restrict(node: Node, requested: set[str], designation: Designation | None) -> tuple[Node, Usage]:
    """The node as the allocation sees it, and what is in use there. Handed
    over, each designated type offers only its designated devices, each free
    up to its designated share; a requested type the designation does not name
    is unaffected. Designated VFs leave every other VF of their device taken."""
    if designation is None:
        return node, Usage(node)
    keep = node.devices
    if designation.handed_over:
        named = {t: {d.minor: d for d in ds} for t, ds in designation.by_type.items() if t in requested and ds}
        keep = [d for d in node.devices if d.type not in named or d.minor in named[d.type]]
        view = replace(node, devices=keep)
    else:
        named = {}
        view = node
    usage = Usage(view)
    for d in keep:
        entry = named.get(d.type, {}).get(d.minor)
        if entry is not None:
            percent, memory = _caps(d, entry.resources)
            free = min(usage.free(d), percent)
            usage.used[(d.type, d.minor)] = d.capacity - free
            if d.type == "gpu":
                usage.memory[(d.type, d.minor)] = d.memory_capacity - min(usage.free_memory(d), memory)
        allowed = designation.vfs_of(d.type, d.minor)
        if allowed is not None:
            usage.vfs.update(vf.bus_id for g in d.vf_groups for vf in g.vfs if vf.bus_id not in allowed)
    return view, usage


def hints(node: Node, designation: Designation) -> dict[str, list[Hint]]:
    """One preferred hint per designated type over the NUMA nodes of all the
    designated devices; a designated device the node has not placed on a NUMA
    node (or does not have) makes the hints fail. Every node has its Device CR,
    so a node without devices answers so too."""
    numa_of = {(d.type, d.minor): d.numa for d in node.devices if d.numa is not None}
    ids: set[int] = set()
    for dtype, entries in designation.by_type.items():
        for e in entries:
            if (dtype, e.minor) not in numa_of:
                raise Refusal("DesignatedDeviceWithoutNUMA", "Designated Allocation Lack NUMA Node ID", "Filter")
            ids.add(numa_of[(dtype, e.minor)])
    mask = bitmask.from_bits(sorted(ids))
    return {t: [Hint(mask, True, DESIGNATED_HINT_SCORE)] for t in designation.by_type}
