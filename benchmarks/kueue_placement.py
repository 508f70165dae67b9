"""Kueue TAS placement, reference against v0.17.0.

A cluster is blocks x racks x hosts (32 CPU, 256Gi, 110 pods each) with
realistic existing usage: an admitted TAS workload holding 1 to 6 pods of 4
CPU on about a third of the hosts, and a non-TAS agent pod (1 CPU) on every
tenth host. One workload per input, one podset of 4-CPU pods in one of five
modes: required (rack for small podsets, block otherwise), preferred (block),
unconstrained, slices (slices of 8 within a rack, preferring a block) and
balanced (preferred block under TASBalancedPlacement).

Each side's time is split as the code splits it: parsing the input, building
the snapshot (upstream: filling the TAS cache as its event handlers do, then
taking the flavor snapshot), and placement. The whole `assign` is also timed
through the protocol, for both sides' processes.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from reference_impl import dispatch
from reference_impl.kueue import admission, operations, topology

from .shim import ShimProcess, same_answer
from .timing import Sample, sections

BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"
HOST = "kubernetes.io/hostname"

SHAPES = {100: (2, 2, 25), 1_000: (5, 10, 20), 10_000: (10, 25, 40), 50_000: (25, 50, 40)}
MODES = ("required", "preferred", "unconstrained", "slices", "balanced")
POD = {"cpu": "4", "memory": "16Gi"}


def cluster(nodes: int) -> dict:
    blocks, racks, hosts = SHAPES[nodes]
    rng = random.Random(nodes)
    node_list, domains, pods = [], [], []
    i = 0
    for b in range(blocks):
        for r in range(racks):
            for h in range(hosts):
                name = f"b{b}-r{r}-h{h}"
                node_list.append({
                    "metadata": {"name": name, "labels": {BLOCK: f"b{b}", RACK: f"b{b}-r{r}", HOST: name,
                                                          "node-group": "tas"}},
                    "status": {"allocatable": {"cpu": "32", "memory": "256Gi", "pods": "110"},
                               "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": 0}]}})
                if rng.random() < 0.35:
                    domains.append({"values": [name], "count": rng.randint(1, 6)})
                if i % 10 == 0:
                    pods.append({"metadata": {"name": f"agent-{name}"},
                                 "spec": {"nodeName": name,
                                          "containers": [{"resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]},
                                 "status": {"phase": "Running"}})
                i += 1
    return {
        "kueueVersion": "0.17",
        "topology": {"metadata": {"name": "default"},
                     "spec": {"levels": [{"nodeLabel": BLOCK}, {"nodeLabel": RACK}, {"nodeLabel": HOST}]}},
        "resourceFlavor": {"metadata": {"name": "tas-flavor"},
                           "spec": {"nodeLabels": {"node-group": "tas"}, "topologyName": "default"}},
        "nodes": node_list,
        "pods": pods,
        "admittedWorkloads": [{"name": "running", "podSets": [{
            "name": "main", "requests": POD,
            "topologyAssignment": {"levels": [HOST], "domains": domains}}]}],
    }


def workload(mode: str, count: int) -> tuple[dict, dict]:
    """The workload and the feature gates the mode needs."""
    annotations = {
        "required": {"kueue.x-k8s.io/podset-required-topology": RACK if count <= 100 else BLOCK},
        "preferred": {"kueue.x-k8s.io/podset-preferred-topology": BLOCK},
        "unconstrained": {"kueue.x-k8s.io/podset-unconstrained-topology": "true"},
        "slices": {"kueue.x-k8s.io/podset-preferred-topology": BLOCK,
                   "kueue.x-k8s.io/podset-slice-required-topology": RACK,
                   "kueue.x-k8s.io/podset-slice-size": "8"},
        "balanced": {"kueue.x-k8s.io/podset-preferred-topology": BLOCK},
    }[mode]
    gates = {"TASBalancedPlacement": True} if mode == "balanced" else {}
    return ({"name": "bench", "podSets": [{"name": "workers", "count": count, "annotations": annotations,
                                           "requests": POD}]}, gates)


def assign_input(base: dict, mode: str, count: int) -> dict:
    wl, gates = workload(mode, count)
    return dict(base, workload=wl, featureGates=gates)


@dataclass
class KueueRow:
    nodes: int
    mode: str
    count: int
    outcome: str
    reference: dict[str, Sample] = field(default_factory=dict)
    upstream: dict[str, Sample] = field(default_factory=dict)
    protocol: dict[str, Sample] = field(default_factory=dict)
    upstream_calls: dict[str, int] = field(default_factory=dict)
    # v0.17.0's balanced placement gave several answers, the reference's among them
    upstream_nondeterministic: bool = False


def reference_assign(input_: dict) -> tuple[dict, dict[str, float]]:
    """The reference's assign in-process, with its parse, snapshot and placement times."""
    with sections({(operations, "parse_common"): "parse", (topology, "build"): "snapshot",
                   (admission, "assign_workload"): "placement"}) as times:
        answer = dispatch.run("kueue", "assign", input_)
    return answer, times


