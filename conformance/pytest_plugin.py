"""The pytest plugin: every case of the corpus as a test item.

    pytest --impl reference "$(topoconf path)"
    pytest --impl "exec:shims/kubelet/bin/kubelet-shim" -n auto fixtures/kubelet

The plugin is active only when `--impl` is given. Options, the corpus, the
selection, the expectations file, the verdict and the report are those of
`topoconf run` (conformance/session.py). A path inside a corpus folder (one
holding `features/` and `blocks/`, such as a checkout's `fixtures/`) makes that
folder the corpus. Each pytest process (each xdist worker) starts its own
implementation; the workers' records travel to the controller, which writes
one report for the whole run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from conformance import expectations as expectations_mod
from conformance import session as harness
from conformance.adapters import Hello, StartupError, from_spec
from conformance.corpus import COMPONENTS
from conformance.fuzz import shards
from conformance.fuzz.differential import FuzzReport
from conformance.fuzz.emit import write as write_generated
from conformance.model import NOTRUN, PASS, SKIP, UNSUPPORTED, XFAIL, XPASS, Record
from conformance.paths import corpus_dir
from conformance.report import details
from conformance.report import results as results_mod
from conformance.runner import Run, broken_record, run_case, select

_KEY = "topoconf"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("topoconf", "topology conformance corpus")
    group.addoption("--impl", default=None, help="run the corpus against 'reference' or 'exec:COMMAND'")
    harness.add_options(group.addoption)
    group.addoption("--fuzz-examples", type=int, default=0,
                    help="also run N generated cases per operation against --fuzz-against (differential)")
    group.addoption("--fuzz-against", default="reference", help="the oracle for --fuzz-examples")
    group.addoption("--fuzz-seed", type=int, default=None, help="seed for --fuzz-examples (default: derandomized)")
    group.addoption("--fuzz-only", action="store_true",
                    help="with --fuzz-examples, run the generated cases only, not the corpus")
    group.addoption("--fuzz-shards", type=int, default=0, metavar="N",
                    help="split each operation's --fuzz-examples into N items, each with its own seed derived from "
                         "--fuzz-seed (default: one per xdist worker, 1 without xdist)")
    # `--strict` is pytest's own switch; with it an unexpected pass fails the run.


def _strict(config) -> bool:
    # pytest 9 turns `--strict` into the `strict` ini value; pytest 8 (which
    # pyproject allows) has no such ini value and keeps `--strict` as an option.
    try:
        return bool(config.getini("strict"))
    except ValueError:
        return bool(getattr(config.option, "strict", False))


def corpus_root_of(path: Path) -> Path | None:
    """The corpus folder a path lies in: the nearest folder, the path itself or
    above it, that holds a feature vocabulary and building blocks."""
    path = path.resolve()
    for folder in [path, *path.parents]:
        if (folder / "blocks").is_dir() and any((folder / "features").glob("*.yaml")):
            return folder
    return None


def _argument_paths(config: pytest.Config) -> list[Path]:
    paths = []
    for arg in config.args:
        path = Path(config.invocation_params.dir, arg.split("::")[0])
        if path.exists():
            paths.append(path)
    return paths


def _corpus_option(config: pytest.Config) -> str | None:
    """--corpus as given, or the corpus the command-line paths lie in (unless it
    is the bundled one, which needs no option)."""
    if config.option.corpus:
        return config.option.corpus
    roots = {corpus_root_of(path) for path in _argument_paths(config)} - {None}
    if len(roots) == 1:
        (root,) = roots
        if root != corpus_dir().resolve():
            return str(root)
    return None


class _State:
    def __init__(self, config: pytest.Config):
        self.config = config
        option = config.option
        config.option.corpus = _corpus_option(config)
        self.settings = harness.Settings.from_options(option, impl=option.impl, strict=_strict(config))
        try:
            self.corpus = harness.load_corpus(self.settings)
            self.selection = harness.selection(self.settings, self.corpus)
        except harness.SessionError as exc:
            raise pytest.UsageError(_usage(exc)) from None
        self.files = {str(Path(self.corpus.root.parent, f).resolve()) for f in self.corpus.files}
        cases, broken = select(self.corpus, self.selection)
        self.cases_by_file: dict[str, list] = {}
        for item in cases + broken:
            self.cases_by_file.setdefault(item.file, []).append(item)
        self.expectations = None
        self.adapter = None
        self.hello = None
        self.warnings: list[str] = []
        self.startup_error: str | None = None  # set in an xdist worker whose implementation did not start
        self.oracle = None
        self.worker_startup_errors: list[str] = []
        self.records: list[Record] = []
        self.worker_hellos: list[dict] = []
        self.collected = 0
        # Each fuzz item's report (conformance/fuzz/shards.py JSON), and the fixtures
        # this process wrote for disagreements.
        self.fuzz_results: list[dict] = []
        self.fuzz_fixtures: list[str] = []
        self.fuzz_hello: Hello | None = None

    def _down(self, message: str):
        if getattr(self.config, "workerinput", None) is None:
            pytest.exit(message, returncode=harness.EXIT_STARTUP)
        # An xdist worker cannot end the session: a pytest.exit there reaches
        # the controller as a crashed item. Every item fails with the reason
        # instead, at once, and the controller ends with 3.
        self.startup_error = message
        raise ImplementationDown(message)

    def _start(self, spec: str, who: str):
        try:
            adapter = from_spec(spec, self.settings.limits)
        except ValueError as exc:
            pytest.exit(f"topoconf: {exc}", returncode=harness.EXIT_USAGE)
        try:
            return adapter, adapter.start()
        except StartupError as exc:
            self._down(f"topoconf: {who} failed to start: {exc}")

    def ensure_started(self):
        if self.startup_error is not None:
            raise ImplementationDown(self.startup_error)
        if self.adapter is None:
            self.adapter, self.hello = self._start(self.settings.impl, "the implementation")
            try:
                self.expectations = harness.expectations_for(self.settings, self.hello, self.corpus)
            except harness.SessionError as exc:
                pytest.exit(_usage(exc), returncode=harness.EXIT_USAGE)
            self.warnings = harness.hello_warnings(self.hello, self.corpus)
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

    def close(self) -> None:
        if self.adapter is not None:
            self.adapter.close()
        if self.oracle is not None:
            self.oracle.close()


def _usage(exc: harness.SessionError) -> str:
    return "\n".join([*(p.render() for p in exc.problems), f"topoconf: {exc}"])


_STATE = pytest.StashKey[_State]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "topoconf_feature(name): a feature the corpus case needs")
    if config.getoption("impl", None):
        config.stash[_STATE] = _State(config)


def _state(config: pytest.Config) -> _State | None:
    return config.stash.get(_STATE, None)


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    state = _state(parent.config)
    if state is None or parent.config.option.fuzz_only:
        return None
    if str(file_path.resolve()) in state.files:
        rel = Path(file_path).resolve().relative_to(state.corpus.root.parent).as_posix()
        # Node ids relative to the corpus (kubelet/merge/x.yaml::case-id), wherever it is installed.
        return FixtureFile.from_parent(parent, path=file_path, nodeid=rel.split("/", 1)[1] if "/" in rel else rel)
    return None


class FixtureFile(pytest.File):
    def collect(self):
        state = _state(self.config)
        rel = Path(self.path).resolve().relative_to(state.corpus.root.parent).as_posix()
        for item in state.cases_by_file.get(rel, ()):
            if hasattr(item, "expect"):
                yield CaseItem.from_parent(self, name=item.id, case=item)
            else:
                yield BrokenItem.from_parent(self, name=item.id, broken=item)


class ImplementationDown(Exception):
    """The implementation did not start in this xdist worker."""


class CaseFailed(Exception):
    def __init__(self, record: Record, header: dict):
        super().__init__(record.outcome)
        self.record = record
        self.header = header


def _header(state: _State) -> dict:
    """What a rerun command and the details of a record need of the report header."""
    hello = state.hello.raw if state.hello else {"implementation": {"name": "?", "version": "?"}}
    return {"impl_spec": state.settings.impl, "implementation": hello, "strict": state.settings.strict,
            "invocation": state.settings.invocation()}


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
        self.stash[_OUTCOME] = record
        if record.outcome in (PASS, XPASS) and not record.unexpected(state.settings.strict):
            return
        if record.outcome == XFAIL:
            pytest.xfail(f"{record.expected_outcome}: {record.expectation_reason}")
        if record.outcome in (UNSUPPORTED, SKIP):
            pytest.skip(f"{record.outcome}: {record.message}")
        raise CaseFailed(record, _header(state))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ImplementationDown):
            return str(excinfo.value)
        if isinstance(excinfo.value, CaseFailed):
            record, header = excinfo.value.record, excinfo.value.header
            lines = details.plain(details.of(record.to_json(), header))
            if record.outcome == XPASS:
                lines[0] = (f"xpass (strict run): passed, but the expectations file says {record.expected_outcome}"
                            f" ({record.expectation_reason})")
            return "\n".join(lines)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, self.case.line, f"{self.case.id}: {self.case.title}"


_OUTCOME = pytest.StashKey[Record]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    record = item.stash.get(_OUTCOME, None) if call.when == "call" else None
    # A non-strict unexpected pass is reported as pytest reports its own: XPASS.
    if record is not None and record.outcome == XPASS and report.passed:
        report.wasxfail = f"{record.expected_outcome}: {record.expectation_reason}"


class BrokenItem(pytest.Item):
    def __init__(self, *, broken, **kwargs):
        super().__init__(**kwargs)
        self.broken = broken

    def runtest(self) -> None:
        state = _state(self.config)
        state.records.append(broken_record(self.broken))
        raise CaseFailed(broken_record(self.broken), _header(state))

    def repr_failure(self, excinfo, style=None):
        return "the fixture case is invalid:\n" + "\n".join("  " + p.render() for p in self.broken.problems)


def pytest_collection_finish(session: pytest.Session) -> None:
    state = _state(session.config)
    if state is not None:
        state.collected = sum(1 for item in session.items if isinstance(item, (CaseItem, BrokenItem, FuzzItem)))


def pytest_sessionfinish(session: pytest.Session, exitstatus) -> None:
    state = _state(session.config)
    if state is None:
        return
    state.close()
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        # An xdist worker: hand the records to the controller.
        workeroutput[_KEY] = json.dumps({"hello": state.hello.raw if state.hello else None,
                                         "startup_error": state.startup_error,
                                         "expectations": state.expectations.file if state.expectations else None,
                                         "records": [r.to_json() for r in state.records],
                                         "fuzz": state.fuzz_results})
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and reporter is not None:
        reporter.write_line(f"topoconf: no corpus case was collected. Pass the corpus folder or a path inside it "
                            f"(corpus: {state.corpus.root}; `topoconf path` prints the bundled one).")
    code = _write_report(session, state, exitstatus)
    _write_fuzz_run(session, state)
    if state.worker_startup_errors:
        if reporter is not None:
            reporter.write_line(state.worker_startup_errors[0])
        session.exitstatus = harness.EXIT_STARTUP if False else 3
    elif code and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = code


def _merge_worker(state: _State, payload: str) -> None:
    data = json.loads(payload)
    if data["hello"]:
        state.worker_hellos.append(data["hello"])
    if data.get("startup_error"):
        state.worker_startup_errors.append(data["startup_error"])
    if data.get("expectations") and state.expectations is None:
        state.expectations = expectations_mod.Expectations(data["expectations"], [])
    state.records.extend(Record.from_json(r) for r in data["records"])
    state.fuzz_results.extend(data.get("fuzz", ()))
    if data["hello"] and state.fuzz_hello is None:
        state.fuzz_hello = Hello(data["hello"])


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # runs on the xdist controller
    state = _state(node.config)
    output = getattr(node, "workeroutput", {})
    if state is not None and _KEY in output:
        _merge_worker(state, output[_KEY])


def _write_report(pytest_session: pytest.Session, state: _State, exitstatus) -> int:
    hello = state.hello or (Hello(state.worker_hellos[0]) if state.worker_hellos else None)
    if hello is None or not any(not r.id.startswith("fuzz[") for r in state.records):
        return 0
    # -x, --maxfail or an interrupt leave collected cases unrun and unrecorded.
    stopped = bool(pytest_session.shouldstop or pytest_session.shouldfail) \
        or exitstatus == pytest.ExitCode.INTERRUPTED
    outcome = Run(hello=hello, impl_spec=state.settings.impl, records=state.records,
                  complete=not stopped and not any(r.outcome == NOTRUN for r in state.records),
                  selection=state.selection.describe())
    warnings = harness.hello_warnings(hello, state.corpus)
    expectations = state.expectations or expectations_mod.NONE
    document = harness.build_report(outcome, state.corpus, expectations, state.settings, warnings)
    written = results_mod.write_all(document, harness.report_dir(document, state.settings))
    judged = harness.verdict(outcome.records, outcome.complete, state.settings, warnings,
                             f"{hello.name} {hello.version}")
    reporter = pytest_session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        for warning in warnings:
            reporter.write_line(f"topoconf: warning: {warning}")
        reporter.write_line(f"topoconf: {judged.summary}")
        for reason in judged.reasons:
            reporter.write_line(f"topoconf: FAILED: {reason}.")
        reporter.write_line(f"topoconf: report {written[1]}")
    return judged.code


def _fuzz_components(config: pytest.Config, state: _State) -> tuple[str, ...]:
    """The components the command-line paths name: a path inside the corpus's
    `kubelet/` folder fuzzes kubelet only; the corpus folder itself, all."""
    wanted: set[str] = set()
    root = state.corpus.root.resolve()
    for path in _argument_paths(config):
        try:
            parts = path.resolve().relative_to(root).parts
        except ValueError:
            continue
        if not parts:
            return COMPONENTS
        if parts[0] in COMPONENTS:
            wanted.add(parts[0])
    return tuple(sorted(wanted)) if wanted else COMPONENTS


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    state = _state(config)
    if state is None or config.option.fuzz_examples <= 0:
        return
    from conformance.fuzz import strategies  # noqa: PLC0415 - loads hypothesis, only for a session that fuzzes

    components = _fuzz_components(config, state)
    if state.settings.components:
        components = tuple(c for c in components if c in state.settings.components)
    count = _fuzz_shards(config)
    for component, operation in sorted(strategies.VALID):
        if component not in components:
            continue
        for index, examples in enumerate(shards.split(config.option.fuzz_examples, count)):
            if examples == 0:
                continue
            name = f"fuzz[{component}.{operation}]" if count == 1 else \
                f"fuzz[{component}.{operation}#{index + 1}of{count}]"
            items.append(FuzzItem.from_parent(
                session, name=name, component=component, operation=operation, examples=examples,
                seed=shards.seed_of(config.option.fuzz_seed, component, operation, index, count)))


def _fuzz_shards(config: pytest.Config) -> int:
    """Every worker must collect the same items: the count comes from the option
    or from the number of workers, which each worker is told alike."""
    given = config.option.fuzz_shards
    if given < 0:
        raise pytest.UsageError(f"--fuzz-shards must be 0 (one per xdist worker) or more, not {given}")
    if given:
        return given
    workerinput = getattr(config, "workerinput", None)
    return int(workerinput.get("workercount", 1)) if workerinput else 1


def _fuzz_base(state: _State, hello: Hello) -> Path:
    return Path(state.settings.report_dir) if state.settings.report_dir else \
        Path("reports") / "fuzz" / f"{hello.name}-{hello.version}"


def _write_fuzz_run(pytest_session: pytest.Session, state: _State) -> None:
    """The controller's one fuzz.json for the whole run: the shards of every
    worker merged, and the fixtures of the workers' disagreements written here,
    wherever the workers ran."""
    hello = state.hello or state.fuzz_hello
    if not state.fuzz_results or hello is None:
        return
    from conformance.fuzz import report as fuzz_report  # noqa: PLC0415

    option = pytest_session.config.option
    reports = [shards.from_json(r["report"]) for r in state.fuzz_results]
    base = _fuzz_base(state, hello)
    fixtures = list(state.fuzz_fixtures)
    for result, report in zip(state.fuzz_results, reports, strict=True):
        if report.disagreement is not None and not result.get("written"):
            one = FuzzReport(state.settings.impl, option.fuzz_against, result["seed"], [report])
            fixtures.append(str(write_generated(report.disagreement, one, state.corpus.features, base / "generated")))
    merged = FuzzReport(state.settings.impl, option.fuzz_against, option.fuzz_seed, shards.merge(reports))
    count = max(r["shards"] for r in state.fuzz_results)
    parts = tuple(sorted({r.component for r in merged.operations}))
    name = fuzz_report.run_name(parts, False, option.fuzz_seed) + (f"-{count}-shards" if count > 1 else "")
    written = fuzz_report.write(merged, [Path(f) for f in sorted(set(fixtures))], base / "runs" / name)
    reporter = pytest_session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"topoconf: fuzzing: {merged.examples} generated cases in {len(reports)} items, "
                            f"{len(merged.disagreements)} disagreements; report {written}")
        for path in sorted(set(fixtures) - set(state.fuzz_fixtures)):
            reporter.write_line(f"topoconf: fuzzing: a worker's disagreement written for review as {path}")


class FuzzDisagreement(Exception):
    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


class FuzzItem(pytest.Item):
    """A bounded differential run of generated cases for one operation."""

    def __init__(self, *, component, operation, examples, seed, **kwargs):
        super().__init__(**kwargs)
        self.component, self.operation = component, operation
        self.examples, self.seed = examples, seed

    def runtest(self) -> None:
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
        result = harness.fuzz_operation(adapter, oracle, hello, self.component, self.operation,
                                        self.examples, self.seed)
        shipped = {"report": shards.to_json(result), "seed": self.seed, "shards": _fuzz_shards(self.config),
                   "written": False}
        state.fuzz_results.append(shipped)
        if result.oracle_failure is not None:
            try:
                state.oracle_failed(result.oracle_failure)
            except ImplementationDown as exc:
                self.session.shouldstop = str(exc)
                raise
        if result.disagreement is not None:
            found = result.disagreement
            report = FuzzReport(state.settings.impl, option.fuzz_against, self.seed, [result])
            if getattr(self.config, "workerinput", None) is None:
                written = write_generated(found, report, state.corpus.features, _fuzz_base(state, hello) / "generated")
                state.fuzz_fixtures.append(str(written))
                shipped["written"] = True
            else:
                # The worker may run on another host: the controller writes the fixture.
                written = f"{_fuzz_base(state, hello) / 'generated'} on the controller, at the end of the run"
            shrunk = yaml.safe_dump(found.input, sort_keys=False, default_flow_style=None, width=110).rstrip()
            lines = [f"{result.examples} generated cases; the implementation and {option.fuzz_against} disagree "
                     f"on this shrunk {self.component}.{self.operation} input:", "",
                     *(f"  {line}" for line in shrunk.splitlines()), "", "differences (the oracle's answer, then "
                     "the implementation's):", *(f"  {line}" for line in found.diff),
                     "", f"written for review as a fixture: {written}"]
            raise FuzzDisagreement("\n".join(lines))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, (ImplementationDown, FuzzDisagreement)):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return "fuzz", None, self.name


def pytest_report_header(config: pytest.Config):
    state = _state(config)
    if state is None:
        return None
    return [f"topoconf: implementation {state.settings.impl}, corpus {state.corpus.root} "
            f"({len(state.corpus.cases)} cases, {state.corpus.hash()[:19]})"]

