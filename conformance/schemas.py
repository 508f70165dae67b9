"""JSON Schemas (draft 2020-12) of fixtures, operations, protocol, reports and
expectations, loaded once into one registry so they can `$ref` each other by
relative file name."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from conformance.paths import schemas_dir

_BASE = "file:///schemas/"
# Every schema's URI is this plus its path under schemas/.
BASE_URI = _BASE


@cache
def _registry() -> tuple[Registry, dict[str, dict[str, Any]]]:
    root = schemas_dir()
    resources, documents = [], {}
    for path in sorted(root.rglob("*.json")):
        rel = path.relative_to(root).as_posix()
        document = json.loads(path.read_text(encoding="utf-8"))
        documents[rel] = document
        resource = Resource.from_contents(document, default_specification=_draft())
        resources.append((_BASE + rel, resource))
        if isinstance(document, dict) and "$id" in document:
            resources.append((document["$id"], resource))
    return Registry().with_resources(resources), documents


def _draft():
    return DRAFT202012


def names() -> list[str]:
    return sorted(_registry()[1])


def exists(name: str) -> bool:
    return name in _registry()[1]


@cache
def validator(name: str) -> Draft202012Validator:
    registry, documents = _registry()
    if name not in documents:
        raise KeyError(f"no schema {name!r} under {schemas_dir()}")
    schema = dict(documents[name])
    schema.setdefault("$id", _BASE + name)
    return Draft202012Validator(schema, registry=registry)


def operation_schema(component: str, operation: str, part: str) -> str:
    return f"operations/{component}/{operation}.{part}.json"


def operations() -> dict[str, list[str]]:
    """Component -> operations that have an input schema."""
    found: dict[str, list[str]] = {}
    for name in names():
        parts = name.split("/")
        if len(parts) == 3 and parts[0] == "operations" and parts[2].endswith(".input.json"):
            found.setdefault(parts[1], []).append(parts[2][: -len(".input.json")])
    return {k: sorted(v) for k, v in found.items()}


@cache
def _fast(name: str):
    """A compiled validator for the common case that the instance is valid.

    jsonschema stays the authority: it explains every violation, and it decides
    whenever the compiled check finds a problem or cannot compile a schema. The
    schemas use no keyword whose meaning differs between draft-07 and 2020-12,
    which is what lets the compiled check run them (tests check both agree).
    """
    try:
        import fastjsonschema  # noqa: PLC0415 - optional: without it jsonschema alone decides
    except ImportError:  # pragma: no cover - an optional speed-up
        return None
    registry_documents = _registry()[1]
    schema = dict(registry_documents[name])
    schema.setdefault("$id", _BASE + name)
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"

    def load(uri: str) -> Any:
        return registry_documents[uri[len(_BASE):].split("#")[0]]

    try:
        return fastjsonschema.compile(schema, handlers={"file": load})
    except Exception:  # noqa: BLE001 - a schema it cannot compile falls back to jsonschema
        return None


def is_valid_fast(name: str, instance: Any) -> bool | None:
    check = _fast(name)
    if check is None:
        return None
    try:
        check(instance)
        return True
    except Exception:  # noqa: BLE001 - any refusal defers to jsonschema
        return False


def errors(name: str, instance: Any) -> list[tuple[list[Any], str, str]]:
    """(path, rule, message) for each violation, in a stable order."""
    if is_valid_fast(name, instance):
        return []
    out = []
    for error in validator(name).iter_errors(instance):
        # The most specific sub-error names the field a reader must fix.
        leaf = error
        while leaf.context:
            leaf = min(leaf.context, key=lambda e: (-len(e.absolute_path), str(e.message)))
        out.append((list(leaf.absolute_path), str(leaf.validator), leaf.message))
    out.sort(key=lambda e: ([str(p) for p in e[0]], e[1], e[2]))
    return out


def path_pointer(path: list[Any]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def check_file(path: Path) -> None:
    Draft202012Validator.check_schema(json.loads(path.read_text(encoding="utf-8")))
