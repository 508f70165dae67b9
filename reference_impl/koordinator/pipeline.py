"""One pod on one node: PreFilter, Filter and the allocation Reserve makes, with
the topology manager's merge between NodeNUMAResource and DeviceShare."""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import cpuset
from ..numa import bitmask
from ..refusal import Refusal
from . import amplification, device_designated, deviceshare, numa_resources
from . import policy as policy_mod
from .args import Args
from .device_allocation import Allocated
from .device_requests import on_node, parse_requests
from .hints import Hint
from .merge import merge, refusal_reason
from .node import Node
from .pod import Pod
from .status_codes import Origin, status_code


@dataclass
class Decision:
    fits: bool = True
    reason: str | None = None
    message: str | None = None
    stage: str | None = None
    code: str | None = None
    resolution: policy_mod.Resolution = field(default_factory=policy_mod.Resolution)
    statuses: dict[int, str] = field(default_factory=dict)
    hints: dict[str, list[Hint]] = field(default_factory=dict)
    hint: Hint | None = None
    numa: dict[int, dict[str, int]] = field(default_factory=dict)
    cpuset: list[int] | None = None
    devices: dict[str, list[Allocated]] = field(default_factory=dict)

    def to_json(self) -> dict:
        r = self.resolution
        return {
            "fits": self.fits,
            "reason": self.reason,
            "message": self.message,
            "stage": self.stage,
            "code": self.code,
            "policy": {
                "numaTopologyPolicy": None if r.numa_policy is None else r.policy,
                "singleNUMANodeExclusive": r.exclusive,
                "numaAllocateStrategy": r.strategy,
                "distributeEvenly": r.distribute_evenly,
                "cpuBindPolicy": r.bind_policy,
                "cpuBindRequired": r.bind_required,
                "cpuExclusivePolicy": r.cpu_exclusive,
            },
            "numaNodeStatus": {str(k): v for k, v in sorted(self.statuses.items())},
            "hints": {k: [h.to_json() for h in v] for k, v in self.hints.items()},
            "hint": None if self.hint is None else self.hint.to_json(),
            "cpuset": self.cpuset,
            "cpusetString": None if self.cpuset is None else cpuset.render(self.cpuset),
            "numaResources": {str(n): dict(res) for n, res in sorted(self.numa.items())},
            "devices": {t: [a.to_json() for a in items] for t, items in self.devices.items()},
        }


def _has_requests(pod: Pod) -> bool:
    return any(v != 0 for v in pod.requests.values())


