"""The mutation report's bookkeeping: equivalence keys, mutant lines, the data file's checks."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "mutation"))

import results  # noqa: E402

DIFF = """--- reference_impl/quantity.py
+++ reference_impl/quantity.py
@@ -2,5 +2,5 @@
     try:
         parse(value)
     except QuantityError:
-        return False
+        return True
     return True"""


def _mutant(function="is_quantity", diff=DIFF):
    return results.Mutant("reference_impl.quantity.x_is_quantity__mutmut_2", "reference_impl/quantity.py",
                          function, 0, diff)


def test_an_entry_matches_by_file_function_and_changed_lines_whatever_the_indentation():
    entry = results.EquivalentEntry("reference_impl/quantity.py", "is_quantity",
                                    "-  return False\n+    return True\n", "why")
    assert entry.matches(_mutant())
    assert not entry.matches(_mutant(function="parse"))
    other = results.EquivalentEntry("reference_impl/quantity.py", "is_quantity", "-return True\n+return False", "why")
    assert not other.matches(_mutant())


def test_a_star_entry_matches_every_mutant_of_its_function():
    entry = results.EquivalentEntry("reference_impl/quantity.py", "is_quantity", "*", "why")
    assert entry.matches(_mutant())
    assert not entry.matches(_mutant(function="parse"))


def test_the_changed_line_is_counted_from_the_hunk_start():
    # The hunk starts at the function's line 2; three context lines, then the change.
    assert results._changed_offset(DIFF) == 5


def test_names_of_functions_and_methods_are_read_from_mutant_names():
    assert results._function_name("reference_impl.quantity.x_parse__mutmut_3") == "parse"
    assert results._function_name("reference_impl.numa.numa_info.xǁNUMAInfoǁclosest__mutmut_16") == "NUMAInfo.closest"


def test_an_entry_without_a_reason_or_with_an_unknown_kind_is_refused_naming_the_file_and_field(tmp_path):
    bad = tmp_path / "equivalent.yaml"
    bad.write_text("equivalent:\n  - {file: a.py, function: f, change: '-x\\n+y'}\n")
    with pytest.raises(SystemExit, match=r"equivalent\.yaml: equivalent\[0\]: field\(s\) reason"):
        results.load_equivalent(bad)
    bad.write_text("equivalent:\n  - {file: a.py, function: f, change: '*', reason: r, kind: maybe}\n")
    with pytest.raises(SystemExit, match="kind 'maybe'"):
        results.load_equivalent(bad)


def test_the_committed_data_file_loads():
    assert results.load_equivalent()


def test_a_folder_of_data_files_is_read_whole_and_a_bad_entry_names_its_own_file(tmp_path):
    (tmp_path / "a.yaml").write_text("equivalent:\n  - {file: a.py, function: f, change: '*', reason: r}\n")
    (tmp_path / "b.yaml").write_text("equivalent:\n  - {file: b.py, function: g, change: '*', reason: s}\n")
    assert [e.file for e in results.load_equivalent(tmp_path)] == ["a.py", "b.py"]
    (tmp_path / "c.yaml").write_text("equivalent:\n  - {file: c.py, function: h, change: '*'}\n")
    with pytest.raises(SystemExit, match=r"c\.yaml: equivalent\[0\]: field\(s\) reason"):
        results.load_equivalent(tmp_path)
