"""compliance.html opened in headless Chromium: the summary says what results.json
says, the filters hide and show the right cases, a permalink scrolls to its case,
a failing case's picture is drawn with the node's NUMA nodes or the topology's
domains, and nothing an implementation put in its answers runs.

Pages checked: a run of an implementation whose answers carry markup (built
here), and the committed release bundles of the upstream shims."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from conformance import corpus as corpus_mod
from conformance.cli import main
from conformance.report import counts
from conformance.report.html import anchor

HERE = Path(__file__).parent
RELEASES = HERE.parents[1] / "releases"
BUNDLES = sorted(p.name for p in RELEASES.iterdir() if (p / "compliance.html").is_file())
HOSTILE = f"exec:{sys.executable} {HERE / 'hostile_impl.py'}"


def literal(case_id: str) -> str:
    """An id as a pattern matching only itself (`--id` and expectations take globs)."""
    return "".join(f"[{c}]" if c in "[]*?" else c for c in case_id)


def _numa_count(case) -> int:
    return len((case.input.get("node") or {}).get("numaNodes") or [])


def _domains(given) -> int:
    """The domains of a Kueue topology, counted from the input: every distinct
    prefix of the level labels of a node carrying them all."""
    levels = [level["nodeLabel"] for level in given["topology"]["spec"]["levels"]]
    paths = set()
    for node in given.get("nodes") or []:
        labels = node["metadata"].get("labels") or {}
        if all(level in labels for level in levels):
            values = tuple(str(labels[level]) for level in levels)
            paths |= {values[:depth] for depth in range(1, len(values) + 1)}
    return len(paths)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """A run of the hostile implementation over a chosen handful of cases, with an
    expectations file that turns some into xfail and xpass."""
    corpus = corpus_mod.load(None)

    def pick(component, operation, count, keep=lambda case: True):
        return [c for c in corpus.cases if c.component == component and c.operation == operation and keep(c)][:count]

    admit = pick("kubelet", "admit", 4, lambda c: _numa_count(c) >= 2 and "[" not in c.id)
    assign = pick("kueue", "assign", 3, lambda c: len(c.input["topology"]["spec"]["levels"]) >= 2
                  and "[" not in c.id and c.expect.get("result", {}).get("admitted") is True)
    start_rows = [c for c in corpus.cases if c.base_id == "kubelet.start.defaults"]
    chosen = (admit + assign + start_rows + pick("kubelet", "merge", 3) + pick("kueue", "hot_swap", 2)
              + pick("kueue", "capacity", 1) + pick("koordinator", "filter", 1))
    folder = tmp_path_factory.mktemp("hostile")
    expectations = folder / "expectations.yaml"
    expectations.write_text(yaml.safe_dump({"implementation": "hostile", "version": "1.0", "entries": [
        {"match": literal(admit[0].id), "outcome": "fail", "reason": "known: <script>window.__pwned = 'reason'</script>"},
        {"match": literal(pick("kueue", "hot_swap", 1)[0].id), "outcome": "fail", "reason": "said to fail, passes"},
    ]}))
    arguments = ["run", "--impl", HOSTILE, "--expectations", str(expectations), "--report-dir", str(folder / "report"),
                 "--quiet", "--case-timeout", "60"]
    for case in chosen:
        arguments += ["--id", literal(case.id)]
    assert main(arguments) == 1
    document = json.loads((folder / "report" / "results.json").read_text())
    return {"page": folder / "report" / "compliance.html", "document": document, "corpus": corpus,
            "admit": admit, "assign": assign, "start_rows": start_rows}


def _page(name, hostile):
    if name == "hostile":
        return hostile["page"], hostile["document"]
    return RELEASES / name / "compliance.html", json.loads((RELEASES / name / "results.json").read_text())


def _visible_cases(browser) -> set[str]:
    return set(browser.evaluate(
        "Array.from(document.querySelectorAll('tr[data-case]')).filter(r => !r.hidden && r.offsetParent !== null)"
        ".map(r => r.getAttribute('data-case'))"))


@pytest.mark.parametrize("name", ["hostile", *BUNDLES])
def test_the_summary_numbers_are_those_of_results_json(browser, hostile, artifacts, name):
    page, document = _page(name, hostile)
    browser.open(page)
    cells = browser.evaluate(
        "Array.from(document.querySelectorAll('td[data-count]')).map(td => [td.getAttribute('data-component'), "
        "td.getAttribute('data-feature') || '', td.getAttribute('data-count'), td.textContent.trim()])")
    shown = {(component, feature, count): text for component, feature, count, text in cells}
    records = document["records"]
    expected = {("*", ""): records}
    for component, items in counts.by_component(records).items():
        expected[(component, "")] = items
        for feature in counts.by_feature(items):
            expected[(component, feature)] = [r for r in items if feature in r["features"]]
    assert {(c, f) for c, f, _ in shown} == set(expected)
    for (component, feature), items in expected.items():
        tally = counts.tally([r["outcome"] for r in items])
        for count, value in [("cases", tally.cases), ("not-applicable", tally.not_applicable),
                             ("applicable", tally.applicable), ("passed", tally.passed), ("failed", tally.failed),
                             ("errors", tally.errors), ("xfail", tally.xfail)]:
            assert shown[(component, feature, count)] == str(value), (component, feature, count)
        assert shown[(component, feature, "passing")] == tally.passing()
    footer = document["footer"]
    assert shown[("*", "", "cases")] == str(footer["total"]) and shown[("*", "", "passed")] == str(footer["passed"])
    assert browser.evaluate("document.getElementById('shown').textContent") == str(len(records))
    assert _visible_cases(browser) == {r["id"] for r in records}
    browser.screenshot(artifacts / f"{name}-summary.png")


def _set(browser, script: str) -> None:
    browser.evaluate(f"(() => {{ const form = document.getElementById('filters'); {script}; "
                     "form.dispatchEvent(new Event('change')); })()")


def test_each_filter_hides_and_shows_the_right_cases(browser, hostile):
    document = hostile["document"]
    records = document["records"]
    browser.open(hostile["page"])
    every = {r["id"] for r in records}
    assert _visible_cases(browser) == every

    _set(browser, "form.querySelector('input[name=outcome][value=pass]').checked = false")
    assert _visible_cases(browser) == {r["id"] for r in records if r["outcome"] != "pass"}
    _set(browser, "form.querySelector('input[name=outcome][value=pass]').checked = true")
    assert _visible_cases(browser) == every

    for component in sorted({r["component"] for r in records}):
        _set(browser, f"form.elements.component.value = {json.dumps(component)}")
        assert _visible_cases(browser) == {r["id"] for r in records if r["component"] == component}
    _set(browser, "form.elements.component.value = ''")

    feature = "kueue.tas.hot-swap"
    _set(browser, f"form.elements.feature.value = {json.dumps(feature)}")
    assert _visible_cases(browser) == {r["id"] for r in records if feature in r["features"]}
    _set(browser, "form.elements.feature.value = ''")

    _set(browser, "form.elements.q.value = 'START.DEFAULTS'")
    assert _visible_cases(browser) == {c.id for c in hostile["start_rows"]}
    # The error rows fail alike: one block, hidden with them and shown with them.
    group = "document.querySelector('#unexpected [data-group]')"
    assert browser.evaluate(f"!{group}.hidden")
    _set(browser, "form.elements.q.value = 'no such case'")
    assert _visible_cases(browser) == set()
    assert browser.evaluate(f"{group}.hidden")
    assert browser.evaluate("!document.querySelector('[data-empty=unexpected]').hidden")
    assert browser.evaluate("document.getElementById('shown').textContent") == "0"

    _set(browser, "form.reset()")
    browser.evaluate("new Promise(resolve => setTimeout(resolve, 50))")
    assert _visible_cases(browser) == every


def _in_view(browser, element_id: str) -> bool:
    return browser.evaluate(
        f"(() => {{ const e = document.getElementById({json.dumps(element_id)}); const box = e.getBoundingClientRect();"
        " return !!e && box.height > 0 && box.top >= 0 && box.top < window.innerHeight && window.scrollY > 0; })()")


def test_a_permalink_scrolls_to_its_case(browser, hostile):
    records = hostile["document"]["records"]
    last = sorted(records, key=lambda r: (r["component"], r["id"]))[-1]
    row = anchor("case", last["id"])
    browser.open(hostile["page"], row)
    assert _in_view(browser, row)
    # A matrix row inside a block of rows failing alike has its own anchor too.
    member = anchor("case", hostile["start_rows"][-1].id)
    browser.open(hostile["page"], member)
    assert _in_view(browser, member)
    # A permalink to a case the filters hide clears the filters and shows it.
    browser.open(hostile["page"])
    _set(browser, "form.elements.component.value = 'koordinator'")
    browser.evaluate(f"location.hash = {json.dumps('#' + row)}")
    browser.evaluate("new Promise(resolve => setTimeout(resolve, 100))")
    assert _in_view(browser, row)
    feature = anchor("feature", "kubelet.merge")
    browser.open(hostile["page"], feature)
    assert _in_view(browser, feature)


def test_a_failing_case_is_drawn_with_its_numa_nodes_and_domains(browser, hostile, artifacts):
    by_id = {r["id"]: r for r in hostile["document"]["records"]}
    browser.open(hostile["page"])
    drawn = 0
    for case in hostile["admit"] + hostile["assign"]:
        record = by_id[case.id]
        if record["outcome"] not in ("fail", "xfail"):
            continue
        section = f"document.getElementById({json.dumps(anchor('case', case.id))}).closest('section')"
        if case.operation == "admit":
            want, shape = _numa_count(case), "g.numa"
        else:
            want, shape = _domains(case.input), "g.domain"
        for panel in ("expected", "actual"):
            found = browser.evaluate(f"{section}.querySelectorAll('svg g.panel[data-panel={panel}] {shape}').length")
            assert found == want, (case.id, panel)
        width = browser.evaluate(f"{section}.querySelector('svg').getBoundingClientRect().width")
        assert width > 50
        drawn += 1
    assert drawn >= 2
    first = anchor("case", hostile["admit"][0].id)
    browser.open(hostile["page"], first)
    browser.screenshot(artifacts / "failing-case.png")


def test_nothing_an_implementation_answered_runs(browser, hostile, artifacts):
    document = hostile["document"]
    outcomes = {r["outcome"] for r in document["records"]}
    assert {"fail", "error", "crash", "xfail", "xpass", "pass"} <= outcomes
    crash = next(r for r in document["records"] if r["outcome"] == "crash")
    assert any("<script>" in line for line in crash["stderr_tail"])
    browser.open(hostile["page"])
    assert browser.evaluate("typeof window.__pwned") == "undefined"
    assert browser.evaluate("document.scripts.length") == 1
    assert browser.evaluate("Array.from(document.querySelectorAll('*')).some(e => "
                            "Array.from(e.attributes).some(a => a.name.startsWith('on')))") is False
    assert browser.evaluate("document.querySelectorAll('a[href^=\"javascript:\" i], img, iframe, object').length") == 0
    text = browser.evaluate("document.body.textContent")
    for fragment in ("<script>window.__pwned = 'script'</script>", "</pre><img src=x onerror=",
                     "javascript:window.__pwned = 'href'", "<svg onload=", "known: <script>"):
        assert fragment in text
    # Whatever got past the escaping, the policy stops a script the page does not name.
    policy = browser.evaluate("document.querySelector('meta[http-equiv=Content-Security-Policy]').content")
    assert "script-src 'sha256-" in policy and "default-src 'none'" in policy
    browser.evaluate("(() => { const s = document.createElement('script'); s.textContent = 'window.__pwned = 1';"
                     " document.body.appendChild(s); })()")
    assert browser.evaluate("typeof window.__pwned") == "undefined"
    # The hover handler of the injected SVG is text, so a hover over every picture does nothing.
    browser.evaluate("Array.from(document.querySelectorAll('svg *')).forEach(e => "
                     "e.dispatchEvent(new MouseEvent('mouseover', {bubbles: true})))")
    assert browser.evaluate("typeof window.__pwned") == "undefined"
    browser.open(hostile["page"], anchor("case", hostile["admit"][1].id))
    browser.screenshot(artifacts / "hostile-case.png")


def test_a_matrix_cell_opens_the_cases_of_its_feature(browser, tmp_path):
    page = tmp_path / "matrix.html"
    assert main(["matrix", *(str(RELEASES / name) for name in BUNDLES), "--html", str(page),
                 "--out", str(tmp_path / "matrix.md")]) == 0
    browser.open(page)
    cells = browser.evaluate("Array.from(document.querySelectorAll('td.cell')).map(td => "
                             "[td.getAttribute('data-run'), td.getAttribute('data-feature'), td.querySelector('a').href])")
    assert len({run for run, _, _ in cells}) == len(BUNDLES)
    run, feature, href = next(c for c in cells if c[0] == "kubelet v1.37.2" and c[1] == "kubelet.merge")
    document = json.loads((RELEASES / "kubelet-v1.37.2" / "results.json").read_text())
    browser.open(href)
    assert browser.evaluate("document.querySelector('[name=feature]').value") == feature
    assert _visible_cases(browser) == {r["id"] for r in document["records"] if feature in r["features"]}
