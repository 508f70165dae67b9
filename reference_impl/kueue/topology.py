"""The TAS snapshot of one ResourceFlavor: the domain tree built from node
labels and the free capacity of every leaf (spec "Node topology information"
and "Capacity calculation"; upstream `tas_topology_tree.go`, `tas_flavor.go`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .objects import HOSTNAME, AdmittedPodSet, Node, Pod, ResourceFlavor, Topology, is_tas_pod
from .resources import Requests, add, plus_one_pod, sub
from .seams import CONTRACT, Seams


# Slots: a snapshot holds one Domain and one Leaf per node, and placement reads
# and writes their counts in its innermost loops.
@dataclass(eq=False, slots=True)
class Domain:
    level: int
    values: tuple[str, ...]
    id: str
    parent: Domain | None = None
    children: list[Domain] = field(default_factory=list)
    # placement state, written anew by every placement (placement._fill_in_counts)
    pod_count: int = 0
    pod_count_with_leader: int = 0
    slice_count: int = 0
    slice_count_with_leader: int = 0
    leader_count: int = 0
    # sum of the preferred node affinity weights of the included nodes below;
    # stays 0 unless TASRespectNodeAffinityPreferred is on
    affinity_score: int = 0

    def reset(self) -> None:
        self.pod_count = self.pod_count_with_leader = 0
        self.slice_count = self.slice_count_with_leader = 0
        self.leader_count = 0
        self.affinity_score = 0

    def path_id(self) -> str:
        return ",".join(self.values)


@dataclass(eq=False, slots=True)
class Leaf:
    domain: Domain
    nodes: list[Node]
    allocatable: Requests
    non_tas_usage: Requests = field(default_factory=dict)
    tas_usage: Requests = field(default_factory=dict)

    def free(self) -> Requests:
        """Allocatable minus non-TAS pods (upstream `freeCapacity`)."""
        result = dict(self.allocatable)
        sub(result, self.non_tas_usage)
        return result

    def remaining(self) -> Requests:
        result = self.free()
        sub(result, self.tas_usage)
        return result

    def remaining_of(self, names: list[str], assumed: Requests | None) -> Requests:
        """`remaining()` minus `assumed`, for the named resources only."""
        alloc, non_tas, tas = self.allocatable, self.non_tas_usage, self.tas_usage
        result = {name: alloc.get(name, 0) - non_tas.get(name, 0) - tas.get(name, 0) for name in names}
        if assumed:
            for name in names:
                result[name] -= assumed.get(name, 0)
        return result


# node exclusion reasons, in the order they are checked
FLAVOR_LABELS_MISMATCH = "FlavorLabelsMismatch"
MISSING_TOPOLOGY_LABEL = "MissingTopologyLabel"
UNSCHEDULABLE = "Unschedulable"
NOT_READY = "NotReady"
NO_READY_CONDITION = "NoReadyCondition"


def node_exclusion(node: Node, topology: Topology, flavor: ResourceFlavor) -> str | None:
    for key, value in flavor.node_labels.items():
        if node.labels.get(key) != value:
            return FLAVOR_LABELS_MISMATCH
    for level in topology.levels:
        if level not in node.labels:
            return MISSING_TOPOLOGY_LABEL
    if node.unschedulable:
        return UNSCHEDULABLE
    condition = node.ready_condition()
    if condition is None:
        return NO_READY_CONDITION
    if condition.status != "True":
        return NOT_READY
    return None


@dataclass(eq=False)
class Snapshot:
    topology: Topology
    flavor: ResourceFlavor
    levels: tuple[str, ...]
    lowest_is_hostname: bool
    roots: list[Domain]
    domains_per_level: list[dict[str, Domain]]
    leaves: dict[str, Leaf]                   # leaf id -> leaf
    node_to_leaf: dict[str, str]              # node name -> leaf id
    excluded: dict[str, str]                  # node name -> reason
    seams: Seams = CONTRACT                   # the rules placements on it follow (seams.py)

    @property
    def name(self) -> str:
        return self.topology.name

    def leaf_of_domain(self, domain: Domain) -> Leaf | None:
        return self.leaves.get(domain.id)

    def leaf_id_for_values(self, values: tuple[str, ...]) -> str:
        if self.lowest_is_hostname:
            return values[-1]
        return ",".join(values)


def build(topology: Topology, flavor: ResourceFlavor, nodes: list[Node], pods: list[Pod] = (),
          admitted: list[list[AdmittedPodSet]] = (), seams: Seams = CONTRACT) -> Snapshot:
    levels = topology.levels
    lowest_is_hostname = levels[-1] == HOSTNAME
    per_level: list[dict[str, Domain]] = [dict() for _ in levels]
    roots: list[Domain] = []
    leaves: dict[str, Leaf] = {}
    node_to_leaf: dict[str, str] = {}
    excluded: dict[str, str] = {}
    inner = levels[:-1]
    leaf_level = len(levels) - 1
    leaf_domains = per_level[leaf_level]
    # nodes usually come rack by rack: the previous node's domains above the
    # leaf are looked up again only when its path above the leaf differs
    previous_prefix: tuple[str, ...] | None = None
    previous_parent: Domain | None = None
    for node in nodes:
        reason = node_exclusion(node, topology, flavor)
        if reason is not None:
            excluded[node.name] = reason
            continue
        labels = node.labels
        prefix = tuple(map(labels.__getitem__, inner))
        if prefix == previous_prefix:
            parent = previous_parent
        else:
            parent = None
            for i in range(len(inner)):
                key = ",".join(prefix[: i + 1])
                domain = per_level[i].get(key)
                if domain is None:
                    domain = Domain(level=i, values=prefix[: i + 1], id=key, parent=parent)
                    per_level[i][key] = domain
                    if parent is None:
                        roots.append(domain)
                    else:
                        parent.children.append(domain)
                parent = domain
            previous_prefix, previous_parent = prefix, parent
        values = (*prefix, labels[levels[-1]])
        key = values[-1] if lowest_is_hostname else ",".join(values)
        leaf = leaves.get(key)
        if leaf is None:
            domain = Domain(leaf_level, values, key, parent)
            leaf_domains[key] = domain
            if parent is None:
                roots.append(domain)
            else:
                parent.children.append(domain)
            leaves[key] = Leaf(domain, [node], dict(node.allocatable))
        else:
            leaf.nodes.append(node)
            add(leaf.allocatable, node.allocatable)
        node_to_leaf[node.name] = key
    snapshot = Snapshot(topology=topology, flavor=flavor, levels=levels, lowest_is_hostname=lowest_is_hostname,
                        roots=roots, domains_per_level=per_level, leaves=leaves, node_to_leaf=node_to_leaf,
                        excluded=excluded, seams=seams)
    for pod in pods:
        if pod.node_name is None or pod.phase in ("Succeeded", "Failed") or is_tas_pod(pod):
            continue
        leaf_id = node_to_leaf.get(pod.node_name)
        if leaf_id is not None:
            add(leaves[leaf_id].non_tas_usage, plus_one_pod(pod.requests))
    for workload in admitted:
        for ps in workload:
            add_assignment_usage(snapshot, ps.assignment.domains, ps.requests, target="tas")
    return snapshot


def usage_per_leaf(snapshot: Snapshot, domains, requests: Requests,
                   with_pod_slots: bool = True) -> dict[str, Requests]:
    """`count x request + count pods` per leaf id the snapshot holds."""
    result: dict[str, Requests] = {}
    per_pod = plus_one_pod(requests) if with_pod_slots else dict(requests)
    for values, count in domains:
        leaf_id = snapshot.leaf_id_for_values(tuple(values))
        if leaf_id not in snapshot.leaves:
            continue
        add(result.setdefault(leaf_id, {}), per_pod, count)
    return result


def add_assignment_usage(snapshot: Snapshot, domains, requests: Requests, target: str = "tas") -> None:
    # straight into each leaf, without usage_per_leaf's per-leaf sums: integer
    # sums in another order are the same sums
    per_pod = plus_one_pod(requests)
    leaves = snapshot.leaves
    hostname_only = snapshot.lowest_is_hostname
    for values, count in domains:
        leaf = leaves.get(values[-1] if hostname_only else ",".join(values))
        if leaf is not None:
            add(leaf.tas_usage, per_pod, count)


def remove_assignment_usage(snapshot: Snapshot, domains, requests: Requests) -> None:
    for leaf_id, usage in usage_per_leaf(snapshot, domains, requests).items():
        sub(snapshot.leaves[leaf_id].tas_usage, usage)
