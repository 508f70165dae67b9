"""`topoconf matrix`: features against runs, applicable passes over applicable cases."""

import json
import sys
from pathlib import Path

from conformance.cli import main
from conformance.report import matrix

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
GOOD = f"exec:{sys.executable} {HERE / 'fakes' / 'fake_impl.py'} good"


def report(tmp_path, name, version=None, outcomes=None):
    """A real run of the fake implementation with every outcome set to pass, then
    some rewritten as another release would have them."""
    folder = tmp_path / name
    assert main(["run", "--impl", GOOD, "--corpus", str(CORPUS), "--report-dir", str(folder), "--quiet"]) == 0
    results = folder / "results.json"
    document = json.loads(results.read_text())
    if version:
        document["header"]["implementation"]["implementation"]["version"] = version
    for record in document["records"]:
        record["outcome"] = (outcomes or {}).get(record["id"], "pass")
    results.write_text(json.dumps(document))
    return folder, document


def cells_of(table, label):
    line = next(line for line in table.splitlines() if line.startswith(f"| {label} "))
    return [c.strip() for c in line.strip("|").split("|")][1:]


def feature_outcomes(document, feature):
    return [r["outcome"] for r in document["records"] if feature in r["features"]]


def test_cells_count_applicable_passes_and_show_na(tmp_path, capsys):
    old, doc = report(tmp_path, "old", version="1.0")
    ids = {r["id"]: r["features"] for r in doc["records"]}
    weights = [i for i, f in ids.items() if "kubelet.option.numa-score-weights" in f]
    merge = sorted(i for i, f in ids.items() if "kubelet.merge" in f and i not in weights)
    assert weights and len(merge) >= 2
    # The newer release lacks the weights (unsupported) and fails one merge case,
    # known or not.
    changed = {weights[0]: "unsupported", merge[0]: "xfail", merge[1]: "skip"}
    new, new_doc = report(tmp_path, "new", version="2.0", outcomes=changed)

    capsys.readouterr()
    assert main(["matrix", str(old), str(new / "results.json")]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("| feature"))
    assert "fake 1.0" in header and "fake 2.0" in header

    def cells(feature):
        return cells_of(out, f"`{feature}`")

    total_merge = len(feature_outcomes(doc, "kubelet.merge"))
    # Among the merge cases one is now skip, one xfail and (when the weights case is
    # a merge case too) one unsupported.
    gone = 1 + ("kubelet.merge" in ids[weights[0]])
    applicable = total_merge - gone
    assert cells("kubelet.merge") == [f"{total_merge}/{total_merge}", f"{applicable - 1}/{applicable}"]
    n_weights = len(feature_outcomes(doc, "kubelet.option.numa-score-weights"))
    assert n_weights == 1
    assert cells("kubelet.option.numa-score-weights") == ["1/1", "n/a"]
    total = len(doc["records"])
    assert cells_of(out, "**all cases**") == [f"{total}/{total}", f"{total - 3}/{total - 2}"]


def test_same_version_twice_is_told_apart_and_written_to_a_file(tmp_path, capsys):
    one, _ = report(tmp_path, "one")
    two, _ = report(tmp_path, "two")
    out = tmp_path / "matrix.md"
    assert main(["matrix", str(one), str(two), "--out", str(out)]) == 0
    text = out.read_text()
    assert "(one)" in text and "(two)" in text


def test_a_folder_without_results_is_a_usage_error(tmp_path, capsys):
    assert main(["matrix", str(tmp_path / "missing")]) == 2
    assert "missing" in capsys.readouterr().err


def test_cell_rules():
    assert matrix.cell(["pass", "xpass", "fail", "xfail", "error", "unsupported", "skip"]).render() == "2/5"
    assert matrix.cell(["unsupported", "skip"]).render() == "n/a"
    assert matrix.cell([]).render() == "n/a"
