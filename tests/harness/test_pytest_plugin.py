"""The pytest plugin: items per case, diffs and rerun lines, xdist merging."""

import json
import os
import shutil
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import conformance
import conformance.session as harness
from conformance.cli import main
from conformance.pytest_plugin import _strict

pytest_plugins = ["pytester"]

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
FAKE = HERE / "fakes" / "fake_impl.py"


def plugin_args():
    installed = any(ep.name == "topoconf" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "conformance.pytest_plugin"]


@pytest.fixture(autouse=True)
def importable(monkeypatch):
    # The inner pytest must import this very harness, installed or not.
    root = str(Path(conformance.__file__).resolve().parent.parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))


def run(pytester, mode, *extra):
    impl = f"exec:{sys.executable} {FAKE} {mode}"
    return pytester.runpytest_subprocess(
        *plugin_args(), "--impl", impl, "--corpus", str(CORPUS), "--report-dir", str(pytester.path / "rep"),
        "--case-timeout", "2", "-p", "no:cacheprovider", *extra, str(CORPUS),
    )


def test_every_case_is_an_item_named_by_its_id(pytester):
    result = run(pytester, "good", "-v")
    result.assert_outcomes(passed=6, skipped=1)
    result.stdout.fnmatch_lines(["*basic.yaml::harness.matrix?provider=cpu? PASSED*"])
    records = json.loads((pytester.path / "rep" / "results.json").read_text())["records"]
    assert len(records) == 7


