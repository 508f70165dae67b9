"""Benchmarks of the reference implementation and the harness.

    python benchmarks/run.py [--quick] [--out reports/benchmarks]

Writes benchmarks.json and benchmarks.md. Numbers are wall-clock on the machine
that ran them (recorded in the header); tests never assert on them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance import corpus as corpus_mod  # noqa: E402
from conformance.adapters import Limits, from_spec  # noqa: E402
from conformance.runner import run  # noqa: E402
from reference_impl import dispatch  # noqa: E402

EIGHT_NODE_DISTANCES = [
    [10, 11, 12, 12, 30, 30, 30, 30],
    [11, 10, 12, 12, 30, 30, 30, 30],
    [12, 12, 10, 11, 30, 30, 30, 30],
    [12, 12, 11, 10, 30, 30, 30, 30],
    [30, 30, 30, 30, 10, 11, 12, 12],
    [30, 30, 30, 30, 11, 10, 12, 12],
    [30, 30, 30, 30, 12, 12, 10, 11],
    [30, 30, 30, 30, 12, 12, 11, 10],
]


def all_masks(n: int) -> list[list[int]]:
    masks = []
    for size in range(1, n + 1):
        masks.extend([list(c) for c in combinations(range(n), size)])
    return masks


def merge_input(policy: str, providers: list, options: dict | None = None, gates: dict | None = None) -> dict:
    return {
        "policy": policy,
        "options": options or {},
        "featureGates": gates or {},
        "numa": {"nodes": list(range(8)), "distances": EIGHT_NODE_DISTANCES},
        "providers": providers,
    }


def scenario_preferred_exists() -> dict:
    # Five providers whose only common preferred answer is node 0.
    providers = [
        {f"r{i}": [{"affinity": [0], "preferred": True}, {"affinity": [0, 1], "preferred": False},
                   {"affinity": [1], "preferred": True}]}
        for i in range(5)
    ]
    return merge_input("best-effort", providers)


def scenario_preferred_missing() -> dict:
    # Four providers that never intersect: every permutation merges to an empty mask.
    providers = [{f"r{i}": [{"affinity": [2 * i], "preferred": True}, {"affinity": [2 * i + 1], "preferred": True}]}
                 for i in range(4)]
    return merge_input("best-effort", providers)


def scenario_many_hints(providers: int, nodes: int) -> dict:
    masks = all_masks(nodes)
    hints = [{"affinity": m, "preferred": len(m) == 1, "score": 10 + 7 * i % 90} for i, m in enumerate(masks)]
    data = merge_input("best-effort", [{f"r{i}": hints} for i in range(providers)],
                       options={"numa-allocation-strategy": "least-allocated"},
                       gates={"TopologyManagerPolicyAlphaOptions": True})
    data["numa"] = {"nodes": list(range(nodes)), "distances": [row[:nodes] for row in EIGHT_NODE_DISTANCES[:nodes]]}
    return data


def timed(fn: Callable[[], object], repeat: int) -> dict:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return {"repeat": repeat, "best_s": min(samples), "median_s": statistics.median(samples)}


def bench_merges(quick: bool) -> list[dict]:
    cases = [
        ("kubelet merge: 5 providers, preferred exists (8 NUMA)", scenario_preferred_exists(), 200),
        ("kubelet merge: 4 providers, preferred missing (8 NUMA)", scenario_preferred_missing(), 200),
        ("kubelet merge: 2 providers x 255 hints, least-allocated (8 NUMA)", scenario_many_hints(2, 8), 3),
        ("kubelet merge: 3 providers x 31 hints, least-allocated (5 NUMA)", scenario_many_hints(3, 5), 3),
    ]
    rows = []
    for name, data, repeat in cases:
        repeat = max(1, repeat // 10) if quick else repeat
        for algorithm in ("full", "preferred-first"):
            variant = dict(data, mergeAlgorithm=algorithm)
            result = timed(lambda variant=variant: dispatch.run("kubelet", "merge", variant), repeat)
            rows.append({"benchmark": f"{name}, {algorithm}", **result})
    return rows


def bench_corpus(quick: bool) -> list[dict]:
    corpus = corpus_mod.load()
    rows = []
    for spec in ("reference", f"exec:{sys.executable} -m reference_impl"):
        adapter = from_spec(spec, Limits(case_timeout=60))
        hello = adapter.start()
        started = time.perf_counter()
        outcome = run(corpus.cases, [], adapter, hello)
        elapsed = time.perf_counter() - started
        adapter.close()
        rows.append({"benchmark": "whole corpus " + ("in-process" if spec == "reference" else "through the protocol"), "repeat": 1, "best_s": elapsed,
                     "median_s": elapsed, "cases": len(outcome.records),
                     "cases_per_s": round(len(outcome.records) / elapsed, 1) if elapsed else None})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "benchmarks")
    args = parser.parse_args()
    rows = bench_merges(args.quick) + bench_corpus(args.quick)
    header = {"generated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "benchmarks.json").write_text(json.dumps({"header": header, "results": rows}, indent=1) + "\n")
    table = tabulate(
        [[r["benchmark"], r["repeat"], f"{r['best_s'] * 1000:.2f}", f"{r['median_s'] * 1000:.2f}",
          r.get("cases_per_s", "")] for r in rows],
        headers=["benchmark", "runs", "best ms", "median ms", "cases/s"], tablefmt="github")
    text = (f"# Benchmarks\n\nPython {header['python']} on {header['machine']} with {header['cpus']} CPUs, "
            f"{header['generated_at']}.\n\n{table}\n")
    (args.out / "benchmarks.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
