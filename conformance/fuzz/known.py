"""Differences an implementation is known to have, for generated inputs.

A disagreement the fuzzer found is resolved either by fixing the reference or by
a corpus case plus an expectations entry that says why the implementation
answers otherwise. Once resolved the second way, the same difference would stop
every later run at its first occurrence and hide whatever else there is to find.
So the entry also says, in its `fuzz:` block, how a generated input is
recognised as that difference; a disagreement so recognised is counted under
the entry's corpus case instead of failing the run.

Each claim of a block names the operations it applies to, optionally an input
guard (`when`), and one way of recognising the answer:
- `model`: behaviours of the release model (conformance/releases/); the answer
  is the reference's with them in place;
- `rewrite`: the answer is the reference's for the input as the release reads it;
- `nondeterministic`: the error answer reports repeated runs differing that way;
- `predicate`: a recogniser of the answer itself.
The named functions are in conformance/fuzz/recognisers.py; `check` reports
every name that resolves to nothing (`topoconf validate` runs it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from conformance import expectations as expectations_mod
from conformance import releases
from conformance.expectations import Entry, Expectations
from conformance.fuzz import recognisers
from conformance.fuzz.answers import strip_paths, without_keys
from conformance.fuzz.claims import KnownDifference
from conformance.fuzz.strategies import IGNORED
from conformance.model import Problem
from conformance.paths import expectations_dir
from reference_impl import dispatch

Data = dict[str, Any]
KINDS = ("model", "rewrite", "nondeterministic", "predicate")
# Kueue's messages are the implementation's own wording (the corpus matches them by fragment).
_MESSAGES_FREE = frozenset({"kueue"})


def _same(component: str, operation: str, reference: Any, result: Any, ignoring: frozenset[str]) -> bool:
    if component in _MESSAGES_FREE:
        return without_keys(reference, ignoring, True) == without_keys(result, ignoring, True)
    ignored = IGNORED.get((component, operation), ())
    return (without_keys(strip_paths(reference, ignored), ignoring, False)
            == without_keys(strip_paths(result, ignored), ignoring, False))


def _answers_as(component: str, operation: str, answer: Callable[[Data], Any], ignoring: frozenset[str]):
    """The difference recognised exactly: the implementation's answer is what
    `answer(input)` gives (None: the input does not have the difference)."""
    def applies(data: Data, result: Data) -> bool:
        try:
            expected = answer(data)
            if expected is None:
                return False
            expected = json.loads(json.dumps(expected))
        except Exception:  # noqa: BLE001 - an input the reading cannot answer is not this difference
            return False
        return _same(component, operation, expected, result, ignoring)
    return applies


def _rewritten(component: str, operation: str, rewrite: Callable[[Data], Data | None]) -> Callable[[Data], Any]:
    def answer(data: Data) -> Any:
        read = rewrite(data)
        return None if read is None else dispatch.run(component, operation, read)
    return answer


def _recogniser(claim: Mapping[str, Any], model: releases.ReleaseModel | None, component: str,
                operation: str) -> Callable[[Data, Data], bool]:
    ignoring = frozenset(claim.get("ignoring") or ())
    if "model" in claim:
        names = tuple(claim["model"])
        if model is None:
            raise ValueError(f"{component}.{operation}: a fuzz claim names a model, but the release has none")
        model.seams(names)  # an unknown name fails here, when the claims are built
        applies = _answers_as(component, operation, lambda data: model.run(operation, data, names), ignoring)
    elif "rewrite" in claim:
        applies = _answers_as(component, operation,
                              _rewritten(component, operation, recognisers.REWRITES[claim["rewrite"]]), ignoring)
    elif "nondeterministic" in claim:
        kind = recognisers.NONDETERMINISM[claim["nondeterministic"]]

        def applies(data: Data, result: Data) -> bool:
            return kind(operation, data, str(result.get("error", "")))
    else:
        applies = recognisers.PREDICATES[claim["predicate"]]
    if "when" not in claim:
        return applies
    guard = recognisers.WHEN[claim["when"]]

    def guarded(data: Data, result: Data) -> bool:
        return guard(data) and applies(data, result)
    return guarded


def case_of(entry: Entry, claim: Mapping[str, Any], operation: str) -> str:
    return str(claim.get("case", entry.match)).replace("{operation}", operation)


def differences(expectations: Expectations) -> tuple[KnownDifference, ...]:
    """Every claim of the file's `fuzz:` blocks, in the order written."""
    model = releases.model_for(expectations.implementation or "", expectations.version or "")
    found = []
    for entry in expectations.entries:
        for claim in entry.fuzz:
            for qualified in claim["operations"]:
                component, operation = qualified.split(".", 1)
                found.append(KnownDifference(case_of(entry, claim, operation), expectations.implementation or "",
                                             expectations.version or "", component, operation,
                                             _recogniser(claim, model, component, operation)))
    return tuple(found)


