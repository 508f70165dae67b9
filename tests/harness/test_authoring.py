"""Writing one's own fixtures: a folder of them layered over a corpus
(--extra-corpus), ids checked against the whole corpus, keys under expect.result
checked against the result schema, problems once per base case in file order
with "did you mean", and `topoconf new --file`."""

import shutil
import textwrap
from pathlib import Path

import pytest
import yaml

from conformance import corpus as corpus_mod
from conformance import schemas, skeleton
from conformance.adapters.inprocess import InProcessAdapter
from conformance.cli import main
from conformance.corpus.checks import result_keys
from conformance.model import PASS
from conformance.runner import run

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"

HEAD = """\
format: 1
component: kubelet
topic: a user's own cases
defaults: {operation: merge, features: [kubelet.merge, kubelet.policy.best-effort], source: "KEP-693 / merge"}
cases:
"""
# best-effort over one CPU provider whose only preferred hint is node 0: the
# merge keeps that hint, so the affinity is [0], preferred, admitted.
CASE = """\
  - id: {id}
    title: one preferred CPU hint on node 0
    input:
      policy: best-effort
      numa: {{$block: kubelet/two-nodes}}
      providers: [{{cpu: [{{affinity: [0], preferred: true}}]}}]
    expect: {{result: {{affinity: [0], preferred: true, admit: true}}}}
    notes: a single provider with a single preferred hint is the merge's answer as it stands
"""


def user_folder(tmp_path, files, blocks=None, name="mine"):
    folder = tmp_path / name
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    for block, text in (blocks or {}).items():
        path = folder / "blocks" / f"{block}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def corpus_with(tmp_path, files):
    """A copy of the test corpus with the given files added to it (for checks that
    do not need an extra folder)."""
    root = tmp_path / "fixtures"
    shutil.copytree(CORPUS, root)
    for rel, text in files.items():
        (root / rel).write_text(textwrap.dedent(text))
    return root


# -- 1. --extra-corpus ------------------------------------------------------------

def test_a_folder_with_only_the_users_file_validates_against_the_corpus_vocabulary_and_blocks(tmp_path, capsys):
    folder = user_folder(tmp_path, {"kubelet/own.yaml": HEAD + CASE.format(id="mine.one")})
    assert main(["validate", "--corpus", str(CORPUS), "--extra-corpus", str(folder)]) == 0
    assert "0 problems" in capsys.readouterr().out


def test_a_users_folder_runs_against_the_corpus_vocabulary_and_blocks(tmp_path):
    folder = user_folder(tmp_path, {"kubelet/own.yaml": HEAD + CASE.format(id="mine.one")})
    corpus = corpus_mod.load(CORPUS, extra=[folder])
    assert corpus.problems == []
    mine = corpus.by_id["mine.one"]
    assert mine.input["numa"]["nodes"] == [0, 1]  # the corpus's block kubelet/two-nodes
    assert mine.file == f"{folder.as_posix()}/kubelet/own.yaml"
    assert "harness.last" in corpus.by_id  # the corpus's own cases are still there
    adapter = InProcessAdapter()
    outcome = run([mine], [], adapter, adapter.start())
    assert [(r.id, r.outcome, r.file) for r in outcome.records] == [("mine.one", PASS, mine.file)]


def test_an_extra_folders_files_are_named_by_the_folder_as_given(tmp_path, monkeypatch):
    folder = user_folder(tmp_path, {"kubelet/own.yaml": HEAD + CASE.format(id="mine.one")})
    monkeypatch.chdir(tmp_path)
    corpus = corpus_mod.load(CORPUS, extra=[Path("./mine")])
    assert corpus.by_id["mine.one"].file == "mine/kubelet/own.yaml"
    # A folder named like the corpus's own would give the same names: it is
    # named by its absolute path instead.
    same_name = user_folder(tmp_path, {"kubelet/own.yaml": HEAD + CASE.format(id="mine.two")}, name=CORPUS.name)
    corpus = corpus_mod.load(CORPUS, extra=[Path(CORPUS.name)])
    assert corpus.by_id["mine.two"].file == f"{same_name.resolve().as_posix()}/kubelet/own.yaml"
    assert folder.is_dir()


