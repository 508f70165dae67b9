"""A merge as masks: each provider's hints, one row per resource, each hint a row
of NUMA cells (filled where its affinity lies; a nil mask is 'any'), solid when
preferred, with its score; under them the merged hint of each result."""

from __future__ import annotations

from typing import Any

from conformance.report.svg import BAD, GOOD, MUTED, Panel, colour

CELL = 16


def _mask(panel: Panel, x: float, y: float, nodes: list[Any], affinity: Any, preferred: bool, fill: str,
          tip: str, labelled: bool = False) -> float:
    """One hint; returns the width it took. `labelled` writes the NUMA ids above the cells."""
    if labelled:
        for index, node in enumerate(nodes):
            panel.text(x + index * CELL + (CELL - 2) / 2, y - 2, str(node), size=7, anchor="middle", fill=MUTED)
    if affinity is None:
        panel.rect(x, y, CELL * max(len(nodes), 1), CELL, fill="#eaeef2", stroke="#8c959f", tip=tip + " (nil mask)",
                   stroke_dasharray="3 2")
        panel.text(x + CELL * max(len(nodes), 1) / 2, y + 12, "any", size=9, anchor="middle", fill=MUTED)
        return CELL * max(len(nodes), 1)
    chosen = {str(a) for a in affinity}
    panel.open_group(**{"class": "mask"})
    for index, node in enumerate(nodes):
        inside = str(node) in chosen
        panel.rect(x + index * CELL, y, CELL - 2, CELL, fill=(fill if inside else "#ffffff"),
                   stroke=fill if preferred else "#8c959f", tip=f"{tip}: NUMA {node}" + (" (in the mask)" if inside else ""),
                   fill_opacity=1.0 if preferred else 0.45, stroke_dasharray=None if preferred else "2 2")
    panel.close_group()
    return CELL * len(nodes)


def _hint_list(panel: Panel, y: float, nodes: list[Any], label: str, hints: Any, fill: str) -> None:
    panel.text(0, y + 12, label, size=10, limit=34)
    x = 190.0
    if hints is None:
        panel.text(x, y + 12, "no preference (nil list)", size=10, fill=MUTED)
        return
    if not hints:
        panel.text(x, y + 12, "no possible affinity (empty list)", size=10, fill=BAD)
        return
    for hint in hints[:12]:
        if not isinstance(hint, dict):
            continue
        score = hint.get("score")
        tip = f"{label}: {'preferred' if hint.get('preferred') else 'not preferred'}" + (f", score {score}" if score else "")
        width = _mask(panel, x, y, nodes, hint.get("affinity"), bool(hint.get("preferred")), fill, tip)
        if score:
            panel.text(x + width / 2, y + 27, str(score), size=8, anchor="middle", fill=MUTED)
        x += width + 12
    if len(hints) > 12:
        panel.text(x, y + 12, f"+{len(hints) - 12} more", size=9, fill=MUTED)


def _providers(nodes: list[Any], providers: list[Any]) -> Panel:
    panel = Panel()
    panel.text(0, 12, "provider hints (solid: preferred; dashed: not preferred; number: score)", size=10, fill=MUTED,
               limit=100)
    y = 20.0
    for index, provider in enumerate(providers):
        if not provider:
            _hint_list(panel, y, nodes, f"provider {index + 1}", None, colour(index))
            y += 32
            continue
        for resource, hints in provider.items():
            _hint_list(panel, y, nodes, f"provider {index + 1}: {resource}", hints, colour(index))
            y += 32
    return panel


def filter_hints(nodes: list[Any], hints: dict[str, Any], merged_hint: Any) -> Panel:
    """A Koordinator filter's hints by resource, as they entered the merge, and the merged hint."""
    panel = Panel()
    panel.text(0, 12, "hints by resource (solid: preferred; number: score)", size=10, fill=MUTED, limit=100)
    y = 20.0
    for index, (resource, listed) in enumerate(hints.items()):
        _hint_list(panel, y, nodes, resource, listed, colour(index))
        y += 32
    if isinstance(merged_hint, dict):
        panel.text(0, y + 12, "merged hint", size=10)
        _mask(panel, 190, y, nodes, merged_hint.get("affinity"), bool(merged_hint.get("preferred")), "#24292f",
              "merged")
    return panel


def kubelet_providers(given: dict[str, Any]) -> Panel:
    return _providers(list((given.get("numa") or {}).get("nodes") or []), list(given.get("providers") or []))


def koordinator_providers(given: dict[str, Any]) -> Panel:
    return _providers(list(given.get("numaNodes") or []), list(given.get("providers") or []))


def merged(given: dict[str, Any], result: Any) -> Panel:
    nodes = list((given.get("numa") or {}).get("nodes") or given.get("numaNodes") or [])
    panel = Panel()
    if not isinstance(result, dict):
        panel.text(0, 12, "no result", fill=MUTED)
        return panel
    if result.get("refused"):
        panel.text(0, 12, f"refused: {(result['refused'] or {}).get('reason')}", fill=BAD, weight="bold")
        return panel
    panel.text(0, 20, "merged hint", size=10)
    _mask(panel, 80, 8, nodes, result.get("affinity"), bool(result.get("preferred")), "#24292f", "merged",
          labelled=True)
    admit = result.get("admit")
    words = ["preferred" if result.get("preferred") else "not preferred"]
    if result.get("score"):
        words.append(f"score {result['score']}")
    panel.text(0, 42, ", ".join(words), size=10)
    if admit is not None:
        panel.text(0, 58, "admitted" if admit else f"rejected{': ' + result['reason'] if result.get('reason') else ''}",
                   size=10, weight="bold", fill=GOOD if admit else BAD)
    return panel
