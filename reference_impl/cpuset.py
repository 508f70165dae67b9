"""Linux CPU lists ("0-3,8"), the one parser and printer of the reference:
the kubelet's reservedSystemCPUs and Koordinator's CPU sets read the same
grammar as `k8s.io/utils/cpuset.Parse`.

* a comma-separated list of elements, each a CPU id or an inclusive range
  `a-b` with `a <= b`; ids are decimal digits (an optional `+`, as Go's
  `strconv.Atoi` takes), white space around an element or the whole text is
  ignored;
* no value, an empty text or one of white space only is the empty set; an
  empty element inside a list (`1,,2`, `1,`) is refused, as upstream refuses it;
* where an input may also spell a CPU set as a JSON list of ids (Koordinator's
  inputs), `ids=True` takes one of non-negative integers.

The result is the ascending list of distinct ids."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["CPUSetError", "parse", "render"]

_ID = re.compile(r"\+?[0-9]+", re.ASCII)
_SPACE = " \t\n\r\v\f"


class CPUSetError(ValueError):
    """The value is not a CPU list."""


def parse(value: object, *, ids: bool = False) -> list[int]:
    if value is None:
        return []
    if ids and isinstance(value, list):
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
            raise CPUSetError(f"not a CPU id list: {value!r}")
        return sorted(set(value))
    if not isinstance(value, str):
        raise CPUSetError(f"not a CPU list such as \"0-1,4\": {value!r}")
    text = value.strip(_SPACE)
    if not text:
        return []
    result: set[int] = set()
    for part in text.split(","):
        lo, sep, hi = part.strip(_SPACE).partition("-")
        if not _ID.fullmatch(lo) or (sep and not _ID.fullmatch(hi)):
            raise CPUSetError(f"bad CPU list {value!r}: element {part!r}")
        first = int(lo)
        last = int(hi) if sep else first
        if last < first:
            raise CPUSetError(f"bad range {part!r} in {value!r}")
        result.update(range(first, last + 1))
    return sorted(result)


def render(cpus: Iterable[int]) -> str:
    """The shortest spelling: ascending, runs of consecutive ids as ranges."""
    ordered = sorted(set(cpus))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(parts)
