"""`topoconf new COMPONENT OPERATION`: a case skeleton to fill in, built from the
operation's input schema so it names the fields the input needs."""

from __future__ import annotations

from typing import Any

import yaml

from conformance import schemas


def _placeholder(schema: dict[str, Any]) -> Any:
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0]
    return {"object": {}, "array": [], "string": "TODO", "integer": 0, "number": 0, "boolean": False}.get(kind, None)


def render(component: str, operation: str) -> str:
    name = schemas.operation_schema(component, operation, "input")
    if not schemas.exists(name):
        known = ", ".join(f"{c}.{o}" for c, ops in schemas.operations().items() for o in ops)
        raise KeyError(f"no operation {component}.{operation}; known: {known}")
    schema = schemas.validator(name).schema
    properties = schema.get("properties", {})
    skeleton_input = {key: _placeholder(properties.get(key, {})) for key in schema.get("required", [])}
    optional = [key for key in properties if key not in skeleton_input]
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
    header = [
        f"# A {component}.{operation} case. Contract: docs/operations/{component}.md; "
        f"input schema: schemas/{name}.",
    ]
    if optional:
        header.append("# Optional input fields: " + ", ".join(optional) + ".")
    return "\n".join(header) + "\n" + text
