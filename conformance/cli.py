"""`topoconf`: run the corpus, validate it, list it, render and compare reports.

Exit codes: 0 every outcome as expected; 1 unexpected outcomes (or problems found
by `validate`); 2 usage or configuration error; 3 the implementation failed to start.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import itertools
import json
import os
import shutil
import sys
import textwrap
from collections import Counter
from dataclasses import replace
from pathlib import Path

import yaml
from tabulate import tabulate

from conformance import __version__, differences, export, release, schemas, session, skeleton
from conformance import corpus as corpus_mod
from conformance import expectations as expectations_mod
from conformance.adapters import Limits, StartupError, from_spec
from conformance.corpus import cache as corpus_cache
from conformance.corpus import extra as extra_corpus
from conformance.corpus import problem_report
from conformance.fuzz import summary as fuzz_summary
from conformance.paths import corpus_dir, expectations_dir
from conformance.report import details, matrix_html
from conformance.report import diff as report_diff
from conformance.report import matrix as report_matrix
from conformance.report import results as results_mod
from conformance.report.pictures import has_picture, picture
from conformance.runner import Selection, run, select

EXIT_OK, EXIT_UNEXPECTED, EXIT_USAGE, EXIT_STARTUP = (session.EXIT_OK, session.EXIT_UNEXPECTED,
                                                    session.EXIT_USAGE, session.EXIT_STARTUP)


class UsageError(Exception):
    pass


def _csv(values: list[str] | None) -> tuple[str, ...]:
    return session.csv(values)


def _selection(args, corpus) -> Selection:
    settings = session.Settings(impl="", features=session.csv(args.features),
                                exclude_features=session.csv(args.exclude_features),
                                ids=tuple(args.id or ()), components=session.csv(args.component))
    return session.selection(settings, corpus)


def _add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--features", action="append", metavar="F[,F]", help="only cases naming one of these features")
    parser.add_argument("--exclude-features", action="append", metavar="F[,F]", help="leave out cases naming these")
    parser.add_argument("--id", action="append", metavar="GLOB", help="only cases whose id matches (repeatable)")
    parser.add_argument("--component", action="append", metavar="C", help="only this component (repeatable)")
    parser.add_argument("--corpus", type=Path, default=None, help="the corpus folder (default: the bundled one)")


def _add_extra_corpus(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--extra-corpus", action="append", type=Path, default=[], metavar="DIR",
                        help="a folder of your own <component>/*.yaml fixtures (and blocks/), layered over the "
                             "corpus; repeatable")


def _load_with_extra(args):
    """The corpus with the --extra-corpus folders; a folder that cannot be used
    is a usage error, never a silently smaller corpus."""
    corpus = corpus_mod.load(args.corpus, extra=args.extra_corpus)
    unusable = [p for p in corpus.problems if p.rule == extra_corpus.RULE]
    if unusable:
        _print_problems(unusable, sys.stderr)
        raise UsageError("an --extra-corpus folder is not usable")
    return corpus


def _print_problems(problems, stream=None) -> None:
    for problem in problems:
        print(problem.render(), file=stream or sys.stdout)


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
    settings = session.Settings.from_options(args, impl=args.impl, strict=args.strict)
    if args.last_failed:
        settings = replace(settings, ids=settings.ids + session.last_failed_ids(Path(args.last_failed)))
    corpus = session.load_corpus(settings)
    chosen = session.selection(settings, corpus)
    cases, broken = select(corpus, chosen)
    if not cases and not broken:
        raise UsageError("the selection holds no case (check --id, --features, --exclude-features, --component)")
    try:
        adapter = from_spec(settings.impl, settings.limits)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        hello = adapter.start()
    except StartupError as exc:
        print(f"topoconf: the implementation failed to start: {exc}", file=sys.stderr)
        return EXIT_STARTUP
    try:
        expectations = session.expectations_for(settings, hello, corpus)
        warnings = session.hello_warnings(hello, corpus)
        for warning in warnings:
            print(f"topoconf: warning: {warning}", file=sys.stderr)
        outcome = run(cases, broken, adapter, hello, expectations, _progress(args.quiet))
    finally:
        adapter.close()
    outcome.selection = chosen.describe()
    document = session.build_report(outcome, corpus, expectations, settings, warnings)
    written = results_mod.write_all(document, session.report_dir(document, settings))
    judged = session.verdict(outcome.records, outcome.complete, settings, warnings,
                             f"{hello.name} {hello.version}")
    print(judged.summary)
    header = document["header"]
    shown = {r["id"]: r for r in document["records"]}
    for record in judged.unexpected[:args.show]:
        print()
        print("\n".join(details.plain(details.of(shown[record.id], header))))
    if len(judged.unexpected) > args.show:
        print(f"\n... and {len(judged.unexpected) - args.show} more unexpected outcomes; see {written[1]}")
    for reason in judged.reasons:
        print(f"FAILED: {reason}.")
    print(f"Report: {written[1]}")
    return judged.code


def validate_all(paths: list[Path] | None, root: Path | None, extra: list[Path] | tuple[Path, ...] = ()):
    """The corpus and every problem, one per base case (matrix rows merged) in file
    and line order."""
    problems = []
    root = root or corpus_dir()
    session.check_corpus_folder(root)
    for path in sorted(schemas.schemas_dir().rglob("*.json")):
        try:
            schemas.check_file(path)
        except Exception as exc:  # noqa: BLE001 - any defect of a schema is reported, not raised
            problems.append(corpus_mod.Problem(str(path), None, None, "", "schema", str(exc).splitlines()[0]))
    for path in paths or []:
        # A mistyped path must not pass as a clean corpus.
        if not corpus_mod.fixture_files(root, [path], extra):
            what = "holds no fixture file" if path.exists() else "does not exist"
            problems.append(corpus_mod.Problem(str(path), None, None, "", "path", f"{path} {what}"))
    corpus = corpus_mod.load(root, paths, extra)
    problems += corpus.problems
    # The bundled expectations name cases of the bundled corpus; against any
    # other corpus every entry would look stale.
    if not paths and root.resolve() == corpus_dir().resolve():
        # The fuzz package pulls in the generator; only a full validation needs it.
        from conformance.fuzz import known, strategies  # noqa: PLC0415

        operations = set(strategies.VALID) | set(strategies.INVALID)
        for path in sorted(expectations_dir().glob("*.yaml")):
            expectations, found = expectations_mod.load(path)
            problems += found or (expectations.stale(corpus.all_ids)
                                  + known.check(expectations, corpus.all_ids, operations))
    return corpus, problem_report.condense(problems, problem_report.row_counts(corpus.all_ids))


def cmd_validate(args) -> int:
    corpus, problems = validate_all([Path(p) for p in args.paths] or None, args.corpus, args.extra_corpus)
    _print_problems(problems)
    print(f"{len(corpus.files)} files, {len(corpus.cases)} valid cases, {len(corpus.broken)} broken cases, "
          f"{len(problems)} problems.")
    return EXIT_UNEXPECTED if problems else EXIT_OK


def cmd_list(args) -> int:
    session.check_corpus_folder(args.corpus or corpus_dir())
    corpus = _load_with_extra(args)
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
    print(tabulate(sorted(per_component.items()) + [("all", len(cases))], headers=["component", "cases"],
                   tablefmt="github"))
    print()
    rows = [(f, corpus.features[f]["component"], per_feature.get(f, 0)) for f in sorted(corpus.features)
            if not args.component or corpus.features[f]["component"] in _csv(args.component)]
    print(tabulate(rows, headers=["feature", "component", "cases"], tablefmt="github"))
    return EXIT_OK


def cmd_report(args) -> int:
    source = Path(args.results)
    document = session.load_results(source)
    directory = Path(args.out) if args.out else (source if source.is_dir() else source.parent)
    for path in results_mod.write_all(document, directory)[1:]:
        print(f"wrote {path}")
    return EXIT_OK


def cmd_release(args) -> int:
    """A run (or an earlier run's results.json, with --from-results) written as a release bundle."""
    out = Path(args.out)
    if args.report_dir:
        raise UsageError("a bundle is written to --out; --report-dir is not used by release")
    if args.from_results:
        document = session.load_results(Path(args.from_results))
        code = EXIT_OK
    else:
        args.report_dir, args.show, args.quiet, args.last_failed = str(out), 0, args.quiet, None
        code = cmd_run(args)
        if code == EXIT_STARTUP or not (out / "results.json").is_file():
            return code
        document = session.load_results(out)
    declared = set(document["header"]["implementation"]["capabilities"]["features"])
    unknown = [c for c in _csv(args.claim) if c not in declared]
    if unknown:
        raise UsageError("the implementation does not declare the claimed " + ", ".join(unknown))
    for path in release.write(document, out, _csv(args.claim), args.out)[-2:]:
        print(f"wrote {path}")
    return code


def cmd_verify(args) -> int:
    directory = Path(args.dir)
    if not directory.is_dir():
        raise UsageError(f"{directory}: no such bundle folder")
    root = Path(args.corpus) if args.corpus else corpus_dir()
    check = release.verify(directory, corpus_mod.corpus_hash(root))
    for problem in check.problems:
        print(f"{directory}: {problem}")
    if check.summary:
        print(check.summary)
    print(f"{directory}: {'VERIFIED' if not check.problems else f'NOT VERIFIED ({len(check.problems)} problems)'}")
    return EXIT_UNEXPECTED if check.problems else EXIT_OK


def cmd_diff(args) -> int:
    try:
        old, new = report_diff.load(args.old), report_diff.load(args.new)
    except report_diff.NotAReport as exc:
        raise UsageError(str(exc)) from None
    changes = report_diff.compare(old, new)
    print(report_diff.render_changes(changes), end="")
    return EXIT_UNEXPECTED if changes.regressions and not args.report_only else EXIT_OK


def cmd_matrix(args) -> int:
    try:
        columns = report_matrix.load_columns([Path(p) for p in args.reports])
    except report_diff.NotAReport as exc:
        raise UsageError(str(exc)) from None
    text = report_matrix.render(columns)
    if args.html:
        page = Path(args.html)
        page.write_text(matrix_html.render(columns, page), encoding="utf-8")
        print(f"wrote {page}")
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    else:
        print(text, end="")
    return EXIT_OK


def cmd_new(args) -> int:
    try:
        render = skeleton.render_file if args.file else skeleton.render
        print(render(args.component, args.operation), end="")
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    return EXIT_OK


def cmd_export(args) -> int:
    if args.format != "json":
        raise UsageError("only --format json is supported")
    session.check_corpus_folder(args.corpus or corpus_dir())
    corpus = corpus_mod.load(args.corpus, extra=args.extra_corpus)
    if corpus.problems:
        _print_problems(corpus.problems, sys.stderr)
        raise UsageError("the corpus has problems; fix them (topoconf validate) before exporting")
    written = export.write_json(corpus, Path(args.dir))
    print(f"wrote {len(written)} files to {args.dir}")
    return EXIT_OK


def cmd_fuzz(args) -> int:
    # The fuzz package loads hypothesis (a third of a second); only this command needs it.
    from conformance.fuzz import emit, strategies  # noqa: PLC0415
    from conformance.fuzz.differential import FuzzReport  # noqa: PLC0415
    from conformance.fuzz.report import run_name  # noqa: PLC0415
    from conformance.fuzz.report import write as write_report  # noqa: PLC0415

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
                result = session.fuzz_operation(implementation, reference, hello, component, operation,
                                                args.examples, args.seed, invalid=args.invalid)
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
    directory = args.report_dir or (Path("reports") / "fuzz" / f"{hello.name}-{hello.version}" / "runs"
                                    / run_name(wanted or components, args.invalid, args.seed))
    summary = write_report(report, written, directory)
    for path in written:
        print(f"wrote fixture {path}")
    print(f"{report.examples} generated cases, {len(report.disagreements)} disagreements; report {summary}")
    return EXIT_UNEXPECTED if report.disagreements else EXIT_OK


def cmd_fuzz_summary(args) -> int:
    try:
        path = fuzz_summary.write(Path(args.dir))
    except (FileNotFoundError, fuzz_summary.BadRun) as exc:
        raise UsageError(str(exc)) from None
    print(f"wrote {path}")
    return EXIT_OK


def cmd_differences(args) -> int:
    expectations, problems = expectations_mod.load(Path(args.expectations))
    if problems:
        _print_problems(problems)
        return EXIT_UNEXPECTED
    if args.write is None:
        print(differences.block(expectations))
        return EXIT_OK
    target = Path(args.write)
    try:
        target.write_text(differences.rewritten(target.read_text(encoding="utf-8"), expectations), encoding="utf-8")
    except (OSError, differences.NoTable) as exc:
        raise UsageError(f"{target}: {exc}") from None
    print(f"wrote {target}")
    return EXIT_OK


def _side_by_side(left: list[str], right: list[str], titles: tuple[str, str]) -> list[str]:
    width = max([len(titles[0]), *(len(line) for line in left)]) + 2
    width = min(width, max(30, shutil.get_terminal_size((160, 40)).columns // 2))
    rows = [f"{titles[0]:<{width}}| {titles[1]}", f"{'-' * width}+{'-' * (len(titles[1]) + 1)}"]
    for a, b in itertools.zip_longest(left, right, fillvalue=""):
        a = a if len(a) < width else a[:width - 2] + "~"
        rows.append(f"{a:<{width}}| {b}")
    return rows


def cmd_show(args) -> int:
    settings = session.Settings(impl="", corpus=str(args.corpus) if args.corpus else None,
                                extra_corpus=tuple(args.extra_corpus or ()))
    corpus = session.load_corpus(settings)
    case = corpus.by_id.get(args.id)
    if case is None:
        matches = [c for c in corpus.cases if expectations_mod.id_matches(args.id, c.id)]
        if len(matches) == 1:
            (case,) = matches
        elif matches:
            listed = "\n".join(f"  {c.id}" for c in matches[:20])
            raise UsageError(f"{len(matches)} cases match {args.id!r}; name one:\n{listed}")
        else:
            close = difflib.get_close_matches(args.id, list(corpus.by_id), n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise UsageError(f"no case {args.id!r} in the corpus{hint}")
    if args.svg:
        return _show_svg(args, case)
    dump = functools.partial(yaml.safe_dump, sort_keys=False, default_flow_style=None, width=110, allow_unicode=True)
    print(f"{case.id}: {case.title}")
    print(f"  file:      {case.file}:{case.line}")
    print(f"  source:    {case.source}")
    print(f"  operation: {case.component} {case.operation}")
    print(f"  features:  {', '.join(case.features)}")
    if case.notes:
        print("  notes:")
        print(textwrap.indent(case.notes.strip(), "    "))
    print("input:")
    print(textwrap.indent(dump(case.input).rstrip(), "  "))
    print("expect:")
    print(textwrap.indent(dump(case.expect).rstrip(), "  "))
    if not args.results:
        return EXIT_OK
    document = session.load_results(Path(args.results))
    record = next((r for r in document["records"] if r["id"] == case.id), None)
    if record is None:
        raise UsageError(f"{args.results}: the run has no record of {case.id}")
    implementation = document["header"]["implementation"]["implementation"]
    print(f"in the run of {implementation['name']} {implementation['version']}: {record['outcome']}"
          + (f" ({record['message']})" if record.get("message") else ""))
    detail = details.of(record, document["header"])
    if detail.expectation:
        print(f"  {detail.expectation}")
    for line in detail.diff:
        print(f"  {line}")
    if detail.actual is None:
        print("The report keeps the implementation's answer only for outcomes that need attention "
              f"(not for {record['outcome']}).")
    else:
        expected = dump(case.expect.get("result")).rstrip().splitlines()
        print("\n".join(_side_by_side(expected, detail.actual.splitlines(), ("expected", "actual"))))
    if detail.stderr:
        print("stderr (last lines):")
        print(textwrap.indent("\n".join(detail.stderr), "  "))
    print(f"rerun: {detail.rerun}")
    return EXIT_OK


def _show_svg(args, case) -> int:
    """The case's picture alone: the expected result, beside what a run answered with --results."""
    if not has_picture(case.component, case.operation):
        raise UsageError(f"{case.id}: operation {case.component} {case.operation} has no picture")
    actual = None
    if args.results:
        document = session.load_results(Path(args.results))
        record = next((r for r in document["records"] if r["id"] == case.id), None)
        if record is None:
            raise UsageError(f"{args.results}: the run has no record of {case.id}")
        if "actual" in (record.get("truncated") or ()):
            raise UsageError(f"{args.results}: the answer to {case.id} was cut; it cannot be drawn")
        actual = record.get("actual")
    svg = picture(case.component, case.operation, case.input, case.expect.get("result"), actual, label=case.id)
    if svg is None:
        raise UsageError(f"{case.id}: its input or result is not one the picture can draw")
    print(svg)
    return EXIT_OK


def cmd_path(_args) -> int:
    print(corpus_dir())
    return EXIT_OK


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="topoconf", description=__doc__.split("\n\n")[0])
    top.add_argument("--version", action="version", version=f"topoconf {__version__}")
    top.add_argument("--no-cache", action="store_true",
                     help=f"load the corpus from its files, not from the corpus cache (also {corpus_cache.ENV_OFF}=1)")
    sub = top.add_subparsers(dest="command", required=True)

    p = sub.add_parser("run", help="run the corpus against an implementation and write reports")
    p.add_argument("--impl", default="reference", help="'reference' or 'exec:COMMAND' (default: reference)")
    p.add_argument("--strict", action="store_true", help="an unexpected pass (xpass), or unknown names in the "
                                                          "implementation's hello, fail the run")
    session.add_options(p.add_argument)
    p.add_argument("--last-failed", metavar="RESULTS", help="rerun exactly the unexpected outcomes of an earlier "
                                                             "run (its results.json or report folder)")
    p.add_argument("--show", type=int, default=20, metavar="N", help="unexpected outcomes shown in full (default 20)")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.set_defaults(fn=cmd_run)

    p = sub.add_parser("release", help="run the corpus and write a release bundle (reports, implementation.yaml, "
                                        "a README with the command that reproduces it)")
    p.add_argument("--impl", default="reference", help="'reference' or 'exec:COMMAND' (default: reference)")
    p.add_argument("--out", required=True, help="the bundle folder")
    p.add_argument("--strict", action="store_true", help="an unexpected pass, or unknown names in hello, fail the run")
    p.add_argument("--claim", action="append", default=[], metavar="F[,F]",
                   help="the features (profiles) the implementation claims (default: all it declares)")
    p.add_argument("--from-results", metavar="RESULTS", help="bundle an earlier run (its results.json or folder) "
                                                              "instead of running")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    session.add_options(p.add_argument)
    p.set_defaults(fn=cmd_release)

    p = sub.add_parser("verify", help="check a release bundle: files, suite version, corpus hash, a complete run, "
                                       "every claimed profile passing or explained")
    p.add_argument("dir", help="the bundle folder")
    p.add_argument("--corpus", type=Path, default=None, help="the corpus folder (default: the bundled one)")
    p.set_defaults(fn=cmd_verify)

    p = sub.add_parser("validate", help="check fixture files, blocks, schemas and expectations")
    p.add_argument("paths", nargs="*", help="fixture files or folders (default: the whole corpus); their ids are "
                                             "still checked against the whole corpus")
    p.add_argument("--corpus", type=Path, default=None)
    _add_extra_corpus(p)
    p.set_defaults(fn=cmd_validate)

    p = sub.add_parser("list", help="cases and features, with counts")
    p.add_argument("--ids", action="store_true", help="list case ids and titles")
    p.add_argument("--format", choices=("text", "json"), default="text")
    _add_selection(p)
    _add_extra_corpus(p)
    p.set_defaults(fn=cmd_list)

    p = sub.add_parser("report", help="re-render compliance.md, compliance.html and junit.xml from results.json")
    p.add_argument("results", help="a results.json or the report folder holding it")
    p.add_argument("--out", help="folder to write to (default: beside results.json)")
    p.set_defaults(fn=cmd_report)

    p = sub.add_parser("diff", help="compare two runs (results.json or report folders), as Markdown; "
                                     "exit 1 on regressions")
    p.add_argument("old", help="the earlier run: its results.json or its report folder")
    p.add_argument("new", help="the later run: its results.json or its report folder")
    p.add_argument("--report-only", action="store_true", help="exit 0 even when a passing case stopped passing")
    # Failing on regressions is the default now; the old flag is still accepted.
    p.add_argument("--fail-on-regression", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(fn=cmd_diff)

    p = sub.add_parser("matrix", help="one Markdown table of features over several reports (releases, branches)")
    p.add_argument("reports", nargs="+", metavar="REPORT_DIR", help="report folders (or their results.json)")
    p.add_argument("--out", help="write the table to this file instead of stdout")
    p.add_argument("--html", metavar="FILE", help="also write the table as a page whose cells link to each "
                                                  "run's compliance.html, showing that feature's cases")
    p.set_defaults(fn=cmd_matrix)

    p = sub.add_parser("new", help="print a skeleton case (or, with --file, a whole fixture file) to fill in")
    p.add_argument("component")
    p.add_argument("operation")
    p.add_argument("--file", action="store_true", help="a complete fixture file: header, defaults and one case")
    p.set_defaults(fn=cmd_new)

    p = sub.add_parser("export", help="write the expanded corpus as plain JSON")
    p.add_argument("dir")
    p.add_argument("--format", default="json")
    p.add_argument("--corpus", type=Path, default=None)
    _add_extra_corpus(p)
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
    p.add_argument("--report-dir", type=Path, help="where fuzz.json and fuzz.md go (default reports/fuzz/<implementation>-<version>/runs/"
                        "<operations>-<valid|invalid>-<seed>/, not committed: fuzz-summary adds it up)")
    p.add_argument("--case-timeout", type=float, default=10.0)
    p.add_argument("--startup-timeout", type=float, default=30.0)
    p.add_argument("--restart-budget", type=int, default=10)
    p.add_argument("--corpus", type=Path, default=None)
    p.set_defaults(fn=cmd_fuzz)

    p = sub.add_parser("fuzz-summary", help="add the fuzzing runs below a release's folder to its summary.json "
                                             "and render summary.md")
    p.add_argument("dir", help="a release's folder, e.g. reports/fuzz/<implementation>-<version>")
    p.set_defaults(fn=cmd_fuzz_summary)

    p = sub.add_parser("differences", help="the table of a release's differences, from its expectations file")
    p.add_argument("expectations", help="an expectations file, e.g. conformance/expectations/koordinator-v1.8.0.yaml")
    p.add_argument("--write", metavar="DOC", default=None,
                   help="replace the generated table in this document (e.g. docs/operations/koordinator.md)")
    p.set_defaults(fn=cmd_differences)

    p = sub.add_parser("show", help="print one case whole; with --results, expected and actual side by side")
    p.add_argument("id", help="a case id (or a glob matching exactly one)")
    p.add_argument("--results", metavar="RESULTS", help="a run's results.json or report folder")
    p.add_argument("--svg", action="store_true", help="print the case's picture as SVG (expected, and with "
                                                      "--results the actual answer beside it)")
    p.add_argument("--corpus", type=Path, default=None, help="the corpus folder (default: the bundled one)")
    p.add_argument("--extra-corpus", action="append", default=[], metavar="DIR", help="a folder of your own fixtures")
    p.set_defaults(fn=cmd_show)

    p = sub.add_parser("path", help="print the corpus folder (for `pytest --impl ... $(topoconf path)`)")
    p.set_defaults(fn=cmd_path)
    return top


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:
        return EXIT_OK if exc.code in (0, None) else EXIT_USAGE
    if args.no_cache:
        # Through the environment, so that every load in this process and its children sees it.
        os.environ[corpus_cache.ENV_OFF] = "1"
    try:
        return args.fn(args)
    except UsageError as exc:
        print(f"topoconf: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except session.SessionError as exc:
        _print_problems(exc.problems, sys.stderr)
        print(f"topoconf: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`topoconf list | head`): what it wanted it has.
        # Point stdout at nothing so the interpreter's final flush stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
