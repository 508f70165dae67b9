"""Hostile fixture files and answers are refused with a clear message, in bounded
memory, and the run goes on: an alias bomb, nesting tens of thousands of levels
deep, blocks or matrices that multiply, an oversized file; from an implementation,
answers too deep or too large to judge.

The commands run in a child process under an address-space limit (so a
regression cannot take the machine down) and their peak memory is checked. The
timeout only guards against a hang; nothing here measures time.
"""

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conformance import bounds, corpus, expectations, yamlload
from conformance.adapters.base import Response
from conformance.runner import judge

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
FAKE = HERE / "fakes" / "fake_impl.py"
PEAK_MB = 200
# A guard for the machine, not the assertion: an unbounded loader reaches GBs.
ADDRESS_SPACE = 1536 * 1024 * 1024
HANG_GUARD = 600

# Runs argv under RLIMIT_AS and prints its exit code, output and peak RSS. The
# extra process keeps the peak to that one command (RUSAGE_CHILDREN covers every
# child a process has waited for).
_WRAPPER = textwrap.dedent("""
    import json, resource, subprocess, sys
    limit, timeout, argv = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, preexec_fn=cap)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps({"code": done.returncode, "out": done.stdout, "err": done.stderr, "peak_mb": peak}))
""")


def topoconf(*args):
    done = subprocess.run(
        [sys.executable, "-c", _WRAPPER, str(ADDRESS_SPACE), str(HANG_GUARD), sys.executable, "-m", "conformance",
         *map(str, args)],
        capture_output=True, text=True, timeout=HANG_GUARD + 60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def tmp_corpus(tmp_path, files):
    root = tmp_path / "fixtures"
    shutil.copytree(CORPUS, root)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


HEAD = "format: 1\ncomponent: kubelet\ntopic: hostile\n"
CASE = textwrap.dedent("""\
      - id: hostile.case
        title: t
        operation: merge
        features: [kubelet.merge]
        source: "upstream: pkg/kubelet/cm/topologymanager/policy.go"
        input: {policy: best-effort, numa: {nodes: [0, 1]}, providers: []}
        expect: {result: {admit: true}}
""")


def billion_laughs() -> str:
    lines = ["shared:", '  l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 10)]
    return HEAD + "\n".join(lines) + "\ncases:\n" + CASE


def assert_validate_refuses(result, where, *words):
    assert result["code"] == 1, result["err"][-2000:]
    assert "Traceback" not in result["err"]
    line = next((x for x in result["out"].splitlines() if x.startswith(where)), None)
    assert line is not None, result["out"][-2000:]
    for word in words:
        assert word in line
    # Everything else in the corpus is still checked.
    assert "7 valid cases" in result["out"]
    assert result["peak_mb"] < PEAK_MB


def test_a_billion_laughs_fixture_is_refused_at_the_alias_that_passes_the_limit(tmp_path):
    root = tmp_corpus(tmp_path, {"kubelet/laughs.yaml": billion_laughs()})
    result = topoconf("validate", "--corpus", root)
    # l0 is 11 nodes, l1 111, l2 1,111, l3 11,111; with the keys and the three levels before it the
    # count is 12,359 when l4 (line 9) opens, and its eighth *l3 takes it to 101,247.
    assert_validate_refuses(result, "fixtures/kubelet/laughs.yaml:9:", "[yaml]", "aliases", str(bounds.MAX_NODES))


@pytest.mark.parametrize("style", ["flow", "block"])
def test_a_fixture_nested_50000_levels_deep_is_refused_with_its_line(tmp_path, style):
    if style == "flow":
        deep = "shared:\n  x: " + "[" * 50000 + "]" * 50000 + "\n"
    else:
        # Block sequences nested on one line: "- - - ... 1".
        deep = "shared:\n  x:\n    " + "- " * 50000 + "1\n"
    root = tmp_corpus(tmp_path, {"kubelet/deep.yaml": HEAD + deep + "cases:\n" + CASE})
    result = topoconf("validate", "--corpus", root)
    assert_validate_refuses(result, "fixtures/kubelet/deep.yaml:", "[yaml]", "nest")


_PARSERS_SCRIPT = textwrap.dedent("""
    import json, sys
    if sys.argv[1] == "python":
        sys.modules["yaml._yaml"] = None  # as if PyYAML had been built without libyaml
    import yaml
    from conformance import yamlload
    documents = json.loads(sys.stdin.read())
    found = {"libyaml": yamlload._Base is not yaml.SafeLoader}
    for name, text in documents.items():
        try:
            yamlload.load(text)
            found[name] = None
        except yamlload.YAMLError as exc:
            found[name] = [exc.line, exc.message]
    print(json.dumps(found))
""")


@pytest.mark.parametrize("parser", ["libyaml", "python"])
def test_both_parsers_refuse_deep_and_multiplying_documents_with_their_line(parser):
    # libyaml refuses 1,000 levels itself, and PyYAML composed what is below
    # that recursively, in C or in Python; composing is now the loader's own.
    documents = {
        "flow": "a: 1\nb: " + "[" * 50000 + "]" * 50000 + "\n",
        "block": "a: 1\nb:\n  " + "- " * 50000 + "1\n",
        "below-libyaml": "a: 1\nb: " + "{k: " * 990 + "1" + "}" * 990 + "\n",
        "laughs": billion_laughs(),
    }
    done = subprocess.run([sys.executable, "-c", _PARSERS_SCRIPT, parser], input=json.dumps(documents),
                          capture_output=True, text=True, timeout=HANG_GUARD)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    assert found.pop("libyaml") is (parser == "libyaml")
    assert found.pop("laughs")[0] == 9
    for name, (line, message) in found.items():
        assert line == (3 if name == "block" else 2), name
        assert "nest" in message, name


def test_nesting_below_the_parser_limit_is_refused_not_a_recursion_error():
    # 990 levels pass libyaml's own limit; composing or constructing them recursively blew Python's stack.
    with pytest.raises(yamlload.YAMLError) as info:
        yamlload.load("a: 1\nb:\n  x: " + "[" * 990 + "]" * 990 + "\n")
    assert info.value.line == 3
    assert f"more than {bounds.MAX_DEPTH} levels" in info.value.message


def test_anchors_and_aliases_within_the_limits_still_load():
    data = yamlload.load("a: &x {k: [1, 2]}\nb: *x\nc: &s hello\nd: *s\n")
    assert data == {"a": {"k": [1, 2]}, "b": {"k": [1, 2]}, "c": "hello", "d": "hello"}
    assert yamlload.line_of(data, ["b"]) == 2


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("a: &x [1, *x]\n", 1, "a cycle"),
        ("a: *nowhere\n", 1, "names no anchor"),
        ("a: &x 1\nb: &x 2\n", 2, "defined twice"),
        ("a: &x " + "[" * 40 + "]" * 40 + "\nb: " + "[" * 30 + "*x" + "]" * 30 + "\n", 2, "past the limit of 64 levels"),
    ],
)
def test_aliases_that_would_loop_dangle_or_nest_too_deep_are_refused(text, line, words):
    with pytest.raises(yamlload.YAMLError) as info:
        yamlload.load(text)
    assert info.value.line == line
    assert words in info.value.message


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text("pad: " + "x" * (bounds.MAX_FILE_BYTES + 1) + "\n")
    with pytest.raises(yamlload.YAMLError) as info:
        yamlload.load_file(path)
    assert info.value.line == 1 and "more than the limit" in info.value.message


