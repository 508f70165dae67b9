"""The loader's rules: blocks, defaults, matrices, ids, features, and problems
that name file, line, case id, pointer and rule."""

import textwrap
from pathlib import Path

import pytest

from conformance import corpus as corpus_mod
from conformance.corpus import deep_merge, substitute

HERE = Path(__file__).parent
FEATURES = (HERE / "corpus" / "features" / "kubelet.yaml").read_text() + "".join(
    f"  kubelet.policy.{p}:\n    description: {p}\n    source: KEP-693\n" for p in ("restricted", "single-numa-node"))
BLOCK = "nodes: [0, 1]\ndistances: [[10, 20], [20, 10]]\n"


def make_corpus(tmp_path, files, blocks=None):
    root = tmp_path / "fixtures"
    (root / "features").mkdir(parents=True)
    (root / "features" / "kubelet.yaml").write_text(FEATURES)
    for name, text in (blocks or {"kubelet/two-nodes": BLOCK}).items():
        path = root / "blocks" / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    for name, text in files.items():
        path = root / "kubelet" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return corpus_mod.load(root)


HEAD = """\
format: 1
component: kubelet
topic: test
defaults: {operation: merge, features: [kubelet.merge, kubelet.policy.best-effort], source: "upstream: policy.go"}
cases:
"""
# Matrix cases over the policy claim each row's own policy.
MATRIX_HEAD = HEAD.replace("kubelet.policy.best-effort", '"kubelet.policy.{{policy}}"')
CASE = """\
  - id: {id}
    title: t
    input:
      policy: best-effort
      numa: {{$block: kubelet/two-nodes}}
      providers: [{{cpu: [{{affinity: [0], preferred: true}}]}}]
    expect: {{result: {{affinity: [0]}}}}
"""


def test_a_sound_file_loads_with_defaults_and_blocks(tmp_path):
    corpus = make_corpus(tmp_path, {"a.yaml": HEAD + CASE.format(id="a.one")})
    assert corpus.problems == []
    (case,) = corpus.cases
    assert case.operation == "merge" and case.features == ("kubelet.merge", "kubelet.policy.best-effort")
    assert case.input["numa"] == {"nodes": [0, 1], "distances": [[10, 20], [20, 10]]}
    assert case.file == "fixtures/kubelet/a.yaml" and case.line == 6


def test_ids_are_unique_across_files(tmp_path):
    corpus = make_corpus(tmp_path, {"a.yaml": HEAD + CASE.format(id="same"), "b.yaml": HEAD + CASE.format(id="same")})
    (problem,) = corpus.problems
    assert problem.rule == "duplicate-id" and problem.case_id == "same" and "fixtures/kubelet/a.yaml" in problem.message


def test_a_broken_case_is_reported_with_file_line_id_and_pointer_and_the_rest_still_load(tmp_path):
    broken = CASE.format(id="bad").replace("title: t", "title: 7")
    corpus = make_corpus(tmp_path, {"a.yaml": HEAD + CASE.format(id="good") + broken})
    assert [c.id for c in corpus.cases] == ["good"]
    assert [b.id for b in corpus.broken] == ["bad"]
    problem = next(p for p in corpus.problems if p.case_id == "bad")
    assert problem.file == "fixtures/kubelet/a.yaml"
    assert problem.line == 14
    assert problem.pointer == "/cases/1/title"
    assert problem.render().startswith("fixtures/kubelet/a.yaml:14: case bad: /cases/1/title: [type]")


def test_an_unknown_feature_and_a_missing_block_are_problems(tmp_path):
    text = HEAD + CASE.format(id="x").replace("title: t", "title: t\n    features: [kubelet.nope]")
    text += CASE.format(id="y").replace("kubelet/two-nodes", "kubelet/absent")
    corpus = make_corpus(tmp_path, {"a.yaml": text})
    rules = {(p.case_id, p.rule) for p in corpus.problems}
    assert ("x", "unknown-feature") in rules and ("y", "block-missing") in rules


def test_block_names_stay_inside_the_corpus_and_cycles_are_refused(tmp_path):
    text = HEAD + CASE.format(id="x").replace("kubelet/two-nodes", "../outside")
    text += CASE.format(id="y").replace("kubelet/two-nodes", "kubelet/loop-a")
    blocks = {"kubelet/two-nodes": BLOCK, "kubelet/loop-a": "a: {$block: kubelet/loop-b}\n",
              "kubelet/loop-b": "b: {$block: kubelet/loop-a}\n"}
    corpus = make_corpus(tmp_path, {"a.yaml": text}, blocks)
    rules = {(p.case_id, p.rule) for p in corpus.problems}
    assert ("x", "block-name") in rules and ("y", "block-cycle") in rules


def test_a_duplicate_key_is_reported_at_its_line(tmp_path):
    corpus = make_corpus(tmp_path, {"a.yaml": HEAD + CASE.format(id="x").replace("title: t", "title: t\n    title: u")})
    (problem,) = corpus.problems
    assert problem.rule == "yaml" and problem.line == 8 and "duplicate key 'title'" in problem.message


def test_matrix_of_lists_expands_to_the_product_with_derived_ids(tmp_path):
    case = CASE.format(id="m").replace("policy: best-effort", 'policy: "{{policy}}"')
    case += "    matrix: {policy: [best-effort, restricted], weight: [1, 2]}\n"
    corpus = make_corpus(tmp_path, {"a.yaml": MATRIX_HEAD + case})
    assert [c.id for c in corpus.cases] == [
        "m[policy=best-effort,weight=1]", "m[policy=best-effort,weight=2]",
        "m[policy=restricted,weight=1]", "m[policy=restricted,weight=2]",
    ]
    assert corpus.cases[2].input["policy"] == "restricted"
    assert corpus.cases[2].params == {"policy": "restricted", "weight": 1}


