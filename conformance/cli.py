"""`topoconf`: run the corpus, validate it, list it, render and compare reports.

Exit codes: 0 every outcome as expected; 1 unexpected outcomes (or problems found
by `validate`); 2 usage or configuration error; 3 the implementation failed to start.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

from conformance import __version__, schemas
from conformance import corpus as corpus_mod
from conformance import expectations as expectations_mod
from conformance.adapters import Limits, StartupError, from_spec
from conformance.model import BENIGN, XPASS
from conformance.paths import corpus_dir, expectations_dir
from conformance.report import results as results_mod
from conformance.runner import Selection, run, select

EXIT_OK, EXIT_UNEXPECTED, EXIT_USAGE, EXIT_STARTUP = 0, 1, 2, 3


class UsageError(Exception):
    pass


def _csv(values: list[str] | None) -> tuple[str, ...]:
    out: list[str] = []
    for value in values or []:
        out.extend(v.strip() for v in value.split(",") if v.strip())
    return tuple(out)


def _selection(args, corpus) -> Selection:
    selection = Selection(features=_csv(args.features), exclude_features=_csv(args.exclude_features),
                          # not split on commas: a matrix case's id holds them
                          ids=tuple(args.id or ()), components=_csv(args.component))
    # A mistyped name would quietly select or exclude nothing.
    unknown = [f for f in selection.features + selection.exclude_features if f not in corpus.features]
    unknown += [c for c in selection.components if c not in corpus_mod.COMPONENTS]
    if unknown:
        raise UsageError("unknown feature or component: " + ", ".join(unknown) + " (see topoconf list)")
    return selection


def _add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--features", action="append", metavar="F[,F]", help="only cases naming one of these features")
    parser.add_argument("--exclude-features", action="append", metavar="F[,F]", help="leave out cases naming these")
    parser.add_argument("--id", action="append", metavar="GLOB", help="only cases whose id matches (repeatable)")
    parser.add_argument("--component", action="append", metavar="C", help="only this component (repeatable)")
    parser.add_argument("--corpus", type=Path, default=None, help="the corpus folder (default: the bundled one)")


def _print_problems(problems, stream=None) -> None:
    for problem in problems:
        print(problem.render(), file=stream or sys.stdout)


def resolve_expectations(path: str | None, hello, disabled: bool):
    """The expectations file to apply: the one given, or the bundled one for this
    implementation and version, or none."""
    if disabled:
        return expectations_mod.NONE, []
    if path is None:
        bundled = expectations_dir() / f"{hello.name}-{hello.version}.yaml"
        if not bundled.is_file():
            return expectations_mod.NONE, []
        expectations, problems = expectations_mod.load(bundled)
        # Reports name the bundled file the same way wherever the package is installed.
        expectations.file = f"conformance/expectations/{bundled.name}"
        return expectations, problems
    return expectations_mod.load(Path(path))


def _progress(quiet: bool):
    if quiet:
        return None
    tty = sys.stderr.isatty()
    counts: Counter = Counter()
    step = [0]

    def report(index: int, total: int, record) -> None:
        counts[record.outcome] += 1
        summary = " ".join(f"{k}={v}" for k, v in sorted(counts.items()))
        if tty:
            print(f"\r[{index}/{total}] {summary}", end="" if index < total else "\n", file=sys.stderr, flush=True)
        elif index == total or index * 10 // max(total, 1) > step[0]:
            step[0] = index * 10 // max(total, 1)
            print(f"[{index}/{total}] {summary}", file=sys.stderr, flush=True)

    return report


def cmd_run(args) -> int:
    corpus = corpus_mod.load(args.corpus)
    lost = corpus.unattributed_problems()
    if lost:
        _print_problems(lost, sys.stderr)
        raise UsageError("the corpus has problems that lose cases; fix them (topoconf validate) before running")
    selection = _selection(args, corpus)
    cases, broken = select(corpus, selection)
    if not cases and not broken:
        raise UsageError("the selection holds no case (check --id, --features, --component)")
    limits = Limits(startup_timeout=args.startup_timeout, case_timeout=args.case_timeout,
                    restart_budget=args.restart_budget)
    try:
        adapter = from_spec(args.impl, limits)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        hello = adapter.start()
    except StartupError as exc:
        print(f"topoconf: the implementation failed to start: {exc}", file=sys.stderr)
        return EXIT_STARTUP
    try:
        expectations, problems = resolve_expectations(args.expectations, hello, args.no_expectations)
        if not problems:
            problems = expectations.stale(corpus.all_ids)
        if problems:
            _print_problems(problems, sys.stderr)
            raise UsageError("the expectations file is not usable")
        outcome = run(cases, broken, adapter, hello, expectations, _progress(args.quiet))
    finally:
        adapter.close()
    outcome.selection = selection.describe()
    document = results_mod.build(outcome, corpus.hash(), expectations.file)
    directory = args.report_dir or results_mod.default_dir(document, Path("reports"))
    written = results_mod.write_all(document, directory)
    footer = document["footer"]
    unexpected = [r for r in outcome.records if r.outcome not in BENIGN and (args.strict or r.outcome != XPASS)]
    counts = ", ".join(f"{v} {k}" for k, v in footer["counts"].items() if v)
    print(f"{hello.name} {hello.version}: {footer['total']} cases: {counts}.")
    if not footer["complete"]:
        print("The run is INCOMPLETE: the implementation's restart budget was spent.")
    for record in unexpected[:20]:
        print(f"  {record.outcome:>14}  {record.id}  {record.message or ''}")
        print(f"{'':>18}rerun: {results_mod.rerun_command(adapter.spec, record.id)}")
    if len(unexpected) > 20:
        print(f"  ... and {len(unexpected) - 20} more; see {written[1]}")
    print(f"Report: {written[1]}")
    return EXIT_UNEXPECTED if unexpected or not footer["complete"] else EXIT_OK


def validate_all(paths: list[Path] | None, root: Path | None):
    problems = []
    root = root or corpus_dir()
    for path in sorted(schemas.schemas_dir().rglob("*.json")):
        try:
            schemas.check_file(path)
        except Exception as exc:  # noqa: BLE001 - any defect of a schema is reported, not raised
            problems.append(corpus_mod.Problem(str(path), None, None, "", "schema", str(exc).splitlines()[0]))
    for path in paths or []:
        # A mistyped path must not pass as a clean corpus.
        if not corpus_mod.fixture_files(root, [path]):
            what = "holds no fixture file" if path.exists() else "does not exist"
            problems.append(corpus_mod.Problem(str(path), None, None, "", "path", f"{path} {what}"))
    corpus = corpus_mod.load(root, paths)
    problems += corpus.problems
    # The bundled expectations name cases of the bundled corpus; against any
    # other corpus every entry would look stale.
    if not paths and root.resolve() == corpus_dir().resolve():
        for path in sorted(expectations_dir().glob("*.yaml")):
            expectations, found = expectations_mod.load(path)
            problems += found or expectations.stale(corpus.all_ids)
    return corpus, problems


def cmd_validate(args) -> int:
    corpus, problems = validate_all([Path(p) for p in args.paths] or None, args.corpus)
    _print_problems(problems)
    print(f"{len(corpus.files)} files, {len(corpus.cases)} valid cases, {len(corpus.broken)} broken cases, "
          f"{len(problems)} problems.")
    return EXIT_UNEXPECTED if problems else EXIT_OK


def cmd_list(args) -> int:
    corpus = corpus_mod.load(args.corpus)
    cases, _ = select(corpus, _selection(args, corpus))
    if not cases:
        raise UsageError("the selection holds no case")
    if args.ids:
        for case in cases:
            print(f"{case.id}\t{case.title}")
        return EXIT_OK
    per_component = Counter(c.component for c in cases)
    per_feature = Counter(f for c in cases for f in c.features)
    if args.format == "json":
        print(json.dumps({"components": dict(sorted(per_component.items())),
                          "features": {f: per_feature.get(f, 0) for f in sorted(corpus.features)}}, indent=1))
        return EXIT_OK
    from tabulate import tabulate

    print(tabulate(sorted(per_component.items()) + [("all", len(cases))], headers=["component", "cases"],
                   tablefmt="github"))
    print()
    rows = [(f, corpus.features[f]["component"], per_feature.get(f, 0)) for f in sorted(corpus.features)
            if not args.component or corpus.features[f]["component"] in _csv(args.component)]
    print(tabulate(rows, headers=["feature", "component", "cases"], tablefmt="github"))
    return EXIT_OK


def cmd_report(args) -> int:
    try:
        document = results_mod.load(Path(args.results))
    except (OSError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    directory = Path(args.out) if args.out else Path(args.results).parent
    for path in results_mod.write_all(document, directory)[1:]:
        print(f"wrote {path}")
    return EXIT_OK


def cmd_diff(args) -> int:
    from conformance.report import diff

    try:
        old, new = results_mod.load(Path(args.old)), results_mod.load(Path(args.new))
    except (OSError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    print(diff.render(old, new), end="")
    return EXIT_UNEXPECTED if args.fail_on_regression and diff.has_regressions(old, new) else EXIT_OK


def cmd_matrix(args) -> int:
    from conformance.report import matrix

    try:
        columns = matrix.load_columns([Path(p) for p in args.reports])
    except (OSError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    text = matrix.render(columns)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    else:
        print(text, end="")
    return EXIT_OK


def cmd_new(args) -> int:
    from conformance import skeleton

    try:
        print(skeleton.render(args.component, args.operation), end="")
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    return EXIT_OK


def cmd_export(args) -> int:
    from conformance import export

    if args.format != "json":
        raise UsageError("only --format json is supported")
    corpus = corpus_mod.load(args.corpus)
    if corpus.problems:
        _print_problems(corpus.problems, sys.stderr)
        raise UsageError("the corpus has problems; fix them (topoconf validate) before exporting")
    written = export.write_json(corpus, Path(args.dir))
    print(f"wrote {len(written)} files to {args.dir}")
    return EXIT_OK


def cmd_fuzz(args) -> int:
    from conformance.fuzz import emit, known, strategies
    from conformance.fuzz.differential import FuzzReport, fuzz_operation
    from conformance.fuzz.report import write as write_report

    components = _csv(args.component) or tuple(sorted({c for c, _ in strategies.VALID}))
    wanted = _csv(args.operation)
    limits = Limits(startup_timeout=args.startup_timeout, case_timeout=args.case_timeout,
                    restart_budget=args.restart_budget)
    try:
        implementation, reference = from_spec(args.impl, limits), from_spec(args.against, limits)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        hello = implementation.start()
        reference.start()
    except StartupError as exc:
        # The one that did start must not be left running.
        implementation.close()
        print(f"topoconf: an implementation failed to start: {exc}", file=sys.stderr)
        return EXIT_STARTUP
    report = FuzzReport(args.impl, args.against, args.seed)
    vocabulary = corpus_mod.load(args.corpus).features
    try:
        for component in components:
            if component not in hello.components:
                print(f"{component}: the implementation does not serve it; skipped", file=sys.stderr)
                continue
            for operation in strategies.operations(component):
                if wanted and operation not in wanted:
                    continue
                table = strategies.INVALID if args.invalid else strategies.VALID
                if (component, operation) not in table:
                    continue
                result = fuzz_operation(implementation, reference, component, operation, table[(component, operation)],
                                        args.examples, args.seed, strategies.ignored_for(component, operation, hello.features),
                                        invalid=args.invalid,
                                        supported=strategies.supported_by(component, operation, hello.features),
                                        known=known.for_operation(hello.name, hello.version, component, operation))
                report.operations.append(result)
                if result.oracle_failure is not None:
                    print(f"topoconf: the oracle failed while fuzzing {component}.{operation}: "
                          f"{result.oracle_failure}", file=sys.stderr)
                    return EXIT_STARTUP
                verdict = "agree" if result.disagreement is None else "DISAGREE"
                claimed = f", {sum(result.known.values())} as known differences" if result.known else ""
                print(f"{component}.{operation}: {result.examples} generated cases "
                      f"({result.unsupported} outside the implementation's features{claimed}), {verdict} "
                      f"({result.seconds:.1f}s)", file=sys.stderr)
    finally:
        implementation.close()
        reference.close()
    if not report.operations:
        raise UsageError("no operation to fuzz (check --component and --operation)")
    written = [emit.write(d, report, vocabulary, Path(args.out)) for d in report.disagreements]
    directory = args.report_dir or Path("reports") / "fuzz" / f"{hello.name}-{hello.version}"
    summary = write_report(report, written, directory)
    for path in written:
        print(f"wrote fixture {path}")
    print(f"{report.examples} generated cases, {len(report.disagreements)} disagreements; report {summary}")
    return EXIT_UNEXPECTED if report.disagreements else EXIT_OK


def cmd_fuzz_summary(args) -> int:
    from conformance.fuzz import summary

    try:
        path = summary.write(Path(args.dir))
    except (FileNotFoundError, summary.BadRun) as exc:
        raise UsageError(str(exc)) from None
    print(f"wrote {path}")
    return EXIT_OK


def cmd_path(_args) -> int:
    print(corpus_dir())
    return EXIT_OK


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="topoconf", description=__doc__.split("\n\n")[0])
    top.add_argument("--version", action="version", version=f"topoconf {__version__}")
    sub = top.add_subparsers(dest="command", required=True)

    p = sub.add_parser("run", help="run the corpus against an implementation and write reports")
    p.add_argument("--impl", default="reference", help="'reference' or 'exec:COMMAND' (default: reference)")
    p.add_argument("--expectations", help="expectations file (default: the bundled one for the implementation)")
    p.add_argument("--no-expectations", action="store_true", help="apply no expectations file")
    p.add_argument("--strict", action="store_true", help="an unexpected pass (xpass) fails the run")
    p.add_argument("--case-timeout", type=float, default=10.0, help="seconds per case (default 10)")
    p.add_argument("--startup-timeout", type=float, default=30.0, help="seconds to answer hello (default 30)")
    p.add_argument("--restart-budget", type=int, default=10, help="restarts allowed per run (default 10)")
    p.add_argument("--report-dir", type=Path, help="default reports/<implementation>-<version>/")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    _add_selection(p)
    p.set_defaults(fn=cmd_run)

    p = sub.add_parser("validate", help="check fixture files, blocks, schemas and expectations")
    p.add_argument("paths", nargs="*", help="fixture files or folders (default: the whole corpus)")
    p.add_argument("--corpus", type=Path, default=None)
    p.set_defaults(fn=cmd_validate)

    p = sub.add_parser("list", help="cases and features, with counts")
    p.add_argument("--ids", action="store_true", help="list case ids and titles")
    p.add_argument("--format", choices=("text", "json"), default="text")
    _add_selection(p)
    p.set_defaults(fn=cmd_list)

    p = sub.add_parser("report", help="re-render compliance.md, compliance.html and junit.xml from results.json")
    p.add_argument("results")
    p.add_argument("--out", help="folder to write to (default: beside results.json)")
    p.set_defaults(fn=cmd_report)

    p = sub.add_parser("diff", help="compare two results.json files, as Markdown")
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--fail-on-regression", action="store_true", help="exit 1 when a passing case stopped passing")
    p.set_defaults(fn=cmd_diff)

    p = sub.add_parser("matrix", help="one Markdown table of features over several reports (releases, branches)")
    p.add_argument("reports", nargs="+", metavar="REPORT_DIR", help="report folders (or their results.json)")
    p.add_argument("--out", help="write the table to this file instead of stdout")
    p.set_defaults(fn=cmd_matrix)

    p = sub.add_parser("new", help="print a skeleton case to fill in")
    p.add_argument("component")
    p.add_argument("operation")
    p.set_defaults(fn=cmd_new)

    p = sub.add_parser("export", help="write the expanded corpus as plain JSON")
    p.add_argument("dir")
    p.add_argument("--format", default="json")
    p.add_argument("--corpus", type=Path, default=None)
    p.set_defaults(fn=cmd_export)

    p = sub.add_parser("fuzz", help="generated cases on an implementation and on the reference; disagreements "
                                     "shrunk and written as fixtures")
    p.add_argument("--impl", required=True, help="'reference' or 'exec:COMMAND'")
    p.add_argument("--against", default="reference", help="the oracle (default: the bundled reference)")
    p.add_argument("--component", action="append", help="component(s) to fuzz (default: all)")
    p.add_argument("--operation", action="append", help="operation(s) to fuzz (default: all of the component)")
    p.add_argument("--examples", type=int, default=200, help="generated cases per operation (default 200)")
    p.add_argument("--seed", type=int, default=None, help="a seed for the generator (default: derandomized)")
    p.add_argument("--invalid", action="store_true", help="generate inputs that must be refused, never crash")
    p.add_argument("--out", default="fixtures/_generated", help="where shrunk disagreements are written as fixtures")
    p.add_argument("--report-dir", type=Path, help="default reports/fuzz/<implementation>-<version>/")
    p.add_argument("--case-timeout", type=float, default=10.0)
    p.add_argument("--startup-timeout", type=float, default=30.0)
    p.add_argument("--restart-budget", type=int, default=10)
    p.add_argument("--corpus", type=Path, default=None)
    p.set_defaults(fn=cmd_fuzz)

    p = sub.add_parser("fuzz-summary", help="add up the fuzzing runs below a folder into its summary.md")
    p.add_argument("dir", help="a folder holding runs, e.g. reports/fuzz/<implementation>-<version>")
    p.set_defaults(fn=cmd_fuzz_summary)

    p = sub.add_parser("path", help="print the corpus folder (for `pytest --impl ... $(topoconf path)`)")
    p.set_defaults(fn=cmd_path)
    return top


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:
        return EXIT_OK if exc.code in (0, None) else EXIT_USAGE
    try:
        return args.fn(args)
    except UsageError as exc:
        print(f"topoconf: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`topoconf list | head`): what it wanted it has.
        # Point stdout at nothing so the interpreter's final flush stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
