"""Reading mutmut's verdicts and writing reports/mutation/<component>.{md,json}."""

from __future__ import annotations

import ast
import json
import os
import platform
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
EQUIVALENT_DIR = HERE / "equivalent"

# mutmut's exit codes, as its own `mutmut results` names them.
_STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
           36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout",
           -11: "segfault", -9: "segfault", None: "not checked"}


def status_of(exit_code) -> str:
    return _STATUS.get(exit_code, "suspicious")


def load_pass(folder: Path) -> dict[str, str]:
    """Every mutant of one work folder with its verdict ('not checked' until run)."""
    statuses: dict[str, str] = {}
    for meta in sorted((folder / "mutants").rglob("*.py.meta")):
        data = json.loads(meta.read_text())
        for name, code in data["exit_code_by_key"].items():
            statuses[name] = status_of(code)
    return statuses


@dataclass(frozen=True)
class Mutant:
    name: str
    file: str
    function: str
    line: int
    diff: str

    def change(self) -> str:
        """The changed lines alone, without whitespace: what the equivalence key compares."""
        return "\n".join(line[0] + line[1:].strip() for line in self.diff.splitlines()
                         if line[:1] in "+-" and not line.startswith(("+++", "---")))


def _function_name(name: str) -> str:
    mangled = name.partition("__mutmut_")[0].rpartition(".")[2]
    if "ǁ" in mangled:  # a method: xǁClassǁmethod
        _, cls, method = mangled.split("ǁ")
        return f"{cls}.{method}"
    return mangled[2:]


def _module_file(name: str) -> str:
    module = name.partition("__mutmut_")[0].rpartition(".")[0]
    path = module.replace(".", "/")
    return path + "/__init__.py" if Path(path).is_dir() else path + ".py"


def _function_line(source: Path, function: str) -> int:
    tree = ast.parse(source.read_text())
    parts = function.split(".")
    nodes = tree.body
    found = None
    for part in parts:
        found = next((n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                      and n.name == part), None)
        if found is None:
            return 0
        nodes = found.body
    return min([found.lineno] + [d.lineno for d in getattr(found, "decorator_list", [])])


def _changed_offset(diff: str) -> int:
    """The 1-based line, within the function, of the first line the mutant changes."""
    old = 0
    for line in diff.splitlines():
        if line.startswith("@@"):
            old = int(line.split()[1].lstrip("-").split(",")[0]) - 1
        elif line.startswith(("---", "+++")):
            continue
        elif line[:1] == "-":
            return old + 1
        elif line[:1] == " ":
            old += 1
        elif line[:1] == "+":
            return old + 1
    return 1


def describe(folder: Path, names: list[str]) -> list[Mutant]:
    """file:line and diff of each named mutant, read from the work folder."""
    if not names:
        return []
    from mutmut.configuration import reset_config  # noqa: PLC0415
    from mutmut.mutation.diff_apply import get_diff_for_mutant  # noqa: PLC0415

    cwd = os.getcwd()
    os.chdir(folder)
    try:
        reset_config()
        described = []
        for name in names:
            file = _module_file(name)
            function = _function_name(name)
            diff = get_diff_for_mutant(name, path=file)
            start = _function_line(folder / file, function)
            described.append(Mutant(name, file, function, start + _changed_offset(diff) - 1 if start else 0, diff))
        return described
    finally:
        os.chdir(cwd)


# An entry's kind: "equivalent" cannot change an answer the contract judges;
# "malformed-input" changes only whether input the input schemas already rule
# out is refused, which no corpus case can hold (the corpus holds valid input;
# `topoconf fuzz --invalid` is the line for those). Both leave the score's
# denominator, and the report counts them apart.
KINDS = ("equivalent", "malformed-input")


@dataclass
class EquivalentEntry:
    file: str
    function: str
    change: str
    reason: str
    kind: str = "equivalent"

    def matches(self, mutant: Mutant) -> bool:
        if self.change.strip() == "*":  # every mutant of a function no operation calls
            return (self.file, self.function) == (mutant.file, mutant.function)
        mine = "\n".join(line[0] + line[1:].strip() for line in self.change.strip().splitlines())
        return (self.file, self.function, mine) == (mutant.file, mutant.function, mutant.change())


