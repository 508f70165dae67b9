"""Running cases against an adapter and judging each answer."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from conformance import bounds, compare, schemas
from conformance.adapters.base import Adapter, Hello, Response
from conformance.corpus import BrokenCase, Corpus
from conformance.expectations import NONE, Expectations, id_matches
from conformance.model import (
    DETAILED,
    ERROR,
    FAIL,
    INVALID_RESULT,
    MALFORMED,
    NOTRUN,
    PASS,
    UNSUPPORTED,
    Case,
    Record,
    bounded,
)
from conformance.protocol import Kind


@dataclass(frozen=True)
class Selection:
    features: tuple[str, ...] = ()
    exclude_features: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    components: tuple[str, ...] = ()

    def wants(self, case_id: str, component: str, features: Iterable[str]) -> bool:
        features = set(features)
        if self.components and component not in self.components:
            return False
        if self.ids and not any(id_matches(pattern, case_id) for pattern in self.ids):
            return False
        if self.features and not features & set(self.features):
            return False
        if self.exclude_features and features & set(self.exclude_features):
            return False
        return True

    def describe(self) -> dict[str, list[str]]:
        return {k: list(v) for k, v in self.__dict__.items() if v}


def select(corpus: Corpus, selection: Selection) -> tuple[list[Case], list[BrokenCase]]:
    cases = [c for c in corpus.cases if selection.wants(c.id, c.component, c.features)]
    broken = [b for b in corpus.broken if selection.wants(b.id, b.component, ())
              and not (selection.features or selection.exclude_features)]
    return cases, broken


def missing_capabilities(case: Case, hello: Hello) -> list[str]:
    if case.component not in hello.components:
        return [f"component {case.component}"]
    return sorted(set(case.features) - hello.features)


def judge(case: Case, response: Response) -> tuple[str, str | None, list[str] | None]:
    """The outcome of one answer: (outcome, message, diff)."""
    if response.kind is Kind.ERROR and _every_run_admitted(case, response):
        runs = response.nondeterministic
        return PASS, (f"not deterministic ({runs.distinct} different results over {runs.runs} runs), "
                      "each one the expectation admits"), None
    if response.kind is not Kind.RESULT:
        return response.kind.outcome, response.message, None
    return _judge_result(case, response.result)


def _every_run_admitted(case: Case, response: Response) -> bool:
    """A release that answers an input differently from run to run conforms
    where the case admits every answer it gave (a point the contract leaves
    open, written with `$anyOf`): all its distinct results are listed and each
    passes on its own."""
    runs = response.nondeterministic
    if runs is None or not runs.results or len(runs.results) != runs.distinct:
        return False
    return all(_judge_result(case, result)[0] == PASS for result in runs.results)


def _judge_result(case: Case, result: Any) -> tuple[str, str | None, list[str] | None]:
    # The subprocess adapter refuses such answers already; an in-process one
    # reaches here directly, and the schema check and comparison below recurse.
    too_large = bounds.answer_problem(result)
    if too_large:
        return MALFORMED, too_large, None
    schema = schemas.operation_schema(case.component, case.operation, "result")
    if schemas.exists(schema):
        problems = schemas.errors(schema, result)
        if problems:
            lines = [f"{schemas.path_pointer(p) or '/'}: [{rule}] {message}" for p, rule, message in problems[:10]]
            return INVALID_RESULT, f"the result breaks schemas/{schema}", lines
    lines = compare.diff(case.expect.get("result"), result)
    if lines:
        return FAIL, "the result differs from the expectation", lines
    return PASS, None, None


def new_record(case: Case) -> Record:
    return Record(case.id, case.component, case.operation, case.features, case.file, PASS,
                  line=case.line or None, title=case.title, source=case.source, notes=case.notes)


def _keep_details(record: Record, case: Case, response: Response | None) -> Record:
    """The input and the answer travel with an outcome someone has to act on."""
    if record.outcome not in DETAILED:
        return record
    truncated = []
    record.input, cut = bounded(case.input)
    if cut:
        truncated.append("input")
    answer = _answer_kept(response)
    if answer is not None:
        record.actual, cut = bounded(answer)
        if cut:
            truncated.append("actual")
    # Kept so that a view rendered from results.json alone can set the expected
    # placement beside the actual one.
    if case.expect.get("result") is not None:
        record.expected, cut = bounded(case.expect["result"])
        if cut:
            truncated.append("expected")
    record.truncated = tuple(truncated)
    return record


def _answer_kept(response: Response | None) -> Any:
    """What a record keeps of the answer: the result, or an error as sent, whose
    detail (a stack, the distinct results of a non-deterministic input) is the
    implementation's own account of it."""
    if response is None:
        return None
    if response.kind is Kind.RESULT:
        return response.result
    if response.kind is Kind.ERROR:
        return {"error": response.error_body()}
    return None


def run_case(case: Case, adapter: Adapter, hello: Hello, expectations: Expectations = NONE) -> Record:
    record = new_record(case)
    missing = missing_capabilities(case, hello)
    if missing:
        record.outcome = UNSUPPORTED
        record.message = "the implementation does not declare: " + ", ".join(missing)
        return expectations.apply(record)
    if adapter.exhausted:
        record.outcome = NOTRUN
        record.message = "not run: the implementation's restart budget is spent"
        return record
    started = time.perf_counter()
    response = adapter.run(case.id, case.wire())
    record.duration_ms = (time.perf_counter() - started) * 1000
    record.outcome, record.message, record.diff = judge(case, response)
    record.stderr_tail = response.stderr_tail or None
    if record.outcome != NOTRUN:
        record = expectations.apply(record)
    return _keep_details(record, case, response)


def broken_record(broken: BrokenCase) -> Record:
    lines = [p.line for p in broken.problems if p.file == broken.file and p.line]
    return Record(
        broken.id, broken.component, "?", (), broken.file, ERROR,
        message="the fixture case is invalid: " + "; ".join(p.render() for p in broken.problems[:5]),
        line=min(lines) if lines else None,
    )


@dataclass
class Run:
    hello: Hello
    impl_spec: str
    records: list[Record] = field(default_factory=list)
    complete: bool = True
    selection: dict[str, Any] = field(default_factory=dict)


def run(
    cases: list[Case],
    broken: list[BrokenCase],
    adapter: Adapter,
    hello: Hello,
    expectations: Expectations = NONE,
    progress: Callable[[int, int, Record], None] | None = None,
) -> Run:
    result = Run(hello=hello, impl_spec=adapter.spec)
    total = len(cases) + len(broken)
    for index, case in enumerate(cases, 1):
        record = run_case(case, adapter, hello, expectations)
        result.records.append(record)
        if progress:
            progress(index, total, record)
    for offset, item in enumerate(broken, len(cases) + 1):
        record = broken_record(item)
        result.records.append(record)
        if progress:
            progress(offset, total, record)
    result.complete = not any(r.outcome == NOTRUN for r in result.records)
    return result
