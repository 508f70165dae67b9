"""Keys under `expect.result` that the operation's result can never hold.

Expectations match as subsets, so a misspelt key (`afinity`) is not a schema
error of the fixture: it only shows at run time, as a failure of every
implementation. This check reads the operation's result schema at each place of
the expectation and reports a key no alternative of the schema allows there,
with the closest allowed names. Matchers are looked through: `$exact` holds a
mapping checked at the same place, `$unordered` a list of items, `$anyOf`
alternatives each checked at the same place; `$absent`,
`$any`, `$contains` and `$quantity` say nothing about keys below them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance import schemas, yamlload
from conformance.compare import MATCHERS, matcher_of
from conformance.model import Problem
from conformance.schema_nav import Node, allows, alternatives, item_nodes, known_keys, permits, root, value_nodes
from conformance.suggest import did_you_mean

RULE = "result-key"


@dataclass(frozen=True)
class UnknownKey:
    path: list[Any]  # below expect.result, as written in the fixture (matcher keys included)
    key: str
    message: str


def problems(rel: str, doc: Any, prefix: list, case_id: str, component: str, operation: str,
             expect: dict) -> list[Problem]:
    found = []
    for unknown in check(component, operation, expect.get("result")):
        where = prefix + ["expect", "result"] + unknown.path
        found.append(Problem(rel, yamlload.line_of(doc, where), case_id, schemas.path_pointer(where), RULE,
                             unknown.message))
    return found


def check(component: str, operation: str, result: Any) -> list[UnknownKey]:
    name = schemas.operation_schema(component, operation, "result")
    if not schemas.exists(name):
        # An unknown operation is reported once, by the input check.
        return []
    found: list[UnknownKey] = []
    _walk(result, (root(name),), [], found, f"the {component} {operation} result")
    return found


def _walk(value: Any, nodes: tuple[Node, ...], path: list[Any], found: list[UnknownKey], what: str) -> None:
    matcher = matcher_of(value)
    if matcher is not None:
        reading = MATCHERS[matcher].reads_as if matcher in MATCHERS else None
        if reading == "value":
            _walk(value[matcher], nodes, path + [matcher], found, what)
        elif reading == "items":
            _walk_list(value[matcher], nodes, path + [matcher], found, what)
        elif reading == "alternatives" and isinstance(value[matcher], list):
            for index, alternative in enumerate(value[matcher]):
                _walk(alternative, nodes, path + [matcher, index], found, what)
        return
    if isinstance(value, dict):
        _walk_mapping(value, nodes, path, found, what)
    elif isinstance(value, list):
        _walk_list(value, nodes, path, found, what)


def _walk_mapping(value: dict, nodes: tuple[Node, ...], path: list[Any], found: list[UnknownKey], what: str) -> None:
    options = alternatives(nodes)
    if options is None:
        return
    options = [a for a in options if permits(a, "object")]
    if not options:
        # The schema wants no mapping here; that is a wrong value, not a wrong key.
        return
    if any(isinstance(key, str) and key.startswith("$") for key in value):
        return  # a matcher beside other keys is the matcher check's to report
    for key, item in value.items():
        if not isinstance(key, str):
            continue
        fitting = [a for a in options if allows(a, key)]
        if not fitting:
            known = set().union(*(known_keys(a) for a in options))
            place = "/".join(str(p) for p in path if not (isinstance(p, str) and p.startswith("$")))
            where = f"{what} at /{place}" if place else what
            listed = ", ".join(sorted(known)) if len(known) <= 12 else f"{len(known)} keys"
            found.append(UnknownKey(path + [key], key,
                                    f"{where} has no key {key!r}{did_you_mean(key, known)}; it allows: {listed}"))
            continue
        children = [value_nodes(a, key) for a in fitting]
        if any(not c for c in children):
            continue  # some alternative leaves the value open
        _walk_union(item, children, path + [key], found, what)


def _walk_list(value: Any, nodes: tuple[Node, ...], path: list[Any], found: list[UnknownKey], what: str) -> None:
    if not isinstance(value, list):
        return
    options = alternatives(nodes)
    if options is None:
        return
    options = [a for a in options if permits(a, "array")]
    if not options:
        return
    for index, item in enumerate(value):
        children = [item_nodes(a, index) for a in options]
        if any(not c for c in children):
            continue
        _walk_union(item, children, path + [index], found, what)


def _walk_union(value: Any, children: list[tuple[Node, ...]], path: list[Any], found: list[UnknownKey],
                what: str) -> None:
    """The value may follow any of several schemas (one per fitting alternative):
    a key is unknown only if every one of them refuses it."""
    if len(children) == 1:
        _walk(value, children[0], path, found, what)
        return
    per_child = []
    for nodes in children:
        mine: list[UnknownKey] = []
        _walk(value, nodes, path, mine, what)
        if not mine:
            return
        per_child.append(mine)
    # Report what the closest reading (fewest unknown keys) finds.
    found.extend(min(per_child, key=len))
