"""Differences an implementation is known to have, for generated inputs.

A disagreement the fuzzer found is resolved either by fixing the reference or by
a corpus case plus an expectations entry that says why the implementation
answers otherwise. Once resolved the second way, the same difference would stop
every later run at its first occurrence and hide whatever else there is to find.
So each one is also declared here: the corpus case that pins it (its
expectations entry carries the reason and the upstream file) and a predicate
that recognises the generated inputs it concerns, given the input and the
implementation's result. A disagreement it claims is counted under that case
instead of failing the run.

The predicate must be narrow: it is applied only when the two answers already
differ, but any disagreement it claims is one the run no longer looks at, so
it should recognise the difference itself in the answer where it can. The
tests check that every declared case exists and is expected to fail for the
release named.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class KnownDifference:
    case: str  # the corpus case pinning it; its expectations entry says why
    implementation: str
    version: str
    component: str
    operation: str
    applies: Callable[[dict[str, Any], dict[str, Any]], bool]  # (input, implementation's result)


KNOWN: list[KnownDifference] = []


def register(difference: KnownDifference) -> KnownDifference:
    KNOWN.append(difference)
    return difference


def for_operation(implementation: str, version: str, component: str, operation: str) -> tuple[KnownDifference, ...]:
    return tuple(k for k in KNOWN if (k.implementation, k.version, k.component, k.operation)
                 == (implementation, version, component, operation))


def claimed_by(known: tuple[KnownDifference, ...], data: dict[str, Any],
               result: dict[str, Any]) -> KnownDifference | None:
    for difference in known:
        if difference.applies(data, result):
            return difference
    return None


# --- kubelet v1.37.2


def _unequal_numa_cpu_counts(data: dict[str, Any]) -> bool:
    counts = set()
    for node in data.get("node", {}).get("numaNodes", []):
        cpus = node.get("cpus")
        counts.add(len(cpus) if isinstance(cpus, list) else cpus)
    return len(counts) > 1


def _cpu_given_to_two_pods(data: dict[str, Any], result: dict[str, Any]) -> bool:
    removed = {event["remove"] for event in data.get("events", []) if "remove" in event}
    owner: dict[int, str] = {}
    for pod in result.get("pods", []):
        if not pod.get("admitted") or pod["name"] in removed:
            continue
        for container in pod.get("containers", []):
            for cpu in container.get("cpuIDs") or []:
                if owner.setdefault(cpu, pod["name"]) != pod["name"]:
                    return True
    return False


register(KnownDifference(
    "kubelet.upstream.cpu.unequal-numa-nodes-socket-judged-by-average", "kubelet", "v1.37.2", "kubelet", "admit",
    lambda data, result: _unequal_numa_cpu_counts(data) and _cpu_given_to_two_pods(data, result)))
