"""The corpus pass's own runner (benchmarks/mutation/corpus_runner.py), on a tiny package mutmut mutates.

The package's mutants are real mutmut mutants behind real trampolines; only
the check the child runs is a stand-in for the corpus, so the runner's
verdicts, timeout and resumption are tested without parsing the corpus.
"""

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[2] / "benchmarks" / "mutation"
sys.path.insert(0, str(HERE))

import corpus_runner  # noqa: E402

pytest.importorskip("mutmut")

SOURCE = '''\
def add(a, b):
    return a + b


def double(x, unused=1):
    return x * 2


def countdown(n):
    while n > 0:
        n -= 1
    return n
'''

# The stand-in corpus: one "case" per function, each a check of an answer.
CASES = {
    "t_add": lambda calc: calc.add(2, 3) == 5,
    "t_double": lambda calc: calc.double(4) == 8,
    "t_countdown": lambda calc: calc.countdown(3) == 0,
}


def tiny_check(cases, names):
    calc = importlib.import_module("tinypkg.calc")
    for run, (name, case) in enumerate(zip(names, cases, strict=True), 1):
        if not case(calc):
            return corpus_runner.KILLED, name, run
    return corpus_runner.SURVIVED, None, len(names)


@pytest.fixture(scope="module")
def mutated(tmp_path_factory):
    work = tmp_path_factory.mktemp("work")
    (work / "pyproject.toml").write_text('[tool.mutmut]\nsource_paths = ["tinypkg"]\n'
                                         "use_git_change_detection = false\n")
    (work / "tinypkg").mkdir()
    (work / "tinypkg" / "__init__.py").write_text("")
    (work / "tinypkg" / "calc.py").write_text(SOURCE)
    subprocess.run([sys.executable, "-c", "import generate; generate.generate_mutants()"], cwd=work, check=True,
                   env={"PYTHONPATH": str(HERE), "PATH": "/usr/bin:/bin"}, capture_output=True)
    mutants = work / "mutants"
    sys.path.insert(0, str(mutants))
    try:
        yield work
    finally:
        sys.path.remove(str(mutants))
        for name in [m for m in sys.modules if m == "tinypkg" or m.startswith("tinypkg.")]:
            del sys.modules[name]


def _campaign(work, limits=None):
    mutants = work / "mutants"
    tests = {f"tinypkg.calc.x_{name[2:]}": [name] for name in CASES}
    return corpus_runner.Campaign(mutants, CASES, tests, {name: 0.001 for name in CASES},
                                  corpus_runner.MetaFiles(mutants), work / "runner-log.jsonl",
                                  limits or corpus_runner.Limits(constant=2.0, factor=0.0, wall_factor=30.0),
                                  check=tiny_check)


def _mutant(work, function, text):
    """The mutant of `function` whose source holds `text` (mutmut's numbers are its own)."""
    source = (work / "mutants" / "tinypkg" / "calc.py").read_text()
    for block in source.split("\ndef ")[1:]:
        head, _, body = block.partition("\n")
        if head.startswith(f"x_{function}__mutmut_") and "orig" not in head and text in head + body:
            return "tinypkg.calc." + head.split("(")[0]
    raise AssertionError(f"no mutant of {function} with {text!r}")


def test_a_mutant_the_check_sees_is_killed_and_names_its_case(mutated):
    campaign = _campaign(mutated)
    name = _mutant(mutated, "add", "a - b")
    verdict = corpus_runner.run_one(campaign, name)
    assert (verdict.exit_code, verdict.killed_by, verdict.cases_run) == (corpus_runner.KILLED, "t_add", 1)


def test_an_equivalent_mutant_survives(mutated):
    # A default no caller relies on: no answer changes.
    verdict = corpus_runner.run_one(_campaign(mutated), _mutant(mutated, "double", "unused=2"))
    assert verdict.exit_code == corpus_runner.SURVIVED
    assert verdict.killed_by is None


def test_a_mutant_that_never_returns_is_stopped_and_recorded_as_timeout(mutated):
    verdict = corpus_runner.run_one(_campaign(mutated), _mutant(mutated, "countdown", "n += 1"))
    assert verdict.exit_code == corpus_runner.TIMEOUT
    from results import status_of  # noqa: PLC0415

    assert status_of(verdict.exit_code) == "timeout"


def test_a_function_no_case_reaches_gives_no_tests_without_a_child(mutated):
    campaign = _campaign(mutated)
    campaign.tests_by_function.pop("tinypkg.calc.x_add")
    assert corpus_runner.run_one(campaign, _mutant(mutated, "add", "a - b")).exit_code == corpus_runner.NO_TESTS


def test_verdicts_land_in_mutmuts_files_and_a_second_run_skips_the_mutants_done(mutated):
    campaign = _campaign(mutated)
    done = _mutant(mutated, "double", "x / 2")
    # As if an interrupted run had judged this one already (with a verdict the check would not give).
    campaign.meta.record(corpus_runner.Verdict(done, corpus_runner.SURVIVED, 0.1, 0.1), 0.001)
    slow = _mutant(mutated, "countdown", "n += 1")
    other = _mutant(mutated, "countdown", "n = 1")
    for name in (slow, other):  # keep the run short: the loops are judged by the test above
        campaign.meta.record(corpus_runner.Verdict(name, corpus_runner.TIMEOUT, 0.1, 0.1), 0.001)
    first = corpus_runner.run_campaign(campaign)
    assert done not in {v.mutant for v in first}
    assert {v.mutant for v in first} == {m for m in campaign.meta.paths if m not in (done, slow, other)}

    reread = corpus_runner.MetaFiles(mutated / "mutants")
    assert reread.exit_code(done) == corpus_runner.SURVIVED
    assert all(reread.exit_code(v.mutant) == v.exit_code for v in first)
    from results import load_pass  # noqa: PLC0415

    assert "not checked" not in load_pass(mutated).values()
    assert corpus_runner.run_campaign(_campaign(mutated)) == []
    logged = [json.loads(line) for line in (mutated / "runner-log.jsonl").read_text().splitlines()]
    assert [entry["mutant"] for entry in logged] == [v.mutant for v in first]


def test_cases_that_killed_a_mutant_of_the_function_run_first():
    durations = {"a": 1.0, "b": 2.0, "c": 0.5}
    assert corpus_runner.order_cases(["a", "b", "c"], durations, []) == ["c", "a", "b"]
    assert corpus_runner.order_cases(["a", "b", "c"], durations, ["b", "x", "a"]) == ["a", "b", "c"]


def test_the_verdict_on_a_record_is_the_pytest_plugins():
    from conformance.model import Record  # noqa: PLC0415

    def record(outcome):
        return Record("id", "kubelet", "admit", (), "f.yaml", outcome)

    assert corpus_runner.case_passes(record("pass"))
    assert corpus_runner.case_passes(record("unsupported"))
    for outcome in ("fail", "error", "crash", "timeout", "malformed", "invalid-result"):
        assert not corpus_runner.case_passes(record(outcome))