def load_equivalent(path: Path = EQUIVALENT_DIR) -> list[EquivalentEntry]:
    """The triaged mutants of every data file in a folder (or of one file); a malformed entry is an error
    naming the file, entry and field."""
    if path.is_dir():
        return [entry for file in sorted(path.glob("*.yaml")) for entry in _load_equivalent_file(file)]
    return _load_equivalent_file(path) if path.exists() else []


def _load_equivalent_file(path: Path) -> list[EquivalentEntry]:
    data = yaml.safe_load(path.read_text()) or {}
    entries = []
    for i, raw in enumerate(data.get("equivalent", []) or []):
        missing = [k for k in ("file", "function", "change", "reason") if not isinstance(raw.get(k), str)
                   or not raw.get(k).strip()]
        if missing:
            raise SystemExit(f"{path}: equivalent[{i}]: field(s) {', '.join(missing)} missing or empty "
                             f"(every entry needs file, function, change and a one-line reason)")
        kind = raw.get("kind", "equivalent")
        if kind not in KINDS:
            raise SystemExit(f"{path}: equivalent[{i}]: kind {kind!r} is none of {', '.join(KINDS)}")
        entries.append(EquivalentEntry(raw["file"], raw["function"], raw["change"], raw["reason"].strip(), kind))
    return entries


@dataclass
class Summary:
    component: str
    generated: int = 0
    killed_by_corpus: int = 0
    timeout_in_corpus: int = 0
    killed_only_by_unit_tests: int = 0
    killed_by_cases_added_since: int = 0
    survived: int = 0
    survived_unit_not_run: int = 0  # of `survived`: the unit pass has not judged them yet
    equivalent: int = 0
    malformed_input: int = 0
    not_checked: int = 0
    other: dict = field(default_factory=dict)

    @property
    def non_equivalent(self) -> int:
        return self.generated - self.equivalent - self.malformed_input - self.not_checked

    @property
    def score_with_added_cases(self) -> float | None:
        detected = self.killed_by_corpus + self.timeout_in_corpus + self.killed_by_cases_added_since
        return detected / self.non_equivalent if self.non_equivalent else None

    @property
    def corpus_score(self) -> float | None:
        detected = self.killed_by_corpus + self.timeout_in_corpus
        return detected / self.non_equivalent if self.non_equivalent else None


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def summarize(component, work: Path) -> tuple[Summary, list[dict], dict]:
    corpus = load_pass(work / "corpus")
    unit = load_pass(work / "unit") if (work / "unit" / "mutants").exists() else {}
    fuzz = json.loads((work / "fuzz.json").read_text()) if (work / "fuzz.json").exists() else {}
    recheck = json.loads((work / "recheck.json").read_text()) if (work / "recheck.json").exists() else {}
    equivalent = load_equivalent()
    summary = Summary(component.name, generated=len(corpus))
    corpus_survivors = sorted(n for n, s in corpus.items() if s in ("survived", "no tests"))
    described = {m.name: m for m in describe(work / "corpus", corpus_survivors)}
    rows = []
    for name, status in sorted(corpus.items()):
        if status == "killed":
            summary.killed_by_corpus += 1
        elif status == "timeout":
            summary.timeout_in_corpus += 1
        elif status == "not checked":
            summary.not_checked += 1
        elif status in ("survived", "no tests"):
            mutant = described[name]
            entry = next((e for e in equivalent if e.matches(mutant)), None)
            reason = entry.reason if entry else None
            unit_status = unit.get(name, "not checked")
            if entry is not None and entry.kind == "malformed-input":
                summary.malformed_input += 1
                verdict = "malformed-input"
            elif entry is not None:
                summary.equivalent += 1
                verdict = "equivalent"
            elif recheck.get(name, {}).get("killed"):
                summary.killed_by_cases_added_since += 1
                verdict = "killed by a case added since"
            elif unit_status in ("killed", "timeout"):
                summary.killed_only_by_unit_tests += 1
                verdict = "killed only by unit tests"
            else:
                summary.survived += 1
                summary.survived_unit_not_run += unit_status == "not checked"
                verdict = "survived"
            rows.append({**asdict(mutant), "corpus": status, "unit": unit_status, "verdict": verdict,
                         "added_case": recheck.get(name, {}).get("fixtures") if verdict.startswith("killed by a") else None,
                         "equivalent_reason": reason, "fuzz": fuzz.get(name)})
        else:
            summary.other[status] = summary.other.get(status, 0) + 1
    return summary, rows, fuzz


