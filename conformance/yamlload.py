"""A strict YAML loader that remembers where every value came from.

Duplicate keys are errors, only `true`/`false` are booleans, timestamps stay
strings, and every mapping and sequence carries the line of each of its items so
that a problem found after loading can be reported at its place in the file.
"""

from __future__ import annotations

import re
from typing import Any

import yaml


class LocatedDict(dict):
    """A dict that knows the line of each key (1-based)."""

    __slots__ = ("line", "key_lines")

    def __init__(self, *args, line: int = 0, **kwargs):
        super().__init__(*args, **kwargs)
        self.line = line
        self.key_lines: dict[Any, int] = {}


class LocatedList(list):
    """A list that knows the line of each item (1-based)."""

    __slots__ = ("line", "item_lines")

    def __init__(self, *args, line: int = 0):
        super().__init__(*args)
        self.line = line
        self.item_lines: list[int] = []


class YAMLError(ValueError):
    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line


# The C parser when PyYAML has it (much faster on a large corpus); the
# constructors and resolvers below are the same either way.
_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_Base):
    pass


# YAML 1.1 reads `yes`, `no`, `on`, `off` as booleans and `2026-12-02` as a date;
# operators' values such as `policy: none` or a version must stay as written.
_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> LocatedDict:
    loader.flatten_mapping(node)
    result = LocatedDict(line=node.start_mark.line + 1)
    yield result
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, (str, int, float, bool)) and key is not None:
            raise YAMLError(f"mapping key must be a scalar, got {type(key).__name__}", key_node.start_mark.line + 1)
        if key in result:
            raise YAMLError(
                f"duplicate key {key!r} (first at line {result.key_lines[key]})",
                key_node.start_mark.line + 1,
            )
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = key_node.start_mark.line + 1


def _construct_sequence(loader: _StrictLoader, node: yaml.SequenceNode) -> LocatedList:
    result = LocatedList(line=node.start_mark.line + 1)
    yield result
    for item in node.value:
        result.append(loader.construct_object(item, deep=True))
        result.item_lines.append(item.start_mark.line + 1)


_StrictLoader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
_StrictLoader.add_constructor("tag:yaml.org,2002:seq", _construct_sequence)


def load(text: str) -> Any:
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except YAMLError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise YAMLError(f"{exc.problem or exc}", mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise YAMLError(str(exc)) from None


def line_of(document: Any, pointer: list[Any]) -> int | None:
    """The line of the deepest node on `pointer` that the document still has."""
    node, line = document, getattr(document, "line", None)
    for part in pointer:
        if isinstance(node, LocatedDict) and part in node:
            line = node.key_lines.get(part, line)
            node = node[part]
        elif isinstance(node, LocatedList) and isinstance(part, int) and 0 <= part < len(node):
            line = node.item_lines[part]
            node = node[part]
        else:
            break
    return line


def plain(value: Any) -> Any:
    """The same data as built-in dicts and lists (for export and hashing)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value
