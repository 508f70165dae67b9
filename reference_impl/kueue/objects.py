"""The Kubernetes and Kueue objects an operation's input carries, parsed into
plain dataclasses (Topology, ResourceFlavor, Node, Pod, pod sets, workloads)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from reference_impl.errors import InvalidInput

from . import node_affinity, quantities
from .resources import Requests, add

HOSTNAME = "kubernetes.io/hostname"


def _mapping(value, field_: str) -> Mapping:
    if type(value) is dict:  # decoded JSON: without the abstract-class check, once per object of a large input
        return value
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInput(field_, "must be a mapping")
    return value


def _list(value, field_: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidInput(field_, "must be a list")
    return value


def _str_map(value, field_: str) -> dict[str, str]:
    return {str(k): "" if v is None else str(v) for k, v in _mapping(value, field_).items()}


@dataclass(frozen=True)
class Topology:
    name: str
    levels: tuple[str, ...]


@dataclass(frozen=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        """Kubernetes `Toleration.ToleratesTaint`."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        return self.operator in ("Equal", "") and self.value == taint.value


@dataclass(frozen=True)
class Taint:
    key: str
    value: str = ""
    effect: str = ""

    def text(self) -> str:
        """Kubernetes `Taint.ToString()`."""
        if self.value:
            return f"{self.key}={self.value}:{self.effect}"
        return f"{self.key}:{self.effect}"


@dataclass(frozen=True)
class ResourceFlavor:
    name: str
    topology_name: str | None
    node_labels: Mapping[str, str]
    tolerations: tuple[Toleration, ...]


@dataclass
class Condition:
    type: str
    status: str
    last_transition: float = 0.0


@dataclass
class Node:
    name: str
    labels: dict[str, str]
    allocatable: Requests
    conditions: list[Condition]
    taints: list[Taint]
    unschedulable: bool = False

    def ready_condition(self) -> Condition | None:
        for condition in self.conditions:
            if condition.type == "Ready":
                return condition
        return None

    def is_ready(self) -> bool:
        condition = self.ready_condition()
        return condition is not None and condition.status == "True"


@dataclass(frozen=True)
class Pod:
    name: str
    annotations: Mapping[str, str]
    node_name: str | None
    phase: str
    requests: Requests


@dataclass
class PodSet:
    name: str
    count: int
    annotations: dict[str, str]
    requests: Requests               # per pod, without the implicit pod
    tolerations: list[Toleration] = field(default_factory=list)
    node_selector: dict[str, str] = field(default_factory=dict)
    affinity: node_affinity.NodeAffinity = node_affinity.NONE


def parse_toleration(raw, field_: str) -> Toleration:
    raw = _mapping(raw, field_)
    seconds = raw.get("tolerationSeconds")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))):
        raise InvalidInput(f"{field_}.tolerationSeconds", "must be a number")
    return Toleration(
        key=str(raw.get("key") or ""),
        operator=str(raw.get("operator") or "Equal"),
        value=str(raw.get("value") or ""),
        effect=str(raw.get("effect") or ""),
        toleration_seconds=None if seconds is None else int(seconds),
    )


def parse_tolerations(raw, field_: str) -> list[Toleration]:
    return [parse_toleration(t, f"{field_}[{i}]") for i, t in enumerate(_list(raw, field_))]


def parse_taint(raw, field_: str) -> Taint:
    raw = _mapping(raw, field_)
    if not raw.get("key"):
        raise InvalidInput(f"{field_}.key", "required")
    return Taint(key=str(raw["key"]), value=str(raw.get("value") or ""), effect=str(raw.get("effect") or ""))


def parse_topology(raw) -> Topology:
    raw = _mapping(raw, "topology")
    meta = _mapping(raw.get("metadata"), "topology.metadata")
    spec = _mapping(raw.get("spec"), "topology.spec")
    levels = []
    for i, level in enumerate(_list(spec.get("levels"), "topology.spec.levels")):
        level = _mapping(level, f"topology.spec.levels[{i}]")
        if not isinstance(level.get("nodeLabel"), str):
            raise InvalidInput(f"topology.spec.levels[{i}].nodeLabel", "required string")
        levels.append(level["nodeLabel"])
    return Topology(name=str(meta.get("name") or ""), levels=tuple(levels))


def topology_problem(topology: Topology) -> str | None:
    """The Topology API's validation (CRD and CEL rules), as a refusal message."""
    if not 1 <= len(topology.levels) <= 16:
        return "spec.levels must have between 1 and 16 items"
    if len(set(topology.levels)) != len(topology.levels):
        return "spec.levels: must be unique"
    if HOSTNAME in topology.levels[:-1]:
        return "spec.levels: the kubernetes.io/hostname label can only be used at the lowest level of topology"
    return None


