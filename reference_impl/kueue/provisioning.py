"""The admission flow with a Provisioning AdmissionCheck (spec "ClusterAutoscaler
support"): quota reservation, admission checks Ready, then the topology
assignment over the nodes present at that moment."""

from __future__ import annotations

from collections.abc import Mapping

from reference_impl.errors import InvalidInput
from reference_impl.refusal import Refusal

from . import objects, quantities
from .admission import assign_pod_sets
from .inputs import parse_common, parse_pod_sets
from .node_events import NODE_EVENT_TYPES, apply_node_event, event_type
from .resources import add

CHECK_STATES = ("Pending", "Ready", "Retry", "Rejected")
EVENT_TYPES = ("AdmissionCheckState",) + NODE_EVENT_TYPES + ("Wait",)


def _items(value, field: str) -> list[Mapping]:
    value = value or []
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise InvalidInput(field, "a list of mappings")
    return value


def _quota(raw, flavor_name: str) -> dict[str, int] | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or not isinstance(raw.get("spec") or {}, Mapping):
        raise InvalidInput("clusterQueue", "a ClusterQueue object")
    spec = raw.get("spec") or {}
    quota: dict[str, int] = {}
    groups = _items(spec.get("resourceGroups"), "clusterQueue.spec.resourceGroups")
    for gi, group in enumerate(groups):
        flavors = _items(group.get("flavors"), f"clusterQueue.spec.resourceGroups[{gi}].flavors")
        for fi, flavor in enumerate(flavors):
            if flavor.get("name") != flavor_name:
                continue
            resources = _items(flavor.get("resources"), f"clusterQueue.spec.resourceGroups[{gi}].flavors[{fi}].resources")
            for ri, res in enumerate(resources):
                name = str(res.get("name"))
                quota[name] = quantities.to_units(
                    name, res.get("nominalQuota", 0),
                    f"clusterQueue.spec.resourceGroups[{gi}].flavors[{fi}].resources[{ri}].nominalQuota")
    return quota


