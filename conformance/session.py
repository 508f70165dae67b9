"""One run of the corpus against an implementation, as `topoconf run` and the
pytest plugin both make it: the options they share, the corpus and selection,
the expectations file, the check of the implementation's hello, the verdict and
the report. Both front ends call these functions, so they cannot drift apart.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance import corpus as corpus_mod
from conformance import expectations as expectations_mod
from conformance.adapters import Adapter, Hello, Limits
from conformance.corpus import Corpus, problem_report
from conformance.expectations import Expectations
from conformance.model import Problem, Record, is_applicable
from conformance.paths import corpus_dir, expectations_dir
from conformance.report import counts
from conformance.report import results as results_mod
from conformance.runner import Run, Selection

# Exit codes, the same for the CLI and the plugin.
EXIT_OK, EXIT_UNEXPECTED, EXIT_USAGE, EXIT_STARTUP = 0, 1, 2, 3


class SessionError(Exception):
    """A usage or configuration problem: nothing is run, the exit code is 2."""

    def __init__(self, message: str, problems: list[Problem] | None = None):
        super().__init__(message)
        self.problems = problems or []


# Options shared by `topoconf run` and the pytest plugin: (flags, keyword
# arguments), for argparse's add_argument and pytest's addoption alike.
SHARED_OPTIONS: list[tuple[tuple[str, ...], dict[str, Any]]] = [
    (("--expectations",), {"default": None, "help": "expectations file (default: the bundled one for the "
                                                      "implementation's name and version, if any)"}),
    (("--no-expectations",), {"action": "store_true", "default": False, "help": "apply no expectations file"}),
    (("--features",), {"action": "append", "default": [], "metavar": "F[,F]",
                       "help": "only cases naming one of these features"}),
    (("--exclude-features",), {"action": "append", "default": [], "metavar": "F[,F]",
                               "help": "leave out cases naming these features"}),
    (("--id",), {"action": "append", "default": [], "metavar": "GLOB",
                 "help": "only cases whose id matches (repeatable)"}),
    (("--component",), {"action": "append", "default": [], "metavar": "C", "help": "only this component (repeatable)"}),
    (("--case-timeout",), {"type": float, "default": 10.0, "help": "seconds per case for exec: (default 10)"}),
    (("--startup-timeout",), {"type": float, "default": 30.0, "help": "seconds to answer hello (default 30)"}),
    (("--restart-budget",), {"type": int, "default": 10, "help": "restarts allowed per process (default 10)"}),
    (("--report-dir",), {"default": None, "help": "where to write the report (default reports/<name>-<version>/)"}),
    (("--corpus",), {"default": None, "help": "the corpus folder (default: the bundled one)"}),
    (("--extra-corpus",), {"action": "append", "default": [], "metavar": "DIR",
                           "help": "a folder of your own fixtures, layered over the corpus (repeatable)"}),
    (("--allow-nothing-tested",), {"action": "store_true", "default": False,
                                   "help": "a run in which no case applied to the implementation exits 0"}),
]


def add_options(add: Callable[..., Any]) -> None:
    for flags, keywords in SHARED_OPTIONS:
        add(*flags, **keywords)


def csv(values: list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    return tuple(v.strip() for value in values or () for v in value.split(",") if v.strip())


@dataclass(frozen=True)
class Settings:
    impl: str
    strict: bool = False
    expectations: str | None = None
    no_expectations: bool = False
    features: tuple[str, ...] = ()
    exclude_features: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    components: tuple[str, ...] = ()
    limits: Limits = Limits()
    report_dir: str | None = None
    corpus: str | None = None
    extra_corpus: tuple[str, ...] = ()
    allow_nothing_tested: bool = False

    @classmethod
    def from_options(cls, options: Any, *, impl: str, strict: bool) -> Settings:
        """From an argparse namespace or pytest's config.option (same names)."""
        return cls(
            impl=impl,
            strict=strict,
            expectations=options.expectations,
            no_expectations=bool(options.no_expectations),
            features=csv(options.features),
            exclude_features=csv(options.exclude_features),
            # not split on commas: a matrix case's id holds them
            ids=tuple(options.id or ()),
            components=csv(options.component),
            limits=Limits(startup_timeout=options.startup_timeout, case_timeout=options.case_timeout,
                          restart_budget=options.restart_budget),
            report_dir=str(options.report_dir) if options.report_dir else None,
            corpus=str(options.corpus) if options.corpus else None,
            extra_corpus=tuple(str(p) for p in options.extra_corpus or ()),
            allow_nothing_tested=bool(options.allow_nothing_tested),
        )

    def invocation(self) -> dict[str, Any]:
        """What a rerun needs to reproduce this run, as the user wrote it."""
        return {"corpus": self.corpus, "extra_corpus": list(self.extra_corpus),
                "expectations": None if self.no_expectations else self.expectations,
                "no_expectations": self.no_expectations}


