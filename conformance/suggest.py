""""Did you mean" for a name that is not known: the closest known names, so a
typo is fixed from the message instead of by searching the vocabulary."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(word: str, known: Iterable[str], limit: int = 3) -> list[str]:
    return difflib.get_close_matches(word, sorted(set(known)), n=limit, cutoff=0.6)


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """` (did you mean 'x'?)`, or `` when nothing is close; meant to be appended
    to a message."""
    found = closest(word, known)
    if not found:
        return ""
    return " (did you mean " + " or ".join(repr(name) for name in found) + "?)"