def write_report(component, work: Path, out: Path) -> Path:
    summary, rows, fuzz = summarize(component, work)
    timing_path = work / "timing.json"
    timing = json.loads(timing_path.read_text()) if timing_path.exists() else {}
    out.mkdir(parents=True, exist_ok=True)
    fuzzed = [r for r in rows if r["verdict"] in ("survived", "killed only by unit tests", "killed by a case added since")
              and r["fuzz"] is not None]
    fuzz_killed = sum(1 for r in fuzzed if r["fuzz"]["found"])
    document = {
        "component": component.name,
        "sources": list(component.sources),
        "corpus": list(component.corpus),
        "unit_tests": list(component.unit),
        "summary": {**asdict(summary), "non_equivalent": summary.non_equivalent,
                    "corpus_score": summary.corpus_score,
                    "score_with_added_cases": summary.score_with_added_cases},
        "fuzz": {"survivors_fuzzed": len(fuzzed), "found_by_fuzzer": fuzz_killed},
        "timing": timing,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "mutants_not_killed_by_corpus": rows,
    }
    (out / f"{component.name}.json").write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    before_path = work / "fuzz-before.json"
    before = json.loads(before_path.read_text()) if before_path.exists() else {}
    document["fuzz"]["before_strategy_change"] = before
    (out / f"{component.name}.json").write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    (out / f"{component.name}.md").write_text(_markdown(component, summary, rows, timing, fuzzed, fuzz_killed, before, fuzz))
    return out / f"{component.name}.md"


def _fuzz_table(after: dict, before: dict) -> list[str]:
    if not after and not before:
        return []
    lines = ["## Fuzzer runs against single mutants", "",
             "| mutant | examples per operation | before the strategy change | after |", "| --- | --- | --- | --- |"]
    for name in sorted(set(after) | set(before)):
        def verdict(v):
            return "-" if v is None else ("found" if v["found"] else "not found") + f" ({v['seconds']:.0f} s)"
        examples = (after.get(name) or before.get(name))["examples_per_operation"]
        lines.append(f"| `{name.rpartition('.')[2]}` | {examples} | {verdict(before.get(name))} | "
                     f"{verdict(after.get(name))} |")
    return lines + [""]


