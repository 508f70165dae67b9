"""The harness's own costs: how long `topoconf list`, `show` and `run --id`
take to start with a cold and a warm corpus cache, and where the time of a
whole-corpus run against the reference in-process goes.

    python benchmarks/harness.py [--repeat N] [--out reports/benchmarks]

Writes harness.json and harness.md. Each command runs as its own process, as a
user starts it; its wall time and its CPU time (user + system, from wait4) are
both recorded, since on a shared machine the wall time also counts the waits
for a core. The machine's load average when the run started and ended is in the
header. Tests never assert on these numbers.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import platform
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance import corpus as corpus_mod  # noqa: E402
from conformance.adapters import Limits, from_spec  # noqa: E402
from conformance.corpus import cache  # noqa: E402
from conformance.runner import judge, run  # noqa: E402
from reference_impl import dispatch  # noqa: E402

CASE = "kubelet.gates.kep6007.both-options-gate-off"


def topoconf(*args: str) -> list[str]:
    return [sys.executable, "-m", "conformance", *args]


def timed_process(command: list[str], env: dict[str, str]) -> dict:
    """Wall and CPU seconds and peak memory of one process, from its own rusage."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read().decode() if process.stderr else ""
    if process.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} exited {process.returncode}:\n{stderr}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mib": usage.ru_maxrss / 1024}


def bench_start(repeat: int) -> list[dict]:
    """Each command cold (an empty cache folder, so it loads and stores the
    corpus), warm (the cache filled), and with the cache turned off."""
    report = Path(tempfile.mkdtemp(prefix="topoconf-bench-report-"))
    commands = {
        "topoconf list": topoconf("list"),
        f"topoconf show {CASE}": topoconf("show", CASE),
        f"topoconf run --id {CASE}": topoconf("run", "--impl", "reference", "--id", CASE, "--quiet",
                                              "--report-dir", str(report)),
    }
    rows = []
    for name, command in commands.items():
        samples: dict[str, list[dict]] = {"cold": [], "warm": [], "no cache": []}
        for _ in range(repeat):
            folder = tempfile.mkdtemp(prefix="topoconf-bench-cache-")
            env = {k: v for k, v in os.environ.items() if k != cache.ENV_OFF} | {cache.ENV_DIR: folder}
            samples["cold"].append(timed_process(command, env))
            samples["warm"].append(timed_process(command, env))
            samples["no cache"].append(timed_process(command, env | {cache.ENV_OFF: "1"}))
            shutil.rmtree(folder, ignore_errors=True)
        for state, runs in samples.items():
            rows.append({"command": name, "cache": state, "runs": len(runs),
                         "median_wall_s": statistics.median(r["wall_s"] for r in runs),
                         "best_wall_s": min(r["wall_s"] for r in runs),
                         "median_cpu_s": statistics.median(r["cpu_s"] for r in runs),
                         "peak_mib": max(r["peak_mib"] for r in runs)})
    shutil.rmtree(report, ignore_errors=True)
    return rows


