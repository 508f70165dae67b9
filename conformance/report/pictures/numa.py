"""A node as NUMA boxes: each box its CPUs (one cell each), its memory (a bar)
and its devices (one square each); what was held before the case shaded grey,
what the case placed in the colour of its pod or container, listed in a legend."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance import quantity
from conformance.report.pictures.hints import filter_hints
from conformance.report.svg import BAD, MUTED, TAKEN, Panel, colour, stacked

CELL, COLUMNS = 11, 8
MAX_CELLS = 256


@dataclass
class Box:
    id: str
    cpus: list[int] = field(default_factory=list)
    cpu_owner: dict[int, str] = field(default_factory=dict)   # cpu id -> colour
    cpu_note: str | None = None                               # CPU shares that are no whole CPUs
    memory: float = 0
    memory_parts: list[tuple[float, str]] = field(default_factory=list)
    devices: list[tuple[str, str | None]] = field(default_factory=list)  # (label, colour or None when free)

    def take_cpus(self, count: int, fill: str) -> None:
        """Any `count` free CPUs of this node (the answer named no CPU ids)."""
        for cpu in self.cpus:
            if count <= 0:
                return
            if cpu not in self.cpu_owner:
                self.cpu_owner[cpu] = fill
                count -= 1

    def take_devices(self, resource: str, count: int, fill: str) -> None:
        for index, (label, owner) in enumerate(self.devices):
            if count <= 0:
                return
            if owner is None and label.startswith(resource):
                self.devices[index] = (label, fill)
                count -= 1


def _number(value: Any) -> float:
    if isinstance(value, bool) or value is None:
        return 0
    if isinstance(value, (int, float)):
        return value
    try:
        return float(quantity.parse(str(value)))
    except Exception:  # noqa: BLE001 - drawn as nothing
        return 0


def _gib(value: float) -> str:
    return f"{value / 2**30:.3g} GiB"


def draw(boxes: list[Box], legend: list[tuple[str, str]], note: str | None = None,
         distances: list[list[Any]] | None = None) -> Panel:
    panel = Panel()
    x = 0.0
    top = 0.0
    if note:
        panel.text(0, 12, note, fill=BAD, weight="bold", limit=90)
        top = 22
    box_height = 0.0
    drawn = []
    for box in boxes:
        shown = box.cpus[:MAX_CELLS]
        rows = max(1, -(-len(shown) // COLUMNS))
        width = max(COLUMNS * CELL + 16, 130)
        inner = Panel()
        inner.text(8, 14, f"NUMA {box.id}" if box.id.lstrip("-").isdigit() else box.id, weight="bold")
        y = 22.0
        for index, cpu in enumerate(shown):
            owner = box.cpu_owner.get(cpu)
            inner.rect(8 + (index % COLUMNS) * CELL, y + (index // COLUMNS) * CELL, CELL - 2, CELL - 2,
                       fill=owner or "#ffffff", stroke="#8c959f", tip=f"CPU {cpu}")
        y += rows * CELL + 4
        caption = f"{len(box.cpus)} CPUs"
        if len(box.cpus) > len(shown):
            caption += f" (first {len(shown)} drawn)"
        inner.text(8, y + 8, caption, size=9, fill=MUTED)
        y += 12
        if box.cpu_note:
            inner.text(8, y + 8, box.cpu_note, size=9, limit=24)
            y += 12
        if box.memory or box.memory_parts:
            bar = width - 16
            inner.rect(8, y + 2, bar, 10, stroke="#8c959f", tip=f"memory {_gib(box.memory)}")
            used = 0.0
            for amount, fill in box.memory_parts:
                share = bar * amount / box.memory if box.memory else 0
                share = max(0.0, min(share, bar - used))
                if share:
                    inner.rect(8 + used, y + 2, share, 10, fill=fill, stroke=None)
                used += share
            inner.text(8, y + 24, f"memory {_gib(box.memory)}", size=9, fill=MUTED)
            y += 28
        for index, (label, owner) in enumerate(box.devices[:24]):
            dx, dy = 8 + (index % 6) * 18, y + 2 + (index // 6) * 18
            inner.rect(dx, dy, 15, 15, fill=owner or "#ffffff", stroke="#24292f", tip=label)
        if box.devices:
            y += 2 + (-(-min(len(box.devices), 24) // 6)) * 18
            kinds = sorted({label.split("#")[0] for label, _ in box.devices})
            inner.text(8, y + 8, "devices: " + ", ".join(kinds), size=9, fill=MUTED, limit=28)
            y += 12
        box_height = max(box_height, y + 6)
        drawn.append((box, inner, width))
    for box, inner, width in drawn:
        panel.open_group(**{"class": "numa", "data-numa": box.id})
        panel.rect(x, top, width, box_height, fill="#f6f8fa", stroke="#24292f")
        panel.place(inner, x, top)
        panel.close_group()
        x += width + 10
    y = top + box_height + 16
    if distances and len(boxes) > 1:
        rows = ["  ".join(str(v) for v in row) for row in distances]
        panel.text(0, y, "distances: " + " | ".join(rows), size=10, fill=MUTED, limit=90)
        y += 16
    panel.legend(legend, y, limit=90)
    return panel


# -- kubelet -------------------------------------------------------------------------------------------------


def _kubelet_boxes(given: dict[str, Any]) -> dict[str, Box]:
    node = given.get("node") or {}
    boxes: dict[str, Box] = {}
    next_cpu = 0
    for numa_node in node.get("numaNodes") or []:
        cpus = numa_node.get("cpus")
        if isinstance(cpus, list):
            ids = [int(c) for c in cpus]
        else:
            ids = list(range(next_cpu, next_cpu + int(cpus or 0)))
        next_cpu = max([next_cpu, *(i + 1 for i in ids)])
        box = Box(str(numa_node.get("id")), cpus=ids, memory=_number(numa_node.get("memory")))
        for resource, count in sorted((numa_node.get("devices") or {}).items()):
            box.devices += [(f"{resource}#{i}", None) for i in range(int(count or 0))]
        boxes[box.id] = box
    for held in node.get("allocated") or []:
        box = boxes.get(str(held.get("numa")))
        if box is None:
            continue
        box.take_cpus(int(held.get("cpus") or 0), TAKEN)
        if held.get("memory"):
            box.memory_parts.append((_number(held["memory"]), TAKEN))
        for resource, count in sorted((held.get("devices") or {}).items()):
            box.take_devices(resource, int(count or 0), TAKEN)
    return boxes


def kubelet_admit(given: dict[str, Any], result: Any) -> Panel:
    boxes = _kubelet_boxes(given)
    legend: list[tuple[str, str]] = []
    if any(box.cpu_owner for box in boxes.values()):
        legend.append((TAKEN, "held before the first event"))
    note = None
    if isinstance(result, dict):
        if result.get("started") is False or result.get("refused"):
            refused = result.get("refused") or {}
            note = f"kubelet does not start: {refused.get('reason') or 'refused'}"
        placed = []
        for pod in result.get("pods") or []:
            if pod.get("admitted") is False:
                legend.append(("#ffffff", f"{pod.get('name')}: rejected ({pod.get('reason') or 'no reason given'})"))
                continue
            for container in pod.get("containers") or []:
                placed.append((pod, container))
        # Explicit CPU ids first, so that counts fill only what is left.
        for index, (_pod, container) in enumerate(placed):
            fill = colour(index)
            for cpu in container.get("cpuIDs") or []:
                for box in boxes.values():
                    if cpu in box.cpus:
                        box.cpu_owner[cpu] = fill
        for index, (pod, container) in enumerate(placed):
            fill = colour(index)
            if not container.get("cpuIDs"):
                for numa_id, count in (container.get("cpus") or {}).items():
                    if str(numa_id) in boxes:
                        boxes[str(numa_id)].take_cpus(int(count or 0), fill)
            for numa_id, amount in (container.get("memory") or {}).items():
                if str(numa_id) in boxes:
                    boxes[str(numa_id)].memory_parts.append((_number(amount), fill))
            for resource, where in (container.get("devices") or {}).items():
                for numa_id, count in (where or {}).items():
                    if str(numa_id) in boxes:
                        boxes[str(numa_id)].take_devices(resource, int(count or 0), fill)
            affinity = container.get("affinity")
            mask = "any NUMA node" if affinity is None else "NUMA " + ",".join(str(a) for a in affinity)
            preferred = "" if container.get("preferred") is not False else ", not preferred"
            legend.append((fill, f"{pod.get('name')}/{container.get('name')}: {mask}{preferred}"))
    distances = (given.get("node") or {}).get("distances")
    return draw(list(boxes.values()), legend, note, distances)


# -- Koordinator ---------------------------------------------------------------------------------------------


def _cpu_layout(topology: dict[str, Any] | None) -> dict[int, str]:
    """cpu id -> NUMA node id, from the compact or the explicit CPU topology."""
    if not topology:
        return {}
    if topology.get("cpus"):
        return {int(c["id"]): str(c.get("node", 0)) for c in topology["cpus"]}
    sockets, per_socket = int(topology.get("sockets", 1)), int(topology.get("numaNodesPerSocket", 1))
    cores, threads = int(topology.get("coresPerNUMANode", 1)), int(topology.get("threadsPerCore", 1))
    layout = {}
    for numa_node in range(sockets * per_socket):
        for offset in range(cores * threads):
            layout[numa_node * cores * threads + offset] = str(numa_node)
    return layout


def _cpuset(value: Any) -> list[int]:
    """A CPU list string ('0-3,8') or a list of ids."""
    if isinstance(value, list):
        return [int(v) for v in value]
    if not isinstance(value, str) or not value.strip():
        return []
    ids = []
    for part in value.split(","):
        low, _, high = part.strip().partition("-")
        ids += list(range(int(low), int(high or low) + 1))
    return ids


def _koordinator_boxes(cpu_topology: dict[str, Any] | None, numa_nodes: list[dict[str, Any]] | None) -> dict[str, Box]:
    layout = _cpu_layout(cpu_topology)
    boxes: dict[str, Box] = {}
    for cpu, numa_id in sorted(layout.items()):
        boxes.setdefault(numa_id, Box(numa_id)).cpus.append(cpu)
    for numa_node in numa_nodes or []:
        box = boxes.setdefault(str(numa_node.get("id")), Box(str(numa_node.get("id"))))
        box.memory = _number(numa_node.get("memory"))
    return dict(sorted(boxes.items(), key=lambda item: int(item[0]) if item[0].lstrip("-").isdigit() else 0))


def _take(boxes: dict[str, Box], cpus: list[int], fill: str) -> None:
    for cpu in cpus:
        for box in boxes.values():
            if cpu in box.cpus:
                box.cpu_owner[cpu] = fill


def koordinator_filter(given: dict[str, Any], result: Any) -> Panel:
    node = given.get("node") or {}
    boxes = _koordinator_boxes(node.get("cpuTopology"), node.get("numaNodes"))
    device_box: dict[tuple[str, int], str] = {}
    for device in node.get("devices") or []:
        where = device.get("numaNode")
        key = str(where) if where is not None and where != -1 else "no NUMA node"
        box = boxes.setdefault(key, Box(key))
        label = f"{device.get('type')}#{device.get('minor')}"
        if device.get("health") is False:
            label += " (unhealthy)"
        box.devices.append((label, None))
        device_box[(str(device.get("type")), int(device.get("minor", 0)))] = key
    legend: list[tuple[str, str]] = []

    def mark_device(kind: str, minor: int, fill: str) -> None:
        key = device_box.get((kind, minor))
        if key is None:
            return
        box = boxes[key]
        for index, (label, _owner) in enumerate(box.devices):
            if label.split(" ")[0] == f"{kind}#{minor}":
                box.devices[index] = (label, fill)

    for pod in node.get("pods") or []:
        _take(boxes, _cpuset(pod.get("cpuset")), TAKEN)
        for numa_id, held in (pod.get("numaResources") or {}).items():
            if str(numa_id) in boxes and isinstance(held, dict) and held.get("memory"):
                boxes[str(numa_id)].memory_parts.append((_number(held["memory"]), TAKEN))
        for kind, items in (pod.get("devices") or {}).items():
            for item in items or []:
                mark_device(kind, int(item["minor"] if isinstance(item, dict) else item), TAKEN)
    if node.get("pods"):
        legend.append((TAKEN, "held by pods already on the node"))
    note = None
    if isinstance(result, dict):
        fill = colour(0)
        pod_name = (given.get("pod") or {}).get("name") or "the pod"
        if result.get("fits") is False:
            note = f"does not fit: {result.get('reason') or 'refused'} ({result.get('stage') or 'no stage'})"
        else:
            _take(boxes, _cpuset(result.get("cpuset")), fill)
            for numa_id, held in (result.get("numaResources") or {}).items():
                box = boxes.get(str(numa_id))
                if box is None or not isinstance(held, dict):
                    continue
                if held.get("memory"):
                    box.memory_parts.append((_number(held["memory"]), fill))
                if held.get("cpu") and not result.get("cpuset"):
                    box.cpu_note = f"+{_number(held['cpu']) / 1000:g} CPU (shared)"
            for kind, items in (result.get("devices") or {}).items():
                for item in items or []:
                    mark_device(kind, int(item.get("minor", 0)), fill)
            hint = result.get("hint") or {}
            affinity = hint.get("affinity") if isinstance(hint, dict) else None
            where = "" if affinity is None else " on NUMA " + ",".join(str(a) for a in affinity)
            legend.append((fill, f"{pod_name}{where}" + (f", cpuset {result['cpusetString']}"
                                                           if result.get("cpusetString") else "")))
    drawn = draw(list(boxes.values()), legend, note)
    hints = result.get("hints") if isinstance(result, dict) else None
    if isinstance(hints, dict) and hints:
        numa_ids = [int(k) for k in boxes if k.lstrip("-").isdigit()]
        return stacked([drawn, filter_hints(numa_ids, hints, result.get("hint"))])
    return drawn


def koordinator_cpuset(given: dict[str, Any], result: Any) -> Panel:
    boxes = _koordinator_boxes(given.get("cpuTopology"), None)
    reserved = _cpuset(given.get("reservedCPUs"))
    _take(boxes, reserved, "#57606a")
    legend = [("#57606a", "reserved")] if reserved else []
    for held in given.get("allocated") or []:
        _take(boxes, _cpuset(held.get("cpuset")), TAKEN)
    if given.get("allocated"):
        legend.append((TAKEN, "already allocated"))
    note = None
    if isinstance(result, dict):
        if result.get("allocated") is False:
            note = f"not allocated: {result.get('reason') or 'refused'}"
        else:
            _take(boxes, _cpuset(result.get("cpuset")), colour(0))
            legend.append((colour(0), f"chosen: {result.get('cpusetString') or result.get('cpuset')}"))
    return draw(list(boxes.values()), legend, note)
