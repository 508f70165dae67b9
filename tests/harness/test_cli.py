"""The topoconf commands and their exit codes, against the fake implementation
(so these tests pin the harness, not any reference behaviour)."""

import json
import re
import shlex
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import yaml

from conformance.cli import main
from conformance.report import details

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
GOOD = f"exec:{sys.executable} {HERE / 'fakes' / 'fake_impl.py'} good"


def run(tmp_path, *extra, name="report"):
    return main(["run", "--impl", GOOD, "--corpus", str(CORPUS), "--report-dir", str(tmp_path / name),
                 "--quiet", *extra])


def write_expectations(tmp_path, entries):
    path = tmp_path / "expectations.yaml"
    path.write_text(yaml.safe_dump({"implementation": "fake", "entries": entries}))
    return str(path)


def test_reports_are_reproducible(tmp_path):
    assert run(tmp_path, name="one") == 0
    assert run(tmp_path, name="two") == 0
    for name in ("compliance.md", "compliance.html", "junit.xml"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()

    def stable(path):
        document = json.loads(path.read_text())
        del document["header"]["generated_at"]
        for record in document["records"]:
            del record["duration_ms"]
        return document

    assert stable(tmp_path / "one" / "results.json") == stable(tmp_path / "two" / "results.json")


def test_compliance_table_has_a_row_per_feature(tmp_path):
    run(tmp_path)
    text = (tmp_path / "report" / "compliance.md").read_text()
    assert "# Compliance: fake 1.0" in text
    assert "| `kubelet.merge` " in text and "| `kubelet.option.numa-score-weights` " in text


def test_the_html_page_shows_the_same_counts_and_every_case(tmp_path):
    run(tmp_path)
    document = json.loads((tmp_path / "report" / "results.json").read_text())
    page = (tmp_path / "report" / "compliance.html").read_text()

    class Cells(HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self.row, self.cell = [], None, None

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self.row = []
            elif tag in ("td", "th") and self.row is not None:
                self.cell = ""

        def handle_endtag(self, tag):
            if tag in ("td", "th") and self.cell is not None:
                self.row.append(self.cell.strip())
                self.cell = None
            elif tag == "tr" and self.row is not None:
                self.rows.append(self.row)
                self.row = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell += data

    cells = Cells()
    cells.feed(page)
    total = next(row for row in cells.rows if row and row[0] == "all")
    assert int(total[1]) == document["footer"]["total"]
    assert int(total[4]) == document["footer"]["counts"]["pass"]
    listed = set(re.findall(r'<tr id="[^"]*" data-case="([^"]*)"|<tr data-case="([^"]*)"', page))
    assert {r["id"] for r in document["records"]} <= {a or b for a, b in listed}


def test_an_empty_selection_is_a_usage_error(tmp_path):
    assert run(tmp_path, "--id", "no-such-case*") == 2


def test_expected_failures_become_xfail_and_unexpected_passes_fail_strict_runs(tmp_path):
    expectations = write_expectations(tmp_path, [
        {"match": "harness.matrix*", "outcome": "fail", "reason": "the fake is said to fail these"},
        {"match": "harness.needs-weights", "outcome": "unsupported", "reason": "the fake has no weights"},
    ])
    assert run(tmp_path, "--expectations", expectations) == 0
    records = {r["id"]: r for r in json.loads((tmp_path / "report" / "results.json").read_text())["records"]}
    assert records["harness.matrix[provider=cpu]"]["outcome"] == "xpass"
    assert records["harness.needs-weights"]["outcome"] == "unsupported"
    assert run(tmp_path, "--expectations", expectations, "--strict") == 1


def test_a_stale_expectation_entry_is_a_configuration_error(tmp_path, capsys):
    expectations = write_expectations(tmp_path, [{"match": "gone.case", "outcome": "fail", "reason": "no such case any more"}])
    assert run(tmp_path, "--expectations", expectations) == 2
    assert "matches no case" in capsys.readouterr().err


def test_validate_names_file_line_case_and_field(tmp_path, capsys):
    root = tmp_path / "fixtures"
    for sub in ("features", "blocks/kubelet", "kubelet"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    (root / "features" / "kubelet.yaml").write_text((CORPUS / "features" / "kubelet.yaml").read_text())
    (root / "blocks" / "kubelet" / "two-nodes.yaml").write_text((CORPUS / "blocks/kubelet/two-nodes.yaml").read_text())
    text = (CORPUS / "kubelet" / "basic.yaml").read_text().replace("title: a last case", "title: a last case\n    bogus: 1")
    (root / "kubelet" / "basic.yaml").write_text(text)
    assert main(["validate", "--corpus", str(root), str(root)]) == 1
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if "harness.last" in line)
    assert line.startswith("fixtures/kubelet/basic.yaml:")
    assert "/cases/3" in line and "additionalProperties" in line and "bogus" in line


def test_report_rerenders_and_diff_lists_changes(tmp_path, capsys):
    run(tmp_path, name="old")
    results = tmp_path / "old" / "results.json"
    document = json.loads(results.read_text())
    document["records"][0]["outcome"] = "fail"
    document["records"] = document["records"][1:] + [dict(document["records"][0], id="harness.added")]
    new = tmp_path / "new.json"
    new.write_text(json.dumps(document))
    (tmp_path / "old" / "compliance.md").unlink()
    assert main(["report", str(results)]) == 0
    assert (tmp_path / "old" / "compliance.md").exists()
    capsys.readouterr()
    assert main(["diff", str(results), str(new)]) == 0
    out = capsys.readouterr().out
    assert "## Added cases" in out and "harness.added" in out and "## Removed cases" in out
    assert main(["diff", str(results), str(results), "--fail-on-regression"]) == 0


def test_list_counts_cases_per_component_and_feature(capsys):
    assert main(["list", "--corpus", str(CORPUS), "--format", "json"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert counts["components"] == {"kubelet": 7}
    assert counts["features"]["kubelet.option.numa-score-weights"] == 1


def test_export_writes_the_expanded_corpus(tmp_path):
    assert main(["export", "--corpus", str(CORPUS), str(tmp_path / "out")]) == 0
    exported = json.loads((tmp_path / "out" / "kubelet" / "basic.json").read_text())
    case = next(c for c in exported["cases"] if c["id"] == "harness.matrix[provider=memory]")
    assert case["input"]["numa"]["nodes"] == [0, 1]
    assert case["input"]["providers"] == [{"memory": [{"affinity": [0], "preferred": True}]}]


def test_new_prints_a_skeleton_that_names_the_operation(capsys):
    assert main(["new", "kubelet", "merge"]) == 0
    out = capsys.readouterr().out
    assert "operation: merge" in out and "schemas/operations/kubelet/merge.input.json" in out
    assert main(["new", "kubelet", "no-such-op"]) == 2


def rerun_argv(report: Path, case_id: str) -> list[str]:
    header = json.loads((report / "results.json").read_text())["header"]
    return shlex.split(details.rerun_command(header, case_id))[1:]


def test_the_rerun_command_of_a_matrix_case_selects_that_case(tmp_path, monkeypatch):
    case_id = "harness.matrix[provider=cpu]"
    run(tmp_path, name="full")
    monkeypatch.chdir(tmp_path)
    assert main([*rerun_argv(tmp_path / "full", case_id), "--quiet"]) == 0
    # The rerun writes a report of its own: the full run's report is intact.
    assert len(json.loads((tmp_path / "full" / "results.json").read_text())["records"]) == 7
    (rerun,) = (tmp_path / "reports" / "rerun").glob("*/results.json")
    assert [r["id"] for r in json.loads(rerun.read_text())["records"]] == [case_id]


def test_a_fixture_file_that_cannot_be_loaded_stops_the_run(tmp_path, capsys):
    root = tmp_path / "fixtures"
    shutil.copytree(CORPUS, root)
    (root / "kubelet" / "broken.yaml").write_text(
        "format: 1\ncomponent: kubelet\ntopic: t\ncases:\n  - id: lost.case\n    input: {a: [1}\n"
    )
    code = main(["run", "--impl", GOOD, "--corpus", str(root), "--report-dir", str(tmp_path / "rep"), "--quiet"])
    assert code == 2
    assert "fixtures/kubelet/broken.yaml:6" in capsys.readouterr().err


def test_validate_a_path_that_holds_no_fixture_is_a_problem(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "no-such-file.yaml")]) == 1
    assert "no-such-file.yaml" in capsys.readouterr().out


def test_validate_another_corpus_does_not_check_the_bundled_expectations_against_it(capsys):
    assert main(["validate", "--corpus", str(CORPUS)]) == 0
    assert "stale-entry" not in capsys.readouterr().out


def test_an_unknown_feature_or_component_in_the_selection_is_a_usage_error(tmp_path, capsys):
    assert run(tmp_path, "--exclude-features", "kubelet.option.numa-score-weight") == 2
    assert "kubelet.option.numa-score-weight" in capsys.readouterr().err
    assert run(tmp_path, "--component", "kubelet,kueu") == 2
    assert main(["list", "--corpus", str(CORPUS), "--features", "kubelet.merge,kubelet.nope"]) == 2


def test_the_rerun_command_of_a_case_with_two_matrix_parameters_selects_that_case(tmp_path):
    root = tmp_path / "fixtures"
    shutil.copytree(CORPUS, root)
    text = (CORPUS / "kubelet" / "basic.yaml").read_text()
    text = text.replace("harness.", "two.").replace("provider: [cpu, memory, example.com/dev]",
                                                   "provider: [cpu, memory]\n      n: [1, 2]")
    (root / "kubelet" / "two.yaml").write_text(text)
    case_id = "two.matrix[provider=memory,n=2]"
    assert main(["run", "--impl", GOOD, "--corpus", str(root), "--report-dir", str(tmp_path / "full"), "--quiet"]) == 0
    argv = rerun_argv(tmp_path / "full", case_id)
    assert main([*argv, "--report-dir", str(tmp_path / "one"), "--quiet"]) == 0
    records = json.loads((tmp_path / "one" / "results.json").read_text())["records"]
    assert [r["id"] for r in records] == [case_id]


def test_a_reader_that_stops_early_gets_no_traceback():
    pipeline = subprocess.run(f"{sys.executable} -m conformance list --ids | head -n 1", shell=True,
                              capture_output=True, text=True, timeout=120)
    assert len(pipeline.stdout.splitlines()) == 1
    assert "Traceback" not in pipeline.stderr and "BrokenPipe" not in pipeline.stderr
