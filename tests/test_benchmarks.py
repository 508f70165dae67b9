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

from benchmarks import kep6007_branches, kubelet_merge, kueue_placement, report_update  # noqa: E402
from benchmarks.shim import BenchTimes, Disagreement, ShimProcess, same_answer  # noqa: E402


class StandInShim:
    """Answers `bench` with the reference's own answer, optionally altered."""

    version = "stand-in"

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
    kep6007 = ("hint-scores", "scores")
    assert all(r.upstream is not None for r in rows if r.variant not in kep6007)
    assert all(r.upstream is None and "KEP-6007" in r.upstream_note for r in rows if r.variant in kep6007)


class IdenticalMasksBranch(StandInShim):
    """A stand-in for #142226: the reference's answer under the branch's
    documented order of identical masks."""

    def bench(self, operation, input_, repeat=1):
        with kep6007_branches.RULES[kep6007_branches.IDENTICAL_MASKS]():
            return super().bench(operation, input_, repeat)


def test_kep6007_inputs_go_to_the_branch_builds():
    branches = {"pr141796": StandInShim("kubelet", "merge", ("merge",)),
                "pr142226": StandInShim("kubelet", "merge", ("merge",))}
    rows = kubelet_merge.run(StandInShim("kubelet", "merge", ("merge",)), [2], [2], 5.0, 0.0, quiet, branches)
    assert all(r.upstream is not None and r.upstream_build == "stand-in" for r in rows)
    assert not any(r.upstream_differs for r in rows)


def test_a_branch_differing_by_its_documented_rule_is_accepted_and_marked():
    # 2 NUMA x 4 sparse providers with scores: two permutations merge to {0}
    # with different scores, which the branch's order settles the other way
    rows = kubelet_merge.run(None, [2], [4], 5.0, 0.0, quiet,
                             {"pr142226": IdenticalMasksBranch("kubelet", "merge", ("merge",))})
    scored = [r for r in rows if r.variant == "scores"]
    assert all(r.upstream is not None for r in scored)
    marked = {(r.hint_set, r.algorithm) for r in scored if r.upstream_differs}
    assert marked == {("sparse", "full"), ("sparse", "preferred-first")}
    assert "item 1" in next(r.upstream_differs for r in scored if r.upstream_differs)


def test_a_branch_differing_otherwise_stops_the_run():
    def lower(result):
        result["score"] += 1

    with pytest.raises(Disagreement, match="merge 2 NUMA x 2 dense providers, scores"):
        kubelet_merge.run(None, [2], [2], 5.0, 0.0, quiet,
                          {"pr142226": StandInShim("kubelet", "merge", ("merge",), lower)})


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
    assert all(r.upstream is not None for r in rows if r.variant not in ("hint-scores", "scores"))


@pytest.mark.skipif(not all((ROOT / b.binary).exists() for b in kep6007_branches.BRANCHES),
                    reason="the KEP-6007 branch builds of the kubelet shim are not here")
def test_the_real_branch_builds_agree_on_a_tiny_size():
    with ShimProcess([str(ROOT / kep6007_branches.BRANCHES[0].binary)], "kubelet") as first, \
            ShimProcess([str(ROOT / kep6007_branches.BRANCHES[1].binary)], "kubelet") as second:
        rows = kubelet_merge.run(None, [2], [2, 4], 5.0, 0.0, quiet, {"pr141796": first, "pr142226": second})
    assert all(r.upstream is not None for r in rows if r.variant in ("hint-scores", "scores"))


OLD_REPORT = """# Benchmarks

Python 3.11 on x86_64, the original run.

The machine was shared.

## Targets

| target | measured | verdict |
| --- | --- | --- |
| kubelet: old one | 1 | met |
| kubelet: old two | 2 | missed |
| Kueue 10,000 nodes | 3 | missed |

## kubelet merge (v1.37.2)

old kubelet table

## Kueue placement (v0.17.0)

kueue table
"""


def test_an_update_replaces_only_the_rerun_part():
    header = {"generated_at": "T1", "wall_clock_s": 5.0, "load_average_at_start": [1.0], "load_average_at_end": [2.0],
              "upstream": {"kubelet": "v1.37.2"}}
    note = report_update.rerun_note(["kubelet"], header)
    new = report_update.splice_markdown(OLD_REPORT, {"kubelet": "## kubelet merge (v1.37.2)\n\nnew kubelet table\n"},
                                        {"kubelet": ["| kubelet: new | 9 | met |"]}, note)
    assert "new kubelet table" in new and "old kubelet table" not in new
    assert "kueue table" in new and "| Kueue 10,000 nodes | 3 | missed |" in new
    assert "| kubelet: new | 9 | met |\n| Kueue 10,000 nodes" in new and "old two" not in new
    assert new.index("the original run") < new.index("**Rerun:** the kubelet part on T1") < new.index("was shared")
    again = report_update.splice_markdown(new, {}, {}, report_update.rerun_note(["kubelet"], dict(header, generated_at="T2")))
    assert again.count("**Rerun:**") == 1 and "on T2" in again
    assert "\n\n\n" not in new and "\n\n\n" not in again
