"""Problems from a JSON Schema, each pointing at the line of the fixture it is
about. The rule is the schema keyword that failed."""

from __future__ import annotations

from typing import Any

from conformance import schemas, yamlload
from conformance.model import Problem


def problems(schema: str, instance: Any, raw: Any, rel: str, case_id: str | None, raw_prefix: list[Any],
             pointer_prefix: str = "") -> list[Problem]:
    """`raw` is the parsed document the instance comes from (for lines), and
    `raw_prefix` where the instance sits in it."""
    return [Problem(rel, yamlload.line_of(raw, raw_prefix + path), case_id,
                    pointer_prefix + schemas.path_pointer(path), rule, message)
            for path, rule, message in schemas.errors(schema, instance)]


def pointer_parts(pointer: str) -> list[Any]:
    """The keys and indices of a JSON pointer (the inverse of schemas.path_pointer)."""
    parts: list[Any] = []
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        parts.append(int(part) if part.isdigit() else part)
    return parts
