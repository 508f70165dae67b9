"""Reading the operation schemas structurally: what a schema allows at one place
of a value, without validating a whole instance.

A schema at one place is turned into alternatives, each a list of plain nodes
that must all hold (`$ref`, `allOf` add nodes; `oneOf`, `anyOf` and
`if`/`then`/`else` add alternatives). Only the keywords that shape a mapping or
a list are read from the plain nodes; everything else is the validator's job.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any

from conformance import schemas

# Past this many alternatives at one place the schema is treated as allowing
# anything there: a check that gives up is better than one that guesses.
_MAX_ALTERNATIVES = 256


@dataclass(frozen=True)
class Node:
    """A schema node and the document it lives in (for resolving `$ref`)."""

    document: str
    schema: Any


Alternative = tuple[Node, ...]


def root(document: str) -> Node:
    return Node(document, schemas.validator(document).schema)


def resolve_ref(node: Node, ref: str) -> Node:
    target, _, fragment = ref.partition("#")
    if target.startswith(schemas.BASE_URI):
        # The compiled validator rewrites references in place as absolute URIs.
        document = target[len(schemas.BASE_URI):]
    elif target:
        document = posixpath.normpath(posixpath.join(posixpath.dirname(node.document), target))
    else:
        document = node.document
    value: Any = schemas.validator(document).schema
    for part in fragment.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        value = value[int(part)] if isinstance(value, list) else value[part]
    return Node(document, value)


def alternatives(nodes: tuple[Node, ...]) -> list[Alternative] | None:
    """The alternatives of the conjunction of `nodes`; None when there are too many
    to follow (then anything is allowed there)."""
    result: list[Alternative] | None = [()]
    for node in nodes:
        result = _product(result, _expanded(node))
        if result is None:
            return None
    return result


_CACHE: dict[tuple[str, int], list[Alternative] | None] = {}


def _expanded(node: Node) -> list[Alternative] | None:
    # Keyed by identity: the schema documents live as long as the process.
    key = (node.document, id(node.schema))
    if key not in _CACHE:
        _CACHE[key] = _expand(node, frozenset())
    return _CACHE[key]


def _product(left: list[Alternative] | None, right: list[Alternative] | None) -> list[Alternative] | None:
    if left is None or right is None or len(left) * len(right) > _MAX_ALTERNATIVES:
        return None
    return [a + b for a in left for b in right]


def _expand(node: Node, seen: frozenset) -> list[Alternative] | None:
    schema = node.schema
    if schema is True or schema == {}:
        return [()]
    if schema is False:
        return []
    if not isinstance(schema, dict):
        return [()]
    key = (node.document, id(schema))
    if key in seen:  # a reference back to itself at the same place adds nothing
        return [()]
    seen = seen | {key}
    result: list[Alternative] | None = [(node,)]
    if isinstance(schema.get("$ref"), str):
        result = _product(result, _expand(resolve_ref(node, schema["$ref"]), seen))
    for member in schema.get("allOf", []):
        result = _product(result, _expand(Node(node.document, member), seen))
    for keyword in ("oneOf", "anyOf"):
        if keyword in schema:
            union: list[Alternative] = []
            for branch in schema[keyword]:
                expanded = _expand(Node(node.document, branch), seen)
                if expanded is None:
                    return None
                union.extend(expanded)
            result = _product(result, union)
    if "if" in schema and ("then" in schema or "else" in schema):
        union = []
        for keyword in ("then", "else"):
            expanded = _expand(Node(node.document, schema[keyword]), seen) if keyword in schema else [()]
            if expanded is None:
                return None
            union.extend(expanded)
        result = _product(result, union)
    return result


def _types(schema: dict) -> set[str] | None:
    kind = schema.get("type")
    if kind is None:
        return None
    return set(kind) if isinstance(kind, list) else {kind}


def permits(alternative: Alternative, kind: str) -> bool:
    """Whether every node of the alternative lets a value of this JSON type through."""
    python = {"object": dict, "array": list}[kind]
    for node in alternative:
        schema = node.schema
        if not isinstance(schema, dict):
            continue
        types = _types(schema)
        if types is not None and kind not in types:
            return False
        if "const" in schema and not isinstance(schema["const"], python):
            return False
        if "enum" in schema and not any(isinstance(v, python) for v in schema["enum"]):
            return False
    return True


def _matching_patterns(schema: dict, key: str) -> list[Any]:
    return [sub for pattern, sub in schema.get("patternProperties", {}).items() if re.search(pattern, key)]


def _allows(schema: Any, key: str) -> bool:
    if not isinstance(schema, dict):
        return schema is not False
    names = schema.get("propertyNames")
    if isinstance(names, dict):
        if "enum" in names and key not in names["enum"]:
            return False
        if "const" in names and key != names["const"]:
            return False
        if isinstance(names.get("pattern"), str) and not re.search(names["pattern"], key):
            return False
    if key in schema.get("properties", {}) or _matching_patterns(schema, key):
        return True
    return schema.get("additionalProperties", True) is not False


def allows(alternative: Alternative, key: str) -> bool:
    return all(_allows(node.schema, key) for node in alternative)


def known_keys(alternative: Alternative) -> set[str]:
    return {k for node in alternative if isinstance(node.schema, dict) for k in node.schema.get("properties", {})}


def value_nodes(alternative: Alternative, key: str) -> tuple[Node, ...]:
    """The nodes that constrain the value under `key` in this alternative."""
    found: list[Node] = []
    for node in alternative:
        schema = node.schema
        if not isinstance(schema, dict):
            continue
        if key in schema.get("properties", {}):
            found.append(Node(node.document, schema["properties"][key]))
            continue
        patterns = _matching_patterns(schema, key)
        found.extend(Node(node.document, sub) for sub in patterns)
        if not patterns and isinstance(schema.get("additionalProperties"), dict):
            found.append(Node(node.document, schema["additionalProperties"]))
    return tuple(found)


def item_nodes(alternative: Alternative, index: int) -> tuple[Node, ...]:
    """The nodes that constrain the list item at `index` in this alternative."""
    found: list[Node] = []
    for node in alternative:
        schema = node.schema
        if not isinstance(schema, dict):
            continue
        prefix = schema.get("prefixItems", [])
        if index < len(prefix):
            found.append(Node(node.document, prefix[index]))
        elif isinstance(schema.get("items"), dict):
            found.append(Node(node.document, schema["items"]))
    return tuple(found)
