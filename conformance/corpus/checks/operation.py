"""The case's operation is one its component has, and its input follows that
operation's input schema (schemas/operations/<component>/<operation>.input.json)."""

from __future__ import annotations

from typing import Any

from conformance import schemas, yamlload
from conformance.corpus.checks import schema
from conformance.model import Problem
from conformance.suggest import did_you_mean

RULE = "unknown-operation"


def problems(rel: str, doc: Any, prefix: list, case_id: str, component: str, operation: str,
             case_input: dict) -> list[Problem]:
    input_schema = schemas.operation_schema(component, operation, "input")
    if not schemas.exists(input_schema):
        return [Problem(rel, yamlload.line_of(doc, prefix + ["operation"]), case_id, f"/cases/{prefix[1]}/operation",
                        RULE, f"{component} has no operation {operation!r} (no schemas/{input_schema})"
                        + did_you_mean(operation, schemas.operations().get(component, ())))]
    return schema.problems(input_schema, case_input, doc, rel, case_id, prefix + ["input"], f"/cases/{prefix[1]}/input")