def test_an_extra_folders_own_blocks_are_found_first_and_may_not_shadow_the_corpus_blocks(tmp_path):
    own_block = CASE.format(id="mine.own-block").replace("kubelet/two-nodes", "mine/three-nodes")
    folder = user_folder(tmp_path, {"kubelet/own.yaml": HEAD + CASE.format(id="mine.one") + own_block},
                         blocks={"mine/three-nodes": "nodes: [0, 1, 2]\n", "kubelet/two-nodes": "nodes: [7]\n"})
    corpus = corpus_mod.load(CORPUS, extra=[folder])
    assert corpus.by_id["mine.own-block"].input["numa"] == {"nodes": [0, 1, 2]}
    (shadow,) = corpus.problems
    assert shadow.rule == "block-shadow" and shadow.file == f"{folder.as_posix()}/blocks/kubelet/two-nodes.yaml"
    assert "corpus/blocks/kubelet/two-nodes.yaml" in shadow.message


def test_an_unusable_extra_folder_is_a_clear_problem_and_a_usage_error_for_list(tmp_path, capsys):
    folder = user_folder(tmp_path, {"kubelet/own.yaml": HEAD + CASE.format(id="mine.one"),
                                    "features/kubelet.yaml": "component: kubelet\nfeatures: {}\n"})
    corpus = corpus_mod.load(CORPUS, extra=[folder, tmp_path / "absent", CORPUS / "kubelet"])
    found = sorted((p.rule, p.message.split(" ")[-1]) for p in corpus.problems)
    assert [rule for rule, _ in found] == ["extra-corpus"] * 3
    assert any("vocabulary" in p.message for p in corpus.problems)
    assert any("does not exist" in p.message for p in corpus.problems)
    assert any("overlaps the bundled corpus" in p.message for p in corpus.problems)
    assert main(["list", "--corpus", str(CORPUS), "--extra-corpus", str(tmp_path / "absent")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_the_corpus_hash_covers_the_extra_folders(tmp_path):
    folder = user_folder(tmp_path, {"kubelet/own.yaml": HEAD + CASE.format(id="mine.one")})
    plain = corpus_mod.load(CORPUS).hash()
    layered = corpus_mod.load(CORPUS, extra=[folder]).hash()
    assert plain == corpus_mod.corpus_hash(CORPUS) and layered != plain
    (folder / "kubelet" / "own.yaml").write_text(HEAD + CASE.format(id="mine.renamed"))
    assert corpus_mod.load(CORPUS, extra=[folder]).hash() not in (plain, layered)


def test_export_puts_an_extra_folders_files_apart(tmp_path):
    folder = user_folder(tmp_path, {"kubelet/basic.yaml": HEAD + CASE.format(id="mine.one")})
    out = tmp_path / "out"
    assert main(["export", "--corpus", str(CORPUS), "--extra-corpus", str(folder), str(out)]) == 0
    assert (out / "kubelet" / "basic.json").is_file() and (out / "extra" / "1" / "kubelet" / "basic.json").is_file()


# -- 2. ids against the whole corpus ----------------------------------------------

def test_validating_one_file_checks_its_ids_against_the_whole_corpus(tmp_path, capsys):
    folder = user_folder(tmp_path, {"kubelet/own.yaml": HEAD + CASE.format(id="mine.one") + CASE.format(id="harness.last")})
    assert main(["validate", "--corpus", str(CORPUS), str(folder / "kubelet" / "own.yaml")]) == 1
    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if "duplicate-id" in line]
    assert "case harness.last" in line and "already used in corpus/kubelet/basic.yaml:36" in line
    assert line.startswith(f"{(folder / 'kubelet' / 'own.yaml').as_posix()}:14:")


def test_a_duplicate_in_a_users_folder_names_the_corpus_file_and_line(tmp_path, capsys):
    folder = user_folder(tmp_path, {"kubelet/own.yaml": HEAD + CASE.format(id="harness.last")})
    assert main(["validate", "--corpus", str(CORPUS), "--extra-corpus", str(folder), str(folder)]) == 1
    out = capsys.readouterr().out
    assert f"{folder.as_posix()}/kubelet/own.yaml:6: case harness.last: /id: [duplicate-id]" in out
    assert "already used in corpus/kubelet/basic.yaml:36" in out


def test_an_id_written_twice_is_a_duplicate_even_when_a_matrix_derives_other_row_ids(tmp_path):
    matrix = CASE.format(id="harness.last") + "    matrix: {p: [1, 2]}\n"
    corpus = corpus_mod.load(CORPUS, extra=[user_folder(tmp_path, {"kubelet/own.yaml": HEAD + matrix})])
    (problem,) = corpus.problems
    assert problem.rule == "duplicate-id" and "corpus/kubelet/basic.yaml:36" in problem.message


# -- 3. keys under expect.result --------------------------------------------------

def load_one(tmp_path, text):
    return corpus_mod.load(corpus_with(tmp_path, {"kubelet/own.yaml": HEAD + text}))


def test_a_misspelt_result_key_is_reported_with_did_you_mean(tmp_path):
    corpus = load_one(tmp_path, CASE.format(id="mine.typo").replace("{result: {affinity:", "{result: {afinity:"))
    (problem,) = corpus.problems
    assert problem.rule == "result-key" and problem.pointer == "/cases/0/expect/result/afinity"
    assert problem.line == 12 and "did you mean 'affinity'" in problem.message
    assert [b.id for b in corpus.broken] == ["mine.typo"]


@pytest.mark.parametrize("result, pointer, suggestion", [
    # inside $exact: the same place of the result
    ("{$exact: {affinity: [0], preferd: true}}", "/cases/0/expect/result/$exact/preferd", "preferred"),
    # a key expected absent must still be a key the result can have
    ("{affinity: [0], scroe: {$absent: true}}", "/cases/0/expect/result/scroe", "score"),
    # the second alternative of a oneOf (a refusal) and a key below it
    ("{refused: {reasn: UnknownPolicy}}", "/cases/0/expect/result/refused/reasn", "reason"),
])
def test_result_keys_are_read_through_matchers_and_alternatives(tmp_path, result, pointer, suggestion):
    case = CASE.format(id="mine.k").replace("{result: {affinity: [0], preferred: true, admit: true}}",
                                            "{result: " + result + "}")
    (problem,) = load_one(tmp_path, case).problems
    assert (problem.rule, problem.pointer) == ("result-key", pointer)
    assert f"did you mean '{suggestion}'" in problem.message


def test_open_maps_and_matcher_values_are_not_read_as_result_keys(tmp_path):
    # numaResources-like free maps are open; below $contains / $any nothing is a key
    case = CASE.format(id="mine.ok").replace(
        "{result: {affinity: [0], preferred: true, admit: true}}",
        "{result: {affinity: {$unordered: [0]}, preferred: {$any: true}, refused: {$absent: true}}}")
    assert load_one(tmp_path, case).problems == []


def test_the_bundled_corpus_has_no_unknown_result_key():
    corpus = corpus_mod.load()
    assert [p for p in corpus.problems if p.rule == "result-key"] == []


# -- 4. one problem per base case, sorted, did you mean ----------------------------

def test_a_matrix_case_with_one_bad_value_reports_one_problem_naming_its_rows(tmp_path, capsys):
    case = CASE.format(id="mine.m").replace("preferred: true}]}]", 'preferred: true, score: "{{score}}"}]}]')
    case += "    matrix: {score: [10, ten], policy: [best-effort, restricted]}\n"
    root = corpus_with(tmp_path, {"kubelet/own.yaml": HEAD + case})
    assert main(["validate", "--corpus", str(root)]) == 1
    lines = [line for line in capsys.readouterr().out.splitlines() if "mine.m" in line]
    assert len(lines) == 1
    assert "case mine.m (matrix rows [score=ten,policy=best-effort] [score=ten,policy=restricted]):" in lines[0]


def test_a_problem_in_every_row_says_so_once(tmp_path, capsys):
    case = CASE.format(id="mine.m").replace("{result: {affinity:", "{result: {afinity:")
    case += "    matrix: {policy: [best-effort, restricted, single-numa-node]}\n"
    root = corpus_with(tmp_path, {"kubelet/own.yaml": HEAD + case})
    assert main(["validate", "--corpus", str(root)]) == 1
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "mine.m" in line]
    assert "case mine.m (all 3 matrix rows): /cases/0/expect/result/afinity: [result-key]" in line