def run(shim: ShimProcess | None, reference_process: ShimProcess | None, sizes: list[int], counts: list[int],
        balanced_counts: list[int], rounds: int, log: Callable[[str], None]) -> list[KueueRow]:
    """`balanced_counts`: fewer podsets for balanced placement, which v0.17.0's
    shim runs 64 times per answer (tens of seconds at 10,000 nodes)."""
    rows = []
    for nodes in sizes:
        base = cluster(nodes)
        for mode in MODES:
            for count in balanced_counts if mode == "balanced" else counts:
                rows.append(_one(shim, reference_process, base, nodes, mode, count, rounds, log))
    return rows


def _one(shim, reference_process, base, nodes, mode, count, rounds, log) -> KueueRow:
    input_ = assign_input(base, mode, count)
    name = f"kueue assign {nodes} nodes, {mode}, {count} pods"
    ref: dict[str, list[float]] = {}
    up: dict[str, list[float]] = {}
    proto: dict[str, list[float]] = {}
    row = KueueRow(nodes, mode, count, "")
    answer = {}
    for _ in range(rounds):
        answer, times = reference_assign(input_)
        for k, v in times.items():
            ref.setdefault(k, []).append(v)
        if shim is not None:
            t = shim.bench("assign", input_, 1)
            row.upstream_nondeterministic = same_answer(name, answer, t.answer, among_distinct=mode == "balanced")
            # a balanced placement is repeated on fresh snapshots to detect
            # map-order dependence: one snapshot and one placement count
            snaps, places = t.section_calls.get("snapshot", 1), t.section_calls.get("placement", 1)
            up.setdefault("snapshot", []).extend(
                c + s / snaps for c, s in zip(t.section_s("cache"), t.section_s("snapshot"), strict=True))
            up.setdefault("placement", []).extend(s / places for s in t.section_s("placement"))
            up.setdefault("handler", []).extend(ns / 1e9 for ns in t.handler_ns)
            row.upstream_calls = dict(t.section_calls)
    # the shim's 64 balanced runs would make its round trip meaningless
    if reference_process is not None and shim is not None and mode != "balanced":
        for _ in range(max(1, rounds // 2)):
            for label, process in (("reference", reference_process), ("upstream", shim)):
                reply, seconds = process.run("assign", input_)
                if label == "reference" and reply.get("result") != answer:
                    same_answer(name + " through the protocol", answer, {"result": reply.get("result")})
                proto.setdefault(label, []).append(seconds)
    row.outcome = _outcome(answer)
    row.reference = {k: Sample(v) for k, v in ref.items()}
    row.upstream = {k: Sample(v) for k, v in up.items()}
    row.protocol = {k: Sample(v) for k, v in proto.items()}
    log(f"{name} ({row.outcome}): reference snapshot {_ms(row.reference.get('snapshot'))} placement "
        f"{_ms(row.reference.get('placement'))}; upstream snapshot {_ms(row.upstream.get('snapshot'))} placement "
        f"{_ms(row.upstream.get('placement'))}")
    return row


def _outcome(answer: dict) -> str:
    if "podSets" not in answer:
        return "refused" if "refused" in answer else "rejected"
    ps = answer["podSets"][0]
    if ps.get("topologyAssignment"):
        return f"placed on {len(ps['topologyAssignment']['domains'])} hosts"
    return f"not fit: {(ps.get('notFit') or {}).get('reason')}"


def _ms(sample: Sample | None) -> str:
    return "-" if sample is None else f"{sample.median_s * 1e3:.1f} ms"


def reference_command() -> list[str]:
    return [sys.executable, "-m", "reference_impl"]
