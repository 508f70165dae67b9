"""The fuzzing budget split over pytest-xdist workers: shards and their seeds,
the merged run, and the fixtures of the workers' disagreements written on the
controller."""

import json

import pytest

from conformance import schemas
from conformance.fuzz import shards
from conformance.fuzz.differential import Disagreement, OperationReport

from .test_pytest_plugin import importable, run  # noqa: F401 - importable is an autouse fixture

pytest_plugins = ["pytester"]


def test_the_budget_is_split_evenly_and_adds_up():
    assert shards.split(100, 1) == [100]
    assert shards.split(10, 3) == [4, 3, 3]
    assert shards.split(2, 4) == [1, 1, 0, 0]
    assert all(sum(shards.split(n, k)) == n for n in range(0, 40) for k in range(1, 6))


def test_one_shard_keeps_the_seed_as_given_and_several_derive_their_own():
    assert shards.seed_of(None, "kubelet", "merge", 0, 1) is None
    assert shards.seed_of(5, "kubelet", "merge", 0, 1) == 5
    derived = [shards.seed_of(5, "kubelet", "merge", i, 4) for i in range(4)]
    assert len(set(derived)) == 4
    # Fixed by the command line: the same seed, operation and shard give the same seed.
    assert derived == [shards.seed_of(5, "kubelet", "merge", i, 4) for i in range(4)]
    assert derived != [shards.seed_of(6, "kubelet", "merge", i, 4) for i in range(4)]
    assert shards.seed_of(5, "kubelet", "admit", 0, 4) != derived[0]
    # Derandomised shards do not all draw the same inputs either.
    assert len({shards.seed_of(None, "kubelet", "merge", i, 3) for i in range(3)}) == 3


def _found(size: int) -> Disagreement:
    return Disagreement("kubelet", "merge", {"x": "y" * size}, {"result": {}}, {"result": {}}, ["d"], False)


def test_the_shards_of_an_operation_merge_into_one_row():
    reports = [
        OperationReport("kueue", "assign", False, examples=5, seconds=1.0),
        OperationReport("kubelet", "merge", False, examples=4, unsupported=1, seconds=2.0, known={"a": 1},
                        disagreement=_found(9)),
        OperationReport("kubelet", "merge", False, examples=3, unsupported=2, seconds=0.5, known={"a": 2, "b": 1},
                        disagreement=_found(2)),
    ]
    merged = shards.merge(reports)
    assert [(o.component, o.operation) for o in merged] == [("kubelet", "merge"), ("kueue", "assign")]
    kubelet = merged[0]
    assert (kubelet.examples, kubelet.unsupported, kubelet.seconds) == (7, 3, 2.5)
    assert kubelet.known == {"a": 3, "b": 1}
    assert kubelet.disagreement.input == {"x": "yy"}  # the smaller shrunk input
    assert shards.merge(list(reversed(reports)))[0].disagreement.input == {"x": "yy"}


def test_a_report_travels_as_json_and_back():
    report = OperationReport("kubelet", "merge", False, examples=4, known={"a": 1}, disagreement=_found(3))
    assert shards.from_json(json.loads(json.dumps(shards.to_json(report)))) == report
    plain = OperationReport("kubelet", "merge", True, examples=1)
    assert shards.from_json(json.loads(json.dumps(shards.to_json(plain)))) == plain


def _fuzz_json(report_dir):
    (path,) = report_dir.glob("runs/*/fuzz.json")
    document = json.loads(path.read_text())
    assert schemas.errors("fuzz.schema.json", document) == []
    return path, document


def test_two_loopback_hosts_share_the_budget_and_the_controller_gets_one_run_and_the_fixtures(pytester):
    pytest.importorskip("xdist")
    report = pytester.path / "rep"
    # Two execnet gateways as `--tx ssh=host` would give, here two local processes.
    result = run(pytester, "good", "--fuzz-only", "--fuzz-examples", "6", "--fuzz-seed", "3", "-k", "merge",
                 "--dist", "load", "--tx", "popen", "--tx", "popen", "-v")
    names = sorted({line.split("fuzz[")[1].split("]")[0] for line in result.stdout.lines
                    if "fuzz[kubelet" in line and ("PASSED" in line or "FAILED" in line)})
    assert names == ["kubelet.merge#1of2", "kubelet.merge#2of2"]
    path, document = _fuzz_json(report)
    assert path.parent.name == "kubelet-valid-seed-3-2-shards"
    assert document["seed"] == 3
    (row,) = document["operations"]
    assert (row["component"], row["operation"]) == ("kubelet", "merge")
    # The fake answers every merge with node 0 alone: a shard that meets another
    # answer shrinks it, and the controller writes it, wherever the worker ran.
    written = sorted(report.glob("generated/kubelet/generated-merge-*.yaml"))
    assert written and document["fixtures"] == [str(p) for p in written]
    assert row["disagreement"] is not None
    result.stdout.fnmatch_lines(["*topoconf: fuzzing: * generated cases in 2 items, * disagreements*",
                                 "*a worker's disagreement written for review as*generated-merge-*"])
    result.stdout.fnmatch_lines(["*controller, at the end of the run*"])


def test_without_xdist_one_item_per_operation_keeps_the_seed(pytester):
    report = pytester.path / "rep"
    result = run(pytester, "good", "--fuzz-only", "--fuzz-examples", "3", "--fuzz-seed", "1", "-k", "merge")
    assert any("fuzz[kubelet.merge]" in line for line in result.stdout.lines)
    path, document = _fuzz_json(report)
    assert path.parent.name == "kubelet-valid-seed-1" and document["seed"] == 1
    assert document["fixtures"] and all("generated-merge-" in f for f in document["fixtures"])


def test_a_negative_shard_count_is_a_usage_error(pytester):
    result = run(pytester, "good", "--fuzz-only", "--fuzz-examples", "3", "--fuzz-shards", "-1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--fuzz-shards must be 0*"])
