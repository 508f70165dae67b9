"""Topology Manager scopes: where hints are gathered and merged, and in which
order containers are allocated."""

from __future__ import annotations

from dataclasses import dataclass

from .hints import TopologyHint
from .pods import Pod
from .providers import AllocationError

CONTAINER = "container"
POD = "pod"
SCOPES = (CONTAINER, POD)

TOPOLOGY_AFFINITY_ERROR = "TopologyAffinityError"
TOPOLOGY_AFFINITY_MESSAGE = "Resources cannot be allocated with Topology locality"
UNEXPECTED_ADMISSION_ERROR = "UnexpectedAdmissionError"
# the kubelet's wording for a pod with pod-level resources the policy does not admit
POD_LEVEL_CONTAINER_SCOPE_MESSAGE = "Pod Scope pod with pod-level resources failed admission with a container-level topology manager"
POD_LEVEL_POD_SCOPE_MESSAGE = "Pod Scope pod with pod-level resources failed admission under pod-scope topology manager"


@dataclass(frozen=True)
class AdmitResult:
    admitted: bool
    reason: str | None = None
    message: str | None = None


def _unexpected(err: AllocationError) -> AdmitResult:
    # an error that carries its own admission reason (SMTAlignmentError) is
    # reported as it is; any other is wrapped as unexpected
    reason = getattr(err, "reason", None)
    if reason:
        return AdmitResult(False, reason, str(err))
    return AdmitResult(False, UNEXPECTED_ADMISSION_ERROR, f"Allocate failed due to {err}, which is unexpected")


def _allocate(kubelet, pod: Pod, container) -> AdmitResult | None:
    for provider in kubelet.providers:
        try:
            provider.allocate(pod, container, kubelet.affinity(pod.name, container.name))
        except AllocationError as err:
            return _unexpected(err)
    return None


def _merge(kubelet, providers_hints):
    outcome = kubelet.policy.merge(providers_hints)
    if outcome.admit and outcome.score_decided:
        kubelet.metrics.score_selected(kubelet.policy.options.strategy)
    return outcome


def admit_container_scope(kubelet, pod: Pod) -> AdmitResult:
    """One merge per container, init containers first; each container is
    allocated before the next one's hints are gathered."""
    for c in pod.all_containers:
        outcome = _merge(kubelet, [p.hints(pod, c) for p in kubelet.providers])
        if not outcome.admit:
            return AdmitResult(False, TOPOLOGY_AFFINITY_ERROR, TOPOLOGY_AFFINITY_MESSAGE)
        kubelet.store(pod.name, c.name, outcome.hint)
        failed = _allocate(kubelet, pod, c)
        if failed:
            return failed
    return AdmitResult(True)


def admit_pod_scope(kubelet, pod: Pod) -> AdmitResult:
    """One merge for the pod; every container gets the same affinity."""
    outcome = _merge(kubelet, [p.pod_hints(pod) for p in kubelet.providers])
    if not outcome.admit:
        return AdmitResult(False, TOPOLOGY_AFFINITY_ERROR, TOPOLOGY_AFFINITY_MESSAGE)
    for c in pod.all_containers:
        kubelet.store(pod.name, c.name, outcome.hint)
        failed = _allocate(kubelet, pod, c)
        if failed:
            return failed
    return AdmitResult(True)


def admit_pod_level(kubelet, pod: Pod) -> AdmitResult:
    """Pod scope for a pod with pod-level resources (PodLevelResourceManagers
    on): one merge, the hint stored for every container, then each provider
    allocates the whole pod once."""
    outcome = _merge(kubelet, [p.pod_hints(pod) for p in kubelet.providers])
    if not outcome.admit:
        return AdmitResult(False, TOPOLOGY_AFFINITY_ERROR, POD_LEVEL_POD_SCOPE_MESSAGE)
    for c in pod.all_containers:
        kubelet.store(pod.name, c.name, outcome.hint)
    first = pod.all_containers[0].name
    for provider in kubelet.providers:
        try:
            provider.allocate_pod(pod, kubelet.affinity(pod.name, first))
        except AllocationError as err:
            return _unexpected(err)
    return AdmitResult(True)


def admit_policy_none(kubelet, pod: Pod) -> AdmitResult:
    """Policy none: no merge and no stored hints; every container is
    allocated without a NUMA affinity."""
    for c in pod.all_containers:
        kubelet.store(pod.name, c.name, TopologyHint(None, False))
        failed = _allocate(kubelet, pod, c)
        if failed:
            return failed
    return AdmitResult(True)
