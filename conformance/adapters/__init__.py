"""Adapters: how the harness reaches an implementation.

`reference` runs the bundled reference in-process; `exec:COMMAND` starts any
implementation as a subprocess speaking protocol v1 (docs/protocol.md).
"""

from __future__ import annotations

from conformance.adapters.base import Adapter, Hello, Response, StartupError
from conformance.adapters.inprocess import InProcessAdapter
from conformance.adapters.subprocess import ExecAdapter, Limits


def from_spec(spec: str, limits: Limits | None = None) -> Adapter:
    if spec == "reference":
        return InProcessAdapter()
    if spec.startswith("exec:") and spec[5:].strip():
        return ExecAdapter(spec[5:].strip(), limits or Limits())
    raise ValueError(f"--impl must be 'reference' or 'exec:COMMAND', not {spec!r}")


__all__ = ["Adapter", "ExecAdapter", "Hello", "InProcessAdapter", "Limits", "Response", "StartupError", "from_spec"]
