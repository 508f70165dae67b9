"""A strict YAML loader that remembers where every value came from.

Duplicate keys are errors, only `true`/`false` are booleans, timestamps stay
strings, and every mapping and sequence carries the line of each of its items so
that a problem found after loading can be reported at its place in the file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from conformance import bounds


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
    def get_single_node(self):
        # Composition is ours, not the parser's: PyYAML composes recursively (in
        # C with libyaml, in Python without), so a deep document either crashes
        # the process or raises RecursionError, and it never looks at how far
        # aliases multiply a document. The parser only hands us events.
        self.get_event()  # stream start
        node = None
        if not self.check_event(StreamEndEvent):
            node = _compose_document(self)
        if not self.check_event(StreamEndEvent):
            event = self.get_event()
            raise YAMLError("a file holds a single YAML document, found another one", event.start_mark.line + 1)
        self.get_event()
        return node


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


class _Open:
    """A sequence or mapping whose end event has not come yet."""

    __slots__ = ("node", "anchor", "key", "height")

    def __init__(self, node, anchor):
        self.node = node
        self.anchor = anchor
        self.key = _NO_KEY  # a mapping's key waiting for its value
        self.height = 1  # levels of mappings and sequences, this one included


_NO_KEY = object()


def _line(event) -> int:
    return event.start_mark.line + 1


def _compose_document(loader: _StrictLoader):
    """The node graph of one document, built with an explicit stack.

    `reach` counts the nodes the document has once every alias is replaced by a
    copy of its anchor's node; `heights` and `sizes` remember those numbers for
    each anchored node so an alias costs what its copy would.
    """
    loader.get_event()  # document start
    anchors: dict[str, Any] = {}
    sizes: dict[str, int] = {}
    heights: dict[str, int] = {}
    open_anchors: set[str] = set()
    stack: list[_Open] = []
    root = None
    reach = 0

    while True:
        event = loader.get_event()
        if isinstance(event, (SequenceEndEvent, MappingEndEvent)):
            done = stack.pop()
            done.node.end_mark = event.end_mark
            if done.anchor is not None:
                open_anchors.discard(done.anchor)
                heights[done.anchor] = done.height
                sizes[done.anchor] = reach - sizes[done.anchor] + 1
            node, height = done.node, done.height
        elif isinstance(event, AliasEvent):
            name = event.anchor
            if name not in anchors:
                raise YAMLError(f"alias *{name} names no anchor defined before it", _line(event))
            if name in open_anchors:
                raise YAMLError(f"alias *{name} stands inside the node anchored &{name}: a cycle", _line(event))
            node, height = anchors[name], heights[name]
            reach += sizes[name]
            if reach > bounds.MAX_NODES:
                raise YAMLError(f"aliases expand this document past {bounds.MAX_NODES} nodes "
                                f"(the limit on nodes reached through aliases); *{name} passes it", _line(event))
            if len(stack) + height > bounds.MAX_DEPTH:
                raise YAMLError(f"*{name} nests its anchor's content past the limit of {bounds.MAX_DEPTH} levels",
                                _line(event))
        else:
            anchor = event.anchor
            if anchor is not None and anchor in anchors:
                raise YAMLError(f"anchor &{anchor} is defined twice (first at line "
                                f"{anchors[anchor].start_mark.line + 1})", _line(event))
            reach += 1
            if reach > bounds.MAX_NODES:
                raise YAMLError(f"the document has more than {bounds.MAX_NODES} nodes", _line(event))
            tag = event.tag
            if isinstance(event, ScalarEvent):
                if tag is None or tag == "!":
                    tag = loader.resolve(ScalarNode, event.value, event.implicit)
                node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
                height = 0
                if anchor is not None:
                    anchors[anchor], sizes[anchor], heights[anchor] = node, 1, 0
            elif isinstance(event, (SequenceStartEvent, MappingStartEvent)):
                if len(stack) + 1 > bounds.MAX_DEPTH:
                    raise YAMLError(f"nested more than {bounds.MAX_DEPTH} levels deep (the limit on nesting)",
                                    _line(event))
                kind = SequenceNode if isinstance(event, SequenceStartEvent) else MappingNode
                if tag is None or tag == "!":
                    tag = loader.resolve(kind, None, event.implicit)
                node = kind(tag, [], event.start_mark, None, flow_style=event.flow_style)
                if anchor is not None:
                    anchors[anchor] = node
                    open_anchors.add(anchor)
                    sizes[anchor] = reach  # turned into the subtree's size at its end
                stack.append(_Open(node, anchor))
                continue
            else:  # pragma: no cover - the parser yields nothing else inside a document
                raise YAMLError(f"unexpected {type(event).__name__}", _line(event))
        if not stack:
            root = node
            break
        parent = stack[-1]
        parent.height = max(parent.height, height + 1)
        if isinstance(parent.node, SequenceNode):
            parent.node.value.append(node)
        elif parent.key is _NO_KEY:
            parent.key = node
        else:
            parent.node.value.append((parent.key, node))
            parent.key = _NO_KEY
    loader.get_event()  # document end
    return root


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
    if len(text) > bounds.MAX_FILE_BYTES:
        raise YAMLError(f"{len(text)} characters, more than the limit of {bounds.MAX_FILE_BYTES} bytes for a YAML file", 1)
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except YAMLError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise YAMLError(f"{exc.problem or exc}", mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise YAMLError(str(exc)) from None


def load_file(path: Path) -> Any:
    """`load` of a file, refusing an oversized one before reading it."""
    size = path.stat().st_size
    if size > bounds.MAX_FILE_BYTES:
        raise YAMLError(f"{size} bytes, more than the limit of {bounds.MAX_FILE_BYTES} for a YAML file", 1)
    return load(path.read_text(encoding="utf-8"))


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
