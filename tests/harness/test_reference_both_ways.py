"""The reference gives the same outcome for every case of the real corpus
in-process and behind the subprocess protocol."""

import json
import sys

from conformance.cli import main


def outcomes(tmp_path, impl, name):
    code = main(["run", "--impl", impl, "--report-dir", str(tmp_path / name), "--quiet", "--no-expectations",
                 "--case-timeout", "30"])
    records = json.loads((tmp_path / name / "results.json").read_text())["records"]
    return code, {r["id"]: (r["outcome"], r.get("diff")) for r in records}


def test_in_process_and_exec_agree_on_every_case(tmp_path):
    code_in, inprocess = outcomes(tmp_path, "reference", "in")
    code_ex, subprocess = outcomes(tmp_path, f"exec:{sys.executable} -m reference_impl", "ex")
    assert inprocess == subprocess
    assert code_in == code_ex
    assert len(inprocess) > 0
