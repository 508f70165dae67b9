"""Size limits on what the harness reads: fixture files and implementations' answers.

A corpus layered in by a user, a pull request to a shared corpus or a buggy
implementation can hand the harness a YAML alias bomb or a structure nested
thousands of levels deep. Everything downstream (block resolution, matrix
expansion, schema validation, comparison) walks values recursively and copies
aliased parts, so the input is refused before any of that runs. The limits are
far above anything a real fixture or answer needs (docs/fixture-format.md,
"Loader rules", names them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# A YAML file (fixture, block, feature list or expectations file). The largest
# fixture of the corpus is about 160 KB.
MAX_FILE_BYTES = 4 * 1024 * 1024
# Levels of mappings and sequences, counting the document itself and the
# contents of aliased nodes where an alias stands. Real fixtures stay below 20.
MAX_DEPTH = 64
# Nodes of one YAML document once every alias stands for a copy of its anchor's
# node: what resolving blocks and comparing would have to walk. The largest
# fixture has about 8,000; each composed node costs a few hundred bytes.
MAX_NODES = 100_000
# One fixture file once its blocks, shared input and matrix rows are copied into
# every case (the largest real file comes to about 140,000 values and 320 cases).
MAX_FILE_VALUES = 1_000_000
MAX_FILE_CASES = 10_000
# The same two limits on one result of an implementation (an answer line is
# also limited in bytes, see adapters.Limits).
MAX_ANSWER_DEPTH = MAX_DEPTH
MAX_ANSWER_NODES = 1_000_000


@dataclass(frozen=True)
class Shape:
    depth: int
    nodes: int


def shape(value: Any, max_depth: int = MAX_ANSWER_DEPTH, max_nodes: int = MAX_ANSWER_NODES) -> Shape:
    """Depth and node count of a JSON-like value, walked without recursion.

    The walk stops as soon as either limit is passed, so a hostile value costs
    at most `max_nodes` steps; the numbers returned then exceed a limit but are
    not the full size. A value that contains itself counts as too deep.
    """
    depth = nodes = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        nodes += 1
        depth = max(depth, level)
        if depth > max_depth or nodes > max_nodes:
            break
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend((v, level + 1) for v in item)
    return Shape(depth, nodes)


def answer_problem(value: Any) -> str | None:
    """Why a result is too large for the harness to judge, or None."""
    found = shape(value)
    if found.depth > MAX_ANSWER_DEPTH:
        return f"the result is nested more than {MAX_ANSWER_DEPTH} levels deep"
    if found.nodes > MAX_ANSWER_NODES:
        return f"the result has more than {MAX_ANSWER_NODES} values"
    return None
