"""Every refusal reason the operation contracts name is pinned by the corpus.

Each docs/operations/<component>.md ends with a delimited table listing, per
operation, the field of the result where a refusal's reason code goes and every
code that can appear there. A reason that no hand-derived case expects, exactly,
at that place lets an implementation that never gives it pass the whole corpus,
so each (component, operation, field, reason) must be expected by at least one
case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance import corpus as corpus_mod
from conformance.corpus import COMPONENTS
from conformance.paths import schemas_dir

DOCS = Path(__file__).resolve().parents[2] / "docs" / "operations"
_BLOCK = re.compile(r"<!-- refusal-reasons:begin -->\n(.*?)\n<!-- refusal-reasons:end -->", re.S)
_HEADER = ("operation", "result field", "reasons")
_CODE = re.compile(r"^`([A-Za-z_]+)`$")
_FIELD = re.compile(r"^`((?:[A-Za-z_]+(?:\[\])?\.)*reason)`$")


@dataclass(frozen=True)
class Pinned:
    component: str
    operation: str
    field: str
    reason: str

    def __str__(self) -> str:
        return f"{self.component}.{self.operation} {self.field} = {self.reason}"


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _unquote(cell: str, where: str) -> str:
    match = _CODE.match(cell)
    if not match:
        raise ValueError(f"{where}: expected one `code` in backticks, got {cell!r}")
    return match.group(1)


def parse_list(text: str, where: str) -> list[Pinned]:
    """The (operation, field, reason) rows of one document's delimited table."""
    blocks = _BLOCK.findall(text)
    if len(blocks) != 1:
        raise ValueError(f"{where}: expected exactly one refusal-reasons block, found {len(blocks)}")
    lines = [line for line in blocks[0].splitlines() if line.strip()]
    if len(lines) < 3 or tuple(_cells(lines[0])) != _HEADER or set(lines[1].replace("|", "").strip()) != {"-", " "}:
        raise ValueError(f"{where}: the block must be a table with the header | {' | '.join(_HEADER)} |")
    component = Path(where).stem
    rows = []
    for number, line in enumerate(lines[2:], start=3):
        cells = _cells(line)
        at = f"{where}: refusal-reasons row {number}"
        if len(cells) != 3:
            raise ValueError(f"{at}: expected 3 cells, got {len(cells)}")
        operation = _unquote(cells[0], at)
        field = _FIELD.match(cells[1])
        if not field:
            raise ValueError(f"{at}: {cells[1]!r} is not a path like `refused.reason` or `pods[].reason`")
        for code in cells[2].split(","):
            rows.append(Pinned(component, operation, field.group(1), _unquote(code.strip(), at)))
    return rows


def reasons_at(value: Any, field: str) -> set[str]:
    """The reason codes an expectation states literally at `field` (`a[].b.reason`).
    A matcher for a list (`$unordered`) or a mapping (`$exact`) is looked through;
    `$contains` and `$any` state no code."""
    if not field:
        return {value} if isinstance(value, str) else set()
    head, _, rest = field.partition(".")
    is_list = head.endswith("[]")
    key = head[:-2] if is_list else head
    if isinstance(value, dict) and set(value) == {"$exact"}:
        value = value["$exact"]
    if not isinstance(value, dict) or key not in value:
        return set()
    inner = value[key]
    if not is_list:
        return reasons_at(inner, rest)
    if isinstance(inner, dict) and set(inner) == {"$unordered"}:
        inner = inner["$unordered"]
    if not isinstance(inner, list):
        return set()
    found: set[str] = set()
    for item in inner:
        found |= reasons_at(item, rest)
    return found


def _documented() -> list[Pinned]:
    rows = []
    for component in COMPONENTS:
        path = DOCS / f"{component}.md"
        rows.extend(parse_list(path.read_text(encoding="utf-8"), str(path.relative_to(DOCS.parents[1]))))
    return rows


DOCUMENTED = _documented()


@pytest.fixture(scope="module")
def pinned_by_corpus() -> dict[tuple[str, str, str], set[str]]:
    corpus = corpus_mod.load()
    found: dict[tuple[str, str, str], set[str]] = {}
    fields = {(p.component, p.operation, p.field) for p in DOCUMENTED}
    for case in corpus.cases:
        # A generated case's expectation is an implementation's answer, not a
        # derivation from the text, so it pins nothing.
        if case.source.strip().lower().startswith("generated"):
            continue
        for component, operation, field in fields:
            if (case.component, case.operation) == (component, operation):
                found.setdefault((component, operation, field), set()).update(
                    reasons_at(case.expect.get("result"), field))
    return found


@pytest.mark.parametrize("pinned", DOCUMENTED, ids=str)
def test_reason_is_pinned_by_a_case(pinned, pinned_by_corpus):
    expected = pinned_by_corpus.get((pinned.component, pinned.operation, pinned.field), set())
    assert pinned.reason in expected, (
        f"no corpus case of {pinned.component} {pinned.operation} expects {pinned.field} = {pinned.reason}")


def test_every_refusing_operation_has_a_schema_and_rows():
    for component in COMPONENTS:
        operations = {p.operation for p in DOCUMENTED if p.component == component}
        assert operations, component
        for operation in operations:
            assert (schemas_dir() / "operations" / component / f"{operation}.result.json").is_file(), (
                component, operation)


@pytest.mark.parametrize("component", COMPONENTS)
def test_list_agrees_with_the_prose(component):
    """Each listed code is named in the document's text outside the list."""
    text = (DOCS / f"{component}.md").read_text(encoding="utf-8")
    prose = _BLOCK.sub("", text)
    missing = sorted({p.reason for p in DOCUMENTED
                      if p.component == component and not re.search(rf"\b{p.reason}\b", prose)})
    assert missing == []


def test_no_duplicate_rows():
    assert len(DOCUMENTED) == len(set(DOCUMENTED))


def test_reasons_at_reads_literal_codes_through_list_and_mapping_matchers():
    result = {"states": [{"actions": {"$unordered": [{"reason": "NoReplacement"}, {"type": "NodeFailed"}]}},
                         {"eviction": {"reason": "NodeFailures"}}],
              "refused": {"$exact": {"reason": "TooManyNUMANodes", "message": {"$contains": "8"}}},
              "pods": [{"reason": {"$contains": "Topology"}}]}
    assert reasons_at(result, "states[].actions[].reason") == {"NoReplacement"}
    assert reasons_at(result, "states[].eviction.reason") == {"NodeFailures"}
    assert reasons_at(result, "refused.reason") == {"TooManyNUMANodes"}
    assert reasons_at(result, "pods[].reason") == set()
    assert reasons_at(None, "refused.reason") == set()


def test_parse_list_names_the_file_and_row_of_a_bad_entry():
    text = ("<!-- refusal-reasons:begin -->\n| operation | result field | reasons |\n| --- | --- | --- |\n"
            "| `start` | `refused.reason` | TooManyNUMANodes |\n<!-- refusal-reasons:end -->")
    with pytest.raises(ValueError, match=r"kubelet\.md: refusal-reasons row 3"):
        parse_list(text, "docs/operations/kubelet.md")
    with pytest.raises(ValueError, match="exactly one"):
        parse_list("no list here", "docs/operations/kubelet.md")
