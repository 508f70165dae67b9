"""What a node event of a timeline does to the cluster's nodes, for the hot
swap simulation and the provisioning flow alike: a node added or deleted, its
Ready condition set or removed, a taint added or removed, cordoned or not.

Events about pods, admission checks and the passing of time belong to the
flows that have them."""

from __future__ import annotations

from collections.abc import Mapping

from reference_impl.errors import InvalidInput

from . import objects
from .objects import Condition, Node, Taint

NODE_EVENT_TYPES = ("NodeNotReady", "NodeReady", "NodeReadyConditionRemoved", "NodeDeleted", "NodeAdded",
                    "NodeTainted", "NodeUntainted", "NodeCordoned", "NodeUncordoned")


def event_type(event: Mapping, i: int, types: tuple[str, ...]) -> str:
    kind = event.get("type")
    if not isinstance(kind, str) or kind not in types:
        raise InvalidInput(f"events[{i}].type", f"one of {', '.join(types)}")
    return kind


def event_node(event: Mapping, i: int) -> str:
    if not isinstance(event.get("node"), str):
        raise InvalidInput(f"events[{i}].node", "required")
    return event["node"]


def apply_node_event(nodes: dict[str, Node], event: Mapping, i: int, now: float,
                     taint_added: dict[tuple[str, Taint], float] | None = None) -> None:
    """Apply one event of NODE_EVENT_TYPES at time `now`; `taint_added`, when
    kept, records when each taint appeared on its node (tolerationSeconds count
    from then)."""
    kind = event["type"]
    if kind == "NodeAdded":
        node = objects.parse_node(event.get("nodeObject"), f"events[{i}].nodeObject")
        nodes[node.name] = node
        if taint_added is not None:
            for taint in node.taints:
                taint_added[(node.name, taint)] = now
        return
    host = event_node(event, i)
    node = nodes.get(host)
    if node is None:
        if kind == "NodeDeleted":
            return
        raise InvalidInput(f"events[{i}].node", f"no node {host!r} at that time")
    if kind == "NodeDeleted":
        del nodes[host]
    elif kind in ("NodeNotReady", "NodeReady"):
        status = "True" if kind == "NodeReady" else str(event.get("status", "False"))
        condition = node.ready_condition()
        if condition is None:
            node.conditions.append(Condition("Ready", status, now))
        elif condition.status != status:
            condition.status = status
            condition.last_transition = now
    elif kind == "NodeReadyConditionRemoved":
        node.conditions = [c for c in node.conditions if c.type != "Ready"]
    elif kind in ("NodeTainted", "NodeUntainted"):
        taint = objects.parse_taint(event.get("taint"), f"events[{i}].taint")
        if kind == "NodeTainted":
            if taint not in node.taints:
                node.taints.append(taint)
                if taint_added is not None:
                    taint_added[(host, taint)] = now
        else:
            node.taints = [t for t in node.taints if not (t.key == taint.key and t.effect == taint.effect)]
    elif kind == "NodeCordoned":
        node.unschedulable = True
    elif kind == "NodeUncordoned":
        node.unschedulable = False
