"""Parameter matrices: one case written once, expanded into a row per
combination (a mapping of lists) or per listed row (a list of mappings), with
`{{param}}` substituted (see docs/fixture-format.md).

Rules: `matrix-rows` (the rows of a list do not name the same parameters) and
`matrix-parameter` (a `{{name}}` the matrix does not define).
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from conformance import yamlload
from conformance.model import Problem
from conformance.suggest import did_you_mean

# The key of a list-of-rows matrix row that holds the row's own feature claims.
ROW_FEATURES = "features"
_PARAM = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}")


class UnknownParameter(KeyError):
    def __init__(self, name: str):
        super().__init__(name)
        self.name = name

    def problem(self, rel: str, line: int | None, case_id: str, pointer: str, params: dict[str, Any]) -> Problem:
        return Problem(rel, line, case_id, pointer, "matrix-parameter",
                       f"{{{{{self.name}}}}} names no parameter of the matrix" + did_you_mean(self.name, params))


Row = tuple[dict[str, Any], str, int | None]


def expand(matrix: Any, rel: str, doc: Any, prefix: list, case_id: str) -> Iterator[Row | Problem]:
    """(parameters, id label, row index or None) per combination; a problem, and
    nothing after it, when the rows disagree. A row's `features` key is its own
    feature claims, not a parameter."""
    if matrix is None:
        yield {}, "", None
        return
    if isinstance(matrix, dict):
        keys = list(matrix)
        for positions in itertools.product(*(range(len(matrix[k])) for k in keys)):
            params = {k: matrix[k][i] for k, i in zip(keys, positions, strict=True)}
            yield params, _label(params, {k: i + 1 for k, i in zip(keys, positions, strict=True)}), None
        return
    keys = [k for k in matrix[0] if k != ROW_FEATURES]
    for i, row in enumerate(matrix):
        if [k for k in row if k != ROW_FEATURES] != keys:
            yield Problem(rel, yamlload.line_of(doc, prefix + ["matrix", i]), case_id,
                          f"/cases/{prefix[1]}/matrix/{i}", "matrix-rows",
                          f"every row names the same parameters in the same order: {keys}")
            return
    for i, row in enumerate(matrix):
        params = {k: v for k, v in row.items() if k != ROW_FEATURES}
        yield params, _label(params, dict.fromkeys(params, i + 1)), i


def row_claims(defaults: dict, raw_case: dict, prefix: list, row: int | None,
               params: dict[str, Any]) -> list[tuple[str, list]]:
    """The features one row claims, each with where it is written: `defaults`, the
    case's own list, then the row's `features`, with `{{param}}` substituted.
    A name written in several places points at the most specific one."""
    written: list[tuple[str, list]] = [(n, ["defaults", "features", i])
                                       for i, n in enumerate(defaults.get("features", []))]
    written += [(n, prefix + ["features", i]) for i, n in enumerate(raw_case.get("features", []))]
    if row is not None:
        written += [(n, prefix + ["matrix", row, ROW_FEATURES, i])
                    for i, n in enumerate(raw_case["matrix"][row].get(ROW_FEATURES, []))]
    claims: dict[str, list] = {}
    for name, where in written:
        # A later, more specific place replaces the pointer but keeps the name's
        # first position.
        claims[substitute(name, params)] = where
    return list(claims.items())


def _label(params: dict[str, Any], positions: dict[str, int]) -> str:
    """`[k1=v1,k2=v2]`; a list or mapping value is named by its position (`k=#2`)
    so ids stay short and stable."""
    parts = [f"{k}={'#' + str(positions[k]) if isinstance(v, (dict, list)) else _text(v)}" for k, v in params.items()]
    return "[" + ",".join(parts) + "]"


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return str(value)


def substitute(value: Any, params: dict[str, Any], charge: Callable[[str | None], None] | None = None) -> Any:
    """Replace matrix parameters inside a value (see docs/fixture-format.md).

    `charge` hears of each value built: None for one node, a parameter's name
    for a copy of that parameter."""
    if charge is not None:
        charge(None)
    if not params and not isinstance(value, (dict, list, str)):
        return value
    if isinstance(value, str):
        whole = _PARAM.fullmatch(value)
        if whole:
            if whole.group(1) not in params:
                raise UnknownParameter(whole.group(1))
            if charge is not None:
                charge(whole.group(1))
            return copy.deepcopy(params[whole.group(1)])

        def text(match: re.Match) -> str:
            if match.group(1) not in params:
                raise UnknownParameter(match.group(1))
            if charge is not None:
                charge(match.group(1))
            return _text(params[match.group(1)])

        return _PARAM.sub(text, value)
    if isinstance(value, dict):
        return {substitute(k, params, charge) if isinstance(k, str) else k: substitute(v, params, charge)
                for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, params, charge) for v in value]
    return value
