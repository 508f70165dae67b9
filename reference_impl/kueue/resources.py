"""Resource vectors: addition, subtraction and how many requests fit."""

from __future__ import annotations

MAX_INT32 = 2**31 - 1

Requests = dict[str, int]


def add(into: Requests, other: Requests, times: int = 1) -> None:
    for name, value in other.items():
        into[name] = into.get(name, 0) + value * times


def sub(into: Requests, other: Requests, times: int = 1) -> None:
    for name, value in other.items():
        into[name] = into.get(name, 0) - value * times


def plus_one_pod(requests: Requests) -> Requests:
    result = dict(requests)
    result["pods"] = result.get("pods", 0) + 1
    return result


def count_in(requests: Requests, capacity: Requests) -> tuple[int, str | None]:
    """How many times `requests` fits in `capacity`, and the limiting resource.

    A zero request does not limit; a negative capacity fits nothing; ties on the
    limiting resource go to the alphabetically smaller name (upstream
    `CountInWithLimitingResource`).
    """
    return count_in_sorted(sorted(requests.items()), capacity)


def count_in_sorted(items: list[tuple[str, int]], capacity: Requests) -> tuple[int, str | None]:
    """`count_in` with the request given as its (name, value) pairs sorted by
    name: placement asks it once per leaf for the same request."""
    best: int | None = None
    limiting: str | None = None
    for name, value in items:
        if value == 0:
            count = MAX_INT32
        else:
            have = capacity.get(name, 0)
            # clamped to [0, MAX_INT32] with comparisons: placement's innermost loop
            count = have // value if have >= 0 else 0
            if count < 0:
                count = 0
            elif count > MAX_INT32:
                count = MAX_INT32
        if best is None or count < best:
            best, limiting = count, name
    return (best if best is not None else 0), limiting
