"""Run generated inputs on two implementations and shrink any disagreement.

Hypothesis drives the generation and, on a disagreement, shrinks the input to a
minimal one that still disagrees; that minimal input is what comes back.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Flaky

from conformance import compare
from conformance.adapters.base import Adapter, Response
from conformance.fuzz.answers import strip_paths
from conformance.fuzz.claims import KnownDifference, claimed_by
from conformance.protocol import TRANSPORT_FAULTS as BROKEN
from reference_impl import dispatch


@dataclass
class Disagreement:
    component: str
    operation: str
    input: dict[str, Any]
    implementation: dict[str, Any]
    reference: dict[str, Any]
    diff: list[str]
    invalid_input: bool

    @property
    def digest(self) -> str:
        canonical = json.dumps(self.input, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:10]


@dataclass
class OperationReport:
    component: str
    operation: str
    invalid_inputs: bool
    examples: int = 0
    unsupported: int = 0
    seconds: float = 0.0
    disagreement: Disagreement | None = None
    # The oracle's own transport failure (a crash, a hang, a spent restart
    # budget): the run stops there and nothing about the implementation follows.
    oracle_failure: str | None = None
    # corpus case id -> generated inputs that disagreed as that known difference does
    known: dict[str, int] = field(default_factory=dict)


@dataclass
class FuzzReport:
    implementation: str
    against: str
    seed: int | None
    operations: list[OperationReport] = field(default_factory=list)

    @property
    def examples(self) -> int:
        return sum(o.examples for o in self.operations)

    @property
    def disagreements(self) -> list[Disagreement]:
        return [o.disagreement for o in self.operations if o.disagreement]


def _describe(response: Response) -> dict[str, Any]:
    if response.kind == "result":
        return {"result": response.result}
    return {response.kind: response.message}


def disagreement(impl: Response, ref: Response, ignored: tuple[str, ...], invalid: bool) -> list[str]:
    """Why two answers to the same input disagree; empty when they agree. A
    broken answer of the reference never gets here: it ends the run."""
    if impl.kind in BROKEN:
        return [f"the implementation answered {impl.kind}: {impl.message}"]
    if not invalid:
        # A generated valid input is inside the contract: an error answer there is
        # a fault even when both sides give it (a crash of the reference looks the
        # same in-process and through the protocol).
        for who, response in (("implementation", impl), ("reference", ref)):
            if response.kind == "error":
                return [f"the {who} answered error on an input the contract accepts: {response.message}"]
    if invalid and {impl.kind, ref.kind} <= {"result", "error"} and impl.kind != ref.kind:
        # For input outside the contract, a refusal result and an error answer
        # are both a refusal; only a crash or a hang is a fault.
        return []
    if impl.kind != ref.kind:
        return [f"the implementation answered {impl.kind} ({impl.message}), the reference {ref.kind} ({ref.message})"]
    if impl.kind != "result":
        return []
    mine, theirs = strip_paths(impl.result, ignored), strip_paths(ref.result, ignored)
    if mine == theirs:
        return []
    return compare.diff(theirs, mine) + [f"{line} (a key only the implementation has)"
                                         for line in compare.diff(mine, theirs) if "key missing" in line]


def admitted_by_the_contract(component: str, operation: str, data: dict[str, Any], impl: Response,
                             ignored: tuple[str, ...]) -> bool:
    """Whether every answer the implementation gave (its result, or each distinct
    result of a non-deterministic answer) is one the contract admits where it
    leaves a choice open (reference_impl.dispatch.admitted)."""
    if impl.kind == "result":
        given = [impl.result]
    elif impl.kind == "error" and impl.nondeterministic is not None \
            and impl.nondeterministic.results and len(impl.nondeterministic.results) == impl.nondeterministic.distinct:
        given = list(impl.nondeterministic.results)
    else:
        return False
    try:
        answers = dispatch.admitted(component, operation, data)
    except Exception:  # noqa: BLE001 - an input the reference refuses outright admits nothing more
        return False
    if len(answers) < 2:
        return False
    admitted = [strip_paths(json.loads(json.dumps(a)), ignored) for a in answers]
    return all(strip_paths(g, ignored) in admitted for g in given)


def fuzz_operation(implementation: Adapter, reference: Adapter, component: str, operation: str, strategy,
                   examples: int, seed: int | None, ignored: tuple[str, ...] = (), invalid: bool = False,
                   supported: Callable[[dict[str, Any]], bool] | None = None,
                   known: tuple[KnownDifference, ...] = ()) -> OperationReport:
    """`supported(input)` says whether the implementation declares every feature
    the input needs; an input it does not, or one it answers `unsupported`,
    is counted apart and compared with nothing, as in a corpus run. A
    disagreement on an input one of `known` claims is counted under its corpus
    case and does not stop the run."""
    report = OperationReport(component, operation, invalid)
    found: list[Disagreement] = []

    def check(data: dict[str, Any]) -> None:
        if report.oracle_failure is not None:
            return
        report.examples += 1
        if supported is not None and not supported(data):
            report.unsupported += 1
            return
        case = {"component": component, "operation": operation, "input": data}
        case_id = f"fuzz.{component}.{operation}.{report.examples}"
        mine = implementation.run(case_id, case)
        if mine.kind == "unsupported":
            report.unsupported += 1
            return
        theirs = reference.run(case_id, case)
        if theirs.kind in BROKEN:
            report.oracle_failure = f"{theirs.kind}: {theirs.message}"
            # Hypothesis replays this input and, finding it passes now, gives up.
            raise AssertionError(report.oracle_failure)
        if found and "notrun" in (mine.kind, theirs.kind):
            # Shrinking a crash spends the restart budget; an input that was not
            # run tells nothing, and must not stand in for the crash found.
            return
        lines = disagreement(mine, theirs, ignored, invalid)
        if lines and not invalid and theirs.kind == "result" \
                and admitted_by_the_contract(component, operation, data, mine, ignored):
            return
        if lines and mine.kind in ("result", "error") and theirs.kind == "result":
            # A known difference may be an error answer (a release that cannot
            # give one answer); a transport fault never is.
            answer = mine.result if mine.kind == "result" else {"error": mine.message}
            if mine.nondeterministic is not None:
                answer["nondeterministic"] = mine.nondeterministic.to_wire()
            difference = claimed_by(known, data, answer)
            if difference is not None:
                report.known[difference.case] = report.known.get(difference.case, 0) + 1
                return
        if lines:
            found.append(Disagreement(component, operation, data, _describe(mine), _describe(theirs), lines, invalid))
            raise AssertionError("\n".join(lines))

    runner = settings(max_examples=examples, database=None, deadline=None, derandomize=seed is None,
                      suppress_health_check=list(HealthCheck), report_multiple_bugs=False, print_blob=False)(
        given(strategy)(check))
    if seed is not None:
        runner = hypothesis_seed(seed)(runner)
    started = time.monotonic()
    try:
        runner()
    except (AssertionError, Flaky):
        # Hypothesis replays the minimal failing example last; when the budget
        # ran out, that replay is not run and Hypothesis calls the failure flaky.
        report.disagreement = found[-1] if found and report.oracle_failure is None else None
    report.seconds = time.monotonic() - started
    return report
