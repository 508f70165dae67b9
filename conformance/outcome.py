"""The outcome of a case: one enum, and the groups every verdict is built from.

The values are the strings results.json and every report have always carried;
an `Outcome` is a `str`, so a record read back from JSON compares equal to it.
"""

from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    # From running a case.
    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"
    CRASH = "crash"
    TIMEOUT = "timeout"
    MALFORMED = "malformed"
    BAD_SEQ = "bad-seq"
    INVALID_RESULT = "invalid-result"
    UNSUPPORTED = "unsupported"
    SKIP = "skip"
    NOTRUN = "notrun"
    # Derived from the expectations file.
    XFAIL = "xfail"
    XPASS = "xpass"


_O = Outcome
RUN_OUTCOMES = (_O.PASS, _O.FAIL, _O.ERROR, _O.CRASH, _O.TIMEOUT, _O.MALFORMED, _O.BAD_SEQ, _O.INVALID_RESULT,
                _O.UNSUPPORTED, _O.SKIP, _O.NOTRUN)
ALL_OUTCOMES = tuple(Outcome)
# Kinds an expectations entry may name.
EXPECTABLE = (_O.FAIL, _O.ERROR, _O.CRASH, _O.TIMEOUT, _O.MALFORMED, _O.BAD_SEQ, _O.INVALID_RESULT, _O.UNSUPPORTED)
# Outcomes that never make a run unexpected on their own. An unexpected pass
# (xpass) is one of them too, unless the run is strict: see `is_unexpected`.
BENIGN = frozenset({_O.PASS, _O.XFAIL, _O.UNSUPPORTED, _O.SKIP})
# Outcomes of cases that did not apply to the implementation: left out of every
# pass rate, counted beside it.
NOT_APPLICABLE = frozenset({_O.UNSUPPORTED, _O.SKIP})
# Outcomes of cases whose answer matched the expectation.
PASSED = frozenset({_O.PASS, _O.XPASS})
# Outcomes that keep the answer and the case's details in the report, so that a
# reader can act on them without rerunning anything.
DETAILED = frozenset(set(Outcome) - {_O.PASS, _O.UNSUPPORTED, _O.SKIP})
del _O


def is_unexpected(outcome: str, strict: bool) -> bool:
    """The one rule every verdict uses (exit code, reports, junit, pytest): an
    unexpected pass is a pass marked as such, and a failure only under --strict."""
    if outcome == Outcome.XPASS:
        return strict
    return outcome not in BENIGN


def is_applicable(outcome: str) -> bool:
    return outcome not in NOT_APPLICABLE
