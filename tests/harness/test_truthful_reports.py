"""What the kit tells its user: pass rates over applicable cases, one verdict for
an unexpected pass everywhere, no success without checking anything, failure
entries a reader can act on, and reruns that do not overwrite the run."""

import json
import shlex
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from conformance.cli import main
from conformance.model import bounded
from conformance.report import counts, details
from conformance.yamlload import load

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
FAKE = HERE / "fakes" / "fake_impl.py"
GOOD = f"exec:{sys.executable} {FAKE} good"
BUGGY = f"exec:{sys.executable} {HERE / 'fakes' / 'buggy_kubelet.py'}"


def run(tmp_path, *extra, impl=GOOD, name="report", corpus=CORPUS):
    args = ["run", "--impl", impl, "--report-dir", str(tmp_path / name), "--quiet", *extra]
    if corpus is not None:
        args += ["--corpus", str(corpus)]
    return main(args)


def results(tmp_path, name="report"):
    return json.loads((tmp_path / name / "results.json").read_text())


def expectations(tmp_path, entries):
    path = tmp_path / "expectations.yaml"
    path.write_text(yaml.safe_dump({"implementation": "fake", "entries": entries}))
    return str(path)


# -- pass rates -----------------------------------------------------------------

def test_a_pass_rate_is_a_fraction_of_the_applicable_cases():
    tally = counts.tally(["pass"] * 570 + ["xfail"] * 2 + ["unsupported"] * 933)
    assert tally.applicable == 572
    assert tally.passing() == "99.7% (570/572)"
    assert tally.sentence().startswith("570 of 572 applicable cases pass (99.7%); 933 not applicable")


def test_nothing_applicable_is_n_a_not_zero_percent():
    tally = counts.tally(["unsupported"] * 5)
    assert tally.passing() == "n/a" and tally.rate is None
    assert counts.row("kubelet.hint-score", ["unsupported"] * 5)[-1] == "n/a"


def test_not_run_cases_count_against_the_rate():
    tally = counts.tally(["pass", "notrun"])
    assert tally.applicable == 2 and tally.errors == 1 and tally.passing() == "50.0% (1/2)"


def test_every_view_shows_the_rate_over_applicable_cases(tmp_path, capsys):
    assert run(tmp_path) == 0
    out = capsys.readouterr().out
    assert "fake 1.0: 6 of 6 applicable cases pass (100.0%); 1 not applicable." in out
    md = (tmp_path / "report" / "compliance.md").read_text()
    assert "6 of 6 applicable cases pass (100.0%); 1 not applicable" in md
    assert "| `kubelet.option.numa-score-weights` |       1 |                1 |            0 |" in md
    assert "100.0% (6/6)" in (tmp_path / "report" / "compliance.html").read_text()
    suite = ET.parse(tmp_path / "report" / "junit.xml").getroot().find("testsuite")
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert properties["applicable"] == "6" and properties["not_applicable"] == "1"
    assert properties["passing"] == "100.0%"
    footer = results(tmp_path)["footer"]
    assert footer["applicable"] == 6 and footer["passed"] == 6


# -- one xpass verdict ---------------------------------------------------------

XPASS_ENTRY = [{"match": "harness.last", "outcome": "fail", "reason": "the fake is said to fail this one"}]


def test_a_non_strict_unexpected_pass_is_a_pass_everywhere(tmp_path):
    assert run(tmp_path, "--expectations", expectations(tmp_path, XPASS_ENTRY)) == 0
    document = results(tmp_path)
    assert document["footer"]["unexpected"] == 0
    md = (tmp_path / "report" / "compliance.md").read_text()
    unexpected_section = md.split("## Unexpected outcomes")[1].split("##")[0]
    assert "None." in unexpected_section
    assert "## Unexpected passes" in md and "`harness.last`" in md.split("## Unexpected passes")[1]
    suites = ET.parse(tmp_path / "report" / "junit.xml").getroot()
    assert all(s.get("failures") == "0" and s.get("errors") == "0" for s in suites)
    case = next(c for c in suites.iter("testcase") if c.get("name") == "harness.last")
    assert case.find("failure") is None
    assert {p.get("name"): p.get("value") for p in case.find("properties")}["outcome"] == "xpass"


def test_a_strict_unexpected_pass_is_a_failure_everywhere(tmp_path):
    assert run(tmp_path, "--expectations", expectations(tmp_path, XPASS_ENTRY), "--strict") == 1
    document = results(tmp_path)
    assert document["header"]["strict"] is True and document["footer"]["unexpected"] == 1
    md = (tmp_path / "report" / "compliance.md").read_text()
    assert "### `harness.last`: xpass" in md.split("## Unexpected outcomes")[1]
    suites = ET.parse(tmp_path / "report" / "junit.xml").getroot()
    case = next(c for c in suites.iter("testcase") if c.get("name") == "harness.last")
    assert case.find("failure") is not None and case.find("failure").get("type") == "xpass"