def test_problems_are_sorted_by_file_and_line(tmp_path, capsys):
    # a.yaml's duplicate is only found after every file is loaded; it still comes first
    root = corpus_with(tmp_path, {
        "kubelet/a.yaml": HEAD + CASE.format(id="mine.twice") + CASE.format(id="mine.twice"),
        "kubelet/b.yaml": HEAD + CASE.format(id="mine.b").replace("title: one", "title: 7\n    tittle: one"),
    })
    assert main(["validate", "--corpus", str(root)]) == 1
    places = [line.split(": ")[0] for line in capsys.readouterr().out.splitlines()
              if line.startswith(("fixtures/kubelet/a.yaml", "fixtures/kubelet/b.yaml"))]
    assert len(places) >= 3
    keys = [(p.rsplit(":", 1)[0], int(p.rsplit(":", 1)[1])) for p in places]
    assert keys == sorted(keys) and keys[0][0].endswith("a.yaml")


@pytest.mark.parametrize("change, rule, suggestion", [
    (("features: [kubelet.merge,", "features: [kubelet.merg,"), "unknown-feature", "kubelet.merge"),
    (("operation: merge", "operation: marge"), "unknown-operation", "merge"),
    (("kubelet/two-nodes", "kubelet/two-node"), "block-missing", "kubelet/two-nodes"),
    (("{result: {affinity: [0],", "{result: {affinity: {$unorderd: [0]},"), "matcher", "$unordered"),
    (("policy: best-effort\n      numa", 'policy: "{{polcy}}"\n      numa'), "matrix-parameter", "policy"),
])
def test_unknown_names_come_with_did_you_mean(tmp_path, change, rule, suggestion):
    text = HEAD + CASE.format(id="mine.x") + "    matrix: {policy: [best-effort]}\n"
    text = text.replace(*change)
    corpus = corpus_mod.load(corpus_with(tmp_path, {"kubelet/own.yaml": text}))
    problems = [p for p in corpus.problems if p.rule == rule]
    assert problems and all(f"did you mean '{suggestion}'" in p.message for p in problems)