class Flow:
    def __init__(self, input_: Mapping):
        self.common = parse_common(input_)
        wl = input_.get("workload")
        if not isinstance(wl, Mapping):
            raise InvalidInput("workload", "required mapping")
        self.pod_sets = parse_pod_sets(wl.get("podSets"), "workload.podSets")
        self.quota = _quota(input_.get("clusterQueue"), self.common.flavor.name)
        checks = input_.get("admissionChecks") or []
        if not isinstance(checks, list) or not all(isinstance(c, str) for c in checks):
            raise InvalidInput("admissionChecks", "a list of names")
        self.checks = {name: "Pending" for name in checks}
        self.updates: dict[str, dict[str, dict]] = {}
        self.nodes = {n.name: n for n in self.common.nodes}
        self.quota_reserved = False
        self.deactivated = False
        self.admitted = False
        self.pending = None
        self.results = [{"name": ps.name, "topologyAssignment": None, "notFit": None} for ps in self.pod_sets]
        self.rejected = None

    def used_quota(self) -> dict[str, int]:
        used: dict[str, int] = {}
        for workload in self.common.admitted:
            for ps in workload:
                total = sum(c for _, c in ps.assignment.domains)
                add(used, ps.requests, total)
        return used

    def try_reserve(self) -> None:
        if self.quota_reserved or self.deactivated:
            return
        if self.quota is not None:
            needed: dict[str, int] = {}
            for ps in self.pod_sets:
                add(needed, ps.requests, ps.count)
            used = self.used_quota()
            for name in sorted(needed):
                if name not in self.quota:
                    continue
                if used.get(name, 0) + needed[name] > self.quota[name]:
                    self.pending = {"reason": "InsufficientQuota",
                                    "message": f"insufficient quota for {name} in flavor {self.common.flavor.name}, "
                                               f"request > maximum capacity"}
                    return
        self.quota_reserved = True
        self.pending = None

    def try_admit(self) -> None:
        if self.admitted or not self.quota_reserved or self.deactivated:
            return
        if any(state != "Ready" for state in self.checks.values()):
            waiting = sorted(name for name, state in self.checks.items() if state != "Ready")
            self.pending = {"reason": "AdmissionChecksPending",
                            "message": f"waiting for admission checks: {', '.join(waiting)}"}
            return
        self.common.nodes = list(self.nodes.values())
        merged: dict[str, dict] = {}
        for check in self.checks:
            for name, update in self.updates.get(check, {}).items():
                entry = merged.setdefault(name, {"nodeSelector": {}, "tolerations": []})
                entry["nodeSelector"].update(update["nodeSelector"])
                entry["tolerations"].extend(update["tolerations"])
        result = assign_pod_sets(self.common, self.pod_sets, merged)
        if "rejected" in result:
            self.rejected = result["rejected"]
            self.deactivated = True
            self.quota_reserved = False
            self.pending = {"reason": "Rejected", "message": result["rejected"][0]["message"]}
            return
        self.results = result["podSets"]
        if result["admitted"]:
            self.admitted = True
            self.pending = None
        else:
            failure = next(ps["notFit"] for ps in result["podSets"] if ps["notFit"] is not None)
            self.pending = dict(failure)

    def apply(self, event: Mapping, i: int) -> None:
        kind = event_type(event, i, EVENT_TYPES)
        if kind == "AdmissionCheckState":
            check = event.get("check")
            if not isinstance(check, str) or check not in self.checks:
                raise InvalidInput(f"events[{i}].check", f"not one of the admissionChecks: {check!r}")
            state = event.get("state")
            if not isinstance(state, str) or state not in CHECK_STATES:
                raise InvalidInput(f"events[{i}].state", f"one of {', '.join(CHECK_STATES)}")
            if self.deactivated or self.admitted and state == "Ready":
                return
            updates = {}
            for j, update in enumerate(_items(event.get("podSetUpdates"), f"events[{i}].podSetUpdates")):
                f = f"events[{i}].podSetUpdates[{j}]"
                selector = update.get("nodeSelector") or {}
                if not isinstance(selector, Mapping):
                    raise InvalidInput(f"{f}.nodeSelector", "a mapping of label to value")
                updates[str(update.get("name"))] = {
                    "nodeSelector": {str(k): str(v) for k, v in selector.items()},
                    "tolerations": objects.parse_tolerations(update.get("tolerations"), f"{f}.tolerations"),
                }
            self.checks[check] = state
            if state == "Ready":
                self.updates[check] = updates
            elif state == "Retry":
                # quota released, every check back to Pending, requeued at once
                self.quota_reserved = False
                self.admitted = False
                self.results = [{"name": ps.name, "topologyAssignment": None, "notFit": None} for ps in self.pod_sets]
                self.checks = {name: "Pending" for name in self.checks}
                self.updates = {}
            elif state == "Rejected":
                self.deactivated = True
                self.quota_reserved = False
                self.admitted = False
                self.pending = {"reason": "AdmissionCheckRejected", "message": f"admission check {check} rejected the workload"}
            return
        if kind != "Wait":
            # The flow keeps no clock: an admission's moment is its place in the timeline.
            apply_node_event(self.nodes, event, i, 0.0)

    def step(self) -> None:
        if self.deactivated:
            return
        self.try_reserve()
        self.try_admit()

    def state(self) -> dict:
        result = {
            "quotaReserved": self.quota_reserved,
            "admissionChecks": dict(self.checks),
            "admitted": self.admitted,
            "deactivated": self.deactivated,
            "pending": self.pending,
            "podSets": [dict(ps) for ps in self.results],
        }
        if self.rejected is not None:
            result["rejected"] = self.rejected
        return result


def run(input_: Mapping) -> dict:
    try:
        flow = Flow(input_)
    except Refusal as exc:
        return exc.as_result()
    events = input_.get("events") or []
    if not isinstance(events, list):
        raise InvalidInput("events", "a list")
    flow.step()
    initial = flow.state()
    states = []
    for i, event in enumerate(events):
        if not isinstance(event, Mapping):
            raise InvalidInput(f"events[{i}]", "must be a mapping")
        flow.apply(event, i)
        flow.step()
        states.append(flow.state())
    return {"initial": initial, "states": states}
