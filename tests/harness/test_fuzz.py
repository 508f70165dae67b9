"""Differential fuzzing: agreement on the reference, shrinking and fixture output
on a disagreement, and invalid inputs refused rather than crashed on."""

import copy
import json
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import strategies as st

from conformance import corpus as corpus_mod
from conformance import expectations as expectations_mod
from conformance import schemas
from conformance.adapters.base import Response
from conformance.cli import main
from conformance.fuzz import known, strategies, summary
from conformance.fuzz.claims import KnownDifference
from conformance.fuzz.differential import fuzz_operation
from conformance.fuzz.known import for_operation
from conformance.paths import corpus_dir, expectations_dir
from reference_impl import dispatch

HERE = Path(__file__).parent
FAKE = f"exec:{sys.executable} {HERE / 'fakes' / 'fake_impl.py'} good"
REFERENCE_EXEC = f"exec:{sys.executable} -m reference_impl"


@pytest.mark.parametrize("component", sorted({c for c, _ in strategies.VALID}))
def test_the_reference_agrees_with_itself_through_the_protocol(tmp_path, component):
    code = main(["fuzz", "--impl", REFERENCE_EXEC, "--component", component, "--examples", "25",
                 "--out", str(tmp_path / "gen"), "--report-dir", str(tmp_path / "rep")])
    assert code == 0
    assert not (tmp_path / "gen").exists()
    assert "Disagreements: 0" in (tmp_path / "rep" / "fuzz.md").read_text()


@pytest.mark.parametrize("component", sorted({c for c, _ in strategies.INVALID}))
def test_invalid_inputs_are_refused_never_crashed_on(tmp_path, component):
    code = main(["fuzz", "--impl", REFERENCE_EXEC, "--component", component, "--examples", "25", "--invalid",
                 "--out", str(tmp_path / "gen"), "--report-dir", str(tmp_path / "rep")])
    assert code == 0


def test_a_disagreement_is_shrunk_and_written_as_a_valid_fixture(tmp_path, capsys):
    out = tmp_path / "gen"
    code = main(["fuzz", "--impl", FAKE, "--component", "kubelet", "--operation", "merge", "--examples", "200",
                 "--seed", "3", "--out", str(out), "--report-dir", str(tmp_path / "rep")])
    assert code == 1
    (written,) = list(out.rglob("*.yaml"))
    corpus = corpus_mod.load(paths=[written])
    assert corpus.problems == []
    (case,) = corpus.cases
    assert case.source == "generated" and case.id.startswith("kubelet.generated.merge.")
    # Shrunk: no provider is needed to tell the fake's fixed answer from the reference's.
    assert case.input["providers"] == []
    assert "seed 3" in case.notes


def test_an_oracle_that_fails_to_start_leaves_no_implementation_running(tmp_path):
    marker = "314159265"  # the fake's strike count, to find its process
    impl = f"exec:{sys.executable} {HERE / 'fakes' / 'fake_impl.py'} good {marker}"
    dead = f"exec:{sys.executable} {HERE / 'fakes' / 'fake_impl.py'} die-before-hello"
    assert main(["fuzz", "--impl", impl, "--against", dead, "--out", str(tmp_path / "gen"),
                 "--report-dir", str(tmp_path / "rep")]) == 3

    def running():
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                if marker.encode() in cmdline.read_bytes():
                    return True
            except OSError:
                continue
        return False

    assert not running()


def test_a_crash_found_is_kept_when_shrinking_spends_the_restart_budget():
    # Shrinking a crash restarts the implementation many times; once its budget
    # is spent every answer is `notrun`, which must not pass for a disagreement
    # and drag the reported input down to the smallest one generated.


    class Crashy:
        crashes = 0

        def run(self, case_id, case):
            if self.crashes >= 3:
                return Response("notrun", message="the restart budget is spent")
            if case["input"]["n"] >= 500:
                self.crashes += 1
                return Response("crash", message="the implementation exited with code 11")
            return Response("result", result={"n": case["input"]["n"]})

    class Oracle:
        def run(self, case_id, case):
            return Response("result", result={"n": case["input"]["n"]})

    strategy = st.builds(lambda n: {"n": n}, st.integers(0, 1000))
    report = fuzz_operation(Crashy(), Oracle(), "kubelet", "merge", strategy, 200, 1)
    assert report.disagreement is not None
    assert report.disagreement.input["n"] >= 500
    assert "crash" in report.disagreement.implementation