def test_matrix_rows_and_an_unknown_parameter(tmp_path):
    rows = CASE.format(id="r").replace("policy: best-effort", 'policy: "{{policy}}"')
    rows += "    matrix: [{policy: restricted}, {policy: single-numa-node}]\n"
    unknown = CASE.format(id="u").replace("policy: best-effort", 'policy: "{{nope}}"')
    unknown += "    matrix: {policy: [restricted]}\n"
    corpus = make_corpus(tmp_path, {"a.yaml": MATRIX_HEAD + rows + unknown})
    assert [c.id for c in corpus.cases] == ["r[policy=restricted]", "r[policy=single-numa-node]"]
    assert {p.rule for p in corpus.problems if p.case_id == "u[policy=restricted]"} == {"matrix-parameter"}


def test_substitution_keeps_types_inside_whole_strings_and_interpolates_inside_longer_ones():
    params = {"n": 3, "flag": True, "name": "cpu"}
    assert substitute({"a": "{{n}}", "b": "x{{n}}", "c": ["{{flag}}"], "{{name}}": 1}, params) == {
        "a": 3, "b": "x3", "c": [True], "cpu": 1,
    }


def test_deep_merge_merges_mappings_and_replaces_everything_else():
    assert deep_merge({"a": {"b": 1, "c": [1]}, "d": 1}, {"a": {"c": [2]}, "d": None}) == {
        "a": {"b": 1, "c": [2]}, "d": None,
    }


@pytest.mark.parametrize("bad", ["format: 2\n", "format: 1\ncomponent: kubelet\n"])
def test_a_file_level_problem_is_reported_once_without_cases(tmp_path, bad):
    corpus = make_corpus(tmp_path, {"a.yaml": bad})
    assert corpus.cases == [] and corpus.problems
    assert all(p.file == "fixtures/kubelet/a.yaml" for p in corpus.problems)


def test_a_block_may_be_a_list_used_whole_but_not_overridden(tmp_path):
    blocks = {"kubelet/two-nodes": BLOCK, "kubelet/providers": "- {cpu: [{affinity: [0], preferred: true}]}\n"}
    whole = CASE.format(id="whole").replace("providers: [{cpu: [{affinity: [0], preferred: true}]}]",
                                            "providers: {$block: kubelet/providers}")
    overridden = CASE.format(id="over").replace("providers: [{cpu: [{affinity: [0], preferred: true}]}]",
                                                "providers: {$block: kubelet/providers, extra: 1}")
    corpus = make_corpus(tmp_path, {"a.yaml": HEAD + whole + overridden}, blocks)
    assert corpus.by_id["whole"].input["providers"] == [{"cpu": [{"affinity": [0], "preferred": True}]}]
    assert {(p.case_id, p.rule) for p in corpus.problems} == {("over", "block-override")}


def test_a_misspelt_or_misused_matcher_is_a_problem_not_a_crash_at_run_time(tmp_path):
    text = HEAD + CASE.format(id="m").replace(
        "expect: {result: {affinity: [0]}}",
        "expect: {result: {affinity: {$unordered: 5}, preferred: {$contians: a}, admit: {$contains: a, x: 1}}}",
    )
    corpus = make_corpus(tmp_path, {"a.yaml": text})
    found = {(p.case_id, p.pointer, p.rule) for p in corpus.problems}
    assert found == {
        ("m", "/cases/0/expect/result/affinity", "matcher"),
        ("m", "/cases/0/expect/result/preferred", "matcher"),
        ("m", "/cases/0/expect/result/admit", "matcher"),
    }
    assert all(p.line == 12 for p in corpus.problems)
    assert [b.id for b in corpus.broken] == ["m"]


def test_a_broken_case_reusing_an_id_is_a_duplicate_and_is_not_counted_twice(tmp_path):
    broken = CASE.format(id="twice").replace("title: t", "title: 7")
    corpus = make_corpus(tmp_path, {"a.yaml": HEAD + broken + broken + CASE.format(id="good"),
                                    "b.yaml": HEAD + CASE.format(id="good").replace("title: t", "title: 7")})
    assert [b.id for b in corpus.broken] == ["twice"]
    assert [c.id for c in corpus.cases] == ["good"]
    duplicates = {(p.file, p.case_id) for p in corpus.problems if p.rule == "duplicate-id"}
    assert duplicates == {("fixtures/kubelet/a.yaml", "twice"), ("fixtures/kubelet/b.yaml", "good")}


def test_an_unknown_feature_is_pointed_at_where_it_is_written(tmp_path):
    head = HEAD.replace("kubelet.policy.best-effort]", "kubelet.policy.best-effort, kubelet.nope-default]")
    text = head + CASE.format(id="x").replace("title: t", "title: t\n    features: [kubelet.nope-own]")
    corpus = make_corpus(tmp_path, {"a.yaml": text})
    found = {(p.message.split("'")[1], p.pointer, p.line) for p in corpus.problems if p.rule == "unknown-feature"}
    assert found == {("kubelet.nope-default", "/defaults/features/2", 4), ("kubelet.nope-own", "/cases/0/features/0", 8)}
