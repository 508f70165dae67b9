"""Linux CPU list strings ("0-3,8") to and from sorted id lists."""

from __future__ import annotations

from collections.abc import Iterable


class CPUListError(ValueError):
    pass


def parse(value) -> list[int]:
    if value is None:
        return []
    if isinstance(value, list):
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
            raise CPUListError(f"not a CPU id list: {value!r}")
        return sorted(set(value))
    if not isinstance(value, str):
        raise CPUListError(f"not a CPU list: {value!r}")
    result: set[int] = set()
    text = value.strip()
    if not text:
        return []
    for part in text.split(","):
        part = part.strip()
        try:
            if "-" in part:
                lo, hi = part.split("-", 1)
                lo_i, hi_i = int(lo), int(hi)
                if lo_i > hi_i or lo_i < 0:
                    raise CPUListError(f"bad range {part!r} in {value!r}")
                result.update(range(lo_i, hi_i + 1))
            else:
                cpu = int(part)
                if cpu < 0:
                    raise CPUListError(f"bad CPU {part!r} in {value!r}")
                result.add(cpu)
        except ValueError as exc:
            if isinstance(exc, CPUListError):
                raise
            raise CPUListError(f"bad CPU list {value!r}") from None
    return sorted(result)


def render(cpus: Iterable[int]) -> str:
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