def test_a_known_difference_is_counted_under_its_case_and_does_not_stop_the_run():

    class OffByOneAboveTen:
        def run(self, case_id, case):
            n = case["input"]["n"]
            return Response("result", result={"n": n + 1 if n > 10 else n})

    class Oracle:
        def run(self, case_id, case):
            return Response("result", result={"n": case["input"]["n"]})

    strategy = st.builds(lambda n: {"n": n}, st.integers(0, 10**6))
    claimed = KnownDifference("kubelet.example.above-ten", "fake", "1", "kubelet", "merge",
                              lambda d, result: d["n"] > 10)
    report = fuzz_operation(OffByOneAboveTen(), Oracle(), "kubelet", "merge", strategy, 200, 1, known=(claimed,))
    assert report.disagreement is None
    assert report.examples == 200 and report.known["kubelet.example.above-ten"] > 0

    too_narrow = KnownDifference("kubelet.example.above-fifty", "fake", "1", "kubelet", "merge",
                                 lambda d, result: d["n"] > 50)
    report = fuzz_operation(OffByOneAboveTen(), Oracle(), "kubelet", "merge", strategy, 200, 1, known=(too_narrow,))
    # What the predicate does not claim is still found, and shrunk to the smallest such input.
    assert report.disagreement is not None and report.disagreement.input == {"n": 11}


def test_a_known_difference_never_excuses_a_transport_fault():

    class Crashes:
        def run(self, case_id, case):
            return Response("crash", message="the implementation exited with code 2")

    class Oracle:
        def run(self, case_id, case):
            return Response("result", result={})

    everything = KnownDifference("kubelet.example.any", "fake", "1", "kubelet", "merge", lambda d, result: True)
    report = fuzz_operation(Crashes(), Oracle(), "kubelet", "merge", st.just({}), 5, 1, known=(everything,))
    assert report.disagreement is not None


def test_every_declared_known_difference_is_a_corpus_case_expected_to_fail_for_its_release():
    corpus = corpus_mod.load(corpus_dir())
    declared = 0
    for path in sorted(expectations_dir().glob("*.yaml")):
        loaded, problems = expectations_mod.load(path)
        assert problems == []
        assert known.check(loaded, corpus.all_ids, set(strategies.VALID)) == []
        for difference in known.differences(loaded):
            declared += 1
            assert difference.case in corpus.all_ids, difference.case
            assert (difference.component, difference.operation) in strategies.VALID
            entry = loaded.entry_for(difference.case)
            assert entry is not None and entry.outcome in ("fail", "error"), (difference.case, path)
    assert declared > 0


def test_a_fuzz_block_naming_nothing_known_is_reported_by_name(tmp_path):
    path = tmp_path / "koordinator-v1.8.0.yaml"
    path.write_text("""implementation: koordinator
version: v1.8.0
entries:
  - match: koord.merge.equal-width-higher-score-mask-order
    outcome: fail
    reason: a reason long enough
    fuzz:
      - operations: [koordinator.merge, koordinator.nothing]
        model: [lower-mask-before-score, no-such-behaviour]
  - match: "koord.device-request.fractional.*"
    outcome: fail
    reason: a reason long enough
    fuzz:
      - operations: [koordinator.filter]
        rewrite: no-such-rewrite
        when: no-such-guard
  - match: koord.merge.equal-width-higher-score-mask-order
    outcome: fail
    reason: a reason long enough
    fuzz:
      - operations: [koordinator.merge]
        case: koord.no-such-case
        predicate: negative-pod-count
""")
    loaded, problems = expectations_mod.load(path)
    assert problems == []
    corpus = corpus_mod.load(corpus_dir())
    found = known.check(loaded, corpus.all_ids, set(strategies.VALID))
    messages = "\n".join(p.message for p in found)
    for named in ("no-such-behaviour", "koordinator.nothing", "no-such-rewrite", "no-such-guard",
                  "needs `case`", "koord.no-such-case"):
        assert named in messages
    assert {p.rule for p in found} == {"fuzz-name", "fuzz-operation", "fuzz-case"}
    assert all(p.line is not None for p in found)


def test_a_fuzz_block_with_two_ways_of_recognising_is_refused_by_the_schema(tmp_path):
    path = tmp_path / "e.yaml"
    path.write_text("""implementation: koordinator
entries:
  - match: koord.merge.equal-width-higher-score-mask-order
    outcome: fail
    reason: a reason long enough
    fuzz:
      - operations: [koordinator.merge]
        model: [lower-mask-before-score]
        predicate: negative-pod-count
""")
    _, problems = expectations_mod.load(path)
    assert problems and problems[0].pointer.startswith("/entries/0/fuzz/0")