def _suggest(name: str, known) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_corpus_folder(folder: Path, what: str = "corpus") -> None:
    """A missing or empty folder is never a clean corpus."""
    if not folder.exists():
        raise SessionError(f"the {what} folder {folder} does not exist")
    if not folder.is_dir():
        raise SessionError(f"the {what} folder {folder} is not a folder")
    if not corpus_mod.fixture_files(folder):
        raise SessionError(f"the {what} folder {folder} holds no fixture file (*.yaml outside features/ and blocks/)")


def load_corpus(settings: Settings, paths: list[Path] | None = None) -> Corpus:
    root = Path(settings.corpus) if settings.corpus else corpus_dir()
    check_corpus_folder(root)
    extra = [Path(p) for p in settings.extra_corpus]
    for folder in extra:
        check_corpus_folder(folder, "extra corpus")
    corpus = corpus_mod.load(root, paths, extra=extra) if extra else corpus_mod.load(root, paths)
    lost = corpus.unattributed_problems()
    if lost:
        raise SessionError("the corpus has problems that lose cases; fix them (topoconf validate) before running",
                           problem_report.condense(lost, problem_report.row_counts(corpus.all_ids)))
    return corpus


def selection(settings: Settings, corpus: Corpus) -> Selection:
    chosen = Selection(features=settings.features, exclude_features=settings.exclude_features,
                       ids=settings.ids, components=settings.components)
    # A mistyped name would quietly select or exclude nothing.
    unknown = [f"feature {f!r}{_suggest(f, corpus.features)}" for f in chosen.features + chosen.exclude_features
               if f not in corpus.features]
    unknown += [f"component {c!r}{_suggest(c, corpus_mod.COMPONENTS)}" for c in chosen.components
                if c not in corpus_mod.COMPONENTS]
    if unknown:
        raise SessionError("unknown " + ", ".join(unknown) + " (see topoconf list)")
    return chosen


BUNDLED_PREFIX = "conformance/expectations/"


def expectations_for(settings: Settings, hello: Hello, corpus: Corpus) -> Expectations:
    """The expectations file to apply: the one given, or the bundled one for this
    implementation and version, or none. A bundled file is named the same way
    in every report wherever the package is installed; a given one as given."""
    if settings.no_expectations:
        return expectations_mod.NONE
    if settings.expectations is None:
        bundled = expectations_dir() / f"{hello.name}-{hello.version}.yaml"
        if not bundled.is_file():
            return expectations_mod.NONE
        expectations, problems = expectations_mod.load(bundled)
        expectations.file = BUNDLED_PREFIX + bundled.name
    else:
        expectations, problems = expectations_mod.load(Path(settings.expectations))
        expectations.file = settings.expectations
    problems = problems or expectations.stale(corpus.all_ids)
    if problems:
        raise SessionError("the expectations file is not usable", problems)
    return expectations


