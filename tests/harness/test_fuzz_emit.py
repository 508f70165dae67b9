"""A generated fixture records the command that found it without the absolute
layout of the host that ran the fuzzer: the file is meant to be committed."""

import sys
from pathlib import Path

import yaml

from conformance.cli import main
from conformance.fuzz.emit import portable_command

HERE = Path(__file__).parent
ROOT = HERE.parents[1]


def test_a_path_under_the_working_folder_is_written_relative_to_it():
    cwd = Path("/home/u/topology-conformance")
    assert portable_command("exec:/home/u/topology-conformance/shims/kueue/bin/kueue-shim --x 1", cwd) \
        == "exec:shims/kueue/bin/kueue-shim --x 1"


def test_any_other_absolute_path_is_written_by_its_file_name():
    cwd = Path("/home/u/topology-conformance")
    assert portable_command("exec:/opt/venv/bin/python /elsewhere/fake_impl.py good", cwd) \
        == "exec:python fake_impl.py good"
    assert portable_command("exec:/home/u/topology-conformance", cwd) == "exec:topology-conformance"


def test_relative_paths_and_plain_names_are_kept():
    assert portable_command("reference", Path("/x")) == "reference"
    assert portable_command("exec:python -m reference_impl", Path("/x")) == "exec:python -m reference_impl"
    assert portable_command("exec:shims/kubelet/bin/kubelet-shim", Path("/x")) == "exec:shims/kubelet/bin/kubelet-shim"


def test_a_written_fixture_names_no_absolute_path(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    impl = f"exec:{sys.executable} {HERE / 'fakes' / 'fake_impl.py'} good"
    out = tmp_path / "gen"
    code = main(["fuzz", "--impl", impl, "--component", "kubelet", "--operation", "merge", "--examples", "200",
                 "--seed", "3", "--out", str(out), "--report-dir", str(tmp_path / "rep")])
    assert code == 1
    (written,) = list(out.rglob("*.yaml"))
    description = yaml.safe_load(written.read_text())["description"]
    # The interpreter is named relative to the checkout when it lives inside it
    # (a tox env), else by its file name; the fake, inside it, always relative.
    assert " tests/harness/fakes/fake_impl.py good " in description
    assert [word for word in description.split() if word.lstrip("`").removeprefix("exec:").startswith("/")] == []
