"""The pytest plugin: every case of the corpus as a test item.

    pytest --impl reference fixtures/
    pytest --impl "exec:shims/kubelet/bin/kubelet-shim" --expectations FILE -n auto fixtures/kubelet

The plugin is active only when `--impl` is given. Each pytest process (each
xdist worker) starts its own implementation; the workers' records travel to the
controller, which writes one report for the whole run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance import corpus as corpus_mod
from conformance import expectations as expectations_mod
from conformance.adapters import Limits, StartupError, from_spec
from conformance.model import BENIGN, NOTRUN, PASS, SKIP, UNSUPPORTED, XFAIL, XPASS, Record
from conformance.paths import corpus_dir, expectations_dir
from conformance.report import results as results_mod
from conformance.runner import Run, Selection, broken_record, run_case

_KEY = "topoconf"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("topoconf", "topology conformance corpus")
    group.addoption("--impl", default=None, help="run the corpus against 'reference' or 'exec:COMMAND'")
    group.addoption("--expectations", default=None, help="the implementation's expectations file")
    group.addoption("--features", action="append", default=[], help="only cases naming one of these features")
    group.addoption("--exclude-features", action="append", default=[], help="leave out cases naming these features")
    group.addoption("--case-timeout", type=float, default=10.0, help="seconds per case for exec: implementations")
    group.addoption("--startup-timeout", type=float, default=30.0, help="seconds to answer hello")
    group.addoption("--restart-budget", type=int, default=10, help="restarts allowed per process")
    group.addoption("--report-dir", default=None, help="where to write the report (default reports/<impl>-<version>/)")
    group.addoption("--corpus", default=None, help="the corpus folder (default: the bundled one)")
    group.addoption("--fuzz-examples", type=int, default=0,
                    help="also run N generated cases per operation against --fuzz-against (differential)")
    group.addoption("--fuzz-against", default="reference", help="the oracle for --fuzz-examples")
    group.addoption("--fuzz-seed", type=int, default=None, help="seed for --fuzz-examples (default: derandomized)")
    group.addoption("--fuzz-only", action="store_true",
                    help="with --fuzz-examples, run the generated cases only, not the corpus")
    # `--strict` is pytest's own switch; with it an unexpected pass fails the run.


def _csv(values: list[str]) -> tuple[str, ...]:
    return tuple(v.strip() for value in values for v in value.split(",") if v.strip())


def _strict(config) -> bool:
    # pytest 9 turns `--strict` into the `strict` ini value; pytest 8 (which
    # pyproject allows) has no such ini value and keeps `--strict` as an option.
    try:
        return bool(config.getini("strict"))
    except ValueError:
        return bool(getattr(config.option, "strict", False))


class _State:
    def __init__(self, config: pytest.Config):
        self.config = config
        option = config.option
        self.spec = option.impl
        self.limits = Limits(startup_timeout=option.startup_timeout, case_timeout=option.case_timeout,
                             restart_budget=option.restart_budget)
        self.selection = Selection(features=_csv(option.features), exclude_features=_csv(option.exclude_features))
        self.corpus = corpus_mod.load(Path(option.corpus) if option.corpus else corpus_dir())
        unknown = [f for f in self.selection.features + self.selection.exclude_features if f not in self.corpus.features]
        if unknown:
            raise pytest.UsageError("topoconf: unknown feature: " + ", ".join(unknown) + " (see topoconf list)")
        self.files = {str(Path(self.corpus.root.parent, f).resolve()) for f in self.corpus.files}
        self.expectations = expectations_mod.NONE
        if option.expectations:
            self.expectations, problems = expectations_mod.load(Path(option.expectations))
            problems = problems or self.expectations.stale(self.corpus.all_ids)
            if problems:
                raise pytest.UsageError("expectations file: " + "; ".join(p.render() for p in problems))
        self.strict = _strict(config)
        self.adapter = None
        self.hello = None
        self.startup_error: str | None = None  # set in an xdist worker whose implementation did not start
        self.oracle = None
        self.worker_startup_errors: list[str] = []
        self.records: list[Record] = []
        self.worker_hellos: list[dict] = []

    def _down(self, message: str):
        if getattr(self.config, "workerinput", None) is None:
            pytest.exit(message, returncode=3)
        # An xdist worker cannot end the session: a pytest.exit there reaches
        # the controller as a crashed item. Every item fails with the reason
        # instead, at once, and the controller ends with 3.
        self.startup_error = message
        raise ImplementationDown(message)

    def _start(self, spec: str, who: str):
        try:
            adapter = from_spec(spec, self.limits)
        except ValueError as exc:
            pytest.exit(f"topoconf: {exc}", returncode=2)
        try:
            return adapter, adapter.start()
        except StartupError as exc:
            self._down(f"topoconf: {who} failed to start: {exc}")

    def ensure_started(self):
        if self.startup_error is not None:
            raise ImplementationDown(self.startup_error)
        if self.adapter is None:
            self.adapter, self.hello = self._start(self.spec, "the implementation")
            if not self.config.option.expectations:
                self._bundled_expectations()
        return self.adapter, self.hello

    def ensure_oracle(self):
        """The implementation generated cases are compared with (--fuzz-against)."""
        if self.startup_error is not None:
            raise ImplementationDown(self.startup_error)
        if self.oracle is None:
            self.oracle, _ = self._start(self.config.option.fuzz_against, "the oracle")
        return self.oracle

    def oracle_failed(self, message: str):
        self._down(f"topoconf: the oracle failed while fuzzing: {message}")

    def _bundled_expectations(self) -> None:
        # As `topoconf run` does: the bundled file for this name and version.
        bundled = expectations_dir() / f"{self.hello.name}-{self.hello.version}.yaml"
        if not bundled.is_file():
            return
        expectations, problems = expectations_mod.load(bundled)
        problems = problems or expectations.stale(self.corpus.all_ids)
        if problems:
            pytest.exit("topoconf: expectations file: " + "; ".join(p.render() for p in problems), returncode=2)
        self.expectations = expectations

    def close(self) -> None:
        if self.adapter is not None:
            self.adapter.close()
        if self.oracle is not None:
            self.oracle.close()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "topoconf_feature(name): a feature the corpus case needs")
    if config.getoption("impl", None):
        config.stash[_STATE] = _State(config)


_STATE = pytest.StashKey[_State]()


def _state(config: pytest.Config) -> _State | None:
    return config.stash.get(_STATE, None)


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    state = _state(parent.config)
    if state is not None and parent.config.option.fuzz_only:
        return None
    if state is not None and str(file_path.resolve()) in state.files:
        return FixtureFile.from_parent(parent, path=file_path)
    return None


class FixtureFile(pytest.File):
    def collect(self):
        state = _state(self.config)
        rel = str(Path(self.path).resolve().relative_to(state.corpus.root.parent).as_posix())
        for case in state.corpus.cases:
            if case.file == rel and state.selection.wants(case.id, case.component, case.features):
                yield CaseItem.from_parent(self, name=case.id, case=case)
        for broken in state.corpus.broken:
            if broken.file == rel:
                yield BrokenItem.from_parent(self, name=broken.id, broken=broken)
        # Problems no broken case stands for (a file that did not load, a case
        # dropped as a duplicate id) would otherwise lose their cases silently.
        file_problems = [p for p in state.corpus.unattributed_problems() if p.file == rel]
        if file_problems:
            yield FileProblemItem.from_parent(self, name="<file>", problems=file_problems)


class ImplementationDown(Exception):
    """The implementation did not start in this xdist worker."""


class CaseFailed(Exception):
    def __init__(self, record: Record, spec: str):
        super().__init__(record.outcome)
        self.record = record
        self.spec = spec


class CaseItem(pytest.Item):
    def __init__(self, *, case, **kwargs):
        super().__init__(**kwargs)
        self.case = case
        for feature in case.features:
            self.add_marker(pytest.mark.topoconf_feature(feature))

    def runtest(self) -> None:
        state = _state(self.config)
        try:
            adapter, hello = state.ensure_started()
        except ImplementationDown as exc:
            self.session.shouldstop = str(exc)
            raise
        record = run_case(self.case, adapter, hello, state.expectations)
        state.records.append(record)
        if record.outcome == PASS or (record.outcome == XPASS and not state.strict):
            return
        if record.outcome == XFAIL:
            pytest.xfail(f"{record.expected_outcome}: {record.expectation_reason}")
        if record.outcome in (UNSUPPORTED, SKIP):
            pytest.skip(f"{record.outcome}: {record.message}")
        raise CaseFailed(record, state.spec)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ImplementationDown):
            return str(excinfo.value)
        if isinstance(excinfo.value, CaseFailed):
            record, spec = excinfo.value.record, excinfo.value.spec
            lines = [f"{record.outcome}: {record.message or ''}".rstrip()]
            if record.outcome == XPASS:
                lines = [f"xpass: passed, but the expectations file says {record.expected_outcome}"
                         f" ({record.expectation_reason})"]
            lines += [f"  {line}" for line in record.diff or []]
            if record.stderr_tail:
                lines += ["stderr (last lines):"] + [f"  {line}" for line in record.stderr_tail]
            lines.append(f"source: {self.case.source}  ({self.case.file}:{self.case.line})")
            lines.append("rerun: " + results_mod.rerun_command(spec, record.id))
            return "\n".join(lines)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, self.case.line, f"{self.case.id}: {self.case.title}"


class BrokenItem(pytest.Item):
    def __init__(self, *, broken, **kwargs):
        super().__init__(**kwargs)
        self.broken = broken

    def runtest(self) -> None:
        _state(self.config).records.append(broken_record(self.broken))
        raise CaseFailed(broken_record(self.broken), _state(self.config).spec)

    def repr_failure(self, excinfo, style=None):
        return "the fixture case is invalid:\n" + "\n".join("  " + p.render() for p in self.broken.problems)


class FileProblemItem(pytest.Item):
    def __init__(self, *, problems, **kwargs):
        super().__init__(**kwargs)
        self.problems = problems

    def runtest(self) -> None:
        raise CaseFailed(Record("<file>", "", "", (), "", "error"), "")

    def repr_failure(self, excinfo, style=None):
        return "the fixture file is invalid:\n" + "\n".join("  " + p.render() for p in self.problems)


def pytest_sessionfinish(session: pytest.Session, exitstatus) -> None:
    state = _state(session.config)
    if state is None:
        return
    state.close()
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        # An xdist worker: hand the records to the controller.
        workeroutput[_KEY] = json.dumps({"hello": state.hello.raw if state.hello else None,
                                         "spec": state.spec,
                                         "startup_error": state.startup_error,
                                         "expectations": state.expectations.file,
                                         "records": [r.to_json() for r in state.records]})
        return
    _write_report(session, state, exitstatus)
    if state.worker_startup_errors:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(state.worker_startup_errors[0])
        session.exitstatus = 3


def _merge_worker(state: _State, payload: str) -> None:
    data = json.loads(payload)
    if data["hello"]:
        state.worker_hellos.append(data["hello"])
    if data.get("startup_error"):
        state.worker_startup_errors.append(data["startup_error"])
    if data.get("expectations") and state.expectations.file is None:
        state.expectations = expectations_mod.Expectations(data["expectations"], [])
    state.records.extend(Record.from_json(r) for r in data["records"])


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # runs on the xdist controller
    state = _state(node.config)
    output = getattr(node, "workeroutput", {})
    if state is not None and _KEY in output:
        _merge_worker(state, output[_KEY])


def _write_report(session: pytest.Session, state: _State, exitstatus=pytest.ExitCode.OK) -> None:
    from conformance.adapters.base import Hello

    hello = state.hello or (Hello(state.worker_hellos[0]) if state.worker_hellos else None)
    if hello is None or not state.records:
        return
    # -x, --maxfail or an interrupt leave collected cases unrun and unrecorded.
    stopped = bool(session.shouldstop or session.shouldfail) or exitstatus == pytest.ExitCode.INTERRUPTED
    outcome = Run(hello=hello, impl_spec=state.spec, records=state.records,
                  complete=not stopped and not any(r.outcome == NOTRUN for r in state.records),
                  selection=state.selection.describe())
    document = results_mod.build(outcome, state.corpus.hash(), state.expectations.file)
    option = session.config.option.report_dir
    directory = Path(option) if option else results_mod.default_dir(document, Path("reports"))
    written = results_mod.write_all(document, directory)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        unexpected = sum(1 for r in state.records if r.outcome not in BENIGN
                         and (state.strict or r.outcome != XPASS))
        reporter.write_line(f"topoconf: {len(state.records)} cases, {unexpected} unexpected; report {written[1]}")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    state = _state(config)
    if state is None or config.option.fuzz_examples <= 0:
        return
    from conformance.fuzz import strategies

    for component, operation in sorted(strategies.VALID):
        items.append(FuzzItem.from_parent(session, name=f"fuzz[{component}.{operation}]",
                                          component=component, operation=operation))


class FuzzItem(pytest.Item):
    """A bounded differential run of generated cases for one operation."""

    def __init__(self, *, component, operation, **kwargs):
        super().__init__(**kwargs)
        self.component, self.operation = component, operation

    def runtest(self) -> None:
        from conformance.fuzz import emit, known, strategies
        from conformance.fuzz.differential import FuzzReport, fuzz_operation

        state = _state(self.config)
        try:
            adapter, hello = state.ensure_started()
            if self.component not in hello.components:
                pytest.skip(f"unsupported: the implementation does not serve {self.component}")
            oracle = state.ensure_oracle()
        except ImplementationDown as exc:
            self.session.shouldstop = str(exc)
            raise
        option = self.config.option
        result = fuzz_operation(adapter, oracle, self.component, self.operation,
                                strategies.VALID[(self.component, self.operation)], option.fuzz_examples,
                                option.fuzz_seed,
                                strategies.ignored_for(self.component, self.operation, hello.features),
                                supported=strategies.supported_by(self.component, self.operation, hello.features),
                                known=known.for_operation(hello.name, hello.version, self.component, self.operation))
        if result.oracle_failure is not None:
            try:
                state.oracle_failed(result.oracle_failure)
            except ImplementationDown as exc:
                self.session.shouldstop = str(exc)
                raise
        if result.disagreement is not None:
            report = FuzzReport(state.spec, option.fuzz_against, option.fuzz_seed, [result])
            written = emit.write(result.disagreement, report, state.corpus.features,
                                 Path(self.config.rootpath) / "fixtures" / "_generated")
            raise AssertionError(f"{result.examples} generated cases; a shrunk disagreement, written to {written}:\n"
                                 + "\n".join(result.disagreement.diff))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ImplementationDown):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return "fuzz", None, self.name


def pytest_report_header(config: pytest.Config):
    state = _state(config)
    if state is None:
        return None
    return [f"topoconf: implementation {state.spec}, corpus {state.corpus.root} "
            f"({len(state.corpus.cases)} cases, {state.corpus.hash()[:19]})"]