def hello_warnings(hello: Hello, corpus: Corpus) -> list[str]:
    """Names in the implementation's hello the corpus does not know: a typo there
    would silently turn every case needing that feature into `unsupported`."""
    warnings = []
    unknown = sorted(hello.features - set(corpus.features))
    if unknown:
        named = ", ".join(f"{f}{_suggest(f, corpus.features)}" for f in unknown)
        warnings.append(f"the implementation's hello lists features the corpus does not know: {named}")
    components = sorted(hello.components - set(corpus_mod.COMPONENTS))
    if components:
        warnings.append("the implementation's hello lists unknown components: " + ", ".join(components))
    return warnings


def build_report(outcome: Run, corpus: Corpus, expectations: Expectations, settings: Settings,
                 warnings: list[str]) -> dict[str, Any]:
    return results_mod.build(outcome, corpus.hash(), expectations_file=expectations.file, strict=settings.strict,
                             invocation=settings.invocation(), warnings=warnings)


def report_dir(document: dict[str, Any], settings: Settings) -> Path:
    return Path(settings.report_dir) if settings.report_dir else results_mod.default_dir(document, Path("reports"))


@dataclass(frozen=True)
class Verdict:
    code: int
    summary: str
    reasons: list[str]
    unexpected: list[Record]


def verdict(records: list[Record], complete: bool, settings: Settings, warnings: list[str],
            name: str) -> Verdict:
    """The run's exit code and the words that say why, the same for every front end."""
    unexpected = [r for r in records if r.unexpected(settings.strict)]
    tally = counts.tally([r.outcome for r in records])
    reasons = []
    if unexpected:
        reasons.append(f"{len(unexpected)} unexpected outcomes")
    if not complete:
        reasons.append("the run is INCOMPLETE: some cases were not run")
    if not any(is_applicable(r.outcome) for r in records) and not settings.allow_nothing_tested:
        reasons.append("nothing was tested: no selected case applied to the implementation "
                       "(--allow-nothing-tested accepts that)")
    if warnings and settings.strict:
        reasons.append("the implementation's hello names unknown features or components (a failure under --strict)")
    return Verdict(EXIT_UNEXPECTED if reasons else EXIT_OK, f"{name}: {tally.sentence()}.", reasons, unexpected)


def last_failed_ids(path: Path) -> tuple[str, ...]:
    """The ids of the unexpected outcomes of an earlier run, judged as that run judged them."""
    document = load_results(path)
    strict = bool(document["header"].get("strict"))
    ids = tuple(r["id"] for r in counts.unexpected(document["records"], strict))
    if not ids:
        raise SessionError(f"{path}: the run had no unexpected outcome; nothing to rerun")
    return ids


def load_results(path: Path) -> dict[str, Any]:
    """A results report, from its file or its report folder; one clear line when it is not one."""
    if path.is_dir():
        path = path / "results.json"
    if not path.is_file():
        raise SessionError(f"{path}: no such results report")
    try:
        return results_mod.load(path)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SessionError(f"{path}: not a results report ({first})") from None


def fuzz_operation(adapter: Adapter, oracle: Adapter, hello: Hello, component: str, operation: str,
                   examples: int, seed: int | None, invalid: bool = False):
    """One bounded differential run of generated cases, with the implementation's
    declared differences, as both front ends make it."""
    # The fuzz package loads hypothesis; a session that does not fuzz never pays for it.
    from conformance.fuzz import known, strategies  # noqa: PLC0415
    from conformance.fuzz.differential import fuzz_operation as run_fuzz  # noqa: PLC0415

    table = strategies.INVALID if invalid else strategies.VALID
    return run_fuzz(adapter, oracle, component, operation, table[(component, operation)], examples, seed,
                    strategies.ignored_for(component, operation, hello.features), invalid=invalid,
                    supported=strategies.supported_by(component, operation, hello.features),
                    known=known.for_operation(hello.name, hello.version, component, operation))
