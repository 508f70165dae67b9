"""The fuzzer as a second line: a bounded differential run of the reference
against each mutant the corpus did not kill.

The mutant is served over the protocol by `python -m reference_impl` run from
mutmut's mutants/ folder with MUTANT_UNDER_TEST naming it, so the fuzzer meets
it exactly as it meets an external implementation. Verdicts go to
.mutation/<component>/fuzz.json as they come, so an interrupted run resumes.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results import describe, load_equivalent, load_pass


def _fuzz_components(component) -> list[str]:
    return [folder.split("/", 1)[1] for folder in component.corpus]


def fuzz_one(work: Path, name: str, components: list[str], examples: int) -> dict:
    mutants = work / "corpus" / "mutants"
    serve = (f"env MUTANT_UNDER_TEST={shlex.quote(name)} PYTHONPATH={shlex.quote(str(mutants))} "
             f"{shlex.quote(sys.executable)} -m reference_impl")
    with tempfile.TemporaryDirectory(prefix="mutation-fuzz-") as scratch:
        command = ["nice", "-n", "19", sys.executable, "-m", "conformance", "fuzz", "--impl", f"exec:{serve}",
                   "--component", ",".join(components), "--examples", str(examples),
                   "--report-dir", str(Path(scratch) / "report"), "--out", str(Path(scratch) / "generated")]
        started = time.monotonic()
        # Run from the scratch folder: `-m` puts the working folder first on sys.path.
        done = subprocess.run(command, capture_output=True, text=True, cwd=scratch)
        seconds = time.monotonic() - started
        report = Path(scratch) / "report" / "fuzz.json"
        disagreements = []
        if report.exists():
            data = json.loads(report.read_text())
            disagreements = [op.get("operation") for op in data.get("operations", []) if op.get("disagreement")]
    return {"found": done.returncode == 1, "exit_code": done.returncode, "examples_per_operation": examples,
            "operations_disagreeing": disagreements, "seconds": round(seconds, 1),
            "stderr_tail": done.stderr.strip().splitlines()[-1:] if done.returncode not in (0, 1) else []}


def fuzz_survivors(component, work: Path, examples: int, limit: int | None,
                   components: list[str] | None = None, only: list[str] | None = None) -> None:
    path = work / "fuzz.json"
    verdicts = json.loads(path.read_text()) if path.exists() else {}
    corpus = load_pass(work / "corpus")
    survivors = sorted(n for n, s in corpus.items() if s in ("survived", "no tests"))
    equivalent = load_equivalent()
    # Malformed-input mutants are the invalid-input run's business, not this one's.
    candidates = [m.name for m in describe(work / "corpus", survivors)
                  if not any(e.matches(m) for e in equivalent)]
    if only:
        # Named mutants may be ones a corpus case added since the pass now kills.
        candidates = list(only)
    todo = [n for n in candidates if n not in verdicts][:limit]
    for i, name in enumerate(todo, 1):
        verdicts[name] = fuzz_one(work, name, components or _fuzz_components(component), examples)
        path.write_text(json.dumps(verdicts, indent=2, sort_keys=True) + "\n")
        print(f"[{i}/{len(todo)}] {name}: {'found' if verdicts[name]['found'] else 'not found'} "
              f"({verdicts[name]['seconds']}s)", flush=True)
