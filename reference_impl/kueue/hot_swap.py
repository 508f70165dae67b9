"""Node hot swap over a timeline of events (spec "Hot swap support" and its
feature-gate matrix; upstream `pkg/controller/tas/node_controller.go` and the
scheduler's second pass).

The node controller's judgement is evaluated after every event and timer for
every node of the assignment; a node is marked when it turns failed. Once every
event and timer of an instant has been handled, the scheduler's second pass
looks for a replacement of the first unhealthy node.

The node controller also fails the workload's late pods (created with the
node's hostname selector, not yet bound) when it looks at the pods on a node,
and the stray ones waiting on a node outside the assignment; it skips a
finished or evicted workload, and sees no node of an assignment whose lowest
level is not the hostname."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from reference_impl.errors import InvalidInput
from reference_impl.refusal import Refusal

from . import check_updates, objects, topology
from . import gates as g
from .annotations import IS_GROUP_WORKLOAD
from .inputs import parse_common, parse_pod_sets
from .node_events import NODE_EVENT_TYPES, apply_node_event, event_node, event_type
from .objects import HOSTNAME, Assignment, Node, Taint
from .placement import NotFit
from .replacement import find_replacement
from .resources import add
from .seams import CONTRACT, Seams
from .topology import usage_per_leaf
from .validation import webhook_errors
from .workload import to_requests

NODE_FAILURE_DELAY = 30.0
POD_STATES = ("Running", "Pending", "Gated", "Late", "Terminating", "Terminated")
PROGRESSING = ("Running", "Pending")
SCHEDULING_EFFECTS = ("NoSchedule", "NoExecute")

POD_EVENTS = {"PodsRunning": "Running", "PodsTerminating": "Terminating", "PodsTerminated": "Terminated"}
EVENT_TYPES = NODE_EVENT_TYPES + ("PodsRunning", "PodsTerminating", "PodsTerminated", "WorkloadFinished", "Wait")


@dataclass
class Cluster:
    nodes: dict[str, Node]                       # present nodes, in input order
    taint_added: dict[tuple[str, Taint], float] = field(default_factory=dict)


@dataclass
class SwapState:
    assignments: dict[str, Assignment]
    pod_states: dict[str, str]
    unhealthy: list[str] = field(default_factory=list)
    failed: dict[str, bool] = field(default_factory=dict)     # last judgement per node
    evicted: bool = False
    finished: bool = False
    requeued: bool | None = None
    eviction: dict | None = None
    attempted: bool = False


def _hostname_assignment(raw, field_: str, topology_levels) -> Assignment:
    parsed = objects.parse_assignment(raw, field_)
    if topology_levels[-1] != HOSTNAME:
        # The node controller sees no node of such an assignment; it is kept as given.
        return parsed
    if parsed.levels and parsed.levels[-1] != HOSTNAME:
        raise InvalidInput(f"{field_}.levels", "the lowest assignment level must be kubernetes.io/hostname")
    return Assignment(levels=(HOSTNAME,), domains=[((v[-1],), c) for v, c in parsed.domains])


class Simulation:
    def __init__(self, input_: Mapping, seams: Seams = CONTRACT):
        self.seams = seams
        self.common = parse_common(input_)
        # Without the hostname level the node controller finds the workload on
        # no node (upstream: HasNodeInPodSetAssignment needs a hostname-lowest
        # assignment): nothing is ever marked.
        self.hostname_lowest = self.common.topology.levels[-1] == HOSTNAME
        gates = self.common.gates
        self.gates = gates
        self.fnr = gates.enabled(g.FAILED_NODE_REPLACEMENT)
        self.rno = gates.enabled(g.REPLACE_ON_POD_TERMINATION)
        self.ft = gates.enabled(g.FIXED_TIME)
        self.tt = gates.enabled(g.NODE_TAINTS)
        self.fail_fast = gates.enabled(g.FAIL_FAST)
        self.skip_pod_owned = gates.enabled(g.SKIP_POD_OWNED)
        self.eviction_controller = input_.get("taintEvictionController", True)
        wl = input_.get("workload")
        if not isinstance(wl, Mapping):
            raise InvalidInput("workload", "required mapping")
        self.pod_sets = parse_pod_sets(wl.get("podSets"), "workload.podSets")
        errors = webhook_errors(self.pod_sets, gates.enabled(g.MULTI_LAYER))
        if errors:
            # an admitted workload has passed the webhook
            raise InvalidInput(f"workload.podSets[{errors[0].pod_set}].annotations", errors[0].message)
        self.requests = {r.name: r for r in to_requests(self.pod_sets, gates)}
        self.updates = check_updates.parse(wl.get("admissionChecks"), "workload.admissionChecks")
        for name, request in self.requests.items():
            # the scheduler's placement merges the Ready checks' updates
            request.tolerations.extend(self.updates.for_pods(name))
        owners = wl.get("owners") or []
        if not isinstance(owners, list) or not all(isinstance(o, Mapping) for o in owners):
            raise InvalidInput("workload.owners", "a list of owner references")
        annotations = wl.get("annotations") or {}
        if not isinstance(annotations, Mapping):
            raise InvalidInput("workload.annotations", "a mapping")
        # exactly one owner, a core/v1 Pod, and not a pod group
        self.pod_owned = (len(owners) == 1 and owners[0].get("kind") == "Pod"
                          and owners[0].get("apiVersion", "v1") == "v1"
                          and annotations.get(IS_GROUP_WORKLOAD) != "true")
        assignments = {}
        for i, raw in enumerate(wl.get("podSets")):
            if raw.get("topologyAssignment") is None:
                continue
            assignments[raw["name"]] = _hostname_assignment(raw["topologyAssignment"],
                                                            f"workload.podSets[{i}].topologyAssignment",
                                                            self.common.topology.levels)
        pod_states = {}
        if self.hostname_lowest:
            for assignment in assignments.values():
                for (host,), _ in assignment.domains:
                    pod_states[host] = "Running"
        pod_states_in = wl.get("podStates") or {}
        if not isinstance(pod_states_in, Mapping):
            raise InvalidInput("workload.podStates", "a mapping of node name to pod state")
        if pod_states_in and not self.hostname_lowest:
            raise InvalidInput("workload.podStates", "pod states are per assigned node: the topology has no hostname level")
        stray_in = wl.get("strayPods") or []
        if not isinstance(stray_in, list) or not all(isinstance(n, str) for n in stray_in):
            raise InvalidInput("workload.strayPods", "a list of node names")
        unhealthy_in = wl.get("unhealthyNodes") or []
        if not isinstance(unhealthy_in, list) or not all(isinstance(n, str) for n in unhealthy_in):
            raise InvalidInput("workload.unhealthyNodes", "a list of node names")
        for host, state in pod_states_in.items():
            if state not in POD_STATES:
                raise InvalidInput(f"workload.podStates.{host}", f"one of {', '.join(POD_STATES)}")
            pod_states[host] = state
        if unhealthy_in and not self.hostname_lowest:
            raise InvalidInput("workload.unhealthyNodes", "no node of the assignment is known: the topology has no hostname level")
        for host in stray_in:
            if host in pod_states:
                raise InvalidInput("workload.strayPods", f"{host!r} is a node of the assignment: use podStates Late")
            pod_states[host] = "Late"
        # A node the workload already lists has been marked: judging it failed
        # again is no new mark.
        self.state = SwapState(assignments=assignments, pod_states=pod_states,
                               unhealthy=list(unhealthy_in), failed={host: True for host in unhealthy_in})
        self.cluster = Cluster(nodes={n.name: n for n in self.common.nodes})
        for node in self.common.nodes:
            for taint in node.taints:
                self.cluster.taint_added[(node.name, taint)] = 0.0
        self.now = 0.0
        self.actions: list[dict] = []
        self.fired: set = set()

    # -- the pieces of state the node controller looks at ------------------

    def assigned_nodes(self) -> list[str]:
        if not self.hostname_lowest:
            return []
        seen = []
        for ps in self.pod_sets:
            a = self.state.assignments.get(ps.name)
            for (host,), _ in (a.domains if a else []):
                if host not in seen:
                    seen.append(host)
        return seen

    def pod_sets_on(self, host: str):
        return [ps for ps in self.pod_sets
                if ps.name in self.state.assignments
                and any(v[-1] == host for v, _ in self.state.assignments[ps.name].domains)]

    def effective_tolerations(self, ps) -> list:
        """The tolerations the node controller judges a taint by."""
        return (list(ps.tolerations) + list(self.common.flavor.tolerations)
                + self.updates.for_node_controller(ps.name, self.gates.version))

    def pod_tolerations(self, ps) -> list:
        """The tolerations the job's pods run with (the taint eviction controller's view)."""
        return list(ps.tolerations) + list(self.common.flavor.tolerations) + self.updates.for_pods(ps.name)

    def progressing(self, host: str) -> bool:
        return self.pod_states.get(host) in PROGRESSING

    @property
    def pod_states(self):
        return self.state.pod_states

    def classify(self, node: Node, host: str) -> tuple[bool, bool]:
        """(some taint untolerated, some taint tolerated only temporarily)"""
        untolerated = temporary = False
        for taint in node.taints:
            if taint.effect not in SCHEDULING_EFFECTS:
                continue
            tolerated_all = True
            permanent_all = True
            for ps in self.pod_sets_on(host):
                tolerations = self.effective_tolerations(ps)
                if not any(t.tolerates(taint) for t in tolerations):
                    tolerated_all = False
                    break
                if not any(t.tolerates(taint) for t in tolerations if t.toleration_seconds is None):
                    permanent_all = False
            if not tolerated_all:
                untolerated = True
            elif not permanent_all:
                temporary = True
        return untolerated, temporary

    def looks_at_pods(self, host: str) -> bool:
        """Whether the controller's judgement of `host` lists the workload's pods
        there (upstream checkPodsOnNode), which is when it fails late pods."""
        node = self.cluster.nodes.get(host)
        condition = node.ready_condition() if node is not None else None
        if condition is None:
            return False
        if condition.status != "True":
            return self.rno
        if not self.tt or not any(t.effect in SCHEDULING_EFFECTS for t in node.taints):
            return False
        untolerated, temporary = self.classify(node, host)
        return (untolerated and self.rno) or (not untolerated and temporary)

    def judge(self, host: str):
        """'failed' with a trigger, 'healthy', or None (no change)."""
        node = self.cluster.nodes.get(host)
        if node is None:
            return "failed", "NodeDeleted"
        condition = node.ready_condition()
        if condition is None:
            return "failed", "NoReadyCondition"
        if condition.status != "True":
            expired = self.now - condition.last_transition >= NODE_FAILURE_DELAY
            if expired and (self.ft or not self.rno):
                return "failed", "NotReadyTimeout"
            if self.rno:
                return ("healthy", None) if self.progressing(host) else ("failed", "PodsNotRunning")
            return None, None
        if not self.tt or not any(t.effect in SCHEDULING_EFFECTS for t in node.taints):
            return "healthy", None
        untolerated, temporary = self.classify(node, host)
        if untolerated:
            if not self.rno or not self.progressing(host):
                return "failed", "UntoleratedTaint"
            return "healthy", None
        if temporary:
            return ("healthy", None) if self.progressing(host) else ("failed", "UntoleratedTaint")
        return "healthy", None

    # -- the node controller ---------------------------------------------

    def act(self, **action) -> None:
        self.actions.append({"at": _num(self.now), **action})

    def evict(self, reason: str, message: str) -> None:
        self.state.evicted = True
        self.state.requeued = not (self.skip_pod_owned and self.pod_owned)
        self.state.eviction = {"reason": reason, "message": message}
        self.state.unhealthy = []
        self.act(type="Evicted", reason=reason, message=message)

    def fail_late_pods(self, host: str) -> None:
        if self.pod_states.get(host) == "Late":
            self.state.pod_states[host] = "Terminated"
            self.act(type="PodsFailed", node=host)

    def stray_nodes(self) -> list[str]:
        assigned = self.assigned_nodes()
        return [h for h, state in self.pod_states.items() if state == "Late" and h not in assigned]

    def reconcile(self) -> None:
        # A finished or evicted workload is skipped, also for its late pods.
        if self.state.evicted or self.state.finished or not self.fnr:
            return
        for host in self.assigned_nodes() + [h for h in self.state.unhealthy if h not in self.assigned_nodes()]:
            if self.state.evicted:
                return
            verdict, trigger = self.judge(host)
            if host in self.assigned_nodes() and self.looks_at_pods(host):
                self.fail_late_pods_after(host, verdict, trigger)
                continue
            if verdict is None:
                continue
            self.mark(host, verdict, trigger)
        if self.state.evicted:
            return
        for host in self.stray_nodes():
            # A stray pod's node is healthy for the workload; its pod is failed.
            # Upstream reconciles a node that is gone without listing pods.
            if host not in self.cluster.nodes:
                continue
            if host in self.state.unhealthy:
                self.state.unhealthy.remove(host)
                self.state.failed[host] = False
                self.act(type="NodeRecovered", node=host)
            self.fail_late_pods(host)

    def fail_late_pods_after(self, host: str, verdict, trigger) -> None:
        if verdict is not None:
            self.mark(host, verdict, trigger)
        if not self.state.evicted:
            self.fail_late_pods(host)

    def mark(self, host: str, verdict, trigger) -> None:
        was_failed = self.state.failed.get(host, False)
        self.state.failed[host] = verdict == "failed"
        if verdict == "failed" and not was_failed:
            if self.state.unhealthy and host not in self.state.unhealthy:
                names = ", ".join(self.state.unhealthy + [host])
                self.act(type="NodeFailed", node=host, trigger=trigger)
                self.evict("NodeFailures",
                           f"Workload eviction triggered due to multiple TAS assigned node failures, including: {names}")
                return
            if host not in self.state.unhealthy:
                self.state.unhealthy.append(host)
            self.act(type="NodeFailed", node=host, trigger=trigger)
        elif verdict == "healthy" and host in self.state.unhealthy:
            self.state.unhealthy.remove(host)
            self.act(type="NodeRecovered", node=host)

    # -- the scheduler's second pass -------------------------------------

    def snapshot(self):
        nodes = list(self.cluster.nodes.values())
        snap = topology.build(self.common.topology, self.common.flavor, nodes, self.common.pods,
                              self.common.admitted, self.seams)
        for name, assignment in self.state.assignments.items():
            ps = self.requests[name]
            for leaf_id, usage in usage_per_leaf(snap, assignment.domains, ps.requests).items():
                add(snap.leaves[leaf_id].tas_usage, usage)
        return snap

    def second_pass(self) -> None:
        # With TASFailedNodeReplacement off nothing in hot swap happens, also for
        # a node the workload already lists as unhealthy.
        if self.state.evicted or self.state.finished or not self.fnr or not self.state.unhealthy:
            return
        node = self.state.unhealthy[0]
        if self.skip_pod_owned and self.pod_owned:
            self.state.unhealthy = []
            self.act(type="AssignmentKept", node=node)
            return
        snap = self.snapshot()
        assumed: dict = {}
        new_assignments = dict(self.state.assignments)
        replacement_hosts: list[str] = []
        for ps in self.pod_sets:
            assignment = self.state.assignments.get(ps.name)
            if assignment is None or not any(v[-1] == node for v, _ in assignment.domains):
                continue
            try:
                merged, part = find_replacement(snap, self.requests[ps.name], assignment, node, assumed, self.gates)
            except NotFit as exc:
                self.act(type="ReplacementFailed", node=node, reason=exc.reason, message=exc.message)
                if self.fail_fast:
                    self.evict("NodeFailures", "Workload was evicted as there was no replacement for unhealthy "
                                               f"node(s): {','.join(self.state.unhealthy)}")
                return
            for leaf_id, usage in usage_per_leaf(snap, part.domains, self.requests[ps.name].requests).items():
                add(assumed.setdefault(leaf_id, {}), usage)
            new_assignments[ps.name] = merged
            for (host,), _ in part.domains:
                if host not in replacement_hosts:
                    replacement_hosts.append(host)
        self.state.assignments = new_assignments
        self.state.unhealthy = []
        self.state.failed.pop(node, None)
        for host in replacement_hosts:
            self.state.pod_states[host] = "Running"
        self.act(type="NodeReplaced", node=node, replacement=replacement_hosts)

    # -- the timeline -------------------------------------------------------

    def timers(self) -> list[tuple[float, str, tuple]]:
        """Pending timers: (time, kind, key)."""
        result = []
        for host, node in self.cluster.nodes.items():
            condition = node.ready_condition()
            if condition is not None and condition.status != "True":
                key = ("notready", host, condition.last_transition)
                at = condition.last_transition + NODE_FAILURE_DELAY
                if key not in self.fired and at >= self.now:
                    result.append((at, "notready", key))
            if self.eviction_controller and self.progressing(host):
                for taint in node.taints:
                    if taint.effect != "NoExecute":
                        continue
                    seconds = self.eviction_delay(host, taint)
                    if seconds is None:
                        continue
                    at = self.cluster.taint_added.get((host, taint), 0.0) + seconds
                    key = ("evict", host, taint, at)
                    if key not in self.fired:
                        result.append((max(at, self.now), "evict", key))
        return sorted(result, key=lambda t: t[0])

    def eviction_delay(self, host: str, taint: Taint):
        """Seconds after the taint was added that the taint eviction controller
        evicts the workload's pods on `host`; None when they tolerate it for good."""
        delay = None
        for ps in self.pod_sets_on(host):
            matching = [t for t in self.pod_tolerations(ps) if t.tolerates(taint)]
            if not matching:
                return 0.0
            if any(t.toleration_seconds is None for t in matching):
                continue
            seconds = float(max(0, min(t.toleration_seconds for t in matching)))
            delay = seconds if delay is None else min(delay, seconds)
        return delay

    def fire(self, kind: str, key: tuple) -> None:
        self.fired.add(key)
        if kind == "evict":
            host = key[1]
            if self.progressing(host):
                self.state.pod_states[host] = "Terminating"
                self.act(type="PodsEvicted", node=host)

    def pass_instant(self) -> None:
        """The scheduler's second pass once an instant is over."""
        self.second_pass()
        self.reconcile()
        self.fire_due_now()

    def advance_to(self, until: float) -> None:
        """Fire every timer up to `until`: those of earlier instants each with
        their second pass, those at `until` itself before its events."""
        while True:
            pending = [t for t in self.timers() if t[0] <= until]
            if not pending:
                break
            at = pending[0][0]
            self.now = max(self.now, at)
            for when, kind, key in pending:
                if when == at:
                    self.fire(kind, key)
            self.reconcile()
            self.fire_due_now()
            if self.now < until:
                self.pass_instant()
        self.now = max(self.now, until)

    def fire_due_now(self) -> None:
        for _ in range(100):
            due = [t for t in self.timers() if t[0] <= self.now]
            if not due:
                return
            for _, kind, key in due:
                self.fire(kind, key)
            self.reconcile()

    def apply(self, event: Mapping, i: int) -> None:
        kind = event_type(event, i, EVENT_TYPES)
        if kind == "Wait":
            return
        if kind == "WorkloadFinished":
            self.state.finished = True
            return
        if kind in POD_EVENTS:
            self.state.pod_states[event_node(event, i)] = POD_EVENTS[kind]
            return
        apply_node_event(self.cluster.nodes, event, i, self.now, self.cluster.taint_added)

    def state_dict(self) -> dict:
        s = self.state
        return {
            "at": _num(self.now),
            "unhealthyNodes": list(s.unhealthy),
            "admitted": not s.evicted,
            "evicted": s.evicted,
            "finished": s.finished,
            "requeued": s.requeued,
            "eviction": s.eviction,
            "podSets": [{"name": ps.name,
                         "topologyAssignment": s.assignments[ps.name].to_dict() if ps.name in s.assignments else None}
                        for ps in self.pod_sets],
            "actions": self.actions,
            "requeueAfter": self.requeue_after(),
        }

    def requeue_after(self) -> dict:
        """Seconds until the node controller looks again at a NotReady node it
        returned early from: with TASReplaceNodeOnPodTermination off it waits for
        the 30 s delay (upstream Reconcile's RequeueAfter); with it on it waits
        for pod events and sets no delay."""
        s = self.state
        if s.evicted or s.finished or not self.fnr or self.rno:
            return {}
        result = {}
        watched = self.assigned_nodes() + [h for h in s.unhealthy if h not in self.assigned_nodes()]
        for host in watched:
            node = self.cluster.nodes.get(host)
            condition = node.ready_condition() if node is not None else None
            if condition is None or condition.status == "True":
                continue
            left = condition.last_transition + NODE_FAILURE_DELAY - self.now
            if left > 0:
                result[host] = _num(left)
        return result