def _markdown(component, summary: Summary, rows, timing, fuzzed, fuzz_killed, before, fuzz=None) -> str:
    s = summary
    lines = [f"# Mutation testing: {component.name}", "",
             f"Mutated: {', '.join(f'`{p}`' for p in component.sources)}. Corpus: "
             f"{', '.join(f'`{p}`' for p in component.corpus)}. Unit and property tests: "
             f"{', '.join(f'`{p}`' for p in component.unit)}.", "",
             "| mutants | count |", "| --- | --- |",
             f"| generated | {s.generated} |",
             f"| killed by the corpus | {s.killed_by_corpus} |",
             f"| timed out under the corpus (counted as killed) | {s.timeout_in_corpus} |",
             f"| survived the corpus, killed by a case added since (`run.py recheck`) | "
             f"{s.killed_by_cases_added_since} |",
             f"| killed only by the unit/property tests | {s.killed_only_by_unit_tests} |",
             f"| survived the corpus and the unit tests | {s.survived - s.survived_unit_not_run} |",
             f"| survived the corpus, unit pass not run on them yet | {s.survived_unit_not_run} |",
             f"| equivalent (benchmarks/mutation/equivalent/) | {s.equivalent} |",
             f"| only change whether malformed input is refused (same file, kind malformed-input) "
             f"| {s.malformed_input} |",
             f"| not checked yet | {s.not_checked} |"]
    lines += [f"| {k} | {v} |" for k, v in sorted(s.other.items())]
    checked = s.non_equivalent
    lines += ["", f"**Killed by the corpus alone: {_pct(s.corpus_score)}** of the {checked} non-equivalent "
              f"mutants checked (killed + timed out, over generated - equivalent - malformed-input - not checked); "
              f"with the cases added since: {_pct(s.score_with_added_cases)}.", ""]
    if fuzzed:
        lines += [f"Fuzzer as a second line: a bounded `topoconf fuzz` run of the reference against each mutant "
                  f"found {fuzz_killed} of the {len(fuzzed)} non-equivalent corpus survivors it was run on.", ""]
    if before:
        found = sum(1 for v in before.values() if v["found"])
        lines += [f"Before the strategies were changed for them (`fuzz-before.json`), the same runs found {found} of "
                  f"{len(before)}.", ""]
    if timing:
        lines += ["Time on this machine (2 cores shared with other work, `nice -n 19`):", ""]
        for pass_name, t in timing.items():
            how = ("corpus_runner.py, one mutant at a time" if t.get("runner") == "fast"
                   else "mutmut's pytest session per mutant")
            lines.append(f"- {pass_name} pass: {t['seconds'] / 60:.1f} min wall over {t['sessions']} session(s), "
                         f"{t['mutants_run']} mutants run ({how})")
        lines.append("")
    fuzz_all = _fuzz_table(fuzz or {}, before)
    lines += fuzz_all
    groups = [("Survived both the corpus and the unit tests", "survived", lambda r: r["unit"] != "not checked"),
              ("Survived the corpus; the unit pass has not run on them yet", "survived",
               lambda r: r["unit"] == "not checked"),
              ("Survived the corpus pass, killed by a case added since", "killed by a case added since", None),
              ("Killed only by the unit/property tests (the corpus misses them)", "killed only by unit tests", None),
              ("Equivalent", "equivalent", None),
              ("Only change whether malformed input is refused", "malformed-input", None)]
    for title, verdict, also in groups:
        chosen = [r for r in rows if r["verdict"] == verdict and (also is None or also(r))]
        if not chosen and also is not None:
            continue
        lines += [f"## {title} ({len(chosen)})", ""]
        for r in chosen:
            extra = f" — {verdict}: {r['equivalent_reason']}" if r["equivalent_reason"] else ""
            fuzz = ""
            if r["fuzz"] is not None:
                fuzz = " — fuzzer: " + ("found it" if r["fuzz"]["found"] else "did not find it")
            lines += [f"### `{r['file']}:{r['line']}` `{r['function']}` ({r['name'].rpartition('__mutmut_')[2]},"
                      f" corpus: {r['corpus']}, unit: {r['unit']}){extra}{fuzz}", "",
                      "```diff", r["diff"], "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def write_index(components, work_root: Path, out: Path) -> Path:
    """reports/mutation/README.md: one row per component, run or not."""
    lines = ["# Mutation scores of the reference", "",
             "Killed by the corpus alone, over the non-equivalent mutants checked "
             "(`python benchmarks/mutation/run.py report`; see README.md, Mutation testing).", "",
             "| component | generated | checked | killed by corpus (+ timed out) | killed by cases added since "
             "| killed only by unit tests | survived | equivalent | malformed input | corpus score "
             "| with added cases | run |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for component in components:
        work = work_root / component.name
        if not (work / "corpus" / "mutants").exists():
            lines.append(f"| {component.name} | - | - | - | - | - | - | - | - | - | - | not run |")
            continue
        s, _, _ = summarize(component, work)
        if s.not_checked == s.generated:
            lines.append(f"| {component.name} | {s.generated} | 0 | - | - | - | - | - | - | - | - | not run yet |")
            continue
        state = "complete" if s.not_checked == 0 else f"partial ({s.not_checked} not checked)"
        lines.append(f"| {component.name} | {s.generated} | {s.generated - s.not_checked} | "
                     f"{s.killed_by_corpus} (+{s.timeout_in_corpus}) | {s.killed_by_cases_added_since} | "
                     f"{s.killed_only_by_unit_tests}{f' (unit pass not run on {s.survived_unit_not_run})' if s.survived_unit_not_run else ''} | {s.survived} | {s.equivalent} | {s.malformed_input} | "
                     f"{_pct(s.corpus_score)} | {_pct(s.score_with_added_cases)} | {state} |")
    out.mkdir(parents=True, exist_ok=True)
    (out / "README.md").write_text("\n".join(lines) + "\n")
    return out / "README.md"
