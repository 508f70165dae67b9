"""`topoconf diff`: regressions fail by default, a changed selection or corpus is
said as such, a report folder is accepted, and a wrong argument is one line and
exit 2."""

import json
import sys
from pathlib import Path

import pytest

from conformance.cli import main

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
GOOD = f"exec:{sys.executable} {HERE / 'fakes' / 'fake_impl.py'} good"
FIRST, LAST = "harness.narrowest-preferred", "harness.last"


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """One real run of the small corpus (six passes, one unsupported)."""
    folder = tmp_path_factory.mktemp("baseline") / "report"
    assert main(["run", "--impl", GOOD, "--corpus", str(CORPUS), "--report-dir", str(folder), "--quiet",
                 "--no-expectations"]) == 0
    return json.loads((folder / "results.json").read_text())


def write(tmp_path, name, document, outcomes=None, drop=()):
    document = json.loads(json.dumps(document))
    for record in document["records"]:
        record["outcome"] = (outcomes or {}).get(record["id"], record["outcome"])
    document["records"] = [r for r in document["records"] if r["id"] not in drop]
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return str(path)


def diff(capsys, *args):
    capsys.readouterr()
    code = main(["diff", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def section(out, title):
    """The lines of one `## title` section."""
    if f"## {title}\n" not in out:
        return ""
    return out.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("now", ["fail", "error", "crash", "timeout", "malformed", "xfail"])
def test_a_case_that_passed_and_now_fails_is_a_regression_and_exits_1(tmp_path, capsys, baseline, now):
    old = write(tmp_path, "old.json", baseline)
    new = write(tmp_path, "new.json", baseline, {FIRST: now})
    code, out, _ = diff(capsys, old, new)
    assert code == 1
    assert FIRST in section(out, "Regressions") and now in section(out, "Regressions")
    row = next(line for line in out.splitlines() if "regressions (passed, now fail)" in line)
    assert row.split("|")[2].strip() == "1"


def test_report_only_lists_regressions_and_exits_0_and_the_old_flag_is_still_accepted(tmp_path, capsys, baseline):
    old = write(tmp_path, "old.json", baseline)
    new = write(tmp_path, "new.json", baseline, {FIRST: "crash"})
    code, out, _ = diff(capsys, old, new, "--report-only")
    assert code == 0 and FIRST in section(out, "Regressions")
    assert diff(capsys, old, new, "--fail-on-regression")[0] == 1


def test_pass_to_unsupported_is_listed_but_is_no_regression(tmp_path, capsys, baseline):
    old = write(tmp_path, "old.json", baseline)
    new = write(tmp_path, "new.json", baseline, {FIRST: "unsupported"})
    code, out, _ = diff(capsys, old, new)
    assert code == 0
    assert FIRST in section(out, "No longer checked")
    assert not section(out, "Regressions")


def test_a_fixed_case_is_a_new_pass_and_a_failure_changing_kind_is_another_change(tmp_path, capsys, baseline):
    old = write(tmp_path, "old.json", baseline, {FIRST: "fail", LAST: "fail"})
    new = write(tmp_path, "new.json", baseline, {LAST: "crash"})
    code, out, _ = diff(capsys, old, new)
    assert code == 0
    assert FIRST in section(out, "New passes")
    assert LAST in section(out, "Other changes")


def test_a_narrower_selection_is_said_and_its_missing_cases_are_not_called_removed(tmp_path, capsys, baseline):
    old = write(tmp_path, "old.json", baseline)
    narrow = tmp_path / "narrow"
    assert main(["run", "--impl", GOOD, "--corpus", str(CORPUS), "--report-dir", str(narrow), "--quiet",
                 "--no-expectations", "--id", LAST]) == 0
    code, out, _ = diff(capsys, old, narrow)
    assert code == 0
    assert "The selection differs: old run the whole corpus; new run ids: harness.last" in out
    assert "The corpus differs" not in out
    assert not section(out, "Removed cases")
    only_old = section(out, "Only in the old run (outside the new run's selection)")
    assert FIRST in only_old and LAST not in only_old
    # And the other way round.
    code, out, _ = diff(capsys, narrow, old)
    assert code == 0 and not section(out, "Added cases")
    assert FIRST in section(out, "Only in the new run (outside the old run's selection)")


def test_a_changed_corpus_is_said_and_its_cases_are_added_and_removed(tmp_path, capsys, baseline):
    old = write(tmp_path, "old.json", baseline, drop=(LAST,))
    changed = json.loads(json.dumps(baseline))
    changed["header"]["suite"]["corpus"] = "sha256:" + "0" * 64
    new = write(tmp_path, "new.json", changed, drop=(FIRST,))
    code, out, _ = diff(capsys, old, new)
    assert code == 0
    assert "The corpus differs between the runs" in out
    assert FIRST in section(out, "Removed cases") and LAST in section(out, "Added cases")
    assert "The selection differs" not in out


def test_report_folders_are_accepted(tmp_path, capsys, baseline):
    for name, outcomes in (("old", {}), ("new", {FIRST: "fail"})):
        (tmp_path / name).mkdir()
        write(tmp_path / name, "results.json", baseline, outcomes)
    code, out, _ = diff(capsys, tmp_path / "old", tmp_path / "new")
    assert code == 1 and FIRST in section(out, "Regressions")


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda tmp: tmp / "missing.json", "no such file or folder"),
        (lambda tmp: tmp, "a folder without results.json"),
        (lambda tmp: _write(tmp / "compliance.md", "# kubelet v1\n\n| a | b |\n"), "not JSON"),
        (lambda tmp: _write(tmp / "other.json", '{"records": 3}'), "not a results.json report (at "),
        (lambda tmp: _write(tmp / "list.json", "[1, 2]"), "not a results.json report (at "),
        (lambda tmp: _write(tmp / "deep.json", "[" * 100000 + "]" * 100000), "not JSON"),
        (lambda tmp: _write(tmp / "binary.json", b"\xff\xfe\x00"), "not JSON"),
    ],
)
def test_a_wrong_argument_is_one_line_naming_it_and_exits_2(tmp_path, capsys, baseline, make, words):
    good = write(tmp_path, "good.json", baseline)
    wrong = make(_folder(tmp_path))
    for args in ((good, wrong), (wrong, good)):
        code, out, err = diff(capsys, *args)
        assert code == 2
        assert out == ""
        assert err.count("\n") == 1 and "Traceback" not in err
        assert err.startswith(f"topoconf: {wrong}") and words in err


def _folder(tmp_path):
    folder = tmp_path / "wrong"
    folder.mkdir(exist_ok=True)
    return folder


def _write(path, content):
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path
