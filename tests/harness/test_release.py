"""Release bundles: `topoconf release` writes one, `topoconf verify` checks it, and
every committed bundle of an upstream release verifies."""

import json
import sys
from pathlib import Path

import pytest
import yaml

from conformance.cli import main

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
FAKE = HERE / "fakes" / "fake_impl.py"
GOOD = f"exec:{sys.executable} {FAKE} good"
RELEASES = Path(__file__).parents[2] / "releases"


def release(tmp_path, *extra, impl=GOOD):
    out = tmp_path / "bundle"
    code = main(["release", "--impl", impl, "--corpus", str(CORPUS), "--out", str(out), "--quiet", *extra])
    return code, out


def verify(out, capsys):
    code = main(["verify", str(out), "--corpus", str(CORPUS)])
    return code, capsys.readouterr().out


def test_a_bundle_holds_every_file_and_says_how_to_reproduce_it(tmp_path, capsys):
    code, out = release(tmp_path, "--strict")
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["results.json", "compliance.md", "compliance.html", "junit.xml", "implementation.yaml", "README.md"])
    described = yaml.safe_load((out / "implementation.yaml").read_text())
    assert described["name"] == "fake" and described["version"] == "1.0"
    assert described["profiles"] == ["kubelet.merge", "kubelet.policy.best-effort"] and described["source"]
    readme = (out / "README.md").read_text()
    assert f"topoconf release --impl '{GOOD}' --corpus {CORPUS} --strict --out {out}" in readme
    code, text = verify(out, capsys)
    assert code == 0 and f"{out}: VERIFIED" in text


def test_a_bundle_can_be_made_from_an_earlier_run(tmp_path, capsys):
    assert main(["run", "--impl", GOOD, "--corpus", str(CORPUS), "--report-dir", str(tmp_path / "run"),
                 "--quiet"]) == 0
    out = tmp_path / "from-run"
    assert main(["release", "--from-results", str(tmp_path / "run"), "--out", str(out),
                 "--claim", "kubelet.merge"]) == 0
    assert yaml.safe_load((out / "implementation.yaml").read_text())["profiles"] == ["kubelet.merge"]
    assert "--claim kubelet.merge" in (out / "README.md").read_text()
    assert verify(out, capsys)[0] == 0


def test_claiming_an_undeclared_feature_is_refused(tmp_path):
    assert main(["release", "--from-results", str(HERE), "--out", str(tmp_path / "x")]) == 2
    code, _ = release(tmp_path, "--claim", "kubelet.scope.pod")
    assert code == 2


def _broken(tmp_path, change) -> Path:
    _, out = release(tmp_path)
    change(out)
    return out


def _edit_results(out: Path, edit) -> None:
    document = json.loads((out / "results.json").read_text())
    edit(document)
    (out / "results.json").write_text(json.dumps(document))


def _fail_one(document):
    record = next(r for r in document["records"] if r["outcome"] == "pass")
    record.update(outcome="fail", message="the result differs from the expectation")


def _xfail_without_reason(document):
    record = next(r for r in document["records"] if r["outcome"] == "pass")
    record.update(outcome="xfail", expected_outcome="fail")


@pytest.mark.parametrize("change, problem", [
    (lambda out: (out / "junit.xml").unlink(), "junit.xml is missing"),
    (lambda out: _edit_results(out, lambda d: d["footer"].update(complete=False)), "the run is incomplete"),
    (lambda out: _edit_results(out, lambda d: d["header"]["suite"].update(corpus="sha256:" + "0" * 64)),
     "run against corpus sha256:000"),
    (lambda out: _edit_results(out, lambda d: d["header"]["suite"].update(version="0.0.1")),
     "made by suite version 0.0.1"),
    (lambda out: _edit_results(out, _fail_one), ": fail, in the claimed profiles"),
    (lambda out: _edit_results(out, _xfail_without_reason), "xfail without a reason in the expectations file"),
    (lambda out: (out / "implementation.yaml").write_text("name: other\nversion: '1.0'\nsource: x\nprofiles: []\n"),
     "implementation.yaml names name 'other'"),
    (lambda out: (out / "implementation.yaml").write_text(
        "name: fake\nversion: '1.0'\nsource: x\nprofiles: [kubelet.scope.pod]\n"),
     "profile 'kubelet.scope.pod' is claimed but the implementation does not declare it"),
], ids=["missing-file", "incomplete", "corpus", "suite-version", "failing-case", "unexplained-xfail",
        "other-name", "undeclared-profile"])
def test_verify_names_what_is_wrong_and_exits_non_zero(tmp_path, capsys, change, problem):
    out = _broken(tmp_path, change)
    code, text = verify(out, capsys)
    assert code == 1
    assert problem in text and "NOT VERIFIED" in text


def test_verify_refuses_a_missing_folder(tmp_path):
    assert main(["verify", str(tmp_path / "nothing")]) == 2


@pytest.mark.parametrize("bundle", sorted(p.name for p in RELEASES.iterdir() if p.is_dir()))
def test_every_committed_release_bundle_verifies(bundle, capsys):
    assert main(["verify", str(RELEASES / bundle)]) == 0, capsys.readouterr().out
    assert "VERIFIED" in capsys.readouterr().out


def test_a_bundle_exists_for_each_upstream_release():
    assert {p.name for p in RELEASES.iterdir() if p.is_dir()} >= {
        "kubelet-v1.37.2", "koordinator-v1.8.0", "kueue-v0.17.0"}
