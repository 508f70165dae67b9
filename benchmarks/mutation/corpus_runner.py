"""The corpus pass without a pytest session per mutant.

    python benchmarks/mutation/corpus_runner.py WORK_FOLDER [MUTANT ...]

WORK_FOLDER is a corpus-pass folder that generate.py has filled (mutants/,
its .meta verdict files and mutants/mutmut-stats.json). One parent process
loads the corpus once and imports the mutated reference; per mutant it forks a
child that activates the mutant through mutmut's trampolines, runs the corpus
cases mutmut's statistics say reach the mutated function, judges each answer
exactly as the pytest plugin does and stops at the first failing case. The
parent enforces a CPU-time and a wall-time limit on the child and writes the
verdict into mutmut's .meta file at once, so `mutmut results`, results.py and
a later run all read it, and a stopped run resumes with the mutants that have
no verdict yet. Named mutants are run again whatever their verdict.

Why not pytest per mutant: README.md, "Mutation testing", gives the measured
costs.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import resource
import select
import signal
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

# mutmut's exit codes, which results.py and `mutmut results` read.
SURVIVED, KILLED, NO_TESTS, TIMEOUT = 0, 1, 33, 36
# A child that dies of a signal the parent did not send (the kernel's OOM
# killer, a crash in C code) keeps the negated signal number mutmut records.

_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Limits:
    """How long one mutant may run: CPU seconds `constant + factor * estimate`,
    where the estimate is what its cases took in the statistics run, and wall
    seconds `wall_factor` times that (the machine is shared and the child is
    niced, so wall time says little)."""

    constant: float = 5.0
    factor: float = 3.0
    wall_factor: float = 6.0

    def cpu(self, estimate: float) -> float:
        return self.constant + self.factor * estimate

    def wall(self, estimate: float) -> float:
        return self.wall_factor * self.cpu(estimate)


@dataclass
class Verdict:
    mutant: str
    exit_code: int
    seconds: float  # wall
    cpu_seconds: float
    cases_run: int = 0
    killed_by: str | None = None  # the node id of the first failing case

    def to_json(self) -> dict:
        return {"mutant": self.mutant, "exit_code": self.exit_code, "seconds": round(self.seconds, 4),
                "cpu_seconds": round(self.cpu_seconds, 4), "cases_run": self.cases_run, "killed_by": self.killed_by}


def case_passes(record) -> bool:
    """The pytest plugin's verdict on one record, without expectations and not
    strict (how the corpus pass runs): a pass passes, an unsupported or skipped
    case is skipped, anything else fails the item."""
    from conformance.model import PASS, SKIP, UNSUPPORTED, XFAIL, XPASS  # noqa: PLC0415

    if record.outcome in (PASS, XPASS) and not record.unexpected(False):
        return True
    return record.outcome in (XFAIL, UNSUPPORTED, SKIP)


def mangled_function(mutant: str) -> str:
    return mutant.rpartition("__mutmut_")[0]


def order_cases(tests: Iterable[str], durations: dict[str, float], killers: list[str]) -> list[str]:
    """The order a mutant's cases run in: the cases that killed earlier mutants
    of the same function first (most recent first), then the rest fastest
    first. The order changes only how soon a kill is found, never whether."""
    tests = set(tests)
    first = [t for t in dict.fromkeys(reversed(killers)) if t in tests]
    rest = sorted(tests - set(first), key=lambda t: (durations.get(t, 0.0), t))
    return first + rest


# --- the mutmut work folder --------------------------------------------------

class MetaFiles:
    """mutmut's per-source-file verdict files (mutants/<path>.py.meta), kept in
    memory and written back atomically after each verdict."""

    def __init__(self, mutants: Path):
        self.paths: dict[str, Path] = {}
        self.data: dict[Path, dict] = {}
        for meta in sorted(mutants.rglob("*.py.meta")):
            data = json.loads(meta.read_text())
            self.data[meta] = data
            for name in data["exit_code_by_key"]:
                self.paths[name] = meta

    def exit_code(self, mutant: str) -> int | None:
        return self.data[self.paths[mutant]]["exit_code_by_key"][mutant]

    def record(self, verdict: Verdict, estimate: float) -> None:
        path = self.paths[verdict.mutant]
        data = self.data[path]
        data["exit_code_by_key"][verdict.mutant] = verdict.exit_code
        data["durations_by_key"][verdict.mutant] = verdict.seconds
        data.setdefault("estimated_durations_by_key", {})[verdict.mutant] = estimate
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=4))
        os.replace(tmp, path)


@dataclass
class Campaign:
    """What the parent holds: the corpus cases by node id, mutmut's statistics
    and the verdict files."""

    mutants_dir: Path
    cases: dict  # node id -> conformance.model.Case
    tests_by_function: dict[str, list[str]]
    durations: dict[str, float]
    meta: MetaFiles
    log_path: Path
    limits: Limits = field(default_factory=Limits)
    killers: dict[str, list[str]] = field(default_factory=dict)
    # What runs in the child: corpus_check, or a stand-in in the runner's tests.
    check: Callable = field(default=None)

    def __post_init__(self):
        if self.check is None:
            self.check = corpus_check

    def estimate(self, mutant: str) -> float:
        return sum(self.durations.get(t, 0.0) for t in self.tests_by_function.get(mangled_function(mutant), ()))

    def todo(self, names: list[str] | None) -> list[str]:
        if names:
            unknown = [n for n in names if n not in self.meta.paths]
            if unknown:
                raise SystemExit(f"corpus_runner: unknown mutant(s) {', '.join(unknown)}")
            return names
        todo = [m for m in self.meta.paths if self.meta.exit_code(m) is None]
        # Cheap mutants first, as mutmut orders them, so a short session leaves many verdicts.
        return sorted(todo, key=lambda m: (self.estimate(m), m))


def node_id(case) -> str:
    """The pytest plugin's node id of a case, as mutmut's statistics name it:
    its file relative to the corpus folder, then the case id."""
    rel = case.file.split("/", 1)[1] if "/" in case.file else case.file
    return f"{rel}::{case.id}"


def load_campaign(work: Path, limits: Limits) -> Campaign:
    mutants = (work / "mutants").resolve()
    os.chdir(mutants)
    # The mutated reference, never the checkout's: mutants/ first on the path.
    sys.path.insert(0, str(mutants))
    with _no_reference_calls():
        import harness_plugin  # noqa: F401, PLC0415  (the harness's own, unmutated quantity parser)

        from conformance import session  # noqa: PLC0415
        from conformance.adapters.inprocess import InProcessAdapter  # noqa: PLC0415
        from reference_impl import server  # noqa: PLC0415

        # The hello imports every component's operations: compiling the mutated
        # modules takes seconds, which each child would pay again.
        InProcessAdapter().start()

        settings = session.Settings(impl="reference", no_expectations=True, corpus=str(mutants / "fixtures"))
        corpus = session.load_corpus(settings)
        _compile_result_schemas(corpus.cases)
    if not server.__file__.startswith(str(mutants)):
        raise SystemExit(f"corpus_runner: reference_impl was imported from {server.__file__}, not from {mutants}")
    cases = {node_id(c): c for c in corpus.cases}
    stats = json.loads((mutants / "mutmut-stats.json").read_text())
    tests_by_function = {k: sorted(v) for k, v in stats["tests_by_mangled_function_name"].items()}
    missing = sorted({t for tests in tests_by_function.values() for t in tests} - set(cases))
    if missing:
        raise SystemExit(f"corpus_runner: {len(missing)} test(s) in mutmut's statistics are no corpus case "
                         f"(e.g. {missing[0]}); regenerate the work folder (run.py clean, then run)")
    return Campaign(mutants, cases, tests_by_function, stats["duration_by_test"], MetaFiles(mutants),
                    work / "runner-log.jsonl", limits)


def _compile_result_schemas(cases) -> None:
    """Compile the result schemas the harness checks answers against here, once:
    compiled in a child, they cost seconds per mutant."""
    from conformance import schemas  # noqa: PLC0415

    for component, operation in sorted({(c.component, c.operation) for c in cases}):
        name = schemas.operation_schema(component, operation, "result")
        if schemas.exists(name):
            schemas.errors(name, {})


@contextlib.contextmanager
def _no_reference_calls():
    """The parent imports the mutated reference and parses the corpus once, so
    no child pays for either. Neither may call a trampolined function: its
    unmutated result would be shared by every child. With mutmut's "fail"
    mutant active such a call raises, which stops the run."""
    from mutmut.core import MutmutProgrammaticFailException  # noqa: PLC0415
    from mutmut.mutation.trampoline import set_mutant_under_test  # noqa: PLC0415

    set_mutant_under_test("fail")
    try:
        yield
    except MutmutProgrammaticFailException as exc:
        raise SystemExit("corpus_runner: a mutated function runs while the parent imports reference_impl or "
                         "loads the corpus; its mutants cannot be tested from a shared parent") from exc
    finally:
        set_mutant_under_test("")


# --- one mutant --------------------------------------------------------------

def corpus_check(cases: list, names: list[str]) -> tuple[int, str | None, int]:
    """Run corpus cases against the in-process reference until one fails:
    (exit code, the failing case's node id, cases run)."""
    from conformance.adapters.inprocess import InProcessAdapter  # noqa: PLC0415
    from conformance.runner import run_case  # noqa: PLC0415

    run = 0
    try:
        adapter = InProcessAdapter()
        hello = adapter.start()
        for name, case in zip(names, cases, strict=True):
            run += 1
            if not case_passes(run_case(case, adapter, hello)):
                return KILLED, name, run
    except Exception:  # an exception out of the harness fails the item under pytest too
        return KILLED, names[run - 1] if run else None, run
    return SURVIVED, None, run


def _child(mutant: str, cases: list, names: list[str], write_fd: int, check: Callable) -> None:
    """In the forked child: activate the mutant, check, report on the pipe."""
    from mutmut.mutation import trampoline  # noqa: PLC0415

    trampoline.set_mutant_under_test(mutant)
    # The trampoline asks for the active mutant on every call, through two
    # os.environ lookups: a third of a survivor's time. It is constant here.
    trampoline.get_mutant_under_test = lambda: mutant
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    code, killer, run = check(cases, names)
    os.write(write_fd, json.dumps({"cases_run": run, "killed_by": killer}).encode())
    os._exit(code)


def _cpu_of(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime


def run_one(campaign: Campaign, mutant: str) -> Verdict:
    tests = campaign.tests_by_function.get(mangled_function(mutant), [])
    if not tests:
        return Verdict(mutant, NO_TESTS, 0.0, 0.0)
    estimate = campaign.estimate(mutant)
    cpu_limit, wall_limit = campaign.limits.cpu(estimate), campaign.limits.wall(estimate)
    names = order_cases(tests, campaign.durations, campaign.killers.get(mangled_function(mutant), []))
    cases = [campaign.cases[n] for n in names]
    read_fd, write_fd = os.pipe()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns
        os.close(read_fd)
        try:
            # A backstop in case the parent is stopped: the kernel ends the child.
            hard = int(cpu_limit) + 5
            resource.setrlimit(resource.RLIMIT_CPU, (hard, hard + 1))
            _child(mutant, cases, names, write_fd, campaign.check)
        finally:
            os._exit(KILLED)
    os.close(write_fd)
    payload, timed_out, cpu, status = b"", False, 0.0, None
    try:
        while True:
            ready, _, _ = select.select([read_fd], [], [], 0.5)
            if ready:
                chunk = os.read(read_fd, 65536)
                if not chunk:
                    break
                payload += chunk
                continue
            cpu = _cpu_of(pid)
            if cpu > cpu_limit or time.monotonic() - started > wall_limit:
                timed_out = True
                os.kill(pid, signal.SIGKILL)
                break
        cpu = max(cpu, _cpu_of(pid))
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(read_fd)
        if status is None:  # the parent was stopped (SIGTERM, ^C): no orphan keeps running
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    seconds = time.monotonic() - started
    code = os.waitstatus_to_exitcode(status)
    # SIGXCPU, or SIGKILL at the hard limit a second later: the kernel's backstop.
    if timed_out or code == -signal.SIGXCPU or (code == -signal.SIGKILL and cpu >= cpu_limit):
        return Verdict(mutant, TIMEOUT, seconds, cpu)
    detail = json.loads(payload) if payload else {}
    return Verdict(mutant, code, seconds, cpu, detail.get("cases_run", 0), detail.get("killed_by"))


def check_setup(campaign: Campaign) -> None:
    """mutmut's two checks before a run, on the cases it will use: with no
    mutant every case passes, and with the "fail" mutant one fails."""
    every = sorted({t for tests in campaign.tests_by_function.values() for t in tests})
    check_clean(campaign, every, "corpus_runner", "the corpus pass needs a clean corpus")
    forced = run_one(_with_tests(campaign, every[:1], 1e9), "fail")
    if forced.exit_code != KILLED:
        raise SystemExit("corpus_runner: the 'fail' mutant was not killed; the trampolines are not reached")


def check_clean(campaign: Campaign, tests: list[str], who: str, hint: str) -> None:
    """Every one of these cases passes with no mutant active; else a failing case would "kill" every mutant."""
    clean = run_one(_with_tests(campaign, tests, 1e9), "")
    if clean.exit_code != SURVIVED:
        raise SystemExit(f"{who}: with no mutant active, case {clean.killed_by} fails "
                         f"(exit code {clean.exit_code}); {hint}")


def _with_tests(campaign: Campaign, tests: list[str], limit: float) -> Campaign:
    # A pseudo-function for the setup checks, under the names run_one looks up.
    return Campaign(campaign.mutants_dir, campaign.cases, {"": tests}, campaign.durations,
                    campaign.meta, campaign.log_path, Limits(constant=limit), check=campaign.check)


def run_campaign(campaign: Campaign, names: list[str] | None = None,
                 progress: Callable[[int, int, Verdict], None] | None = None) -> list[Verdict]:
    todo = campaign.todo(names)
    if not todo:
        return []
    gc.collect()
    gc.freeze()  # children share the parent's heap pages instead of copying them as they collect
    check_setup(campaign)
    verdicts = []
    with campaign.log_path.open("a") as log:
        for index, mutant in enumerate(todo, 1):
            verdict = run_one(campaign, mutant)
            campaign.meta.record(verdict, campaign.estimate(mutant))
            log.write(json.dumps(verdict.to_json()) + "\n")
            log.flush()
            if verdict.killed_by:
                campaign.killers.setdefault(mangled_function(mutant), []).append(verdict.killed_by)
            verdicts.append(verdict)
            if progress:
                progress(index, len(todo), verdict)
    return verdicts


def _print_progress(index: int, total: int, verdict: Verdict) -> None:
    print(f"[{index}/{total}] {verdict.mutant}: exit {verdict.exit_code} in {verdict.seconds:.2f} s "
          f"({verdict.cpu_seconds:.2f} s CPU, {verdict.cases_run} cases)", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("work", type=Path, help="the corpus-pass work folder (.mutation/<component>/corpus)")
    parser.add_argument("mutants", nargs="*", help="only these mutants, whatever their verdict")
    parser.add_argument("--cpu-constant", type=float, default=Limits.constant)
    parser.add_argument("--cpu-factor", type=float, default=Limits.factor)
    parser.add_argument("--wall-factor", type=float, default=Limits.wall_factor)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    campaign = load_campaign(args.work.resolve(), Limits(args.cpu_constant, args.cpu_factor, args.wall_factor))
    started = time.monotonic()
    verdicts = run_campaign(campaign, args.mutants or None, _print_progress)
    print(f"corpus_runner: {len(verdicts)} mutants in {time.monotonic() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
