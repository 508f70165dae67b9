"""Resolution of the pod's effective NUMA topology policy, SingleNUMANodeExclusive,
NUMA allocate strategy and CPU bind / exclusive policies, with the precedence
pod annotation > node label > kubelet / plugin default."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..refusal import Refusal
from . import annotations as ann
from .args import Args
from .node import Node
from .pod import Pod

_KUBELET_POLICIES = {"BestEffort": "BestEffort", "Restricted": "Restricted", "SingleNUMANodePodLevel": "SingleNUMANode"}


@dataclass
class Resolution:
    numa_policy: str | None = None            # "" is None
    policy_source: str | None = None
    exclusive: str | None = None
    strategy: str | None = None
    strategy_source: str | None = None
    distribute_evenly: bool | None = None
    bind_policy: str | None = None
    bind_required: bool | None = None
    request_bind: bool | None = None
    cpu_exclusive: str | None = None
    device_hints: dict = field(default_factory=dict)
    joint: ann.JointAllocate | None = None
    partition_spec: ann.GPUPartitionSpec | None = None
    parsed_devices: bool = False
    spec: ann.NUMATopologySpec | None = None

    @property
    def policy(self) -> str:
        return self.numa_policy or "None"

    @property
    def cpu_strategy(self) -> str:
        """The ordering the CPU accumulator uses; the even spread orders as LeastAllocated."""
        return "MostAllocated" if self.strategy == "MostAllocated" else "LeastAllocated"

    def to_json(self) -> dict:
        return {
            "numaTopologyPolicy": None if self.numa_policy is None else self.policy,
            "policySource": self.policy_source,
            "singleNUMANodeExclusive": self.exclusive,
            "numaAllocateStrategy": self.strategy,
            "strategySource": self.strategy_source,
            "distributeEvenly": self.distribute_evenly,
            "cpuBindPolicy": self.bind_policy,
            "cpuBindRequired": self.bind_required,
            "requestCPUBind": self.request_bind,
            "cpuExclusivePolicy": self.cpu_exclusive,
            "deviceHints": {t: h.to_json() for t, h in self.device_hints.items()} if self.parsed_devices else None,
            "jointAllocate": self.joint.to_json() if self.joint else None,
            "gpuPartitionSpec": self.partition_spec.to_json() if self.partition_spec else None,
        }


_PRIORITY_CLASSES = ("koord-prod", "koord-mid", "koord-batch", "koord-free")
_PRIORITY_RANGES = (("koord-prod", 9000, 9999), ("koord-mid", 7000, 7999),
                    ("koord-batch", 5000, 5999), ("koord-free", 3000, 3999))


def _priority_class(pod: Pod) -> str | None:
    """The pod's Koordinator priority class: the label when present (an unknown
    name is no class), else the class whose range holds spec.priority."""
    label = pod.labels.get(ann.LABEL_PRIORITY_CLASS)
    if label is not None:
        return label if label in _PRIORITY_CLASSES else None
    if pod.priority is None:
        return None
    for name, low, high in _PRIORITY_RANGES:
        if low <= pod.priority <= high:
            return name
    return None


def _cpu_binding_allowed(pod: Pod) -> bool:
    if pod.labels.get(ann.LABEL_QOS) not in ("LSE", "LSR"):
        return False
    # Without a class, LSE / LSR pods count as koord-prod.
    return (_priority_class(pod) or "koord-prod") == "koord-prod"


def pre_filter(pod: Pod, args: Args, res: Resolution, *, devices: bool = True) -> None:
    """What PreFilter decides from the pod alone (annotations); `devices=False`
    stops after NodeNUMAResource's part."""
    # NodeNUMAResource's PreFilter first (resource-spec, numa-topology-spec, the
    # binding policy), then DeviceShare's (the device annotations), as the
    # default profile orders them.
    rspec = ann.resource_spec(pod.annotations)
    spec = ann.numa_topology_spec(pod.annotations)
    res.spec = spec
    res.cpu_exclusive = rspec.exclusive or "None"
    if _cpu_binding_allowed(pod):
        if rspec.required:
            res.bind_policy = args.default_bind_policy if rspec.required == "Default" else rspec.required
            res.bind_required = True
        else:
            pref = rspec.preferred
            res.bind_policy = args.default_bind_policy if pref in ("", "Default") else pref
            res.bind_required = False
    else:
        res.bind_required = False
    res.request_bind = res.bind_policy in ("FullPCPUs", "SpreadByPCPUs") and pod.milli_cpu() > 0
    if res.bind_policy in ("FullPCPUs", "SpreadByPCPUs") and pod.milli_cpu() % 1000:
        # The pod's own binding policy is checked in PreFilter (upstream
        # nodenumaresource plugin.go PreFilter); a node-forced one in Filter.
        raise Refusal("InvalidRequestedCPUs", "the requested CPUs must be integer", "PreFilter")
    if not devices:
        return
    pre_filter_devices(pod, res)


def pre_filter_devices(pod: Pod, res: Resolution) -> None:
    """DeviceShare's part of PreFilter: its device annotations."""
    res.device_hints = ann.device_hints(pod.annotations)
    res.joint = ann.joint_allocate(pod.annotations)
    res.partition_spec = ann.gpu_partition_spec(pod.annotations)
    res.parsed_devices = True