def test_the_summary_adds_up_every_run_below_a_folder(tmp_path):
    release = tmp_path / "reference-0.1.0"
    for kind, extra in (("valid", []), ("invalid", ["--invalid"])):
        assert main(["fuzz", "--impl", REFERENCE_EXEC, "--component", "kubelet", "--operation", "merge",
                     "--examples", "7", *extra, "--out", str(tmp_path / "gen"),
                     "--report-dir", str(release / f"merge-{kind}")]) == 0
    assert main(["fuzz-summary", str(release)]) == 0
    text = (release / "summary.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| kubelet "))
    assert [cell.strip() for cell in row.strip("|").split("|")] == ["kubelet", "7", "7", "14", "0", "14", "0", "0"]
    assert "merge-invalid" in text and "merge-valid" in text
    stored = json.loads((release / "summary.json").read_text())
    assert schemas.errors("fuzz-summary.schema.json", stored) == []
    assert sorted(stored["runs"]) == ["merge-invalid", "merge-valid"]

    # The runs are not kept: the summary is rendered again from summary.json alone,
    # and a later run adds to it.
    for kind in ("valid", "invalid"):
        shutil.rmtree(release / f"merge-{kind}")
    assert main(["fuzz-summary", str(release)]) == 0
    assert (release / "summary.md").read_text() == text
    assert main(["fuzz", "--impl", REFERENCE_EXEC, "--component", "kubelet", "--operation", "merge",
                 "--examples", "7", "--seed", "3", "--out", str(tmp_path / "gen"),
                 "--report-dir", str(release / "runs" / "later")]) == 0
    assert main(["fuzz-summary", str(release)]) == 0
    row = next(line for line in (release / "summary.md").read_text().splitlines() if line.startswith("| kubelet "))
    assert [cell.strip() for cell in row.strip("|").split("|")][1:4] == ["14", "7", "21"]

    assert main(["fuzz-summary", str(tmp_path / "nothing")]) == 2


def test_a_run_or_summary_that_breaks_its_schema_is_refused_by_file_field_and_rule(tmp_path, capsys):
    assert main(["fuzz", "--impl", REFERENCE_EXEC, "--component", "kubelet", "--operation", "merge",
                 "--examples", "3", "--out", str(tmp_path / "gen"), "--report-dir", str(tmp_path / "rel" / "a")]) == 0
    run = tmp_path / "rel" / "a" / "fuzz.json"
    document = json.loads(run.read_text())
    document["operations"][0]["examples"] = "three"
    run.write_text(json.dumps(document))
    capsys.readouterr()
    assert main(["fuzz-summary", str(tmp_path / "rel")]) == 2
    message = capsys.readouterr().err
    assert str(run) in message and "/operations/0/examples" in message and "[type]" in message
    run.write_text("{not json")
    assert main(["fuzz-summary", str(tmp_path / "rel")]) == 2
    run.unlink()
    (tmp_path / "rel" / "summary.json").write_text(json.dumps({"format": 1, "runs": {"a": {"seed": 1}}}))
    assert main(["fuzz-summary", str(tmp_path / "rel")]) == 2
    assert "summary.json: /runs/a: [required]" in capsys.readouterr().err


def test_the_committed_fuzz_output_is_one_summary_per_release_rendered_from_its_json():
    root = Path(__file__).parents[2] / "reports" / "fuzz"
    releases = sorted(p for p in root.iterdir() if p.is_dir())
    assert releases
    for release in releases:
        stored = json.loads((release / "summary.json").read_text())
        assert schemas.errors("fuzz-summary.schema.json", stored) == [], release
        committed = (release / "summary.md").read_text()
        assert summary.render(stored["runs"], summary._ledger(release)) == committed, release


def test_the_kubelet_double_assignment_is_claimed_only_where_a_cpu_goes_to_two_pods():

    (difference,) = [d for d in for_operation("kubelet", "v1.37.2", "kubelet", "admit")
                     if d.case == "kubelet.upstream.cpu.unequal-numa-nodes-socket-judged-by-average"]
    case = next(c for c in corpus_mod.load(corpus_dir()).cases if c.id == difference.case)
    contract = dispatch.run("kubelet", "admit", case.input)
    assert not difference.applies(case.input, contract)
    # v1.37.2's answer: pod-1 is given numa0's whole socket, pod-0's CPUs 0 and 1 included.
    upstream = copy.deepcopy(contract)
    upstream["pods"][2]["containers"][0]["cpuIDs"] = [0, 1, 2, 3, 4, 5, 6, 7, 13, 14, 15, 16, 17]
    assert difference.applies(case.input, upstream)
    equal_nodes = copy.deepcopy(case.input)
    for node in equal_nodes["node"]["numaNodes"]:
        node["cpus"] = 8
    assert not difference.applies(equal_nodes, upstream)


def test_an_oracle_that_breaks_ends_the_run_and_writes_no_fixture(tmp_path):

    class Fine:
        def run(self, case_id, case):
            return Response("result", result={})

    class BrokenOracle:
        def run(self, case_id, case):
            return Response("crash", message="the oracle exited with code 9")

    report = fuzz_operation(Fine(), BrokenOracle(), "kubelet", "merge", st.just({}), 50, 1)
    assert report.disagreement is None
    assert report.oracle_failure == "crash: the oracle exited with code 9"
    assert report.examples == 1

    dead = f"exec:{sys.executable} {HERE / 'fakes' / 'fake_impl.py'} die-before-hello"
    code = main(["fuzz", "--impl", REFERENCE_EXEC, "--against", dead, "--component", "kubelet",
                 "--operation", "merge", "--examples", "5", "--out", str(tmp_path / "gen"),
                 "--report-dir", str(tmp_path / "rep")])
    assert code == 3 and not (tmp_path / "gen").exists()