def test_blocks_that_multiply_each_other_are_refused_where_the_limit_is_passed(tmp_path):
    # Seven levels of blocks, each using the next ten times: 10^7 copies when resolved.
    files = {"blocks/bomb/b0.yaml": "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"}
    for i in range(1, 8):
        files[f"blocks/bomb/b{i}.yaml"] = "[" + ", ".join([f"{{$block: bomb/b{i - 1}}}"] * 10) + "]\n"
    files["kubelet/bomb.yaml"] = HEAD + "shared:\n  x: {$block: bomb/b7}\ncases:\n" + CASE
    root = tmp_corpus(tmp_path, files)
    result = topoconf("validate", "--corpus", root)
    assert_validate_refuses(result, "fixtures/kubelet/bomb.yaml:5:", "[expansion-limit]", str(bounds.MAX_FILE_VALUES))


def test_a_matrix_that_multiplies_into_millions_of_cases_is_refused(tmp_path):
    matrix = "".join(f"    p{i}: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n" for i in range(7))
    case = CASE.replace("  title: t\n", "  title: t\n  matrix:\n" + matrix)
    assert "matrix" in case
    root = tmp_corpus(tmp_path, {"kubelet/matrix.yaml": HEAD + "cases:\n" + case})
    result = topoconf("validate", "--corpus", root)
    assert_validate_refuses(result, "fixtures/kubelet/matrix.yaml:7:", "[expansion-limit]", str(bounds.MAX_FILE_CASES))