def parse_flavor(raw) -> ResourceFlavor:
    raw = _mapping(raw, "resourceFlavor")
    meta = _mapping(raw.get("metadata"), "resourceFlavor.metadata")
    spec = _mapping(raw.get("spec"), "resourceFlavor.spec")
    return ResourceFlavor(
        name=str(meta.get("name") or ""),
        topology_name=spec.get("topologyName"),
        node_labels=_str_map(spec.get("nodeLabels"), "resourceFlavor.spec.nodeLabels"),
        tolerations=tuple(parse_tolerations(spec.get("tolerations"), "resourceFlavor.spec.tolerations")),
    )


def parse_condition(raw, field_: str) -> Condition:
    raw = _mapping(raw, field_)
    when = raw.get("lastTransitionTime", 0)
    if isinstance(when, bool) or not isinstance(when, (int, float)):
        raise InvalidInput(f"{field_}.lastTransitionTime", "must be a number of seconds")
    return Condition(type=str(raw.get("type")), status=str(raw.get("status")), last_transition=float(when))


def parse_node(raw, field_: str) -> Node:
    raw = _mapping(raw, field_)
    meta = _mapping(raw.get("metadata"), f"{field_}.metadata")
    spec = _mapping(raw.get("spec"), f"{field_}.spec")
    status = _mapping(raw.get("status"), f"{field_}.status")
    if not meta.get("name"):
        raise InvalidInput(f"{field_}.metadata.name", "required")
    return Node(
        name=str(meta["name"]),
        labels=_str_map(meta.get("labels"), f"{field_}.metadata.labels"),
        allocatable=quantities.resource_list(status.get("allocatable"), f"{field_}.status.allocatable"),
        conditions=[parse_condition(c, f"{field_}.status.conditions[{i}]")
                    for i, c in enumerate(_list(status.get("conditions"), f"{field_}.status.conditions"))],
        taints=[parse_taint(t, f"{field_}.spec.taints[{i}]")
                for i, t in enumerate(_list(spec.get("taints"), f"{field_}.spec.taints"))],
        unschedulable=bool(spec.get("unschedulable", False)),
    )


def parse_nodes(raw) -> list[Node]:
    nodes = [parse_node(n, f"nodes[{i}]") for i, n in enumerate(_list(raw, "nodes"))]
    seen = set()
    for node in nodes:
        if node.name in seen:
            raise InvalidInput("nodes", f"duplicate node name {node.name!r}")
        seen.add(node.name)
    return nodes


def _container_requests(container, field_: str) -> Requests:
    container = _mapping(container, field_)
    resources = _mapping(container.get("resources"), f"{field_}.resources")
    return quantities.resource_list(resources.get("requests"), f"{field_}.resources.requests")


def pod_spec_requests(spec: Mapping, field_: str) -> Requests:
    """Kubernetes `PodRequests`: containers plus sidecars, against each init
    container plus the sidecars started before it, plus the overhead."""
    total: Requests = {}
    for i, c in enumerate(_list(spec.get("containers"), f"{field_}.containers")):
        add(total, _container_requests(c, f"{field_}.containers[{i}]"))
    sidecars: Requests = {}
    init_peak: Requests = {}
    for i, c in enumerate(_list(spec.get("initContainers"), f"{field_}.initContainers")):
        requests = _container_requests(c, f"{field_}.initContainers[{i}]")
        if _mapping(c, "").get("restartPolicy") == "Always":
            add(sidecars, requests)
            add(total, requests)
            # a sidecar's start also needs the sidecars before it
            candidate = dict(sidecars)
        else:
            candidate = dict(requests)
            add(candidate, sidecars)
        for name, value in candidate.items():
            init_peak[name] = max(init_peak.get(name, 0), value)
    for name, value in init_peak.items():
        total[name] = max(total.get(name, 0), value)
    add(total, quantities.resource_list(spec.get("overhead"), f"{field_}.overhead"))
    return total


TAS_POD_ANNOTATIONS = (
    "kueue.x-k8s.io/podset-required-topology",
    "kueue.x-k8s.io/podset-preferred-topology",
    "kueue.x-k8s.io/podset-unconstrained-topology",
    "kueue.x-k8s.io/podset-slice-required-topology",
    "kueue.x-k8s.io/podset-slice-required-topology-constraints",
)


