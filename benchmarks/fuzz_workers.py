"""Differential fuzzing with its budget split over pytest-xdist workers: generated
cases per second with 1 and with 2 workers on the same command.

    python benchmarks/fuzz_workers.py [--impl SPEC] [--examples N] [--component C]

Each run is `pytest --impl SPEC --fuzz-only --fuzz-examples N --fuzz-seed 1
-n W --fuzz-shards 2 <corpus>/<component>`: the same two shards per operation
(the same generated inputs) whether one worker runs them or two. The generated
cases are read from the run's merged fuzz.json. Writes fuzz-workers.json and
fuzz-workers.md; wall time and CPU time (all processes of the run, from wait4)
are both recorded, since the machine may be shared. Tests never assert on them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent


def one_run(impl: str, examples: int, component: str, workers: int) -> dict:
    report = Path(tempfile.mkdtemp(prefix="topoconf-bench-fuzz-"))
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--impl", impl, "--fuzz-only",
               "--fuzz-examples", str(examples), "--fuzz-seed", "1", "--fuzz-shards", "2",
               "--report-dir", str(report), "-n", str(workers), str(ROOT / "fixtures" / component)]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = process.stdout.read().decode() if process.stdout else ""
    _, status = os.waitpid(process.pid, 0)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    found = list(report.glob("runs/*/fuzz.json"))
    if code not in (0, 1) or not found:
        raise SystemExit(f"{' '.join(command)} exited {code} without a fuzz.json:\n{output[-3000:]}")
    document = json.loads(found[0].read_text())
    return {"workers": workers, "wall_s": wall, "cases": document["examples"],
            "disagreements": document["disagreements"], "cases_per_s": document["examples"] / wall, "exit": code}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--impl", default=f"exec:{sys.executable} -m reference_impl")
    parser.add_argument("--examples", type=int, default=100, help="generated cases per operation (default 100)")
    parser.add_argument("--component", default="kubelet")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "benchmarks")
    args = parser.parse_args()
    # The report names the interpreter as a reader would type it, not where this one lives.
    shown = args.impl.replace(sys.executable, "python")
    load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
    rows = []
    for workers in (1, 2):
        before = os.times()
        row = one_run(args.impl, args.examples, args.component, workers)
        after = os.times()
        # Every process of the run (pytest, its workers, the implementations
        # they started) is a descendant that was waited for.
        row["cpu_s"] = (after.children_user + after.children_system) - (before.children_user + before.children_system)
        rows.append(row)
    header = {"generated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "python": platform.python_version(),
              "machine": platform.machine(), "cpus": os.cpu_count(), "impl": shown,
              "examples_per_operation": args.examples, "component": args.component, "load_before": load_before,
              "load_after": " ".join(f"{x:.1f}" for x in os.getloadavg())}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "fuzz-workers.json").write_text(json.dumps({"header": header, "runs": rows}, indent=1) + "\n")
    table = tabulate([[r["workers"], r["cases"], r["disagreements"], f"{r['wall_s']:.1f}", f"{r['cases_per_s']:.1f}",
                       f"{r['cpu_s']:.1f}", f"{r['cases'] / r['cpu_s']:.1f}" if r["cpu_s"] else ""] for r in rows],
                     headers=["xdist workers", "generated cases", "disagreements", "wall s", "cases/s (wall)",
                              "CPU s", "cases per CPU s"], tablefmt="github")
    text = (f"# Differential fuzzing over pytest-xdist workers\n\n"
            f"`pytest --impl {shown} --fuzz-only --fuzz-examples {args.examples} --fuzz-seed 1 --fuzz-shards 2 "
            f"-n W fixtures/{args.component}`: the same two shards per operation (the same generated inputs) with "
            f"one and with two workers. Python {header['python']} on {header['machine']} with {header['cpus']} CPUs, "
            f"{header['generated_at']}; load average {load_before} at the start and {header['load_after']} at the "
            f"end (a shared machine: wall time also counts waiting for a core). Written by "
            f"`python benchmarks/fuzz_workers.py`.\n\n{table}\n")
    (args.out / "fuzz-workers.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
