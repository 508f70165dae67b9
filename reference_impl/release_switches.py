"""Named release behaviours a reference component reproduces only on request:
off by default, on for the dynamic extent of `using(...)`, so a differential
run can recognise a release's answer exactly without changing the reference's
own. Each component keeps its own set of names."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class ReleaseSwitches:
    def __init__(self, component: str, known: frozenset[str]):
        self.known = known
        self._active: ContextVar[frozenset[str]] = ContextVar(f"{component}_release_variants", default=frozenset())

    def active(self, name: str) -> bool:
        return name in self._active.get()

    @contextmanager
    def using(self, *names: str) -> Iterator[None]:
        unknown = set(names) - self.known
        if unknown:
            raise ValueError(f"unknown release variants: {sorted(unknown)}")
        token = self._active.set(self._active.get() | frozenset(names))
        try:
            yield
        finally:
            self._active.reset(token)