def filter_policies(node: Node, pod: Pod, args: Args, res: Resolution, *, cpu_topology_first: bool = False) -> None:
    """What Filter decides once the node is known. `cpu_topology_first` is the
    filter's order: a pod that binds CPUs on a node without a valid CPU topology
    is refused InvalidCPUTopology before its bind policy is compared with the
    node's (upstream nodenumaresource plugin.go Filter checks the topology first);
    resolve leaves it off, as it never reports InvalidCPUTopology."""
    spec = res.spec or ann.NUMATopologySpec()
    label_policy = ann.node_label(node.labels, ann.LABEL_NUMA_TOPOLOGY_POLICY, ann.NUMA_POLICIES)
    label_strategy = ann.node_label(node.labels, ann.LABEL_NUMA_ALLOCATE_STRATEGY, ann.STRATEGIES)
    label_bind = ann.node_label(node.labels, ann.LABEL_CPU_BIND_POLICY, ann.NODE_BIND_POLICIES)
    ann.node_label(node.labels, ann.LABEL_GPU_PARTITION_POLICY, ann.NODE_PARTITION_POLICIES)
    ann.node_label(node.device_labels, ann.LABEL_GPU_PARTITION_POLICY, ann.NODE_PARTITION_POLICIES)

    # Strategy first: it never conflicts, a pod value simply overrides.
    if spec.strategy:
        res.strategy, res.strategy_source = spec.strategy, "pod"
    elif label_strategy:
        res.strategy, res.strategy_source = label_strategy, "node-label"
    else:
        res.strategy, res.strategy_source = args.numa_allocate_strategy, "args"

    if label_policy == "None":
        label_policy = ""
    kubelet_policy = _KUBELET_POLICIES.get(node.kubelet_topology_policy or "", "")
    node_policy, node_source = (label_policy, "node-label") if label_policy else (kubelet_policy, "kubelet")
    if spec.policy and node_policy and spec.policy != node_policy:
        res.numa_policy = spec.policy
        res.policy_source = "pod"
        raise Refusal("ErrNotMatchNUMATopology", "node(s) NUMA Topology policy not match", "Filter")
    if spec.policy:
        res.numa_policy, res.policy_source = spec.policy, "pod"
    elif node_policy:
        res.numa_policy, res.policy_source = node_policy, node_source
    else:
        res.numa_policy, res.policy_source = "", "default"
    if spec.exclusive:
        res.exclusive = spec.exclusive
    elif spec.policy:
        res.exclusive = "Required"
    else:
        res.exclusive = None
    res.distribute_evenly = (res.strategy == "DistributeEvenly" and node.has_numa_topology()
                             and res.policy != "SingleNUMANode")

    # The node's bind policy turns every pod with a CPU request into a required binder.
    node_bind = node_bind_policy(node, label_bind)
    if node_bind in ("FullPCPUsOnly", "SpreadByPCPUs") and pod.milli_cpu() > 0:
        required = "FullPCPUs" if node_bind == "FullPCPUsOnly" else "SpreadByPCPUs"
        # Only a pod's own CPU-set policy can conflict: a required ConstrainedBurst
        # (or Default resolving to no CPU set) is no CPU-set request, so the
        # node's policy simply applies (upstream keeps the pod's required policy
        # only when it binds a CPU set: nodenumaresource plugin.go PreFilter).
        if res.bind_required and res.request_bind and res.bind_policy != required:
            if cpu_topology_first and (node.cpu_topology is None or not node.cpu_topology.is_valid()):
                raise Refusal("InvalidCPUTopology", "node(s) invalid CPU Topology", "Filter")
            raise Refusal("CPUBindPolicyConflict",
                          "node(s) cpu bind policy conflicts with pod's required cpu bind policy", "Filter")
        res.bind_policy, res.bind_required, res.request_bind = required, True, True


def node_bind_policy(node: Node, label_bind: str) -> str:
    """The node's CPU bind policy: its label, or FullPCPUsOnly for a static
    kubelet CPU manager with full-pcpus-only."""
    kcm = node.kubelet_cpu_manager or {}
    if label_bind == "FullPCPUsOnly" or (kcm.get("policy") == "static"
                                         and (kcm.get("options") or {}).get("full-pcpus-only") == "true"):
        return "FullPCPUsOnly"
    return label_bind


def check_cpu_request(node: Node, pod: Pod, res: Resolution) -> None:
    if not res.request_bind:
        return
    if pod.milli_cpu() % 1000 != 0:
        raise Refusal("InvalidRequestedCPUs", "the requested CPUs must be integer", "Filter")
    topo = node.cpu_topology
    if topo is None or not topo.is_valid():
        raise Refusal("InvalidCPUTopology", "node(s) invalid CPU Topology", "Filter")
    if res.bind_required and res.bind_policy == "FullPCPUs" and (pod.milli_cpu() // 1000) % topo.cpus_per_core() != 0:
        raise Refusal("SMTAlignmentError", "node(s) requested cpus not multiple cpus per core", "Filter")


def resolve(node: Node, pod: Pod, args: Args) -> Resolution:
    res = Resolution()
    pre_filter(pod, args, res)
    filter_policies(node, pod, args, res)
    return res
