"""A broken implementation never breaks the run: every fault gets its own status,
every case appears in the report exactly once, and the run ends in bounded time."""

import json
import sys
import time
from pathlib import Path

import pytest

from conformance.cli import main

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
FAKE = HERE / "fakes" / "fake_impl.py"
IDS = [
    "harness.narrowest-preferred",
    "harness.matrix[provider=cpu]",
    "harness.matrix[provider=memory]",
    "harness.matrix[provider=example.com/dev]",
    "harness.two-providers",
    "harness.last",
    "harness.needs-weights",
]
SECOND = IDS[1]


def run_fake(tmp_path, mode, *extra, strike=2):
    report = tmp_path / "report"
    started = time.monotonic()
    code = main([
        "run", "--impl", f"exec:{sys.executable} {FAKE} {mode} {strike}", "--corpus", str(CORPUS),
        "--report-dir", str(report), "--case-timeout", "1", "--startup-timeout", "5", "--quiet",
        "--no-expectations", *extra,
    ])
    elapsed = time.monotonic() - started
    document = json.loads((report / "results.json").read_text()) if (report / "results.json").exists() else None
    return code, document, elapsed


def outcomes(document):
    ids = [r["id"] for r in document["records"]]
    assert sorted(ids) == sorted(IDS), "every case appears exactly once"
    return {r["id"]: r for r in document["records"]}


def test_a_good_implementation_passes_and_a_missing_feature_is_unsupported(tmp_path):
    code, document, _ = run_fake(tmp_path, "good")
    records = outcomes(document)
    assert code == 0
    assert records["harness.needs-weights"]["outcome"] == "unsupported"
    assert "kubelet.option.numa-score-weights" in records["harness.needs-weights"]["message"]
    assert all(records[i]["outcome"] == "pass" for i in IDS[:-1])
    assert document["footer"]["complete"] is True


@pytest.mark.parametrize("mode", ["die-before-hello", "bad-protocol"])
def test_a_start_up_failure_exits_3(tmp_path, mode, capsys):
    code, document, _ = run_fake(tmp_path, mode)
    assert code == 3
    assert document is None
    err = capsys.readouterr().err
    if mode == "die-before-hello":
        assert "exited with code 7" in err and "cannot initialise" in err
    else:
        assert "protocol 2" in err


@pytest.mark.parametrize(
    ("mode", "status", "message_part"),
    [
        ("die-mid-run", "crash", "exited with code 11"),
        ("hang", "timeout", "no answer within 1s"),
        ("garbage", "malformed", "not a JSON line"),
        ("wrong-seq", "bad-seq", "seq"),
        ("invalid-result", "invalid-result", "result.json"),
        ("huge-line", "malformed", "longer than"),
        ("error", "error", "cannot compute"),
    ],
)
def test_each_fault_has_its_own_status_and_the_run_goes_on(tmp_path, mode, status, message_part):
    code, document, elapsed = run_fake(tmp_path, mode)
    records = outcomes(document)
    assert code == 1
    assert records[SECOND]["outcome"] == status
    assert message_part in records[SECOND]["message"]
    assert records[IDS[0]]["outcome"] == "pass"
    assert records["harness.last"]["outcome"] in ("pass", status)
    assert document["footer"]["complete"] is True
    assert elapsed < 30


def test_a_crash_report_carries_the_exit_code_and_the_stderr_tail(tmp_path):
    _, document, _ = run_fake(tmp_path, "die-mid-run")
    crash = outcomes(document)[SECOND]
    assert "segfault imitation" in "\n".join(crash["stderr_tail"])
    # The restarted process counts from one again, so it dies on every second case.
    assert [outcomes(document)[i]["outcome"] for i in IDS[:-1]] == ["pass", "crash", "pass", "crash", "pass", "crash"]


def test_a_flood_on_stderr_is_kept_to_its_tail(tmp_path):
    code, document, _ = run_fake(tmp_path, "stderr-flood")
    assert code == 0
    assert all(r["outcome"] in ("pass", "unsupported") for r in document["records"])


def test_an_implementation_that_ignores_stop_is_killed(tmp_path):
    code, document, elapsed = run_fake(tmp_path, "ignore-stop")
    assert code == 0
    assert elapsed < 15


def test_a_spent_restart_budget_leaves_the_rest_notrun_and_the_run_incomplete(tmp_path):
    code, document, _ = run_fake(tmp_path, "die-mid-run", "--restart-budget", "2", strike=1)
    records = outcomes(document)
    assert code == 1
    assert [records[i]["outcome"] for i in IDS[:-1]] == ["crash", "crash", "crash", "notrun", "notrun", "notrun"]
    assert records["harness.needs-weights"]["outcome"] == "unsupported"
    assert document["footer"]["complete"] is False
    assert "some cases were not run" in (tmp_path / "report" / "compliance.md").read_text()
