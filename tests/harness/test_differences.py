"""The table of Koordinator differences in docs/operations/koordinator.md is
generated from the expectations file: the committed one is the generated one."""

from pathlib import Path

import pytest

from conformance import differences
from conformance import expectations as expectations_mod
from conformance.cli import main
from conformance.expectations import Entry, Expectations
from conformance.paths import expectations_dir

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_committed_koordinator_table_is_the_generated_one():
    expectations, problems = expectations_mod.load(expectations_dir() / "koordinator-v1.8.0.yaml")
    assert problems == []
    document = differences.document_for("koordinator", DOCS).read_text(encoding="utf-8")
    assert differences.block(expectations) in document, (
        "regenerate it: topoconf differences conformance/expectations/koordinator-v1.8.0.yaml "
        "--write docs/operations/koordinator.md")
    assert differences.rewritten(document, expectations) == document


def test_every_row_comes_from_an_entry_and_cells_keep_their_pipes():
    expectations = Expectations("e.yaml", [
        Entry("a.one", "fail", "a reason long enough", 3, (), {"topic": "a | b", "contract": "c", "release": "d"}),
        Entry("a.two", "fail", "a reason long enough", 9)], "impl", "v1")
    lines = differences.table(expectations).splitlines()
    assert lines[0] == "| topic | document / reference | upstream v1 |"
    assert lines[2:] == ["| a \\| b | c | d |"]


def test_a_document_without_the_block_is_refused_by_name(tmp_path, capsys):
    doc = tmp_path / "doc.md"
    doc.write_text("# nothing generated here\n")
    with pytest.raises(differences.NoTable):
        differences.rewritten(doc.read_text(), expectations_mod.NONE)
    code = main(["differences", str(expectations_dir() / "koordinator-v1.8.0.yaml"), "--write", str(doc)])
    assert code != 0 and str(doc) in capsys.readouterr().err


def test_the_command_writes_the_table_between_the_markers(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(f"before\n\n{differences.BEGIN}\nstale\n{differences.END}\n\nafter\n")
    assert main(["differences", str(expectations_dir() / "koordinator-v1.8.0.yaml"), "--write", str(doc)]) == 0
    text = doc.read_text()
    assert text.startswith("before\n\n") and text.endswith("\n\nafter\n") and "stale" not in text
    assert "| equal-width merge tie-break |" in text
