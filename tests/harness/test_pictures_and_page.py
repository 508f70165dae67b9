"""The report's pictures and page without a browser: what each picture draws,
that untrusted text is escaped in pictures and page alike, how failures are
grouped and ordered, and `topoconf show --svg`."""

import json
import re
import sys
from pathlib import Path

from conformance import corpus as corpus_mod
from conformance.cli import main
from conformance.report import html
from conformance.report.pictures import picture, plain

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
EVIL = "<script>alert(1)</script></pre><svg onload=alert(2)>"


def _admit_input(nodes=3):
    return {"node": {"numaNodes": [{"id": i, "cpus": 4, "memory": "8Gi", "devices": {"example.com/gpu": 1}}
                                   for i in range(nodes)],
                     "allocated": [{"numa": 0, "cpus": 2}]}}


def _admit_result(name, numa):
    return {"started": True, "pods": [{"name": name, "admitted": True, "containers": [
        {"name": "c", "affinity": [numa], "preferred": True, "cpus": {str(numa): 2}, "devices": {}}]}]}


def test_an_admission_is_drawn_as_numa_boxes_expected_beside_actual():
    svg = picture("kubelet", "admit", _admit_input(3), _admit_result("p", 1), _admit_result("p", 2))
    assert svg.count('class="numa"') == 6
    assert 'data-panel="expected"' in svg and 'data-panel="actual"' in svg
    assert "p/c: NUMA 1" in svg and "p/c: NUMA 2" in svg


def test_one_panel_when_expected_and_actual_agree():
    svg = picture("kubelet", "admit", _admit_input(2), _admit_result("p", 1), _admit_result("p", 1))
    assert svg.count('class="numa"') == 2 and 'data-panel="expected and actual"' in svg


def test_text_from_an_answer_is_escaped_inside_a_picture():
    svg = picture("kubelet", "admit", _admit_input(2), None, _admit_result(EVIL, 0))
    assert "<script" not in svg and "<svg onload" not in svg
    assert "&lt;script&gt;" in svg
    assert not re.search(r"<(?!/?(svg|g|rect|text|line|title)\b)", svg)


def test_a_merge_is_drawn_as_masks_and_a_kueue_topology_as_domains():
    merge = {"numa": {"nodes": [0, 1]}, "providers": [{"cpu": [{"affinity": [0], "preferred": True}]}, None]}
    svg = picture("kubelet", "merge", merge, {"affinity": [0], "preferred": True, "admit": True},
                  {"affinity": [1], "preferred": False, "admit": False})
    assert svg.count('class="mask"') == 3 and "no preference (nil list)" in svg
    nodes = [{"metadata": {"name": f"n{i}", "labels": {"block": "b1", "rack": f"r{i % 2}",
                                                        "kubernetes.io/hostname": f"n{i}"}}} for i in range(4)]
    given = {"topology": {"spec": {"levels": [{"nodeLabel": "block"}, {"nodeLabel": "rack"},
                                              {"nodeLabel": "kubernetes.io/hostname"}]}}, "nodes": nodes}
    placed = {"admitted": True, "podSets": [{"name": "w", "topologyAssignment": {
        "levels": ["kubernetes.io/hostname"], "domains": [{"values": ["n1"], "count": 2}]}}]}
    svg = picture("kueue", "assign", given, placed, None)
    assert svg.count('class="domain"') == 1 + 2 + 4


def test_matchers_are_resolved_before_drawing():
    assert plain({"memory": {"$quantity": "1Ki"}, "gone": {"$absent": True}, "list": {"$unordered": [2, 1]},
                  "any": {"$any": True}}) == {"memory": 1024, "list": [2, 1], "any": None}


def _record(case_id, outcome, diff=("/a: expected 1, got 2",), **extra):
    return {"id": case_id, "component": "kubelet", "operation": "merge", "features": ["kubelet.merge"],
            "file": "kubelet/x.yaml", "line": 3, "outcome": outcome, "expected_outcome": "pass",
            "duration_ms": 0, "diff": list(diff), "message": "differs", **extra}


def _document(records):
    return {"header": {"suite": {"name": "topology-conformance", "version": "0", "format": 1, "protocol": 1,
                                 "corpus": "sha256:0"},
                       "implementation": {"implementation": {"name": "x", "version": "1"},
                                          "capabilities": {"components": ["kubelet"], "features": []}},
                       "impl_spec": "exec:x", "expectations": None, "strict": False, "invocation": {},
                       "selection": {}, "warnings": []},
            "records": records, "footer": {"total": len(records), "counts": {}, "unexpected": 0, "complete": True}}