_LOADED: dict[tuple[str, str], tuple[KnownDifference, ...]] = {}


def for_operation(implementation: str, version: str, component: str, operation: str) -> tuple[KnownDifference, ...]:
    """The known differences of the bundled expectations file of that release."""
    key = (implementation, version)
    if key not in _LOADED:
        path = expectations_dir() / f"{implementation}-{version}.yaml"
        loaded, problems = expectations_mod.load(path) if path.is_file() else (expectations_mod.NONE, [])
        if problems:
            raise ValueError(f"{path}: {problems[0].message}")
        _LOADED[key] = differences(loaded)
    return tuple(k for k in _LOADED[key] if (k.component, k.operation) == (component, operation))


def check(expectations: Expectations, all_ids: set[str], operations: set[tuple[str, str]]) -> list[Problem]:
    """Every name a `fuzz:` block uses resolves, every operation is one the
    fuzzer generates, and every case it counts under is a corpus case the entry
    matches."""
    model = releases.model_for(expectations.implementation or "", expectations.version or "")
    problems = []

    def problem(entry: Entry, rule: str, message: str) -> None:
        problems.append(Problem(expectations.file or "<expectations>", entry.line, None, "/entries", rule,
                                f"entry {entry.match!r}: {message}"))

    for entry in expectations.entries:
        for claim in entry.fuzz:
            for name, table in (("when", recognisers.WHEN), ("rewrite", recognisers.REWRITES),
                                ("nondeterministic", recognisers.NONDETERMINISM),
                                ("predicate", recognisers.PREDICATES)):
                if name in claim and claim[name] not in table:
                    problem(entry, "fuzz-name", f"{name} {claim[name]!r} is not in conformance/fuzz/recognisers.py "
                                                f"(known: {', '.join(sorted(table))})")
            if "model" in claim:
                if model is None:
                    problem(entry, "fuzz-name", f"no release model for {expectations.implementation} "
                                                f"{expectations.version} in conformance/releases/")
                else:
                    for name in claim["model"]:
                        if name not in model.behaviours:
                            problem(entry, "fuzz-name", f"the release model has no behaviour {name!r} "
                                                        f"(known: {', '.join(model.behaviours)})")
            if "case" not in claim and entry.is_glob:
                problem(entry, "fuzz-case", "a glob entry's fuzz block needs `case`: the one case claims count under")
            for qualified in claim["operations"]:
                component, operation = qualified.split(".", 1)
                if (component, operation) not in operations:
                    problem(entry, "fuzz-operation", f"{qualified} is no operation the fuzzer generates")
                case = case_of(entry, claim, operation)
                if case not in all_ids:
                    problem(entry, "fuzz-case", f"case {case!r} is not in the corpus")
                elif not entry.matches(case):
                    problem(entry, "fuzz-case", f"case {case!r} is not one the entry matches")
    return problems
