"""DeviceShare allocation on a node within a NUMA affinity: candidate devices
(selector, exclusivity, VFs), topology-scoped choice, the default order by device
score, joint allocation and GPU partitions."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..refusal import Refusal
from . import annotations as ann
from . import partitions, scoring, selectors
from .args import Args
from .device_requests import DeviceRequest
from .devices import FULL, Device
from .node import Node
from .seams import SCOPE_LEVEL


@dataclass(frozen=True)
class Allocated:
    minor: int
    percent: int
    vf: str | None = None
    device: Device | None = None
    memory: int | None = None   # a GPU's share of memory in bytes

    def to_json(self) -> dict:
        out = {"minor": self.minor, "percent": self.percent}
        if self.memory is not None:
            out["gpuMemory"] = self.memory
        if self.vf is not None:
            out["vf"] = self.vf
        return out


class Usage:
    """What placed pods (and earlier types of this pod) hold."""

    def __init__(self, node: Node):
        self.used: dict[tuple[str, int], int] = {}
        self.memory: dict[tuple[str, int], int] = {}
        self.vfs: set[str] = set()
        by_key = {(d.type, d.minor): d for d in node.devices}
        for pod in node.pods:
            for dtype, items in pod.devices.items():
                for item in items:
                    key = (dtype, item["minor"])
                    self.used[key] = self.used.get(key, 0) + item["percent"]
                    if key in by_key:
                        # A placed share holds as much of the GPU's memory as its percent says.
                        self.memory[key] = self.memory.get(key, 0) + by_key[key].memory_of(item["percent"])
                    if item.get("vf"):
                        self.vfs.add(item["vf"])

    def of(self, device: Device) -> int:
        return self.used.get((device.type, device.minor), 0)

    def free(self, device: Device) -> int:
        return max(0, device.capacity - self.of(device))

    def free_memory(self, device: Device) -> int:
        return max(0, device.memory_capacity - self.memory.get((device.type, device.minor), 0))


def _in_affinity(device: Device, affinity: set[int] | None) -> bool:
    return affinity is None or device.numa is None or device.numa in affinity


def _free_vf(device: Device, selector, usage: Usage) -> str | None:
    for group in device.vf_groups:
        if not selectors.matches(selector, group.labels):
            continue
        for vf in sorted(group.vfs, key=lambda v: v.bus_id):
            if vf.bus_id not in usage.vfs:
                return vf.bus_id
    return None


def candidates(node: Node, request: DeviceRequest, affinity: set[int] | None, usage: Usage) -> list[Device]:
    hint = request.hint
    of_type = [d for d in node.devices if d.type == request.type and d.healthy]
    busy_pcie = {d.pcie for d in of_type if usage.of(d) > 0}
    out = []
    for d in of_type:
        if not _in_affinity(d, affinity) or not selectors.matches(hint.selector, d.labels):
            continue
        if usage.free(d) < request.per_device:
            continue
        if request.memory is not None and usage.free_memory(d) < request.memory:
            continue
        if hint.exclusive == "DeviceLevel" and usage.of(d) > 0:
            continue
        if hint.exclusive == "PCIeLevel" and d.pcie in busy_pcie:
            continue
        if hint.vf_selector is not None and _free_vf(d, hint.vf_selector, usage) is None:
            continue
        out.append(d)
    return sorted(out, key=lambda d: d.minor)


def _formula(args: Args):
    return scoring.most_allocated if args.device_scoring.type == "MostAllocated" else scoring.least_allocated


def device_score(args: Args, device: Device, usage: Usage, per_device: int) -> int:
    return _formula(args)(usage.of(device) + per_device, device.capacity)


def share_score(node: Node, args: Args, device: Device, usage: Usage, per_device: int) -> int:
    """A shared GPU's score where the topology walk picks one GPU for the share."""
    return _formula(args)(*node.seams.share_requested(usage.of(device), per_device, device.capacity))


@dataclass
class _Scope:
    level: int
    devices: list[Device]
    children: list[_Scope]


def _numa_scope_key(device: Device) -> int:
    # A device without a NUMA node is a NUMA scope of its own, visited before
    # the numbered ones (upstream allocator_gpu_helper.go GetGPUTopologyScope
    # keys the scopes by the Device CR's NUMA id, -1 for none, ascending).
    return -1 if device.numa is None else device.numa


def _pcie_scope_key(device: Device) -> str:
    # Likewise a device without a PCIe switch is a PCIe scope of its own inside
    # its NUMA scope, visited first (the empty switch id sorts lowest).
    return "" if device.pcie is None else device.pcie


def _tree(devices: list[Device], with_device_level: bool) -> _Scope:
    numa_scopes = []
    for n in sorted({_numa_scope_key(d) for d in devices}):
        in_numa = [d for d in devices if _numa_scope_key(d) == n]
        pcie_scopes = []
        for p in sorted({_pcie_scope_key(d) for d in in_numa}):
            in_pcie = [d for d in in_numa if _pcie_scope_key(d) == p]
            leaves = [_Scope(4, [d], []) for d in in_pcie] if with_device_level else []
            pcie_scopes.append(_Scope(3, in_pcie, leaves))
        numa_scopes.append(_Scope(2, in_numa, pcie_scopes))
    return _Scope(1, sorted(devices, key=lambda d: d.minor), numa_scopes)