def test_the_limits_leave_every_case_of_the_bundled_corpus_loadable():
    loaded = corpus.load()
    assert not [p for p in loaded.problems if p.rule in ("expansion-limit", "yaml")]


def test_a_deep_expectations_file_is_a_problem_with_its_line(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text("implementation: x\nentries: " + "[" * 5000 + "]" * 5000 + "\n")
    found, problems = expectations.load(path)
    assert found is expectations.NONE
    assert [(p.line, p.rule) for p in problems] == [(2, "yaml")]


SECOND = "harness.matrix[provider=cpu]"


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("deep-answer", f"nested more than {bounds.MAX_ANSWER_DEPTH} levels"),
        ("nested-answer", f"nested more than {bounds.MAX_ANSWER_DEPTH} levels"),
        ("wide-answer", f"more than {bounds.MAX_ANSWER_NODES} values"),
        ("huge-number", "unreadable JSON line"),
    ],
)
def test_an_answer_too_deep_or_too_large_is_malformed_and_the_run_goes_on(tmp_path, mode, words):
    report = tmp_path / "report"
    result = topoconf("run", "--impl", f"exec:{sys.executable} {FAKE} {mode} 2", "--corpus", CORPUS,
                      "--report-dir", report, "--case-timeout", "20", "--quiet", "--no-expectations")
    assert result["code"] == 1, result["err"][-2000:]
    assert "Traceback" not in result["err"]
    records = {r["id"]: r for r in json.loads((report / "results.json").read_text())["records"]}
    assert records[SECOND]["outcome"] == "malformed"
    assert words in records[SECOND]["message"]
    # The process is restarted after the broken answer (and strikes again on its second case).
    assert records["harness.narrowest-preferred"]["outcome"] == "pass"
    assert records["harness.last"]["outcome"] in ("pass", "malformed")
    assert result["peak_mb"] < PEAK_MB


def test_a_hello_nested_too_deep_is_a_start_up_failure(tmp_path):
    result = topoconf("run", "--impl", f"exec:{sys.executable} {FAKE} deep-hello", "--corpus", CORPUS,
                      "--report-dir", tmp_path / "report", "--quiet", "--no-expectations")
    assert result["code"] == 3
    assert "Traceback" not in result["err"]
    assert "unusable hello answer" in result["err"] and "nested more than" in result["err"]


def _case():
    return corpus.load(CORPUS).by_id["harness.narrowest-preferred"]


def test_an_in_process_result_too_deep_is_malformed_before_schema_check_or_comparison():
    deep: list = []
    for _ in range(50000):
        deep = [deep]
    outcome, message, diff = judge(_case(), Response("result", result={"affinity": deep}))
    assert (outcome, diff) == ("malformed", None)
    assert f"nested more than {bounds.MAX_ANSWER_DEPTH} levels" in message


def test_an_in_process_result_that_contains_itself_is_malformed():
    loop: dict = {}
    loop["self"] = loop
    outcome, message, _ = judge(_case(), Response("result", result=loop))
    assert outcome == "malformed" and "nested more than" in message
