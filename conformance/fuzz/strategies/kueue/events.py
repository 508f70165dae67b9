"""Hot-swap event timelines: nodes failing, recovering, tainted, cordoned,
deleted and added, and the workload's pods changing phase."""

from __future__ import annotations

from hypothesis import strategies as st

from reference_impl.kueue.objects import HOSTNAME

from .nodes import node, taint


@st.composite
def hot_swap_event(draw, present: list[str], gone: list[str], at: float, spare: int):
    kind = draw(st.sampled_from(("NodeNotReady", "NodeNotReady", "NodeReady", "NodeReadyConditionRemoved",
                                 "NodeDeleted", "NodeAdded", "NodeTainted", "NodeUntainted", "NodeCordoned",
                                 "NodeUncordoned", "Wait", "PodsRunning", "PodsTerminating", "PodsTerminated")))
    if kind == "NodeAdded" or (not present and kind != "Wait"):
        name = f"spare{spare}"
        return {"type": "NodeAdded", "at": at, "nodeObject": None, "_name": name}
    if kind == "Wait":
        return {"type": "Wait", "at": at}
    host = draw(st.sampled_from(present + gone if kind.startswith("Pods") and gone else present))
    event: dict = {"type": kind, "node": host, "at": at}
    if kind == "NodeNotReady" and draw(st.integers(0, 3)) == 0:
        event["status"] = "Unknown"
    if kind in ("NodeTainted", "NodeUntainted"):
        event["taint"] = draw(taint())
    return event


@st.composite
def timeline(draw, nodes: list[dict], levels: list[str], timed: bool, max_events: int = 6):
    present = [n["metadata"]["name"] for n in nodes]
    gone: list[str] = []
    events = []
    at = 0.0
    spare = 0
    for _ in range(draw(st.integers(0 if not timed else 1, max_events))):
        if timed:
            at += draw(st.sampled_from((0, 0, 5, 10, 25, 30, 31, 60)))
        event = draw(hot_swap_event(present, gone, at, spare))
        if event["type"] == "NodeAdded":
            name = event.pop("_name")
            spare += 1
            path = [f"{lv.rsplit('-', 1)[-1][:1]}1" for lv in levels if lv != HOSTNAME] + [name]
            event["nodeObject"] = draw(node(name, levels, path if HOSTNAME in levels else path[:-1], healthy=True))
            present.append(name)
        elif event["type"] == "NodeDeleted":
            present.remove(event["node"])
            gone.append(event["node"])
        if not timed:
            event.pop("at", None)
        events.append(event)
    return events
