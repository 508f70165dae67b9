"""Benchmarks of the reference implementation side by side with the upstream releases.

    python benchmarks/run.py [--quick | --full] [--only PARTS] [--no-upstream] [--out reports/benchmarks]

Writes benchmarks.md (medians and ratios against upstream), benchmarks.json
(every sample) and PNG plots. Numbers are wall-clock on the machine that ran
them (recorded in the header); tests never assert on them.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import (  # noqa: E402
    kep6007_branches,
    koordinator_alloc,
    kubelet_merge,
    kueue_placement,
    protocol_cost,
    report,
    report_update,
)
from benchmarks.shim import ShimProcess  # noqa: E402
from conformance import corpus as corpus_mod  # noqa: E402
from conformance.adapters import Limits, from_spec  # noqa: E402
from conformance.runner import run  # noqa: E402


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


SHIMS = {"kubelet": "shims/kubelet/bin/kubelet-shim", "kueue": "shims/kueue/bin/kueue-shim",
         "koordinator": "shims/koordinator/bin/koordinator-shim"}
PARTS = ("kubelet", "kueue", "koordinator", "protocol", "corpus")


@dataclass
class Plan:
    numa: list[int]
    providers: list[int]
    kueue_nodes: list[int]
    kueue_counts: list[int]
    balanced_counts: list[int]
    kueue_rounds: int
    budget_s: float
    target_s: float


def plan(args) -> Plan:
    if args.quick:
        return Plan([2, 4], [2, 3], [100], [100], [100], 1, 5.0, 0.05)
    if args.full:
        return Plan([2, 4, 8, 16, 32], [2, 3, 4], [1_000, 10_000, 50_000], [100, 1_000, 5_000], [100, 1_000, 5_000],
                    3, args.budget or 600.0, 1.0)
    return Plan([2, 4, 8, 16, 32], [2, 3, 4], [1_000, 10_000], [100, 1_000, 5_000], [1_000], 2,
                args.budget or 30.0, 0.3)


@contextmanager
def shim_for(name: str, use_upstream: bool):
    if not use_upstream:
        yield None
        return
    path = ROOT / SHIMS[name]
    if not path.exists():
        raise SystemExit(f"{SHIMS[name]} is not built: run `bash shims/{name}/build.sh` (or pass --no-upstream)")
    with ShimProcess([str(path)], name) as shim:
        yield shim


@contextmanager
def branch_shims(use_upstream: bool):
    """The KEP-6007 branch builds that are here, by name (none is required:
    their trees are not in this repository)."""
    with ExitStack() as stack:
        found = {}
        if use_upstream:
            for branch in kep6007_branches.BRANCHES:
                if (ROOT / branch.binary).exists():
                    found[branch.name] = stack.enter_context(ShimProcess([str(ROOT / branch.binary)], "kubelet"))
        yield found


def log(line: str) -> None:
    print(line, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run of every part (seconds)")
    size.add_argument("--full", action="store_true", help="the big sizes too: 50,000 Kueue nodes, upstream merges "
                                                         "up to 10 minutes a call (an hour or more)")
    parser.add_argument("--only", default=",".join(PARTS), help=f"comma-separated parts, of {', '.join(PARTS)}")
    parser.add_argument("--budget", type=float, help="seconds one upstream merge may take, estimated before it "
                                                     "runs (default 30, with --full 600)")
    parser.add_argument("--kueue-nodes", help="comma-separated Kueue cluster sizes instead of the mode's, of "
                                                "100, 1000, 10000, 50000")
    parser.add_argument("--no-upstream", action="store_true", help="the reference alone (no shims needed)")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "benchmarks")
    parser.add_argument("--update", action="store_true", help="replace only the rerun parts' sections, target rows, "
                                                              "raw numbers and plots in the report already in --out")
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; the parts are {', '.join(PARTS)}")
    p = plan(args)
    if args.kueue_nodes:
        p.kueue_nodes = [int(n) for n in args.kueue_nodes.split(",")]
        if set(p.kueue_nodes) - set(kueue_placement.SHAPES):
            parser.error(f"--kueue-nodes: sizes are {', '.join(map(str, kueue_placement.SHAPES))}")
    upstream = not args.no_upstream
    header = {"generated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
              "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
              "mode": "quick" if args.quick else "full" if args.full else "default", "upstream": {}}
    results: dict[str, list] = {}
    targets: dict[str, list[str]] = {}
    sections: dict[str, str] = {}
    started = time.perf_counter()
    if "kubelet" in parts:
        with shim_for("kubelet", upstream) as shim, branch_shims(upstream) as branches:
            header["upstream"]["kubelet"] = shim.version if shim else None
            if branches:
                header["upstream"]["kubelet KEP-6007 branches"] = " and ".join(b.version for b in branches.values())
            results["kubelet"] = kubelet_merge.run(shim, p.numa, p.providers, p.budget_s, p.target_s, log, branches)
        sections["kubelet"], targets["kubelet"] = report.kubelet_section(results["kubelet"])
    if "kueue" in parts:
        with shim_for("kueue", upstream) as shim, ShimProcess(kueue_placement.reference_command(), "kueue") as ref:
            header["upstream"]["kueue"] = shim.version if shim else None
            results["kueue"] = kueue_placement.run(shim, ref, p.kueue_nodes, p.kueue_counts, p.balanced_counts,
                                                   p.kueue_rounds, log)
        sections["kueue"], targets["kueue"] = report.kueue_section(results["kueue"])
    if "koordinator" in parts:
        with shim_for("koordinator", upstream) as shim:
            header["upstream"]["koordinator"] = shim.version if shim else None
            results["koordinator"] = koordinator_alloc.run(shim, p.target_s, log)
        sections["koordinator"] = report.koordinator_section(results["koordinator"])
    if "protocol" in parts:
        rows = []
        with shim_for("kubelet", upstream) as shim, ShimProcess(kueue_placement.reference_command(), "kubelet") as ref:
            for n in (2, 8):
                rows.append(protocol_cost.measure(f"kubelet merge, {n} NUMA x 3 sparse providers", "kubelet", "merge",
                                                  kubelet_merge.merge_input(n, 3, "sparse", "plain"), ref, shim,
                                                  20, log))
        with shim_for("kueue", upstream) as shim, ShimProcess(kueue_placement.reference_command(), "kueue") as ref:
            small = min(p.kueue_nodes)
            rows.append(protocol_cost.measure(f"kueue assign, {small:,} nodes, preferred, 100 pods", "kueue", "assign",
                                              kueue_placement.assign_input(kueue_placement.cluster(small), "preferred",
                                                                           100), ref, shim, 5, log))
        results["protocol"] = rows
        sections["protocol"] = report.protocol_section(rows)
    if "corpus" in parts and not args.quick:
        results["corpus"] = bench_corpus(False)
        sections["corpus"] = ("## The whole corpus (harness included)\n\n" + tabulate(
            [[r["benchmark"], r["cases"], f"{r['best_s']:.2f}", r["cases_per_s"]] for r in results["corpus"]],
            headers=["run", "cases", "seconds", "cases/s"], tablefmt="github") + "\n")
    header["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    header["wall_clock_s"] = round(time.perf_counter() - started, 1)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.update:
        md = args.out / "benchmarks.md"
        if not md.exists():
            parser.error(f"--update: there is no {md} to update")
        report_update.update_json(args.out / "benchmarks.json", header, results)
        report.plots(args.out, results.get("kubelet"), results.get("kueue"), results.get("koordinator"))
        md.write_text(report_update.splice_markdown(md.read_text(), sections, targets,
                                                    report_update.rerun_note(list(results), header)))
        print(f"updated {md}")
        return 0
    report.write_json(args.out / "benchmarks.json", header, results)
    pictures = report.plots(args.out, results.get("kubelet"), results.get("kueue"), results.get("koordinator"))
    intro = (f"# Benchmarks\n\nPython {header['python']} on {header['machine']} with {header['cpus']} CPUs, "
             f"{header['generated_at']}, {header['mode']} sizes, {header['wall_clock_s']:.0f} s in all; upstream: "
             + ", ".join(f"{k} {v}" for k, v in header["upstream"].items() if v) + ".\n\n"
             f"The machine was shared with other work (load average {header['load_average_at_start'][0]} at the "
             f"start, {header['load_average_at_end'][0]} at the end), so absolute times are inflated and noisy. "
             "Each input is measured on both sides in turns (reference, upstream, reference, ...) in the same run, "
             "so bursts of load hit both and the ratios stay comparable. Upstream is timed inside Go by the shims' "
             "`bench` operation around the calls into upstream code (process start, the pipe and JSON are not "
             "counted); the protocol's own cost is its own section. Every input's answers are compared, and a "
             "difference stops the run. Raw numbers: [benchmarks.json](benchmarks.json).\n")
    target_rows = [row for rows in targets.values() for row in rows]
    if target_rows:
        intro += ("\n## Targets\n\n| target | measured | verdict |\n| --- | --- | --- |\n" + "\n".join(target_rows)
                  + "\n")
    if pictures:
        intro += "\n" + "\n".join(f"![{name}]({name})" for name in pictures) + "\n"
    text = intro + "\n" + "\n".join(sections.values())
    (args.out / "benchmarks.md").write_text(text)
    print(f"wrote {args.out / 'benchmarks.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