def decide(node: Node, pod: Pod, args: Args) -> Decision:
    """Where a refusal happens follows upstream: annotations in PreFilter; node
    checks, DeviceShare's own fit and the Restricted / SingleNUMANode admit in
    Filter; the BestEffort admit and unconstrained allocations in Reserve."""
    d = Decision()
    d.statuses = node.numa_status()
    res = d.resolution
    try:
        # The SchedulingHint plugin decodes the pod's hint before any PreFilter.
        handed = device_designated.hands_over(pod.annotations)
        policy_mod.pre_filter(pod, args, res, devices=False)
        try:
            policy_mod.pre_filter_devices(pod, res)
            parsed = parse_requests(pod, res.device_hints)
        except Refusal as exc:
            if exc.reason != "InvalidDeviceRequest":
                # DeviceShare checks the device requests, then reads a designated
                # allocation, then its other annotations.
                device_designated.read(pod.annotations, handed)
            raise
        # Read for every pod, requests or not.
        designation = device_designated.read(pod.annotations, handed)
    except Refusal as exc:
        return _refused(d, exc, "PreFilter", Origin.PLUGIN)
    if not _has_requests(pod):
        # PreFilter skips a pod that requests nothing; nothing on the node can refuse it.
        try:
            policy_mod.filter_policies(node, pod, args, res)
        except Refusal:
            pass
        return d
    stage = "Filter"
    origin = Origin.PLUGIN
    try:
        # NodeNUMAResource's Filter runs before DeviceShare's (the default
        # profile's order): its policy and CPU checks, the required binding under
        # None, the Restricted / SingleNUMANode admit; then DeviceShare's own fit.
        try:
            policy_mod.filter_policies(node, pod, args, res, cpu_topology_first=True)
        except Refusal as exc:
            if exc.reason in ("InvalidCPUTopology", "CPUBindPolicyConflict"):
                # Upstream checks the amplified CPU before these two.
                amplification.check(node, pod, res)
            raise
        if not (res.request_bind and pod.milli_cpu() % 1000):
            # After a node-forced binding's integer check, before the rest.
            amplification.check(node, pod, res)
        policy_mod.check_cpu_request(node, pod, res)
        # From here on NUMA totals and NUMA usage are counted amplified.
        node = amplification.numa_view(node)
        affinity: int | None = None
        if res.policy == "None" and res.request_bind and res.bind_required:
            numa_resources.allocate(node, pod, res, None)
        if res.policy in ("None", "BestEffort"):
            if parsed:
                _check_designated_gpus(node, designation)
            origin = Origin.DEVICE_PREPARE
            requests = on_node(node, parsed, res.device_hints)
            origin = Origin.PLUGIN
            if requests:
                # DeviceShare's Filter: the devices must fit somewhere on the node.
                deviceshare.allocate(node, requests, res, args, None, designation)
            if res.policy == "BestEffort":
                # The BestEffort admit (and its NUMA check) runs in Reserve.
                stage = "Reserve"
        if res.policy != "None" and not node.has_numa_topology():
            raise Refusal("MissingNUMAResources", "node(s) missing NUMA resources")
        shortage: Refusal | None = None
        # A designation handed over gives DeviceShare's hints without a search
        # (so without its shortage check) for a pod with device requests.
        handed_hints = (bool(parsed) and designation is not None and designation.handed_over
                        and not args.disable_device_numa_alignment)
        if res.policy not in ("None", "BestEffort"):
            # The hints and the merge are the Topology Manager's admit.
            origin = Origin.MERGE
            try:
                requests = on_node(node, parsed, res.device_hints)
            except Refusal as exc:
                if (any(dev.numa is not None for dev in node.devices) and not args.disable_device_numa_alignment
                        and not handed_hints):
                    # DeviceShare's hints fail with the shortage: nothing is merged.
                    raise
                # DeviceShare has no NUMA topology and proposes no hints: the merge
                # runs on NodeNUMAResource's, and the shortage shows when the
                # devices are allocated on the merged hint (upstream deviceshare
                # topology_hint.go generateTopologyHints, Allocate).
                shortage, requests = exc, {}
        if res.policy == "None":
            stage = "Reserve"
            if res.distribute_evenly and numa_resources.pod_numa_requests(node, pod):
                origin = Origin.MERGE
                own = numa_resources.hints(node, pod, res, args)
                d.hints = dict(own)
                d.hint = merge("BestEffort", node.numa_ids, [own], seams=node.seams).hint
                affinity = d.hint.affinity
        else:
            origin = Origin.MERGE
            numa_hints = numa_resources.hints(node, pod, res, args)
            if handed_hints:
                device_hints = device_designated.hints(node, designation)
            else:
                device_hints = deviceshare.hints(node, requests, res, args, designation)
            providers = [numa_hints, device_hints]
            d.hints = {**(numa_hints or {}), **(device_hints or {})}
            outcome = merge(res.policy, node.numa_ids, providers, res.exclusive, d.statuses, node.seams)
            d.hint = outcome.hint
            if not outcome.admit:
                reason = refusal_reason(outcome, res.policy, node.numa_ids, providers, res.exclusive, d.statuses,
                                        node.seams)
                raise Refusal(reason, "; ".join(outcome.reasons))
            affinity = outcome.hint.affinity
        # Past the merge each provider's Allocate answers with its own code.
        origin = Origin.PLUGIN
        allocation = numa_resources.allocate(node, pod, res, affinity)
        if res.policy not in ("None", "BestEffort") and args.disable_device_numa_alignment:
            # Without alignment DeviceShare takes no part in the Restricted /
            # SingleNUMANode admit; its Filter then sees the admitted hint and
            # passes, so its allocation happens in Reserve (upstream deviceshare
            # topology_hint.go Allocate, plugin.go Filter).
            stage = "Reserve"
        if parsed and res.policy not in ("None", "BestEffort"):
            # DeviceShare's Allocate on the admitted hint sizes the designated GPUs first.
            _check_designated_gpus(node, designation)
        if shortage is not None:
            # DeviceShare's Allocate on the merged hint meets its own node check.
            origin = Origin.DEVICE_PREPARE
            raise shortage
        d.numa, d.cpuset = allocation.numa, allocation.cpuset
        if requests:
            # Without alignment DeviceShare's Allocate ignores the NUMA decision altogether.
            device_affinity = None if args.disable_device_numa_alignment else affinity
            d.devices = deviceshare.allocate(node, requests, res, args, device_affinity, designation)
        return d
    except Refusal as exc:
        return _refused(d, exc, stage, origin)


def _check_designated_gpus(node: Node, designation: device_designated.Designation | None) -> None:
    minor = device_designated.missing_gpu(node, designation)
    if minor is not None:
        raise Refusal("MissingDesignatedGPU",
                      f"fillGPUTotalMem failed: no healthy gpu device with minor {minor} of allocation", "Filter")


def _refused(d: Decision, exc: Refusal, stage: str, origin: Origin) -> Decision:
    d.fits, d.reason, d.message, d.stage = False, exc.reason, exc.message, stage
    d.code = status_code(exc.reason, origin)
    d.numa, d.cpuset, d.devices = {}, None, {}
    return d


def mask_key(mask: int) -> str:
    return ",".join(str(i) for i in bitmask.bits(mask))
