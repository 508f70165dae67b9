"""The tolerations that admission checks add to a workload's pod sets
(`status.admissionChecks[].podSetUpdates`), as the hot-swap flow reads them.

Three readers see different sets: the job's pods start with the updates of the
checks that are Ready; the scheduler's placement merges the Ready checks'
updates too; the node controller, from Kueue 0.18, merges every check's update
whatever its state, and before 0.18 reads the pod set's own tolerations only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from reference_impl.errors import InvalidInput

from . import objects
from .objects import Toleration

CHECK_STATES = ("Pending", "Ready", "Retry", "Rejected")
# The node controller reads the checks' updates from this release on
# (upstream: node_controller.go podSetsWithEffectiveTolerationsOnNode).
CONTROLLER_READS_UPDATES = (0, 18)


@dataclass(frozen=True)
class CheckUpdates:
    ready: dict[str, list[Toleration]] = field(default_factory=dict)   # pod set -> tolerations
    any_state: dict[str, list[Toleration]] = field(default_factory=dict)

    def for_pods(self, pod_set: str) -> list[Toleration]:
        return list(self.ready.get(pod_set, []))

    def for_node_controller(self, pod_set: str, version: tuple[int, int]) -> list[Toleration]:
        if version < CONTROLLER_READS_UPDATES:
            return []
        return list(self.any_state.get(pod_set, []))


def parse(raw, field_: str) -> CheckUpdates:
    if raw is None:
        return CheckUpdates()
    if not isinstance(raw, list):
        raise InvalidInput(field_, "a list of admission checks")
    updates = CheckUpdates()
    names = set()
    for i, check in enumerate(raw):
        f = f"{field_}[{i}]"
        if not isinstance(check, Mapping):
            raise InvalidInput(f, "an admission check {name, state, podSetUpdates}")
        name = check.get("name")
        if not isinstance(name, str) or not name:
            raise InvalidInput(f"{f}.name", "required")
        if name in names:
            raise InvalidInput(f"{f}.name", f"duplicate admission check {name!r}")
        names.add(name)
        state = check.get("state", "Ready")
        if state not in CHECK_STATES:
            raise InvalidInput(f"{f}.state", f"one of {', '.join(CHECK_STATES)}")
        seen = set()
        for j, update in enumerate(check.get("podSetUpdates") or []):
            uf = f"{f}.podSetUpdates[{j}]"
            if not isinstance(update, Mapping) or not isinstance(update.get("name"), str):
                raise InvalidInput(f"{uf}.name", "required")
            # podSetUpdates is a list map keyed by name: the API server
            # refuses a second entry for the same pod set.
            if update["name"] in seen:
                raise InvalidInput(f"{uf}.name", f"duplicate pod set {update['name']!r} in one admission check")
            seen.add(update["name"])
            tolerations = objects.parse_tolerations(update.get("tolerations"), f"{uf}.tolerations")
            updates.any_state.setdefault(update["name"], []).extend(tolerations)
            if state == "Ready":
                updates.ready.setdefault(update["name"], []).extend(tolerations)
    return updates
