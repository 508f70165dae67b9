"""Named mutators: each invalid-input strategy breaks a valid input in one of
several ways, each a small function named for the rule it breaks, drawn from a
tuple so that a shrunk case names which breakage it took."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hypothesis import strategies as st

Mutator = Callable[..., None]


def apply_one(draw, mutators: Sequence[Mutator], *args) -> None:
    """Draw one mutator and apply it to `args` (what it breaks, in place)."""
    draw(st.sampled_from(tuple(mutators)))(draw, *args)