def _by_scope(scope: _Scope, request: DeviceRequest, ok: set[int], usage: Usage, score,
              required_level: int, depth: int, not_empty: int):
    """The deepest scope that can hold the request, preferring scopes already in use."""
    if len(scope.devices) < request.count:
        return None
    depth += 1
    if any(usage.of(d) > 0 for d in scope.devices):
        not_empty += 1
    best = None
    for child in scope.children:
        if len(child.devices) < request.count:
            continue
        r = _by_scope(child, request, ok, usage, score, required_level, depth, not_empty)
        if r is None:
            continue
        if best is None or best[1] < r[1] or (best[1] == r[1] and best[2] < r[2]):
            best = r
        elif _one_share(request) and best[1] == r[1] and best[2] == r[2] and best[3] < r[3]:
            best = r
    if best is not None:
        return best
    if required_level > scope.level:
        return None
    fitting = [d for d in sorted(scope.devices, key=lambda d: d.minor) if d.minor in ok]
    if _one_share(request):
        if not fitting:
            return None
        top = max(fitting, key=lambda d: (score(d), -d.minor))
        return [top], depth, not_empty, score(top)
    if len(fitting) < request.count:
        return None
    return fitting[:request.count], depth, not_empty, 0


def _one_share(request: DeviceRequest) -> bool:
    """A share of a single device: the scope walk then picks the best-scored device."""
    return request.shared and request.count == 1


def _with_vfs(chosen: Iterable[Device], request: DeviceRequest, usage: Usage) -> list[Allocated]:
    out = []
    for d in chosen:
        vf = _free_vf(d, request.hint.vf_selector, usage) if request.hint.vf_selector is not None else None
        if vf is not None:
            usage.vfs.add(vf)
        usage.used[(d.type, d.minor)] = usage.of(d) + request.per_device
        memory = None
        percent = request.per_device
        if d.type == "gpu":
            # Every GPU allocation names its memory in bytes: a share sized in bytes
            # as asked, otherwise its percent of this GPU's memory (upstream
            # devicehandler_gpu.go fillGPUTotalMem).
            memory = d.memory_of(percent) if request.memory is None else request.memory
            if request.memory is not None and request.per_device == 0:
                # Without a gpu-core the share is known by its memory ratio, rounded down.
                percent = int(request.memory / d.memory * FULL) if d.memory else 0
            usage.memory[(d.type, d.minor)] = usage.memory.get((d.type, d.minor), 0) + memory
        out.append(Allocated(d.minor, percent, vf, d, memory))
    return out


def _insufficient(request: DeviceRequest) -> Refusal:
    """Too few devices that can be taken is a shortage of devices, also when
    the devices fall short only for want of a free VF matching the vfSelector:
    a NIC without such a VF is passed over like any other unfit device
    (upstream device_allocator.go defaultAllocateDevices). A shortage of VFs
    is named only when no device of the type carries a VF at all, which
    device_requests.on_node checks first."""
    return Refusal("InsufficientDevices", f"Insufficient {request.type} devices", "Filter")


def _partition_choice(node: Node, request: DeviceRequest, cands: list[Device], usage: Usage,
                      spec: ann.GPUPartitionSpec | None) -> list[Device] | None:
    """Partitions for a whole-GPU request; None when partitions do not apply."""
    if request.type != "gpu" or request.shared:
        return None
    raw = node.device_annotations.get(ann.GPU_PARTITIONS)
    if raw is not None:
        table = partitions.parse_table(raw)
        policy_label = node.device_labels.get(ann.LABEL_GPU_PARTITION_POLICY, "")
    else:
        table = partitions.hopper_table() if node.labels.get(ann.LABEL_GPU_MODEL) in partitions.HOPPER_MODELS else None
        policy_label = node.labels.get(ann.LABEL_GPU_PARTITION_POLICY, "")
    honor = spec is not None or policy_label == "Honor"
    if table is None and not honor:
        return None
    free = {d.minor for d in cands if usage.of(d) == 0}
    gpus = [d for d in node.devices if d.type == "gpu"]
    unavailable = {d.minor for d in gpus if usage.of(d) > 0 or d.minor not in {c.minor for c in cands}}
    try:
        minors = partitions.choose(table, request.count, spec.policy if spec else "BestEffort",
                                   spec.ring_bus_bandwidth if spec else None, free, unavailable,
                                   node.seams.partition_group_order)
    except Refusal:
        if honor:
            raise
        return None
    by_minor = {d.minor: d for d in cands}
    return [by_minor[m] for m in minors]


