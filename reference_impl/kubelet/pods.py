"""Pods and containers as the managers read them: requests, limits, QoS class,
restartable init containers."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from .. import quantity
from ..errors import InvalidInput

CPU = "cpu"
MEMORY = "memory"
HUGEPAGES_PREFIX = "hugepages-"


def is_hugepages(resource: str) -> bool:
    return resource.startswith(HUGEPAGES_PREFIX)


def is_memory_resource(resource: str) -> bool:
    return resource == MEMORY or is_hugepages(resource)


def is_pod_level_resource(resource: str) -> bool:
    return resource == CPU or is_memory_resource(resource)


@dataclass(frozen=True)
class Container:
    name: str
    requests: Mapping[str, Fraction]
    limits: Mapping[str, Fraction]
    init: bool = False
    restartable: bool = False

    @property
    def regular_init(self) -> bool:
        return self.init and not self.restartable


@dataclass(frozen=True)
class Pod:
    name: str
    init_containers: tuple[Container, ...]
    containers: tuple[Container, ...]
    qos: str
    # pod-level resources (spec.resources), as written
    requests: Mapping[str, Fraction] = dataclasses.field(default_factory=dict)
    limits: Mapping[str, Fraction] = dataclasses.field(default_factory=dict)

    @property
    def level(self) -> bool:
        """Whether the pod sets pod-level resources the kubelet's managers
        know (cpu, memory, hugepages-*)."""
        return any(is_pod_level_resource(name) for name in (*self.requests, *self.limits))

    @property
    def all_containers(self) -> tuple[Container, ...]:
        return self.init_containers + self.containers

    @property
    def guaranteed(self) -> bool:
        return self.qos == "Guaranteed"


def _resource_list(raw: object, field: str) -> dict[str, Fraction]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise InvalidInput(field, "must be a mapping of resource name to quantity")
    out = {}
    for name, q in raw.items():
        out[str(name)] = quantity.parse_input(q, f"{field}/{name}")
        if out[str(name)] < 0:
            raise InvalidInput(f"{field}/{name}", "must not be negative")
    return out


def _requirements(raw: object, field: str, default_requests: bool = True) -> tuple[dict[str, Fraction], dict[str, Fraction]]:
    resources = raw or {}
    if not isinstance(resources, Mapping):
        raise InvalidInput(field, "must be a mapping")
    requests = _resource_list(resources.get("requests"), f"{field}/requests")
    limits = _resource_list(resources.get("limits"), f"{field}/limits")
    # API defaulting: a container's limit without a request sets the request.
    if default_requests:
        for name, q in limits.items():
            requests.setdefault(name, q)
    return requests, limits


def _container(raw: object, field: str, init: bool) -> Container:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
        raise InvalidInput(field, "a container needs a name")
    requests, limits = _requirements(raw.get("resources"), f"{field}/resources")
    restart = raw.get("restartPolicy")
    if restart not in (None, "Always"):
        raise InvalidInput(f"{field}/restartPolicy", f"only Always is allowed, got {restart!r}")
    if restart is not None and not init:
        raise InvalidInput(f"{field}/restartPolicy", "restartPolicy is for init containers")
    return Container(raw["name"], requests, limits, init=init, restartable=restart == "Always")


def qos_class(containers: tuple[Container, ...]) -> str:
    """The pod QoS class from CPU and memory requests and limits summed over
    all containers, init containers included."""
    requests: dict[str, Fraction] = {}
    limits: dict[str, Fraction] = {}
    guaranteed = True
    for c in containers:
        for name, q in c.requests.items():
            if name in (CPU, MEMORY) and q > 0:
                requests[name] = requests.get(name, 0) + q
        found = set()
        for name, q in c.limits.items():
            if name in (CPU, MEMORY) and q > 0:
                found.add(name)
                limits[name] = limits.get(name, 0) + q
        if not {CPU, MEMORY} <= found:
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed:
        for name, q in requests.items():
            if limits.get(name) != q:
                guaranteed = False
                break
    if guaranteed and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


def parse_pod(raw: object, field: str) -> Pod:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
        raise InvalidInput(field, "a pod needs a name")
    for key in ("initContainers", "containers"):
        if not isinstance(raw.get(key) or [], list):
            raise InvalidInput(f"{field}/{key}", "must be a list of containers")
    inits = tuple(_container(c, f"{field}/initContainers/{i}", True) for i, c in enumerate(raw.get("initContainers") or []))
    apps = tuple(_container(c, f"{field}/containers/{i}", False) for i, c in enumerate(raw.get("containers") or []))
    names = [c.name for c in inits + apps]
    if len(set(names)) != len(names):
        raise InvalidInput(field, "container names must be unique within a pod")
    # Pod-level resources are taken as written: the API defaults them from the
    # containers' aggregate, which the contract leaves to the case.
    requests, limits = _requirements(raw.get("resources"), f"{field}/resources", default_requests=False)
    for name in (*requests, *limits):
        if not is_pod_level_resource(name):
            raise InvalidInput(f"{field}/resources", f"pod-level resources are cpu, memory and hugepages-<size>, not {name!r}")
    # With pod-level resources set, the pod's QoS class is theirs
    # (PodLevelResources, on from 1.34).
    level = any(is_pod_level_resource(name) for name in (*requests, *limits))
    qos = requirements_qos(requests, limits) if level else qos_class(inits + apps)
    return Pod(raw["name"], inits, apps, qos, requests, limits)


def requirements_qos(requests: Mapping[str, Fraction], limits: Mapping[str, Fraction]) -> str:
    """The QoS class of one set of requirements, as the kubelet computes a
    pod's class from its pod-level resources when it sets them: per CPU and
    memory, a request equal to a non-zero limit is Guaranteed, both absent or
    zero BestEffort, anything else Burstable; the two must agree."""
    classes = set()
    for name in (CPU, MEMORY):
        req, lim = requests.get(name, 0), limits.get(name, 0)
        if req != lim:
            return "Burstable"
        classes.add("BestEffort" if req == 0 else "Guaranteed")
    return classes.pop() if len(classes) == 1 else "Burstable"


def guaranteed_cpus(pod: Pod, c: Container) -> int:
    """Exclusive CPUs: a Guaranteed pod's container with an integer CPU request."""
    if not pod.guaranteed:
        return 0
    q = c.requests.get(CPU)
    if q is None:
        return 0
    whole = quantity.value(q)
    if whole * 1000 != quantity.milli_value(q):
        return 0
    return whole


def pod_level(pod: Pod, per_container) -> dict[str, int]:
    """A pod's demand per resource: the larger of the app containers plus the
    restartable init containers, and the peak of any regular init container
    (which runs alongside the restartable ones started before it). Resources
    that no app container asks for are left out, as the memory manager does."""
    init_peak: dict[str, int] = {}
    sidecars: dict[str, int] = {}
    for c in pod.init_containers:
        for name, n in per_container(c).items():
            if c.restartable:
                sidecars[name] = sidecars.get(name, 0) + n
            else:
                init_peak[name] = max(init_peak.get(name, 0), sidecars.get(name, 0) + n)
    apps: dict[str, int] = {}
    for c in pod.containers:
        for name, n in per_container(c).items():
            apps[name] = apps.get(name, 0) + n
    out = {}
    for name in set(apps) | set(sidecars) | set(init_peak):
        out[name] = max(apps.get(name, 0) + sidecars.get(name, 0), init_peak.get(name, 0))
    return out
