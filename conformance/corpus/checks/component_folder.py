"""A fixture file lives under the folder named for its component."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance import yamlload
from conformance.model import Problem

RULE = "component-folder"


def problems(path: Path, home: Path, doc: Any, rel: str, rel_of: Callable[[Path], str]) -> list[Problem]:
    """`home` is the corpus holding the file; a file outside every corpus (given by
    path) is not checked."""
    component = doc["component"]
    try:
        inside = path.resolve().relative_to(home)
    except ValueError:
        return []
    if inside.parts[0] == component:
        return []
    return [Problem(rel, yamlload.line_of(doc, ["component"]), None, "/component", RULE,
                    f"a {component} fixture must live under {rel_of(home / component)}/")]