def bench_corpus() -> dict:
    """The whole corpus against the reference in-process: loading (cold and from
    the cache), then the run split into the reference's own work, judging the
    answers, and the rest (the adapter's message round, records, expectations)."""
    folder = tempfile.mkdtemp(prefix="topoconf-bench-cache-")
    os.environ[cache.ENV_DIR] = folder
    os.environ.pop(cache.ENV_OFF, None)
    started, cpu = time.perf_counter(), time.process_time()
    corpus_mod.load()
    cold, cold_cpu = time.perf_counter() - started, time.process_time() - cpu
    started, cpu = time.perf_counter(), time.process_time()
    corpus = corpus_mod.load()
    warm, warm_cpu = time.perf_counter() - started, time.process_time() - cpu
    shutil.rmtree(folder, ignore_errors=True)

    adapter = from_spec("reference", Limits())
    hello = adapter.start()
    gc.collect()
    started, cpu = time.perf_counter(), time.process_time()
    outcome = run(corpus.cases, corpus.broken, adapter, hello)
    whole, whole_cpu = time.perf_counter() - started, time.process_time() - cpu

    # CPU time: on a shared machine the wall time of many short calls is mostly waiting.
    reference = 0.0
    judging = 0.0
    for case in corpus.cases:
        if case.component not in hello.components or set(case.features) - hello.features:
            continue
        started = time.process_time()
        try:
            dispatch.run(case.component, case.operation, case.input)
        except Exception:  # noqa: BLE001, S110 - a refusal is an answer too; only its time counts here
            pass
        reference += time.process_time() - started
        response = adapter.run(case.id, case.wire())
        started = time.process_time()
        judge(case, response)
        judging += time.process_time() - started

    profile = cProfile.Profile()
    profile.enable()
    run(corpus.cases, corpus.broken, adapter, hello)
    profile.disable()
    stats = pstats.Stats(profile)
    by_module: dict[str, float] = {}
    for (filename, _, _), (_, _, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        where = Path(filename)
        if "reference_impl" in where.parts:
            key = "reference_impl/" + where.parent.name
        elif "conformance" in where.parts:
            key = "conformance/" + where.name
        elif "site-packages" in where.parts:
            key = where.parts[where.parts.index("site-packages") + 1]
        else:
            key = "python"
        by_module[key] = by_module.get(key, 0.0) + own
    top = sorted(by_module.items(), key=lambda kv: -kv[1])[:12]
    total_profiled = sum(by_module.values()) or 1.0
    return {
        "cases": len(outcome.records), "load_cold_s": cold, "load_warm_s": warm, "run_s": whole,
        "load_cold_cpu_s": cold_cpu, "load_warm_cpu_s": warm_cpu, "run_cpu_s": whole_cpu,
        "reference_cpu_s": reference, "judging_cpu_s": judging,
        "rest_cpu_s": max(0.0, whole_cpu - reference - judging),
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "profile_own_time_share": [{"where": k, "share": round(v / total_profiled, 3)} for k, v in top],
    }


def markdown(header: dict, start: list[dict], corpus: dict) -> str:
    table = tabulate([[r["command"], r["cache"], r["runs"], f"{r['median_wall_s']:.2f}", f"{r['best_wall_s']:.2f}",
                       f"{r['median_cpu_s']:.2f}", f"{r['peak_mib']:.0f}"] for r in start],
                     headers=["command", "cache", "runs", "median wall s", "best wall s", "median CPU s", "peak MiB"],
                     tablefmt="github")
    split = tabulate([
        ["load the corpus, cache cold (load and store)", f"{corpus['load_cold_s']:.2f}",
         f"{corpus['load_cold_cpu_s']:.2f}"],
        ["load the corpus, cache warm", f"{corpus['load_warm_s']:.2f}", f"{corpus['load_warm_cpu_s']:.2f}"],
        [f"run all {corpus['cases']} cases (in-process reference)", f"{corpus['run_s']:.2f}",
         f"{corpus['run_cpu_s']:.2f}"],
        ["  of which the reference's own work (dispatch.run)", "", f"{corpus['reference_cpu_s']:.2f}"],
        ["  of which judging answers (schema check, comparison)", "", f"{corpus['judging_cpu_s']:.2f}"],
        ["  of which the rest (message round, records, expectations)", "", f"{corpus['rest_cpu_s']:.2f}"],
        ["warm total: load + run", f"{corpus['load_warm_s'] + corpus['run_s']:.2f}",
         f"{corpus['load_warm_cpu_s'] + corpus['run_cpu_s']:.2f}"],
    ], headers=["whole corpus against the reference, in-process", "wall s", "CPU s"], tablefmt="github")
    shares = tabulate([[s["where"], f"{100 * s['share']:.1f}%"] for s in corpus["profile_own_time_share"]],
                      headers=["own time under cProfile, by module", "share"], tablefmt="github")
    return (f"# Harness start-up and the whole corpus in-process\n\n"
            f"Python {header['python']} on {header['machine']} with {header['cpus']} CPUs, "
            f"{header['generated_at']}; load average {header['load_before']} at the start and "
            f"{header['load_after']} at the end (a shared machine: wall times include waiting for a core, "
            f"CPU times do not). Written by `python benchmarks/harness.py`.\n\n"
            f"## Start-up of one command\n\nCold: an empty cache folder (the command loads the corpus from its "
            f"files and stores it). Warm: the same command again. No cache: `TOPOCONF_NO_CACHE=1`."
            + (f" Measured at {header['start_measured_at']}." if header.get("start_measured_at") else "")
            + f"\n\n{table}\n\n"
            f"## The whole corpus\n\n{split}\n\nPeak memory of that process: {corpus['peak_mib']:.0f} MiB.\n\n"
            f"{shares}\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command in each state (default 3)")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "benchmarks")
    parser.add_argument("--corpus-only", action="store_true",
                        help="measure the whole corpus only; keep the start-up rows of the harness.json in --out")
    args = parser.parse_args()
    load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
    start_measured_at = None
    if args.corpus_only:
        earlier = json.loads((args.out / "harness.json").read_text())
        start = earlier["start"]
        start_measured_at = earlier["header"].get("start_measured_at") or earlier["header"]["generated_at"]
    else:
        start = bench_start(args.repeat)
    corpus = bench_corpus()
    header = {"generated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "python": platform.python_version(),
              "machine": platform.machine(), "cpus": os.cpu_count(), "load_before": load_before,
              "load_after": " ".join(f"{x:.1f}" for x in os.getloadavg())}
    if start_measured_at:
        header["start_measured_at"] = start_measured_at
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "harness.json").write_text(json.dumps({"header": header, "start": start, "corpus": corpus},
                                                      indent=1) + "\n")
    text = markdown(header, start, corpus)
    (args.out / "harness.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