def _num(value: float):
    return int(value) if float(value).is_integer() else value


def run(input_: Mapping, seams: Seams = CONTRACT) -> dict:
    try:
        sim = Simulation(input_, seams)
    except Refusal as exc:
        return exc.as_result()
    events = input_.get("events")
    if not isinstance(events, list):
        raise InvalidInput("events", "required list")
    states = []
    sim.reconcile()
    sim.fire_due_now()
    first_at = events[0].get("at", 0) if events and isinstance(events[0], Mapping) else None
    if first_at != 0:
        sim.pass_instant()
    last = 0.0
    for i, event in enumerate(events):
        if not isinstance(event, Mapping):
            raise InvalidInput(f"events[{i}]", "must be a mapping")
        at = event.get("at", last)
        if isinstance(at, bool) or not isinstance(at, (int, float)) or at < last:
            raise InvalidInput(f"events[{i}].at", "a number of seconds, not below the previous event's")
        sim.advance_to(float(at))
        sim.apply(event, i)
        sim.reconcile()
        sim.fire_due_now()
        following = events[i + 1] if i + 1 < len(events) else None
        next_at = following.get("at", at) if isinstance(following, Mapping) else None
        if next_at != at:
            sim.pass_instant()
        states.append(sim.state_dict())
        sim.actions = []
        last = float(at)
    return {"states": states}