def test_re_rendering_keeps_the_run_s_verdict(tmp_path):
    run(tmp_path, "--expectations", expectations(tmp_path, XPASS_ENTRY), "--strict")
    before = (tmp_path / "report" / "junit.xml").read_text()
    assert main(["report", str(tmp_path / "report" / "results.json"), "--out", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "junit.xml").read_text() == before


# -- no silent success ------------------------------------------------------------

@pytest.mark.parametrize("command", [["validate"], ["run", "--impl", GOOD], ["list"], ["show", "x"]])
def test_a_missing_or_empty_corpus_folder_is_a_usage_error_naming_it(tmp_path, capsys, command):
    missing = tmp_path / "nowhere"
    assert main([*command, "--corpus", str(missing)]) == 2
    assert f"{missing} does not exist" in capsys.readouterr().err
    empty = tmp_path / "empty"
    (empty / "features").mkdir(parents=True)
    assert main([*command, "--corpus", str(empty)]) == 2
    assert f"{empty} holds no fixture file" in capsys.readouterr().err


def test_a_run_in_which_nothing_applied_fails_unless_asked_for(tmp_path, capsys):
    assert run(tmp_path, "--id", "harness.needs-weights") == 1
    assert "nothing was tested" in capsys.readouterr().out
    assert run(tmp_path, "--id", "harness.needs-weights", "--allow-nothing-tested") == 0


def test_unknown_feature_names_in_hello_are_a_warning_and_a_strict_failure(tmp_path, capsys):
    impl = f"exec:{sys.executable} {FAKE} unknown-feature"
    assert run(tmp_path, impl=impl) == 0
    err = capsys.readouterr().err
    assert "warning" in err and "kubelet.policy.best-efort" in err and "kubelet.policy.best-effort" in err
    assert results(tmp_path)["header"]["warnings"]
    assert "kubelet.policy.best-efort" in (tmp_path / "report" / "compliance.md").read_text()
    assert run(tmp_path, "--strict", impl=impl) == 1


# -- failure details and reruns ------------------------------------------------------

def test_a_failure_entry_shows_what_is_needed_to_fix_it(tmp_path, capsys):
    assert run(tmp_path, impl=f"exec:{sys.executable} {FAKE} invalid-result", name="bad") == 1
    record = next(r for r in results(tmp_path, "bad")["records"] if r["outcome"] == "invalid-result")
    assert record["title"] and record["source"] and record["line"] > 1
    assert record["actual"] == {"affinity": "zero"} and record["input"]
    md = (tmp_path / "bad" / "compliance.md").read_text()
    entry = md.split(f"### `{record['id']}`")[1]
    for text in (record["title"], record["source"], f"{record['file']}:{record['line']}", "affinity: zero",
                 "Input sent", "Rerun: `topoconf run"):
        assert text in entry
    out = capsys.readouterr().out
    assert f"{record['file']}:{record['line']}" in out and "the implementation answered:" in out


def test_a_crash_shows_its_stderr_tail_in_every_view(tmp_path):
    assert run(tmp_path, impl=f"exec:{sys.executable} {FAKE} die-mid-run", name="crash") == 1
    md = (tmp_path / "crash" / "compliance.md").read_text()
    assert "stderr (last lines):" in md and "fake: segfault imitation" in md
    assert "fake: segfault imitation" in (tmp_path / "crash" / "compliance.html").read_text()


def test_a_huge_answer_is_kept_cut_and_marked():
    value, cut = bounded({"x": "y" * 100_000})
    assert cut and isinstance(value, str) and len(value) == 64 * 1024
    assert bounded({"x": 1}) == ({"x": 1}, False)


def test_the_rerun_command_carries_corpus_and_expectations_and_never_the_run_s_folder(tmp_path, monkeypatch):
    entries = expectations(tmp_path, [{"match": "harness.matrix*", "outcome": "invalid-result", "reason": "the fake answers these badly"}])
    impl = f"exec:{sys.executable} {FAKE} invalid-result"
    run(tmp_path, "--expectations", entries, impl=impl, name="full")
    document = results(tmp_path, "full")
    command = details.rerun_command(document["header"], "harness.last")
    words = shlex.split(command)
    assert words[words.index("--corpus") + 1] == str(CORPUS)
    assert words[words.index("--expectations") + 1] == entries
    assert words[words.index("--report-dir") + 1] == "reports/rerun/fake-1.0"
    monkeypatch.chdir(tmp_path)
    main(words[1:] + ["--quiet"])
    assert len(results(tmp_path, "full")["records"]) == 7
    rerun = json.loads((tmp_path / "reports" / "rerun" / "fake-1.0" / "results.json").read_text())
    assert [r["id"] for r in rerun["records"]] == ["harness.last"]


def test_last_failed_reruns_exactly_the_unexpected_outcomes(tmp_path):
    entries = expectations(tmp_path, [{"match": "harness.matrix[provider=cpu]", "outcome": "invalid-result",
                                       "reason": "the fake answers this one badly"}])
    impl = f"exec:{sys.executable} {FAKE} invalid-result 3"
    assert run(tmp_path, "--expectations", entries, impl=impl, name="first") == 1
    first = results(tmp_path, "first")
    wanted = sorted(r["id"] for r in first["records"] if r["outcome"] not in ("pass", "xpass", "xfail", "unsupported"))
    assert wanted
    assert run(tmp_path, "--expectations", entries, "--last-failed", str(tmp_path / "first"), name="again") in (0, 1)
    assert sorted(r["id"] for r in results(tmp_path, "again")["records"]) == wanted


def test_last_failed_of_a_clean_run_says_there_is_nothing_to_rerun(tmp_path, capsys):
    run(tmp_path, name="clean")
    assert run(tmp_path, "--last-failed", str(tmp_path / "clean" / "results.json"), name="again") == 2
    assert "nothing to rerun" in capsys.readouterr().err


def test_show_prints_a_case_whole_and_expected_beside_actual(tmp_path, capsys):
    run(tmp_path, impl=f"exec:{sys.executable} {FAKE} invalid-result", name="bad")
    record = next(r for r in results(tmp_path, "bad")["records"] if r["outcome"] == "invalid-result")
    capsys.readouterr()
    assert main(["show", record["id"], "--corpus", str(CORPUS)]) == 0
    out = capsys.readouterr().out
    for text in (record["id"], record["source"], f"{record['file']}:{record['line']}", "input:", "expect:"):
        assert text in out
    assert main(["show", record["id"], "--corpus", str(CORPUS), "--results", str(tmp_path / "bad")]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("expected"))
    assert "| actual" in header
    assert any("affinity: zero" in line.split("|", 1)[1] for line in out.splitlines() if "|" in line)
    assert main(["show", "harness.lats", "--corpus", str(CORPUS)]) == 2
    assert "did you mean harness.last" in capsys.readouterr().err


# -- the fake kubelet a new user tried ---------------------------------------------------

def test_the_buggy_kubelet_gets_true_counts_a_failing_exit_and_actionable_entries(tmp_path, monkeypatch):
    assert run(tmp_path, "--component", "kubelet", impl=BUGGY, name="buggy", corpus=None) == 1
    document = results(tmp_path, "buggy")
    records = document["records"]
    assert any("kubelet.policy.best-efort" in w for w in document["header"]["warnings"])
    # The missing policy makes exactly its own rows unsupported: a restricted row
    # of a matrix that also has best-effort rows still runs.
    missing = "kubelet.policy.best-effort"
    assert all(missing in r["features"] for r in records if r["outcome"] == "unsupported")
    assert all(r["outcome"] == "unsupported" for r in records if missing in r["features"])
    assert any(r["outcome"] != "unsupported" and "policy=restricted" in r["id"] for r in records)
    md = (tmp_path / "buggy" / "compliance.md").read_text()
    best_effort_row = next(line for line in md.splitlines() if line.startswith(f"| `{missing}`"))
    assert best_effort_row.rstrip(" |").endswith("n/a")
    # A failing merge: input, whole answer, notes, and a rerun command that works.
    failure = next(r for r in records if r["outcome"] == "fail" and r["operation"] == "merge" and r.get("notes"))
    entry = md.split(f"### `{failure['id']}`")[1].split("\n### ")[0]
    assert "The implementation's answer:" in entry and "Input sent" in entry and "Notes from the fixture:" in entry
    # start never refuses too many NUMA nodes: some case catches it.
    assert any(r["outcome"] == "fail" and r["operation"] == "start" and "TooManyNUMANodes" in "\n".join(r["diff"])
               for r in records)
    monkeypatch.chdir(Path(__file__).parents[2])
    words = shlex.split(details.rerun_command(document["header"], failure["id"]))
    assert words[words.index("--report-dir") + 1].startswith("reports/rerun/")
    rerun_dir = tmp_path / "rerun"
    words[words.index("--report-dir") + 1] = str(rerun_dir)
    assert main(words[1:] + ["--quiet"]) == 1
    assert [r["id"] for r in results(tmp_path, "rerun")["records"]] == [failure["id"]]


def test_a_kept_input_is_plain_data_whatever_the_loader_made_of_it():
    located = load("a: {b: [1, 2]}\n")
    value, cut = bounded(located)
    assert not cut and type(value) is dict and type(value["a"]) is dict
    assert details.as_text(value, cut) == "a:\n  b: [1, 2]"


def test_report_takes_a_folder_and_refuses_a_wrong_file_in_one_line(tmp_path, capsys):
    run(tmp_path)
    (tmp_path / "report" / "compliance.md").unlink()
    assert main(["report", str(tmp_path / "report")]) == 0
    assert (tmp_path / "report" / "compliance.md").is_file()
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    for wrong in (deep, tmp_path / "report" / "compliance.md", tmp_path / "nothing"):
        capsys.readouterr()
        assert main(["report", str(wrong)]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and str(wrong) in err
