"""Admission with supplied hints (`admit_hints`): the scopes run over hint
providers whose hints and allocation failures a case states directly, so the
scopes' verdicts and the affinity each container is given can be checked
without the CPU, memory and device managers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .. import quantity
from ..errors import InvalidInput
from .hints import TopologyHint
from .metrics import Metrics
from .pods import Container, Pod, is_hugepages
from .policies import NONE
from .providers import AllocationError
from .scopes import (
    POD,
    POD_LEVEL_CONTAINER_SCOPE_MESSAGE,
    POD_LEVEL_POD_SCOPE_MESSAGE,
    TOPOLOGY_AFFINITY_ERROR,
    UNEXPECTED_ADMISSION_ERROR,
    AdmitResult,
    admit_container_scope,
    admit_pod_scope,
    admit_policy_none,
)
from .startup import Started


@dataclass(frozen=True)
class SuppliedProvider:
    """One provider: per-container hints (container scope), the pod's hints
    (pod scope) and the containers whose allocation fails, with the error."""

    container_hints: Mapping[str, object]
    pod_hints_: object
    allocate_errors: Mapping[str, str]
    allocate_pod_error: str | None = None
    # the containers this provider was asked to allocate, shared with the admission
    allocated: list = field(default_factory=list)

    def hints(self, pod: Pod, container: Container):
        return self.container_hints.get(container.name)

    def pod_hints(self, pod: Pod):
        return self.pod_hints_

    def allocate(self, pod: Pod, container: Container, hint: TopologyHint) -> None:
        self.allocated.append((container.name, hint))
        error = self.allocate_errors.get(container.name)
        if error is not None:
            raise AllocationError(error)

    def allocate_pod(self, pod: Pod, hint_of) -> None:
        """AllocatePod, the pod-level path: one call for the whole pod."""
        for c in pod.all_containers:
            self.allocated.append((c.name, hint_of(c.name)))
        if self.allocate_pod_error is not None:
            raise AllocationError(self.allocate_pod_error)


class SuppliedAdmission:
    """The part of a kubelet the scopes use: the policy, the providers, the
    store of merged hints and the metrics."""

    def __init__(self, started: Started, providers: list[SuppliedProvider]):
        self.policy = started.policy
        self.scope = started.scope
        self.pod_level_managers = started.gates.pod_level_resource_managers
        self.providers = tuple(providers)
        self.metrics = Metrics()
        self.hints: dict[tuple[str, str], TopologyHint] = {}

    def store(self, pod: str, container: str, hint: TopologyHint) -> None:
        self.hints[(pod, container)] = hint

    def affinity(self, pod: str, container: str) -> TopologyHint:
        return self.hints.get((pod, container), TopologyHint(None, False))

    def admit(self, pod: Pod, pod_level: bool = False) -> dict:
        pod_level = pod_level and self.pod_level_managers
        if self.policy.name == NONE:
            result = admit_policy_none(self, pod)
        elif self.scope == POD:
            result = self._admit_pod_level(pod) if pod_level else admit_pod_scope(self, pod)
        else:
            result = admit_container_scope(self, pod)
            if pod_level and result.reason == TOPOLOGY_AFFINITY_ERROR:
                result = AdmitResult(False, TOPOLOGY_AFFINITY_ERROR, POD_LEVEL_CONTAINER_SCOPE_MESSAGE)
        # A container is listed once the first provider was asked to allocate
        # it, with the affinity the store gave it then.
        containers = [
            {"name": name, "affinity": hint.affinity(), "preferred": hint.preferred}
            for name, hint in self.providers[0].allocated
        ]
        return {
            "started": True,
            "admitted": result.admitted,
            "reason": result.reason,
            "message": result.message,
            "containers": containers,
        }


    def _admit_pod_level(self, pod: Pod) -> AdmitResult:
        """Pod scope for a pod with pod-level resources: one merge, the hint
        stored for every container, then one AllocatePod per provider."""
        outcome = self.policy.merge([p.pod_hints(pod) for p in self.providers])
        if not outcome.admit:
            return AdmitResult(False, TOPOLOGY_AFFINITY_ERROR, POD_LEVEL_POD_SCOPE_MESSAGE)
        for c in pod.all_containers:
            self.store(pod.name, c.name, outcome.hint)
        for provider in self.providers:
            try:
                provider.allocate_pod(pod, lambda name: self.affinity(pod.name, name))
            except AllocationError as err:
                return AdmitResult(False, UNEXPECTED_ADMISSION_ERROR, f"Allocate failed due to {err}, which is unexpected")
        return AdmitResult(True)


POD_LEVEL_RESOURCES = ("cpu", "memory")


def pod_level_set(raw: object, field: str = "pod/resources") -> bool:
    """Whether a pod's `resources` name a resource managed at pod level (cpu,
    memory, hugepages-*) in its requests or limits."""
    if raw is None:
        return False
    if not isinstance(raw, Mapping) or set(raw) - {"requests", "limits"}:
        raise InvalidInput(field, "must be {requests?, limits?}")
    named = False
    for key in ("requests", "limits"):
        values = raw.get(key) or {}
        if not isinstance(values, Mapping):
            raise InvalidInput(f"{field}/{key}", "must map resource names to quantities")
        for name, q in values.items():
            quantity.parse_input(q, f"{field}/{key}/{name}")
            named = named or name in POD_LEVEL_RESOURCES or is_hugepages(name)
    return named


def parse_pod_names(raw: object, field: str = "pod") -> Pod:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("name"), str):
        raise InvalidInput(field, "a pod needs a name")
    groups = []
    for key, init in (("initContainers", True), ("containers", False)):
        items = raw.get(key) or []
        if not isinstance(items, list):
            raise InvalidInput(f"{field}/{key}", "must be a list of containers")
        group = []
        for i, c in enumerate(items):
            if not isinstance(c, Mapping) or not isinstance(c.get("name"), str):
                raise InvalidInput(f"{field}/{key}/{i}", "a container needs a name")
            group.append(Container(c["name"], {}, {}, init=init))
        groups.append(tuple(group))
    names = [c.name for c in groups[0] + groups[1]]
    if len(set(names)) != len(names):
        raise InvalidInput(field, "container names must be unique within a pod")
    return Pod(raw["name"], groups[0], groups[1], "BestEffort")


def parse_providers(raw: object, pod: Pod, read_hints) -> list[SuppliedProvider]:
    """`read_hints(value, field)` reads one provider's map of resource to
    hints (the `merge` operation's form)."""
    if not isinstance(raw, list) or not raw:
        raise InvalidInput("providers", "a non-empty list with one entry per provider")
    names = {c.name for c in pod.all_containers}
    out = []
    for i, p in enumerate(raw):
        f = f"providers/{i}"
        if not isinstance(p, Mapping):
            raise InvalidInput(f, "{containerHints?, podHints?, allocateErrors?}")
        per_container = p.get("containerHints") or {}
        errors = p.get("allocateErrors") or {}
        for key, value in (("containerHints", per_container), ("allocateErrors", errors)):
            if not isinstance(value, Mapping):
                raise InvalidInput(f"{f}/{key}", "a map keyed by container name")
            for name in value:
                if name not in names:
                    raise InvalidInput(f"{f}/{key}/{name}", "names no container of the pod")
        for name, message in errors.items():
            if not isinstance(message, str) or not message:
                raise InvalidInput(f"{f}/allocateErrors/{name}", "a non-empty error text")
        pod_error = p.get("allocatePodError")
        if pod_error is not None and (not isinstance(pod_error, str) or not pod_error):
            raise InvalidInput(f"{f}/allocatePodError", "a non-empty error text")
        hints = {name: read_hints(value, f"{f}/containerHints/{name}") for name, value in per_container.items()}
        out.append(SuppliedProvider(hints, read_hints(p.get("podHints"), f"{f}/podHints"), dict(errors), pod_error))
    return out
