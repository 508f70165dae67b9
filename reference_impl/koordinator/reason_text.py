"""How upstream's topology manager writes NUMA masks into its reason texts."""

from __future__ import annotations


def render_mask(mask: int | None) -> str:
    """Binary, zero-padded to an even width of at least two digits: {0} is "01",
    {0,1} "11", {2} "100", {0,2} "0101"."""
    if mask is None:
        return "<nil>"
    for shift in range(62, 0, -2):
        if mask > (1 << shift):
            return format(mask, f"0{shift + 2}b")
    return format(mask, "02b")
