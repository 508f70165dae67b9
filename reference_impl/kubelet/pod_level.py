"""Pod-level resources (a pod's spec.resources) as the CPU manager's static
policy and the memory manager's Static policy read them once
PodLevelResourceManagers is on: the pod's exclusive CPU and memory budgets,
which containers get CPUs or memory of their own inside them, and the checks
that the pod's shared pool is not left empty."""

from __future__ import annotations

from .. import quantity
from .pods import CPU, MEMORY, Container, Pod, is_memory_resource

SHARED_INIT_MESSAGE = "pod rejected, pod has shared init containers but no cpus available for them"
SHARED_LONG_RUNNING_MESSAGE = (
    "pod rejected, sum of exclusive container cpu requests equals pod budget, leaving no cpus for shared containers"
)


def ignored(pod: Pod, managers_on: bool) -> bool:
    """A pod with pod-level resources while the managers do not handle them:
    the CPU and memory managers give it no hints and allocate nothing."""
    return pod.level and not managers_on


def managed(pod: Pod, managers_on: bool) -> bool:
    return pod.level and managers_on


def _integral(q) -> int | None:
    whole = quantity.value(q)
    return whole if whole * 1000 == quantity.milli_value(q) else None


def equivalent_guaranteed(c: Container) -> bool:
    """A container of a pod-level pod qualifies for CPUs of its own only when
    its CPU and its memory each have a non-zero request equal to the limit."""
    for name in (CPU, MEMORY):
        req = c.requests.get(name, 0)
        if req == 0 or req != c.limits.get(name, 0):
            return False
    return True


def container_cpus(pod: Pod, c: Container) -> int:
    """Exclusive CPUs of one container of a Guaranteed pod-level pod: its
    integer CPU request when it qualifies, else 0 (it runs in the pod's
    shared pool)."""
    if not pod.guaranteed or not equivalent_guaranteed(c):
        return 0
    return _integral(c.requests[CPU]) or 0


def pod_cpus(pod: Pod) -> int:
    """The pod's whole exclusive CPU budget: its pod-level integer CPU
    request when the pod is Guaranteed."""
    if not pod.guaranteed or CPU not in pod.requests:
        return 0
    return _integral(pod.requests[CPU]) or 0


def empty_shared_pool(pod: Pod) -> str | None:
    """Why the pod's budget leaves no CPUs for a container that needs the
    shared pool, or None. Regular init containers are checked against the
    restartable init containers declared before them; app containers and
    restartable init containers, which run together, against all of them."""
    budget = pod_cpus(pod)
    long_running = 0
    shared_long_running = False
    for c in pod.init_containers:
        n = container_cpus(pod, c)
        if not c.restartable:
            if n == 0 and long_running >= budget:
                return SHARED_INIT_MESSAGE
        elif n == 0:
            shared_long_running = True
        else:
            long_running += n
    for c in pod.containers:
        n = container_cpus(pod, c)
        if n == 0:
            shared_long_running = True
        else:
            long_running += n
    if shared_long_running and long_running >= budget:
        return SHARED_LONG_RUNNING_MESSAGE
    return None


def container_memory(pod: Pod, c: Container) -> dict[str, int]:
    """Memory and hugepages of one container of a pod-level pod: its requests
    (whole bytes) when its CPU and memory requests equal their limits, else
    none (it runs in the pod's shared pool)."""
    if not equivalent_guaranteed(c):
        return {}
    return {name: quantity.value(q) for name, q in c.requests.items() if is_memory_resource(name)}


def pod_memory(pod: Pod) -> dict[str, int]:
    """The pod's memory budget per memory type: its pod-level requests above
    zero."""
    out = {}
    for name, q in pod.requests.items():
        if is_memory_resource(name) and quantity.value(q) > 0:
            out[name] = quantity.value(q)
    return out


def empty_memory_pool(pod: Pod) -> str | None:
    """The memory manager's shared-pool check, as the CPU manager's but per
    memory type of the budget (a container has memory of its own when it
    requests any memory type; types in name order, so the first failing type
    is named)."""
    budget = pod_memory(pod)
    long_running: dict[str, int] = {}
    shared_long_running = False
    for c in pod.init_containers:
        own = container_memory(pod, c)
        if not c.restartable:
            if not own:
                for name in sorted(budget):
                    if long_running.get(name, 0) >= budget[name]:
                        return f"pod rejected, pod has shared init containers but no {name} available for them"
        elif not own:
            shared_long_running = True
        else:
            for name, n in own.items():
                long_running[name] = long_running.get(name, 0) + n
    for c in pod.containers:
        own = container_memory(pod, c)
        if not own:
            shared_long_running = True
        for name, n in own.items():
            long_running[name] = long_running.get(name, 0) + n
    if shared_long_running:
        for name in sorted(budget):
            if long_running.get(name, 0) >= budget[name]:
                return (f"pod rejected, sum of exclusive container {name} requests equals pod budget, "
                        "leaving no memory for shared containers")
    return None