def test_matrix_rows_failing_alike_are_one_block_and_unexpected_comes_first():
    records = [_record("k.rule[p=1]", "fail"), _record("k.rule[p=2]", "fail"),
               _record("k.rule[p=3]", "fail", diff=("/a: expected 1, got 3",)),
               _record("k.known", "xfail", expectation_reason="upstream differs"),
               _record("k.lucky", "xpass", expectation_reason="said to fail")]
    page = html.render(_document(records))
    unexpected = page.index('id="unexpected"')
    assert unexpected < page.index('id="xpass"') < page.index('id="xfail"') < page.index('id="cases"')
    block = page[unexpected:page.index('id="xpass"')]
    assert block.count("data-group") == 1 and "on 2 matrix rows, the same way" in block
    assert block.count('<section class="case"') == 2
    assert "k.lucky" in page[page.index('id="xpass"'):page.index('id="xfail"')]
    # one anchor per case
    for record in records:
        assert page.count(f'id="{html.anchor("case", record["id"])}"') == 1


def test_untrusted_text_in_the_page_is_escaped_and_the_policy_names_the_script():
    records = [_record(f"k.{EVIL}", "fail", diff=(EVIL,), stderr_tail=[EVIL], title=EVIL, source=EVIL, notes=EVIL,
                       expected={"affinity": EVIL}, actual={"affinity": EVIL}, input={"x": EVIL})]
    page = html.render(_document(records))
    assert page.count("<script") == 1 and "<svg onload" not in page and "</pre><svg" not in page
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
    assert "default-src &#x27;none&#x27;" in policy and "script-src &#x27;sha256-" in policy


def test_show_svg_prints_the_picture_of_a_case(capsys):
    assert main(["show", "harness.two-providers", "--svg", "--corpus", str(CORPUS)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("<svg") and 'class="mask"' in out


def test_show_svg_of_a_run_sets_the_answer_beside_the_expected_one(tmp_path, capsys):
    impl = f"exec:{sys.executable} {HERE / 'fakes' / 'fake_impl.py'} good"
    main(["run", "--impl", impl, "--corpus", str(CORPUS), "--report-dir", str(tmp_path / "r"), "--quiet"])
    capsys.readouterr()
    assert main(["show", "harness.two-providers", "--svg", "--corpus", str(CORPUS), "--results",
                 str(tmp_path / "r")]) == 0
    assert capsys.readouterr().out.startswith("<svg")


def test_the_matrix_page_links_each_cell_to_that_runs_cases(tmp_path, capsys):
    impl = f"exec:{sys.executable} {HERE / 'fakes' / 'fake_impl.py'} good"
    for name in ("one", "two"):
        main(["run", "--impl", impl, "--corpus", str(CORPUS), "--report-dir", str(tmp_path / name), "--quiet"])
    page = tmp_path / "pages" / "matrix.html"
    page.parent.mkdir()
    assert main(["matrix", str(tmp_path / "one"), str(tmp_path / "two"), "--html", str(page)]) == 0
    text = page.read_text()
    assert 'href="../one/compliance.html#feature=kubelet.merge"' in text
    assert 'href="../two/compliance.html#cases"' in text
    assert "<script" not in text and "default-src &#x27;none&#x27;" in text
    assert text.count('class="cell rate-good"') == 2 * 3  # two runs, two features and the total


def test_a_failing_record_keeps_the_expected_result_beside_the_answer(tmp_path):
    wrong = f"exec:{sys.executable} {HERE / 'fakes' / 'fake_impl.py'} invalid-result"
    main(["run", "--impl", wrong, "--corpus", str(CORPUS), "--report-dir", str(tmp_path / "r"), "--quiet"])
    records = json.loads((tmp_path / "r" / "results.json").read_text())["records"]
    failed = [r for r in records if r["outcome"] == "invalid-result"]
    assert failed
    cases = corpus_mod.load(CORPUS).by_id
    for record in failed:
        assert record["expected"] == cases[record["id"]].expect["result"] and "actual" in record
    assert all("expected" not in r for r in records if r["outcome"] == "pass")