def test_an_unknown_feature_names_the_vocabulary_file_actually_read(tmp_path):
    text = HEAD.replace("[kubelet.merge,", "[kubelet.nope,") + CASE.format(id="mine.x")
    corpus = corpus_mod.load(CORPUS, paths=[user_folder(tmp_path, {"kubelet/own.yaml": text})])
    (problem,) = corpus.problems
    assert "is not in corpus/features/kubelet.yaml" in problem.message


# -- 5. new --file -----------------------------------------------------------------

def test_new_file_prints_a_whole_file_that_validates_once_its_placeholders_are_filled(tmp_path, capsys):
    assert main(["new", "kubelet", "merge", "--file"]) == 0
    text = capsys.readouterr().out
    assert text == skeleton.render_file("kubelet", "merge")
    folder = tmp_path / "mine"
    (folder / "kubelet").mkdir(parents=True)
    target = folder / "kubelet" / "own.yaml"
    # As printed, the placeholders do not pass.
    target.write_text(text)
    assert main(["validate", "--corpus", str(CORPUS), "--extra-corpus", str(folder)]) == 1
    capsys.readouterr()
    filled = (text.replace("kubelet.FEATURE", "kubelet.merge")
              .replace("kubelet.TOPIC.SHORT-NAME", "mine.filled")
              .replace("TOPIC: what the cases of this file pin", "one preferred hint")
              .replace("DOCUMENT / SECTION (or upstream: FILE)", "KEP-693 / merge")
              .replace("ONE LINE: what the case shows", "one preferred CPU hint on node 0"))
    document = yaml.safe_load(filled)
    (case,) = document["cases"]
    assert set(case["input"]) == {"policy", "numa", "providers"}
    case["input"] = {"policy": "best-effort", "numa": {"$block": "kubelet/two-nodes"},
                     "providers": [{"cpu": [{"affinity": [0], "preferred": True}]}]}
    case["expect"] = {"result": {"affinity": [0], "preferred": True, "admit": True}}
    # The policy the input sets is claimed too (the feature-claim rule).
    case["features"] = [*case.get("features", []), "kubelet.policy.best-effort"]
    target.write_text(yaml.safe_dump(document, sort_keys=False))
    assert main(["validate", "--corpus", str(CORPUS), "--extra-corpus", str(folder)]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("component, operation", [("koordinator", "filter"), ("kueue", "assign"), ("kubelet", "admit")])
def test_new_file_has_the_header_every_fixture_file_needs(component, operation):
    document = yaml.safe_load(skeleton.render_file(component, operation))
    assert document["format"] == 1 and document["component"] == component and document["topic"]
    assert document["defaults"]["operation"] == operation
    # A field defined by reference shows its type, not null.
    assert None not in document["cases"][0]["input"].values()


def test_result_keys_are_read_after_the_compiled_validator_rewrote_the_schema_references():
    # A run validates results with the compiled validator first, which rewrites
    # relative references as absolute URIs in place.
    schemas.is_valid_fast("operations/kueue/assign.result.json", {"podSets": [{"name": 1}]})
    (unknown,) = result_keys.check("kueue", "assign", {"podSets": [{"nme": "main"}]})
    assert unknown.path == ["podSets", 0, "nme"] and "did you mean 'name'" in unknown.message
