"""Release behaviours the contract does not follow, reproducible on request.

Where a Kueue release answers otherwise than the contract, and the difference is
a rule the reference can state, it is named here. The reference never applies
one by itself; a differential run turns one on to recognise that release's
answer exactly (conformance/fuzz/known.py), so the difference is counted under
its corpus case instead of hiding everything else a run could find.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# v0.17.0 leaves the implicit one-pod request out of the usage a podset's
# placement leaves for the next podset of the workload (tas_flavor_snapshot.go);
# corpus case kueue.capacity.pods-slots-used-by-an-earlier-podset.
PODSET_USAGE_WITHOUT_POD_SLOTS = "v0.17.0: podset usage without pod slots"

KNOWN = frozenset({PODSET_USAGE_WITHOUT_POD_SLOTS})

_ACTIVE: ContextVar[frozenset[str]] = ContextVar("kueue_release_variants", default=frozenset())


def active(name: str) -> bool:
    return name in _ACTIVE.get()


@contextmanager
def using(*names: str) -> Iterator[None]:
    unknown = set(names) - KNOWN
    if unknown:
        raise ValueError(f"unknown release variants: {sorted(unknown)}")
    token = _ACTIVE.set(_ACTIVE.get() | frozenset(names))
    try:
        yield
    finally:
        _ACTIVE.reset(token)