def parse_pod(raw, field_: str) -> Pod:
    raw = _mapping(raw, field_)
    meta = _mapping(raw.get("metadata"), f"{field_}.metadata")
    spec = _mapping(raw.get("spec"), f"{field_}.spec")
    status = _mapping(raw.get("status"), f"{field_}.status")
    return Pod(
        name=str(meta.get("name") or ""),
        annotations=_str_map(meta.get("annotations"), f"{field_}.metadata.annotations"),
        node_name=spec.get("nodeName") or None,
        phase=str(status.get("phase") or "Running"),
        requests=pod_spec_requests(spec, f"{field_}.spec"),
    )


def is_tas_pod(pod: Pod) -> bool:
    return any(key in pod.annotations for key in TAS_POD_ANNOTATIONS)


def parse_pod_set(raw, field_: str, *, count_required: bool = True) -> PodSet:
    raw = _mapping(raw, field_)
    if not isinstance(raw.get("name"), str) or not raw["name"]:
        raise InvalidInput(f"{field_}.name", "required")
    count = raw.get("count", 1 if not count_required else None)
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise InvalidInput(f"{field_}.count", "required non-negative integer")
    if "template" in raw:
        for key in ("annotations", "requests", "tolerations", "nodeSelector", "affinity"):
            if key in raw:
                raise InvalidInput(f"{field_}.{key}", "not allowed beside template")
        template = _mapping(raw["template"], f"{field_}.template")
        meta = _mapping(template.get("metadata"), f"{field_}.template.metadata")
        spec = _mapping(template.get("spec"), f"{field_}.template.spec")
        return PodSet(
            name=raw["name"], count=count,
            annotations=_str_map(meta.get("annotations"), f"{field_}.template.metadata.annotations"),
            requests=pod_spec_requests(spec, f"{field_}.template.spec"),
            tolerations=parse_tolerations(spec.get("tolerations"), f"{field_}.template.spec.tolerations"),
            node_selector=_str_map(spec.get("nodeSelector"), f"{field_}.template.spec.nodeSelector"),
            affinity=node_affinity.parse(spec.get("affinity"), f"{field_}.template.spec.affinity"),
        )
    return PodSet(
        name=raw["name"], count=count,
        annotations=_str_map(raw.get("annotations"), f"{field_}.annotations"),
        requests=quantities.resource_list(raw.get("requests"), f"{field_}.requests"),
        tolerations=parse_tolerations(raw.get("tolerations"), f"{field_}.tolerations"),
        node_selector=_str_map(raw.get("nodeSelector"), f"{field_}.nodeSelector"),
        affinity=node_affinity.parse(raw.get("affinity"), f"{field_}.affinity"),
    )


@dataclass
class Assignment:
    """A topology assignment in the v1beta1 form: levels plus domains with counts."""
    levels: tuple[str, ...]
    domains: list[tuple[tuple[str, ...], int]]

    def to_dict(self) -> dict:
        return {"levels": list(self.levels),
                "domains": [{"values": list(v), "count": c} for v, c in self.domains]}


def parse_assignment(raw, field_: str) -> Assignment:
    raw = _mapping(raw, field_)
    levels = tuple(str(x) for x in _list(raw.get("levels"), f"{field_}.levels"))
    domains = []
    for i, d in enumerate(_list(raw.get("domains"), f"{field_}.domains")):
        d = _mapping(d, f"{field_}.domains[{i}]")
        values = tuple(str(x) for x in _list(d.get("values"), f"{field_}.domains[{i}].values"))
        count = d.get("count")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InvalidInput(f"{field_}.domains[{i}].count", "required non-negative integer")
        if len(values) != len(levels):
            raise InvalidInput(f"{field_}.domains[{i}].values", "one value per level")
        domains.append((values, count))
    return Assignment(levels=levels, domains=domains)


@dataclass
class AdmittedPodSet:
    name: str
    requests: Requests
    assignment: Assignment


def parse_admitted_workloads(raw) -> list[list[AdmittedPodSet]]:
    result = []
    for i, wl in enumerate(_list(raw, "admittedWorkloads")):
        wl = _mapping(wl, f"admittedWorkloads[{i}]")
        pod_sets = []
        for j, ps in enumerate(_list(wl.get("podSets"), f"admittedWorkloads[{i}].podSets")):
            f = f"admittedWorkloads[{i}].podSets[{j}]"
            ps = _mapping(ps, f)
            if "template" in ps:
                spec = _mapping(_mapping(ps["template"], f"{f}.template").get("spec"), f"{f}.template.spec")
                requests = pod_spec_requests(spec, f"{f}.template.spec")
            else:
                requests = quantities.resource_list(ps.get("requests"), f"{f}.requests")
            pod_sets.append(AdmittedPodSet(
                name=str(ps.get("name") or ""), requests=requests,
                assignment=parse_assignment(ps.get("topologyAssignment"), f"{f}.topologyAssignment")))
        result.append(pod_sets)
    return result