def test_a_failure_shows_the_diff_and_a_rerun_command(pytester):
    result = run(pytester, "invalid-result")
    result.assert_outcomes(passed=5, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*invalid-result*", "*rerun: topoconf run --impl*--id*harness.matrix*"])


def test_k_selects_cases_by_id(pytester):
    result = run(pytester, "good", "-k", "two_providers or two-providers")
    result.assert_outcomes(passed=1)


def test_xdist_workers_merge_into_one_report(pytester):
    pytest.importorskip("xdist")
    result = run(pytester, "good", "-n", "2")
    result.assert_outcomes(passed=6, skipped=1)
    document = json.loads((pytester.path / "rep" / "results.json").read_text())
    assert sorted(r["id"] for r in document["records"]) == sorted(set(r["id"] for r in document["records"]))
    assert document["footer"]["total"] == 7


def test_an_implementation_that_fails_to_start_under_xdist_stops_cleanly_with_3(pytester):
    result = run(pytester, "die-before-hello", "-n", "2")
    assert result.ret == 3
    text = result.stdout.str()
    assert "the implementation failed to start" in text
    assert "INTERNALERROR" not in text


def test_a_case_dropped_as_a_duplicate_id_stops_the_run_before_it_starts(pytester):
    root = pytester.path / "fixtures"
    shutil.copytree(CORPUS, root)
    text = (CORPUS / "kubelet" / "basic.yaml").read_text()
    (root / "kubelet" / "again.yaml").write_text(text.replace("harness.matrix", "harness.other"))
    impl = f"exec:{sys.executable} {FAKE} good"
    result = pytester.runpytest_subprocess(
        *plugin_args(), "--impl", impl, "--corpus", str(root), "--report-dir", str(pytester.path / "rep"),
        "-p", "no:cacheprovider", str(root),
    )
    # As topoconf run: a corpus that loses cases is a usage error, never a partial run.
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*duplicate-id*harness.narrowest-preferred*"])


def test_strict_falls_back_to_the_option_where_pytest_has_no_strict_ini():
    class Config:
        option = type("Option", (), {"strict": True})()

        def getini(self, name):
            raise ValueError(f"unknown configuration value: {name!r}")

    assert _strict(Config()) is True


def test_a_session_stopped_early_writes_a_report_that_says_it_is_incomplete(pytester):
    result = run(pytester, "invalid-result", "-x")
    result.assert_outcomes(passed=1, failed=1)
    document = json.loads((pytester.path / "rep" / "results.json").read_text())
    assert document["footer"]["total"] == 2
    assert document["footer"]["complete"] is False


def test_an_unknown_feature_in_the_selection_is_a_usage_error(pytester):
    result = run(pytester, "good", "--exclude-features", "kubelet.option.numa-score-weight")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*kubelet.option.numa-score-weight*"])


def test_the_bundled_expectations_of_the_implementation_are_picked_up(pytester, monkeypatch, tmp_path):
    # As with topoconf run: <name>-<version>.yaml from the bundled folder.
    (tmp_path / "fake-1.0.yaml").write_text(
        "implementation: fake\nentries:\n  - match: harness.last\n    outcome: fail\n"
        "    reason: the fake is said to fail this one\n"
    )
    monkeypatch.setattr(harness, "expectations_dir", lambda: tmp_path)
    impl = f"exec:{sys.executable} {FAKE} good"
    result = pytester.runpytest_inprocess(
        *plugin_args(), "--impl", impl, "--corpus", str(CORPUS), "--report-dir", str(pytester.path / "rep"),
        "-p", "no:cacheprovider", "--strict", str(CORPUS),
    )
    result.assert_outcomes(passed=5, failed=1, skipped=1)
    document = json.loads((pytester.path / "rep" / "results.json").read_text())
    assert {r["id"]: r["outcome"] for r in document["records"]}["harness.last"] == "xpass"
    # Named as topoconf run names a bundled file, wherever the package is installed.
    assert document["header"]["expectations"] == "conformance/expectations/fake-1.0.yaml"


def test_an_oracle_that_fails_to_start_stops_the_fuzz_items_with_3(pytester):
    dead = f"exec:{sys.executable} {FAKE} die-before-hello"
    result = run(pytester, "good", "--fuzz-only", "--fuzz-examples", "3", "--fuzz-against", dead)
    assert result.ret == 3
    assert "the oracle failed to start" in result.stdout.str() + result.stderr.str()
    assert not list(pytester.path.rglob("generated-*.yaml"))


def test_the_plugin_and_topoconf_run_make_the_same_report(pytester, tmp_path):
    entries = tmp_path / "expectations.yaml"
    entries.write_text("implementation: fake\nentries:\n  - match: harness.last\n    outcome: fail\n"
                       "    reason: the fake is said to fail this one\n")
    impl = f"exec:{sys.executable} {FAKE} invalid-result"
    selection = ["--expectations", str(entries), "--exclude-features", "kubelet.option.numa-score-weights"]
    cli = main(["run", "--impl", impl, "--corpus", str(CORPUS), "--report-dir", str(tmp_path / "cli"), "--quiet",
                *selection])
    result = pytester.runpytest_subprocess(*plugin_args(), "--impl", impl, "--corpus", str(CORPUS), "--report-dir",
                                           str(tmp_path / "plugin"), "-p", "no:cacheprovider", *selection, str(CORPUS))
    assert cli == result.ret == 1

    def stable(name):
        document = json.loads((tmp_path / name / "results.json").read_text())
        del document["header"]["generated_at"]
        for record in document["records"]:
            del record["duration_ms"]
        return document

    assert stable("cli") == stable("plugin")


def test_a_non_strict_unexpected_pass_is_reported_as_xpass(pytester, tmp_path):
    entries = tmp_path / "expectations.yaml"
    entries.write_text("implementation: fake\nentries:\n  - match: harness.last\n    outcome: fail\n"
                       "    reason: the fake is said to fail this one\n")
    result = run(pytester, "good", "--expectations", str(entries), "-rX")
    result.assert_outcomes(passed=5, xpassed=1, skipped=1)
    assert result.ret == 0
    strict = run(pytester, "good", "--expectations", str(entries), "--strict")
    strict.assert_outcomes(passed=5, failed=1, skipped=1)
    strict.stdout.fnmatch_lines(["*harness.last*", "xpass (strict run): passed, but the expectations file says fail*"])


def test_a_path_inside_a_checkout_s_fixtures_is_the_corpus_and_node_ids_are_relative_to_it(pytester):
    shutil.copytree(CORPUS, pytester.path / "fixtures")
    impl = f"exec:{sys.executable} {FAKE} good"
    result = pytester.runpytest_subprocess(*plugin_args(), "--impl", impl, "--report-dir", str(pytester.path / "rep"),
                                           "-p", "no:cacheprovider", "-v", "fixtures/kubelet")
    result.assert_outcomes(passed=6, skipped=1)
    result.stdout.fnmatch_lines(["kubelet/basic.yaml::harness.narrowest-preferred PASSED*"])
    header = json.loads((pytester.path / "rep" / "results.json").read_text())["header"]
    assert header["invocation"]["corpus"] == str(pytester.path / "fixtures")


def test_no_case_collected_says_why(pytester):
    (pytester.path / "elsewhere").mkdir()
    impl = f"exec:{sys.executable} {FAKE} good"
    result = pytester.runpytest_subprocess(*plugin_args(), "--impl", impl, "--corpus", str(CORPUS),
                                           "-p", "no:cacheprovider", "elsewhere")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(["*no corpus case was collected*"])


def test_fuzz_only_honours_the_path_and_reports_a_disagreement_as_a_failure(pytester):
    report = pytester.path / "rep"
    result = run(pytester, "good", "--fuzz-only", "--fuzz-examples", "3", "-k", "merge",
                 "--fuzz-seed", "1")
    items = [line for line in result.stdout.lines if "fuzz[" in line]
    assert items and all("fuzz[kubelet." in line for line in items)
    result.stdout.fnmatch_lines(["*disagree on this shrunk kubelet.merge input:*", "*written for review*"])
    assert "Traceback" not in result.stdout.str()
    assert list((report / "generated").rglob("generated-merge-*.yaml"))
    assert not (pytester.path / "fixtures").exists()
