"""`topoconf new COMPONENT OPERATION [--file]`: a case skeleton (or a whole
fixture file) to fill in, built from the operation's input schema so it names the
fields the input needs.

Placeholders are written in capitals (`kubelet.FEATURE`, `kubelet.TOPIC.SHORT-NAME`,
`TODO`); the id and feature placeholders fail validation until they are replaced.
"""

from __future__ import annotations

from typing import Any

import yaml

from conformance import schemas
from conformance.schema_nav import Node, resolve_ref


def _placeholder(schema: dict[str, Any], node: Node | None = None) -> Any:
    # A field defined elsewhere ($ref) or by alternatives gets the placeholder of
    # its target or of the first alternative, so it shows its JSON type.
    if node is not None and isinstance(schema.get("$ref"), str):
        target = resolve_ref(node, schema["$ref"])
        return _placeholder(target.schema, target) if isinstance(target.schema, dict) else None
    for keyword in ("oneOf", "anyOf"):
        if "type" not in schema and schema.get(keyword) and isinstance(schema[keyword][0], dict):
            return _placeholder(schema[keyword][0], node)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0]
    return {"object": {}, "array": [], "string": "TODO", "integer": 0, "number": 0, "boolean": False}.get(kind, None)


def _input(component: str, operation: str) -> tuple[str, dict[str, Any], list[str]]:
    """(schema name, the required input fields with placeholders, the optional fields)."""
    name = schemas.operation_schema(component, operation, "input")
    if not schemas.exists(name):
        known = ", ".join(f"{c}.{o}" for c, ops in schemas.operations().items() for o in ops)
        raise KeyError(f"no operation {component}.{operation}; known: {known}")
    schema = schemas.validator(name).schema
    properties = schema.get("properties", {})
    node = Node(name, schema)
    skeleton_input = {key: _placeholder(properties.get(key, {}), node) for key in schema.get("required", [])}
    return name, skeleton_input, [key for key in properties if key not in skeleton_input]


def _header(component: str, operation: str, name: str, optional: list[str], what: str) -> list[str]:
    header = [f"# A {component}.{operation} {what}. Contract: docs/operations/{component}.md; "
              f"input schema: schemas/{name}."]
    if optional:
        header.append("# Optional input fields: " + ", ".join(optional) + ".")
    return header


def render(component: str, operation: str) -> str:
    name, skeleton_input, optional = _input(component, operation)
    case = {
        "id": f"{component}.TOPIC.SHORT-NAME",
        "title": "ONE LINE: what the case shows",
        "features": [f"{component}.FEATURE"],
        "source": "DOCUMENT / SECTION (or upstream: FILE)",
        "operation": operation,
        "input": skeleton_input,
        "expect": {"result": {}},
        "notes": "how the expected values follow from the source, worked by hand",
    }
    text = yaml.safe_dump([case], sort_keys=False, default_flow_style=False)
    return "\n".join(_header(component, operation, name, optional, "case")) + "\n" + text


def render_file(component: str, operation: str) -> str:
    """A whole fixture file: the header every file needs, defaults the cases
    share, and one case."""
    name, skeleton_input, optional = _input(component, operation)
    document = {
        "format": 1,
        "component": component,
        "topic": "TOPIC: what the cases of this file pin",
        "defaults": {
            "operation": operation,
            "features": [f"{component}.FEATURE"],
            "source": "DOCUMENT / SECTION (or upstream: FILE)",
        },
        "cases": [{
            "id": f"{component}.TOPIC.SHORT-NAME",
            "title": "ONE LINE: what the case shows",
            "input": skeleton_input,
            "expect": {"result": {}},
            "notes": "how the expected values follow from the source, worked by hand",
        }],
    }
    header = _header(component, operation, name, optional, "fixture file")
    header += [
        f"# Save it as <folder>/{component}/<topic>.yaml and check it with",
        "#   topoconf validate --extra-corpus <folder>",
        f"# Features: topoconf list --component {component}; blocks ({{$block: {component}/NAME}}): "
        f"$(topoconf path)/blocks/{component}/.",
    ]
    return "\n".join(header) + "\n" + yaml.safe_dump(document, sort_keys=False, default_flow_style=False)
