"""Kueue pictures: the topology tree (blocks, racks, hosts) with each domain's
free capacity and the pods placed in it, and a hot swap's timeline (each node's
state after every event, the workload's pods on it, and what the controller did)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.report.svg import BAD, MUTED, TAKEN, Panel, colour

HOSTNAME = "kubernetes.io/hostname"
BOX_W, BOX_H, GAP_X, GAP_Y = 104, 46, 8, 26
MAX_LEAVES = 48


@dataclass
class Domain:
    path: tuple[str, ...]
    children: dict[str, Domain] = field(default_factory=dict)
    hostnames: list[str] = field(default_factory=list)
    free: dict[str, Any] | None = None
    pod_count: Any = None
    pods: dict[int, int] = field(default_factory=dict)   # podset index -> pods placed below


def _levels(given: dict[str, Any]) -> list[str]:
    return [level.get("nodeLabel") for level in ((given.get("topology") or {}).get("spec") or {}).get("levels") or []]


def _tree(given: dict[str, Any]) -> tuple[Domain, list[str]]:
    levels = _levels(given)
    root = Domain(())
    for node in given.get("nodes") or []:
        labels = ((node.get("metadata") or {}).get("labels")) or {}
        if not levels or any(level not in labels for level in levels):
            continue
        here = root
        for depth, level in enumerate(levels):
            value = str(labels[level])
            here = here.children.setdefault(value, Domain(here.path + (value,)))
            if depth == len(levels) - 1:
                here.hostnames.append(str(labels.get(HOSTNAME) or (node.get("metadata") or {}).get("name")))
    return root, levels


def _walk(domain: Domain):
    yield domain
    for child in domain.children.values():
        yield from _walk(child)


def _leaf_for(root: Domain, levels: list[str], values: list[Any]) -> Domain | None:
    if levels and levels[-1] == HOSTNAME and len(values) == 1:
        for domain in _walk(root):
            if not domain.children and str(values[0]) in domain.hostnames:
                return domain
        return None
    here = root
    for value in values:
        here = here.children.get(str(value))
        if here is None:
            return None
    return here


def _add_pods(root: Domain, levels: list[str], assignment: Any, podset: int) -> None:
    if not isinstance(assignment, dict):
        return
    for placed in assignment.get("domains") or []:
        leaf = _leaf_for(root, assignment.get("levels") or levels, list(placed.get("values") or []))
        if leaf is None:
            continue
        for depth in range(len(leaf.path) + 1):
            domain = _leaf_for(root, [], list(leaf.path[:depth]))
            if domain is not None:
                domain.pods[podset] = domain.pods.get(podset, 0) + int(placed.get("count") or 0)


def _cores(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value / 1000:g}"
    return str(value)


def _draw_tree(root: Domain, levels: list[str], note: str | None, legend: list[tuple[str, str]]) -> Panel:
    panel = Panel()
    top = 0.0
    if note:
        panel.text(0, 12, note, fill=BAD, weight="bold", limit=100)
        top = 22
    leaves = [d for d in _walk(root) if not d.children and d.path][:MAX_LEAVES]
    where: dict[tuple[str, ...], float] = {}
    for index, leaf in enumerate(leaves):
        where[leaf.path] = index * (BOX_W + GAP_X)

    def centre(domain: Domain) -> float | None:
        if domain.path in where:
            return where[domain.path]
        xs = [x for x in (centre(c) for c in domain.children.values()) if x is not None]
        if not xs:
            return None
        where[domain.path] = (min(xs) + max(xs)) / 2
        return where[domain.path]

    centre(root)
    for domain in _walk(root):
        if not domain.path or domain.path not in where:
            continue
        depth = len(domain.path) - 1
        x, y = where[domain.path], top + depth * (BOX_H + GAP_Y)
        for child in domain.children.values():
            if child.path in where:
                panel.line(x + BOX_W / 2, y + BOX_H, where[child.path] + BOX_W / 2, y + BOX_H + GAP_Y, stroke="#8c959f")
        level = levels[depth] if depth < len(levels) else ""
        panel.open_group(**{"class": "domain", "data-level": level, "data-domain": "/".join(domain.path)})
        panel.rect(x, y, BOX_W, BOX_H, fill="#f6f8fa", stroke="#24292f", tip=f"{level}={domain.path[-1]}")
        panel.text(x + 4, y + 12, domain.path[-1], size=10, weight="bold", limit=17)
        if domain.free is not None:
            free = domain.free
            words = [f"cpu {_cores(free['cpu'])}" if "cpu" in free else "", f"pods {free.get('pods')}"
                     if "pods" in free else ""]
            panel.text(x + 4, y + 24, "free " + " ".join(w for w in words if w), size=8, fill=MUTED, limit=24)
        if domain.pod_count is not None:
            panel.text(x + 4, y + 35, f"fits {domain.pod_count} pods", size=8, fill=MUTED)
        px = x + 4
        for podset, count in sorted(domain.pods.items()):
            panel.rect(px, y + BOX_H - 9, 6, 6, fill=colour(podset), stroke=None)
            panel.text(px + 8, y + BOX_H - 3, str(count), size=8)
            px += 12 + 5 * len(str(count))
        panel.close_group()
    bottom = top + max((len(d.path) for d in _walk(root)), default=0) * (BOX_H + GAP_Y) + 4
    total_leaves = sum(1 for d in _walk(root) if not d.children and d.path)
    if total_leaves > len(leaves):
        panel.text(0, bottom, f"{total_leaves - len(leaves)} more leaves not drawn", size=9, fill=MUTED)
        bottom += 14
    panel.legend(legend, bottom, limit=100)
    return panel


def capacity(given: dict[str, Any], result: Any) -> Panel:
    root, levels = _tree(given)
    if isinstance(result, dict):
        for entry in result.get("domains") or []:
            domain = _leaf_for(root, [], list(entry.get("values") or []))
            if domain is not None:
                domain.free = entry.get("free") or {}
                domain.pod_count = entry.get("podCount")
    excluded = [f"{n.get('name')}: {n.get('reason')}" for n in (result or {}).get("nodes") or []
                if isinstance(n, dict) and n.get("included") is False]
    legend = [(TAKEN, "excluded " + ", ".join(excluded[:6]) + (" ..." if len(excluded) > 6 else ""))] if excluded else []
    return _draw_tree(root, levels, None, legend)


def assign(given: dict[str, Any], result: Any) -> Panel:
    root, levels = _tree(given)
    note = None
    legend: list[tuple[str, str]] = []
    if isinstance(result, dict):
        if result.get("rejected") is not None:
            note = "rejected by the webhook"
        if result.get("refused"):
            note = f"refused: {(result['refused'] or {}).get('reason')}"
        for index, podset in enumerate(result.get("podSets") or []):
            _add_pods(root, levels, podset.get("topologyAssignment"), index)
            not_fit = podset.get("notFit")
            text = f"{podset.get('name')}"
            if not_fit:
                text += f": not placed ({not_fit.get('reason')})"
            legend.append((colour(index), text))
    return _draw_tree(root, levels, note, legend)


# -- hot swap ------------------------------------------------------------------------------------------------

_STATE_FILL = {"Ready": "#dafbe1", "NotReady": "#ffd8d3", "NoReadyCondition": "#ffd8d3", "Deleted": "#d0d7de",
               "Tainted": "#fff1c2", "Cordoned": "#fff1c2"}
_EFFECT = {"NodeNotReady": "NotReady", "NodeReady": "Ready", "NodeReadyConditionRemoved": "NoReadyCondition",
           "NodeDeleted": "Deleted", "NodeAdded": "Ready", "NodeTainted": "Tainted", "NodeUntainted": "Ready",
           "NodeCordoned": "Cordoned", "NodeUncordoned": "Ready"}


def _initial_state(node: dict[str, Any]) -> str:
    conditions = [c for c in (node.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"]
    if not conditions:
        return "NoReadyCondition"
    if conditions[0].get("status") != "True":
        return "NotReady"
    if (node.get("spec") or {}).get("taints"):
        return "Tainted"
    return "Cordoned" if (node.get("spec") or {}).get("unschedulable") else "Ready"


def _pods_by_node(podsets: Any) -> dict[str, int]:
    pods: dict[str, int] = {}
    for podset in podsets or []:
        assignment = (podset or {}).get("topologyAssignment") or {}
        for placed in assignment.get("domains") or []:
            values = placed.get("values") or []
            if values:
                pods[str(values[-1])] = pods.get(str(values[-1]), 0) + int(placed.get("count") or 0)
    return pods


def _short(action: dict[str, Any]) -> str:
    kind = action.get("type")
    node = action.get("node") or ""
    if kind == "NodeReplaced":
        return f"{node} → {', '.join(str(r) for r in action.get('replacement') or [])}"
    if kind == "NodeFailed":
        return f"{node} failed ({action.get('trigger')})"
    if kind == "ReplacementFailed":
        return f"{node}: no replacement ({action.get('reason')})"
    if kind == "Evicted":
        return f"evicted ({action.get('reason')})"
    return f"{kind} {node}".strip()


def hot_swap(given: dict[str, Any], result: Any) -> Panel:
    workload = given.get("workload") or {}
    events = list(given.get("events") or [])
    states = list((result or {}).get("states") or []) if isinstance(result, dict) else []
    initial = _pods_by_node(workload.get("podSets"))
    names: list[str] = []
    for node in given.get("nodes") or []:
        name = str((node.get("metadata") or {}).get("name"))
        if name in initial or any(name == str(e.get("node")) for e in events) or any(
                name in _pods_by_node(s.get("podSets")) for s in states):
            names.append(name)
    for event in events:
        if event.get("node") and str(event["node"]) not in names:
            names.append(str(event["node"]))
    condition = {str((n.get("metadata") or {}).get("name")): _initial_state(n) for n in given.get("nodes") or []}
    columns = [("start", dict(condition), initial, [])]
    for index, event in enumerate(events):
        if event.get("node") and event.get("type") in _EFFECT:
            condition[str(event["node"])] = _EFFECT[event["type"]]
        state = states[index] if index < len(states) else {}
        pods = _pods_by_node(state.get("podSets")) if state else {}
        title = f"t={event.get('at')} {event.get('type')}" + (f" {event.get('node')}" if event.get("node") else "")
        columns.append((title, dict(condition), pods, list(state.get("actions") or []) if state else None))
    panel = Panel()
    name_w, col_w, row_h = 110.0, 118.0, 22.0
    for c, (title, _cond, _pods, _actions) in enumerate(columns[:16]):
        panel.text(name_w + c * col_w + 2, 12, title, size=8, weight="bold", limit=26)
    for r, name in enumerate(names[:24]):
        y = 20 + r * row_h
        panel.text(0, y + 14, name, size=10, limit=18)
        panel.open_group(**{"class": "lane", "data-node": name})
        for c, (_title, cond, pods, actions) in enumerate(columns[:16]):
            state = cond.get(name, "Deleted")
            x = name_w + c * col_w
            panel.rect(x, y, col_w - 4, row_h - 4, fill=_STATE_FILL.get(state, "#ffffff"), stroke="#8c959f",
                       tip=f"{name}: {state}")
            label = state if state != "Ready" else ""
            count = pods.get(name, 0)
            if count or (c > 0 and actions is not None):
                label = (f"{count} pod{'s' if count != 1 else ''} " if count else "") + label
            panel.text(x + 3, y + 13, label.strip(), size=8, limit=22)
        panel.close_group()
    y = 28 + min(len(names), 24) * row_h
    panel.text(0, y + 10, "actions", size=10, weight="bold")
    for c, (_title, _cond, _pods, actions) in enumerate(columns[1:16], start=1):
        x = name_w + c * col_w
        if actions is None:
            panel.text(x + 2, y + 10, "(no state)", size=8, fill=MUTED)
            continue
        for a, action in enumerate(actions[:5]):
            panel.text(x + 2, y + 10 + a * 12, _short(action if isinstance(action, dict) else {}), size=8,
                       fill=BAD if (isinstance(action, dict) and action.get("type") in ("Evicted", "NodeFailed",
                                                                                       "ReplacementFailed")) else
                       "#24292f", limit=26)
    last = states[-1] if states else {}
    if isinstance(last, dict) and last.get("evicted"):
        panel.text(0, y + 80, f"workload evicted (requeued: {last.get('requeued')})", size=10, fill=BAD, weight="bold")
    return panel
