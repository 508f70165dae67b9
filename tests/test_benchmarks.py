"""The benchmarks' answer check: a difference between the reference and
upstream stops the run. Stand-in shims answer here, so no Go build is needed;
no test looks at a time."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

from reference_impl import dispatch

ROOT = Path(__file__).resolve().parent.parent
# benchmarks/ lives in the checkout only, not in the installed package; appended,
# so the installed reference_impl still comes first
sys.path.append(str(ROOT))

from benchmarks import kubelet_merge, kueue_placement  # noqa: E402
from benchmarks.shim import BenchTimes, Disagreement, ShimProcess, same_answer  # noqa: E402


class StandInShim:
    """Answers `bench` with the reference's own answer, optionally altered."""

    def __init__(self, component: str, operation: str, sections: tuple[str, ...], alter=None):
        self.component, self.operation, self.sections, self.alter = component, operation, sections, alter

    def bench(self, operation: str, input_: dict, repeat: int = 1) -> BenchTimes:
        assert operation == self.operation
        result = copy.deepcopy(dispatch.run(self.component, operation, input_))
        if self.alter is not None:
            self.alter(result)
        return BenchTimes([1000] * repeat, {s: [500] * repeat for s in self.sections},
                          dict.fromkeys(self.sections, 1), {"result": result})


def quiet(_line: str) -> None:
    pass


def test_kubelet_merge_agreeing_answers_pass():
    rows = kubelet_merge.run(StandInShim("kubelet", "merge", ("merge",)), [2], [2], 5.0, 0.0, quiet)
    assert {r.variant for r in rows} == set(kubelet_merge.VARIANTS)
    assert all(r.upstream is not None for r in rows if r.variant != "scores")
    assert all(r.upstream is None and "KEP-6007" in r.upstream_note for r in rows if r.variant == "scores")


def test_kubelet_merge_difference_stops_the_run():
    def flip(result):
        result["preferred"] = not result["preferred"]

    with pytest.raises(Disagreement, match="merge 2 NUMA x 2 dense providers, plain"):
        kubelet_merge.run(StandInShim("kubelet", "merge", ("merge",), flip), [2], [2], 5.0, 0.0, quiet)


def test_kubelet_merge_beyond_the_budget_is_reported_not_run():
    calls = []

    class Counting(StandInShim):
        def bench(self, operation, input_, repeat=1):
            calls.append(kubelet_merge.permutations(input_))
            return super().bench(operation, input_, repeat)

    rows = kubelet_merge.run(Counting("kubelet", "merge", ("merge",)), [4], [3], 1e-9, 0.0, quiet)
    dense = [r for r in rows if r.hint_set == "dense" and r.variant == "plain"]
    assert dense and all(r.upstream is None and "budget" in r.upstream_note for r in dense)
    assert 15**3 not in calls[1:]  # only the calibration ran upstream's merge


def test_kueue_difference_stops_the_run():
    def refuse(result):
        result["admitted"] = not result["admitted"]

    shim = StandInShim("kueue", "assign", ("cache", "snapshot", "placement"), refuse)
    with pytest.raises(Disagreement, match="kueue assign 100 nodes, required, 100 pods"):
        kueue_placement.run(shim, None, [100], [100], [100], 1, quiet)


def test_kueue_agreeing_answers_pass():
    shim = StandInShim("kueue", "assign", ("cache", "snapshot", "placement"))
    rows = kueue_placement.run(shim, None, [100], [100], [100], 1, quiet)
    assert [r.mode for r in rows] == list(kueue_placement.MODES)
    assert all(set(r.upstream) == {"snapshot", "placement", "handler"} for r in rows)


def test_a_nondeterministic_upstream_agrees_only_when_asked_and_holding_the_answer():
    answer = {"admitted": True}
    upstream = {"error": {"message": "not deterministic", "nondeterministic": {"results": [{"admitted": False}, answer]}}}
    assert same_answer("x", answer, upstream, among_distinct=True) is True
    with pytest.raises(Disagreement):
        same_answer("x", answer, upstream)
    with pytest.raises(Disagreement):
        same_answer("x", {"admitted": "other"}, upstream, among_distinct=True)


@pytest.mark.skipif(not (ROOT / "shims/kubelet/bin/kubelet-shim").exists(), reason="the kubelet shim is not built")
def test_the_real_kubelet_shim_agrees_on_a_tiny_size():
    with ShimProcess([str(ROOT / "shims/kubelet/bin/kubelet-shim")], "kubelet") as shim:
        rows = kubelet_merge.run(shim, [2], [2], 5.0, 0.0, quiet)
    assert all(r.upstream is not None for r in rows if r.variant != "scores")
