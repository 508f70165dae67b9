"""Mutation testing of reference_impl/ with the corpus as the test suite.

    python benchmarks/mutation/run.py run kubelet        # corpus pass, then unit pass on its survivors
    python benchmarks/mutation/run.py fuzz kubelet       # bounded differential fuzzing of the survivors
    python benchmarks/mutation/run.py report kubelet     # reports/mutation/kubelet.{md,json}

Each component has two mutmut work folders under .mutation/<component>/:
`corpus/` runs every mutant against the component's corpus cases (in-process
reference; by default through corpus_runner.py, one fork per mutant from a
process that parsed the corpus once, or with --runner mutmut through mutmut's
pytest session per mutant), `unit/` runs only the corpus's survivors against
the reference's own unit and property tests (mutmut's runner). The verdicts
are kept in mutmut's files in each folder, so an interrupted run resumes where
it stopped. README.md,
"Mutation testing", says what the numbers mean.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WORK = ROOT / ".mutation"
sys.path.insert(0, str(HERE))

from components import COMPONENTS, Component  # noqa: E402
from results import load_pass, write_index, write_report  # noqa: E402

# What mutmut copies into its mutants/ folder beside reference_impl/: the
# harness, the corpus and the schemas the corpus is checked against, and what
# unit tests read (the operations' documentation, the shims' pinned versions).
LINKED = ("reference_impl", "conformance", "fixtures", "schemas", "tests", "docs", "shims")
# The corpus pass reads neither docs/ nor shims/, and a developer's shims/
# holds large local build trees (with links mutmut's copy cannot follow), so
# its mutants/ folder gets only the rest; the unit pass adds docs/. The one
# unit test that reads shims/ (tests/kubelet/test_local_tree_build.py) runs
# only when asked for, never in a mutation run.
CORPUS_COPIED = ("conformance", "fixtures", "schemas", "tests")
UNIT_COPIED = (*CORPUS_COPIED, "docs")


def _toml_list(items) -> str:
    return "[" + ", ".join(json.dumps(str(i)) for i in items) + "]"


def _pyproject(component: Component, pass_name: str, folder: Path) -> str:
    if pass_name == "corpus":
        selection = component.corpus
        # The corpus cases against the in-process reference; reports go to a
        # scratch folder inside the work folder.
        extra = ["-p", "harness_plugin", "--impl", "reference", "--no-expectations",
                 "--report-dir", str(folder / "topoconf-report")]
    else:
        selection = component.unit
        extra = []
    return "\n".join([
        "[tool.mutmut]",
        'source_paths = ["reference_impl"]',
        f"only_mutate = {_toml_list(component.sources)}",
        f"also_copy = {_toml_list(CORPUS_COPIED if pass_name == 'corpus' else UNIT_COPIED)}",
        f"pytest_add_cli_args = {_toml_list(['-p', 'no:cacheprovider', *extra])}",
        f"pytest_add_cli_args_test_selection = {_toml_list(selection)}",
        "use_git_change_detection = false",
        "",
        "[tool.pytest.ini_options]",
        'addopts = "-p no:cacheprovider"',
        "",
    ])


def prepare(component: Component, pass_name: str) -> Path:
    folder = WORK / component.name / pass_name
    folder.mkdir(parents=True, exist_ok=True)
    for name in LINKED:
        link = folder / name
        # A work folder copied from another checkout points back at it: re-point.
        if link.is_symlink() and link.resolve() != (ROOT / name).resolve():
            link.unlink()
        if not link.exists():
            link.symlink_to(ROOT / name)
    (folder / "pyproject.toml").write_text(_pyproject(component, pass_name, folder))
    mutants = folder / "mutants"
    mutants.mkdir(exist_ok=True)
    # mutmut names a corpus case by its node id, which is relative to the
    # corpus (kubelet/x.yaml::id); these links let pytest find it again.
    for comp in ("kubelet", "koordinator", "kueue"):
        link = mutants / comp
        if not link.exists():
            link.symlink_to(Path("fixtures") / comp)
    return folder


def _env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p)
    return dict(os.environ, TOPOCONF_MUTATION_SOURCE=str(ROOT), PYTHONPATH=path)


def _call(command: list[str], folder: Path) -> int:
    """Run a niced child; a stopped campaign (SIGTERM, ^C) stops it too rather than orphaning it."""
    child = subprocess.Popen(["nice", "-n", "19", *command], cwd=folder, env=_env())
    try:
        return child.wait()
    finally:
        if child.poll() is None:
            child.terminate()
            child.wait()


def _mutmut(folder: Path, names: list[str], max_children: int) -> int:
    return _call([sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children), *names], folder)


def _fast(folder: Path, limits: list[str]) -> int:
    """generate.py (mutmut's mutants and statistics), then corpus_runner.py (one fork per mutant, no pytest)."""
    code = _call([sys.executable, str(HERE / "generate.py")], folder)
    if code != 0:
        return code
    return _call([sys.executable, str(HERE / "corpus_runner.py"), str(folder), *limits], folder)


def _add_time(component: Component, pass_name: str, seconds: float, mutants: int, runner: str = "mutmut") -> None:
    path = WORK / component.name / "timing.json"
    timing = json.loads(path.read_text()) if path.exists() else {}
    entry = timing.setdefault(pass_name, {"seconds": 0.0, "sessions": 0, "mutants_run": 0})
    if runner != "mutmut":
        entry["runner"] = runner
    entry["seconds"] += seconds
    entry["sessions"] += 1
    entry["mutants_run"] += mutants
    path.write_text(json.dumps(timing, indent=2) + "\n")


def run(component: Component, max_children: int, passes: list[str], runner: str = "fast",
        limits: list[str] | None = None, only: list[str] | None = None) -> None:
    if "corpus" in passes:
        folder = prepare(component, "corpus")
        before = load_pass(folder)
        started = time.monotonic()
        try:
            code = _fast(folder, limits or []) if runner == "fast" else _mutmut(folder, [], max_children)
        finally:  # an interrupted session's time still counts
            after = load_pass(folder)
            _add_time(component, "corpus", time.monotonic() - started, _checked(after) - _checked(before), runner)
        if code != 0:
            sys.exit(f"{component.name}: the corpus pass stopped with exit code {code}; rerun to resume")
    if "unit" in passes:
        survivors = sorted(m for m, status in load_pass(WORK / component.name / "corpus").items()
                           if status in ("survived", "no tests"))
        folder = prepare(component, "unit")
        done = load_pass(folder)
        todo = [m for m in survivors if done.get(m) in (None, "not checked") and (not only or m in only)]
        if todo:
            started = time.monotonic()
            try:
                code = _mutmut(folder, todo, max_children)
            finally:  # the mutants judged, not the ones asked for: a stopped session judged fewer
                after = load_pass(folder)
                _add_time(component, "unit", time.monotonic() - started,
                          sum(1 for m in todo if after.get(m, "not checked") != "not checked")
                          - sum(1 for m in todo if done.get(m, "not checked") != "not checked"))
            if code != 0:
                sys.exit(f"{component.name}: the unit pass stopped with exit code {code}; rerun to resume")


def recheck(component: Component, fixtures: list[str], only: list[str] | None) -> None:
    work = WORK / component.name
    names = only or sorted(m for m, s in load_pass(work / "corpus").items() if s in ("survived", "no tests"))
    command = ["nice", "-n", "19", sys.executable, str(HERE / "recheck.py"), str(work), str(ROOT), *fixtures,
               "--", *names]
    subprocess.check_call(command, env=_env())


def _checked(statuses: dict[str, str]) -> int:
    return sum(1 for s in statuses.values() if s != "not checked")


def clean(component: Component) -> None:
    shutil.rmtree(WORK / component.name, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["run", "recheck", "fuzz", "report", "clean"])
    parser.add_argument("components", nargs="*", default=list(COMPONENTS), metavar="component",
                        help=f"any of {', '.join(COMPONENTS)} (default: all, in that order)")
    parser.add_argument("--max-children", type=int, default=2,
                        help="mutants tested at once by mutmut's runner (the unit pass, --runner mutmut; default 2)")
    parser.add_argument("--runner", choices=["fast", "mutmut"], default="fast",
                        help="corpus pass: fast (corpus_runner.py: the corpus parsed once, one fork per mutant, "
                             "no pytest; default) or mutmut (a pytest session per mutant)")
    parser.add_argument("--cpu-constant", type=float, default=None,
                        help="corpus pass, fast runner: CPU seconds a mutant may take beyond --cpu-factor times "
                             "its cases' time in the statistics run (default 5)")
    parser.add_argument("--cpu-factor", type=float, default=None, help="see --cpu-constant (default 3)")
    parser.add_argument("--pass", dest="passes", action="append", choices=["corpus", "unit"],
                        help="run only this pass (repeatable; default both)")
    parser.add_argument("--examples", type=int, default=200, help="fuzz: generated cases per operation")
    parser.add_argument("--limit", type=int, default=None, help="fuzz: at most this many survivors")
    parser.add_argument("--fuzz-component", action="append", default=None,
                        help="fuzz: only this component's operations (repeatable; default: the component's corpus)")
    parser.add_argument("--only", action="append", default=None,
                        help="fuzz, recheck, the unit pass of run: only these mutants (repeatable)")
    parser.add_argument("--fixture", action="append", default=None,
                        help="recheck: a fixture file written since the corpus pass (repeatable)")
    args = parser.parse_args(argv)
    # A stopped campaign (kill PID) ends like ^C: the finally blocks record its time.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    unknown = [c for c in args.components if c not in COMPONENTS]
    if unknown:
        parser.error(f"unknown component(s) {', '.join(unknown)}; known: {', '.join(COMPONENTS)}")
    for name in args.components:
        component = COMPONENTS[name]
        if args.command == "run":
            limits = [f"--{flag}={value}" for flag, value in (("cpu-constant", args.cpu_constant),
                                                               ("cpu-factor", args.cpu_factor)) if value is not None]
            run(component, args.max_children, args.passes or ["corpus", "unit"], args.runner, limits, args.only)
        elif args.command == "fuzz":
            from fuzz_survivors import fuzz_survivors  # noqa: PLC0415
            fuzz_survivors(component, WORK / name, args.examples, args.limit, args.fuzz_component, args.only)
        elif args.command == "recheck":
            if not args.fixture:
                parser.error("recheck needs --fixture FILE (the cases written since the corpus pass)")
            recheck(component, args.fixture, args.only)
        elif args.command == "report":
            if any(status != "not checked" for status in load_pass(WORK / name / "corpus").values()):
                print(write_report(component, WORK / name, ROOT / "reports" / "mutation"))
            else:
                print(f"{name}: no mutant checked yet; no report written")
        else:
            clean(component)
    if args.command == "report":
        print(write_index(COMPONENTS.values(), WORK, ROOT / "reports" / "mutation"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