def allocate_type(node: Node, request: DeviceRequest, affinity: set[int] | None, usage: Usage, args: Args,
                  spec: ann.GPUPartitionSpec | None, prefer_pcie: set[str] | None = None) -> list[Allocated]:
    cands = candidates(node, request, affinity, usage)
    scope = request.hint.scope
    level = node.seams.scope_level(request.type, scope)
    # A level below the tree's deepest is met by no subtree, and nothing checks it
    # ahead of the partitions.
    device_never_met = level > SCOPE_LEVEL["Device"]
    if scope == "Device" and request.count > 1 and not device_never_met:
        raise Refusal("InsufficientTopologyScopedDevices",
                      f"Insufficient Topology Scoped {request.type} Devices: scope Device holds one device", "Filter")
    chosen = _partition_choice(node, request, cands, usage, spec)
    if chosen is None and (scope or (request.type == "gpu" and prefer_pcie is None)):
        in_reach = [d for d in node.devices if d.type == request.type and d.healthy
                    and _in_affinity(d, affinity)]
        # Every device has a place in the tree (see _numa_scope_key), so there is
        # always one to walk.
        tree = _tree(in_reach, scope == "Device")
        found = _by_scope(tree, request, {d.minor for d in cands}, usage,
                          lambda d: share_score(node, args, d, usage, request.ratio), level, 0, 0)
        if found is None:
            if scope:
                raise Refusal("InsufficientTopologyScopedDevices",
                              f"Insufficient Topology Scoped {request.type} Devices", "Filter")
            raise _insufficient(request)
        chosen = found[0]
    if chosen is None:
        prefer = prefer_pcie or set()
        ordered = sorted(cands, key=lambda d: (d.pcie not in prefer,
                                               -device_score(args, d, usage, request.ratio), d.minor))
        if prefer:
            ordered = _round_robin(ordered, prefer, lambda d: (-device_score(args, d, usage, request.ratio),
                                                              d.minor))
        if len(ordered) < request.count:
            raise _insufficient(request)
        chosen = ordered[:secondary_take(request.count, prefer)]
    return _with_vfs(chosen, request, usage)


def secondary_take(count: int, preferred_switches: set[str]) -> int:
    """How many devices a type takes at most: a joint allocation's secondary
    type takes up to one device per switch of the primary devices even when
    fewer were asked for (upstream device_allocator.go allocateDevices: the
    larger of the count and the number of preferred switches; fewer than the
    count is still a shortage). Its own function so that the rule can be
    reverted alone, as the fuzzing demonstration and its reach test do."""
    return max(count, len(preferred_switches))


def _round_robin(ordered: list[Device], prefer: set[str], rank) -> list[Device]:
    """Devices under the preferred PCIe switches first: the first device of
    every such switch, then the second of each, and so on; inside one round by
    `rank` (device score, then minor), not by switch. Then the other devices,
    in their order."""
    buckets: dict[str, list[Device]] = {}
    rest = []
    for d in ordered:
        if d.pcie in prefer:
            buckets.setdefault(d.pcie, []).append(d)
        else:
            rest.append(d)
    out = []
    depth = max((len(b) for b in buckets.values()), default=0)
    for i in range(depth):
        out.extend(sorted((b[i] for b in buckets.values() if i < len(b)), key=rank))
    return out + rest


def allocate_all(node: Node, requests: dict[str, DeviceRequest], affinity: set[int] | None, args: Args,
                 joint: ann.JointAllocate | None, spec: ann.GPUPartitionSpec | None,
                 usage: Usage | None = None) -> dict[str, list[Allocated]]:
    """usage: what is in use, when the caller has narrowed it (a designated allocation)."""
    usage = Usage(node) if usage is None else usage
    result: dict[str, list[Allocated]] = {}
    joint_types = []
    if joint is not None:
        joint_types = [t for t in joint.device_types if t in requests and requests[t].count > 0
                       and requests[t].hint.allocate_strategy != "ApplyForAll"]
    if len(joint_types) >= 2:
        primary = joint_types[0]
        # A primary type that cannot be had is refused as it would be without
        # joint allocation: upstream's own "Insufficient primary device" needs an
        # allocation that takes no device and reports no shortage, which none
        # of its allocators returns (device_allocator.go jointAllocate).
        result[primary] = allocate_type(node, requests[primary], affinity, usage, args, spec)
        pcies = {a.device.pcie for a in result[primary]}
        for t in joint_types[1:]:
            request = requests[t]
            if joint.scope == "SamePCIe":
                # One secondary device at least under every switch the primary devices use,
                # and none elsewhere.
                request = replace(request, count=max(request.count, len(pcies)))
            # GPUs are placed by their own topology walk, which takes no preferred
            # switches (upstream allocator_gpu.go Allocate passes none on).
            result[t] = allocate_type(node, request, affinity, usage, args, spec,
                                      prefer_pcie=None if t == "gpu" else pcies)
            if joint.scope == "SamePCIe" and {a.device.pcie for a in result[t]} != pcies:
                raise Refusal("JointAllocateViolation", "node(s) Device Joint-Allocate rules violation", "Filter")
    for t, request in requests.items():
        if t in result:
            continue
        result[t] = allocate_type(node, request, affinity, usage, args, spec)
    return {t: result[t] for t in requests}
