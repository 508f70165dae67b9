"""A very small SVG writer for the report's pictures.

Every piece of text that reaches a picture may come from a fixture or from an
implementation's answer, so text and attribute values are escaped here, in the
one place that writes them; element and attribute names are always ours.
Numbers are rounded so that the same inputs give the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

FONT = "system-ui, sans-serif"
# Colours for placed things (pods, podsets, containers), picked in turn.
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#edc948", "#76b7b2", "#ff9da7", "#9c755f", "#e15759")
TAKEN = "#bab0ac"     # held before the case began
FREE = "#ffffff"
LINE = "#57606a"
MUTED = "#6e7781"
BAD = "#cf222e"
GOOD = "#1a7f37"


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _num(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _attrs(attrs: dict[str, object]) -> str:
    parts = []
    for name, value in attrs.items():
        if value is None:
            continue
        if isinstance(value, float):
            value = _num(value)
        parts.append(f' {name.replace("_", "-")}="{escape(str(value), quote=True)}"')
    return "".join(parts)


@dataclass
class Panel:
    """A drawing in its own coordinates; `Panel.place` puts one inside another."""

    width: float = 0
    height: float = 0
    parts: list[str] = field(default_factory=list)

    def grow(self, x: float, y: float) -> None:
        self.width = max(self.width, x)
        self.height = max(self.height, y)

    def rect(self, x: float, y: float, w: float, h: float, fill: str = FREE, stroke: str | None = LINE,
             tip: str | None = None, **attrs: object) -> None:
        body = f"<title>{escape(tip)}</title>" if tip else ""
        tag = _attrs({"x": float(x), "y": float(y), "width": float(w), "height": float(h), "fill": fill,
                      "stroke": stroke, **attrs})
        self.parts.append(f"<rect{tag}>{body}</rect>" if body else f"<rect{tag}/>")
        self.grow(x + w, y + h)

    def text(self, x: float, y: float, text: str, size: float = 11, anchor: str = "start", weight: str | None = None,
             fill: str = "#24292f", limit: int = 60) -> None:
        shown = text if len(text) <= limit else text[:limit - 1] + "…"
        tag = _attrs({"x": float(x), "y": float(y), "font-size": float(size), "text-anchor": anchor,
                      "font-weight": weight, "fill": fill})
        self.parts.append(f"<text{tag}>{escape(shown)}</text>")
        # An estimate: SVG text has no measured width before it is laid out.
        width = len(shown) * size * 0.6
        left = x - (width if anchor == "end" else width / 2 if anchor == "middle" else 0)
        self.grow(left + width, y + size * 0.3)

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = LINE, width: float = 1,
             dash: str | None = None) -> None:
        self.parts.append("<line" + _attrs({"x1": float(x1), "y1": float(y1), "x2": float(x2), "y2": float(y2),
                                            "stroke": stroke, "stroke-width": float(width),
                                            "stroke-dasharray": dash}) + "/>")
        self.grow(max(x1, x2), max(y1, y2))

    def open_group(self, **attrs: object) -> None:
        self.parts.append(f"<g{_attrs(attrs)}>")

    def close_group(self) -> None:
        self.parts.append("</g>")

    def legend(self, items: list[tuple[str, str]], y: float, limit: int) -> float:
        """One swatch and label per row from y down; gives the y below the last."""
        for fill, text in items:
            self.rect(0, y - 9, 10, 10, fill=fill, stroke=None)
            self.text(16, y, text, size=10, limit=limit)
            y += 15
        return y

    def place(self, other: Panel, x: float, y: float, **attrs: object) -> None:
        self.parts.append(f'<g transform="translate({_num(x)},{_num(y)})"{_attrs(attrs)}>')
        self.parts += other.parts
        self.parts.append("</g>")
        self.grow(x + other.width, y + other.height)

    def render(self, label: str, margin: float = 8) -> str:
        width, height = self.width + 2 * margin, self.height + 2 * margin
        return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="picture"'
                f'{_attrs({"aria-label": label, "viewBox": f"{_num(-margin)} {_num(-margin)} {_num(width)} {_num(height)}", "width": float(width), "height": float(height), "font-family": FONT})}>'
                f"<title>{escape(label)}</title>" + "".join(self.parts) + "</svg>")


def side_by_side(panels: list[tuple[str, Panel]], gap: float = 28) -> Panel:
    """Panels in a row, each under its heading ('expected', 'actual')."""
    whole = Panel()
    x = 0.0
    for heading, panel in panels:
        whole.text(x, 12, heading, size=13, weight="bold")
        whole.place(panel, x, 24, **{"class": "panel", "data-panel": heading})
        x += max(panel.width, len(heading) * 8) + gap
    return whole


def stacked(panels: list[Panel], gap: float = 18) -> Panel:
    whole = Panel()
    y = 0.0
    for panel in panels:
        whole.place(panel, 0, y)
        y += panel.height + gap
    return whole
