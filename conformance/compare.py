"""Matching a result against an expectation, and a minimal diff when it fails.

The rules are those of docs/fixture-format.md: mappings match as subsets, lists
element by element, scalars by value and type, plus a few `$` matchers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conformance import quantity


@dataclass(frozen=True)
class Mismatch:
    pointer: str
    expected: str
    actual: str

    def render(self) -> str:
        return f"{self.pointer or '/'}: expected {self.expected}, got {self.actual}"


def _show(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 200 else text[:197] + "..."


def matcher_of(expected: Any) -> str | None:
    """The `$` key of a matcher (a mapping with that single key), else None."""
    if isinstance(expected, dict) and len(expected) == 1:
        (key,) = expected
        if isinstance(key, str) and key.startswith("$"):
            return key
    return None


_MISSING = object()


def _same_scalar(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return expected == actual
    return type(expected) is type(actual) and expected == actual


def mismatches(expected: Any, actual: Any, pointer: str = "") -> list[Mismatch]:
    matcher = matcher_of(expected)
    if matcher is not None:
        return _match_with(matcher, expected[matcher], actual, pointer)
    if actual is _MISSING:
        return [Mismatch(pointer, _show(expected), "nothing (key missing)")]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [Mismatch(pointer, "a mapping " + _show(expected), _show(actual))]
        if not expected and actual:
            # As a subset `{}` would check nothing but the type; written in a
            # case it means "empty" (the result gives nothing there).
            return [Mismatch(pointer, "an empty mapping {}", _show(actual))]
        found = []
        for key, value in expected.items():
            child = f"{pointer}/{key}"
            if matcher_of(value) == "$absent":
                if value["$absent"] and key in actual:
                    found.append(Mismatch(child, "no such key", _show(actual[key])))
                continue
            found.extend(mismatches(value, actual.get(key, _MISSING), child))
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [Mismatch(pointer, "a list " + _show(expected), _show(actual))]
        if len(expected) != len(actual):
            return [Mismatch(pointer, f"{len(expected)} items {_show(expected)}", f"{len(actual)} items {_show(actual)}")]
        found = []
        for index, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found.extend(mismatches(e, a, f"{pointer}/{index}"))
        return found
    if not _same_scalar(expected, actual):
        return [Mismatch(pointer, _show(expected), _show(actual))]
    return []


def _match_with(matcher: str, argument: Any, actual: Any, pointer: str) -> list[Mismatch]:
    entry = MATCHERS.get(matcher)
    if actual is _MISSING and (entry is None or not entry.sees_missing):
        return [Mismatch(pointer, f"{matcher} {_show(argument)}", "nothing (key missing)")]
    if entry is None:
        return [Mismatch(pointer, f"a known matcher, not {matcher}", _show(actual))]
    return entry.match(argument, actual, pointer)


def _any(argument: Any, actual: Any, pointer: str) -> list[Mismatch]:
    return [] if actual is not _MISSING else [Mismatch(pointer, "any value", "nothing (key missing)")]


def _absent(argument: Any, actual: Any, pointer: str) -> list[Mismatch]:
    return [] if actual is _MISSING else [Mismatch(pointer, "no such key", _show(actual))]


def _contains(argument: Any, actual: Any, pointer: str) -> list[Mismatch]:
    if isinstance(actual, str) and isinstance(argument, str) and argument in actual:
        return []
    return [Mismatch(pointer, f"a string containing {_show(argument)}", _show(actual))]


def _unordered(argument: Any, actual: Any, pointer: str) -> list[Mismatch]:
    if not isinstance(actual, list) or len(actual) != len(argument):
        return [Mismatch(pointer, f"in any order {_show(argument)}", _show(actual))]
    if not _pairing(argument, actual):
        return [Mismatch(pointer, f"in any order {_show(argument)}", _show(actual))]
    return []


def _exact(argument: Any, actual: Any, pointer: str) -> list[Mismatch]:
    if not isinstance(actual, dict):
        return [Mismatch(pointer, "exactly " + _show(argument), _show(actual))]
    extra = sorted(set(actual) - set(argument), key=str)
    found = [Mismatch(f"{pointer}/{key}", "no such key", _show(actual[key])) for key in extra]
    return found + mismatches(argument, actual, pointer)


def _quantity(argument: Any, actual: Any, pointer: str) -> list[Mismatch]:
    try:
        want = quantity.parse(argument)
    except ValueError:
        return [Mismatch(pointer, f"$quantity of {_show(argument)} (not a quantity)", _show(actual))]
    if isinstance(actual, (int, float)) and not isinstance(actual, bool) and want == actual:
        return []
    return [Mismatch(pointer, f"{argument} ({want})", _show(actual))]


def _any_of(argument: Any, actual: Any, pointer: str) -> list[Mismatch]:
    # For a point the contract leaves open (e.g. which of two short device types
    # refuses the pod): one alternative is enough.
    if any(not mismatches(alternative, actual, pointer) for alternative in argument):
        return []
    return [Mismatch(pointer, "one of " + _show(argument), _show(actual))]


@dataclass(frozen=True)
class Matcher:
    """One `$` matcher of docs/fixture-format.md: the argument it takes (checked by
    `topoconf validate`, rule `matcher`) and how it matches a value."""

    name: str
    takes: str                                          # the argument, as a problem names it
    accepts: Callable[[Any], bool]                      # whether an argument is one it can use
    match: Callable[[Any, Any, str], list[Mismatch]]    # (argument, actual, pointer)
    # Whether it judges a missing key itself; the others fail on one.
    sees_missing: bool = False
    # What the argument says about the result at its place, for the result-key
    # check: "value" (it is the value there), "items" (its items are the list's
    # items), "alternatives" (each of its items is the value there), or nothing.
    reads_as: str | None = None


# The one table of matchers, in the order problems list them.
MATCHERS: dict[str, Matcher] = {m.name: m for m in (
    Matcher("$contains", "a string", lambda a: isinstance(a, str), _contains),
    Matcher("$unordered", "a list", lambda a: isinstance(a, list), _unordered, reads_as="items"),
    Matcher("$absent", "true", lambda a: a is True, _absent, sees_missing=True),
    Matcher("$exact", "a mapping", lambda a: isinstance(a, dict), _exact, reads_as="value"),
    Matcher("$quantity", "a Kubernetes quantity", quantity.is_quantity, _quantity),
    Matcher("$any", "true", lambda a: a is True, _any, sees_missing=True),
    Matcher("$anyOf", "a list of two or more expectations", lambda a: isinstance(a, list) and len(a) >= 2,
            _any_of, reads_as="alternatives"),
)}


def _pairing(expected: list[Any], actual: list[Any]) -> bool:
    """Whether each expected item can take its own actual element. Items match
    loosely (subset mappings, matchers), so taking the first element that fits
    can starve a later item; augmenting paths find a pairing whenever one exists."""
    fits = [[j for j, a in enumerate(actual) if not mismatches(e, a)] for e in expected]
    owner: dict[int, int] = {}

    def place(i: int, seen: set[int]) -> bool:
        for j in fits[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or place(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(place(i, set()) for i in range(len(expected)))


def diff(expected: Any, actual: Any, limit: int = 20) -> list[str]:
    found = mismatches(expected, actual)
    lines = [m.render() for m in found[:limit]]
    if len(found) > limit:
        lines.append(f"... and {len(found) - limit} more differences")
    return lines
