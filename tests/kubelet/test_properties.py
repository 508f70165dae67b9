"""Invariants of the merge and of admission, checked with hypothesis."""

from __future__ import annotations

import dataclasses
import json
import pathlib

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.kubelet.hints import TopologyHint
from reference_impl.kubelet.merge import (
    MergeSettings,
    aggregate,
    merge_exhaustive,
)
from reference_impl.kubelet.merge_fast import merge_fast
from reference_impl.kubelet.merge_preferred import merge_preferred
from reference_impl.kubelet.merge_select import merge_lists
from reference_impl.kubelet.operations import admit
from reference_impl.kubelet.options import PolicyOptions
from reference_impl.kubelet.policies import BEST_EFFORT, FULL, PREFERRED_FIRST, RESTRICTED, SINGLE_NUMA_NODE, Policy
from reference_impl.numa import bitmask
from reference_impl.numa.numa_info import NUMAInfo

RESOURCES = ("cpu", "memory", "nvidia.com/gpu", "example.com/nic")
STRATEGIES = ("most-allocated", "least-allocated")
POLICIES = (BEST_EFFORT, RESTRICTED, SINGLE_NUMA_NODE)


@st.composite
def topologies(draw, max_nodes=4):
    n = draw(st.integers(1, max_nodes))
    nodes = list(range(n))
    rows = [[10 if i == j else draw(st.sampled_from([11, 12, 20, 21])) for j in nodes] for i in nodes]
    return NUMAInfo.build(nodes, rows)


@st.composite
def hint_lists(draw, numa: NUMAInfo, provider_shaped=False):
    """Lists of hints per resource. provider_shaped: every hint has a mask
    and a score, as the CPU, memory and device managers produce them."""
    width = len(numa.nodes) + (0 if provider_shaped else 1)  # sometimes a bit beyond the machine
    lists = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["masks", "nil", "mixed"])) if not provider_shaped else "masks"
        scored = draw(st.booleans()) if not provider_shaped else True
        hints = []
        for _ in range(draw(st.integers(0 if not provider_shaped else 1, 4))):
            if kind == "nil" or (kind == "mixed" and draw(st.booleans())):
                mask = None
            else:
                mask = draw(st.integers(0 if not provider_shaped else 1, 2**width - 1))
            score = draw(st.integers(1, 100)) if scored else 0
            hints.append(TopologyHint(mask, draw(st.booleans()), score))
        lists.append((draw(st.sampled_from(RESOURCES)), hints))
    return lists


@st.composite
def weights(draw):
    return draw(st.dictionaries(st.sampled_from(RESOURCES), st.integers(0, 100), max_size=4))


@st.composite
def merge_inputs(draw, provider_shaped=False):
    numa = draw(topologies())
    lists = draw(hint_lists(numa, provider_shaped))
    strategy = draw(st.sampled_from((None,) + STRATEGIES))
    s = MergeSettings(numa, prefer_closest=draw(st.booleans()), strategy=strategy, weights=draw(weights()))
    return s, lists


@given(merge_inputs())
def test_fast_merge_equals_exhaustive_merge_when_it_answers(args):
    s, lists = args
    fast = merge_fast(s, lists)
    if fast is not None:
        assert fast == merge_exhaustive(s, lists)


@given(merge_inputs(provider_shaped=True))
def test_fast_merge_always_answers_provider_shaped_input(args):
    s, lists = args
    fast = merge_fast(s, lists)
    assert fast is not None
    assert fast == merge_exhaustive(s, lists)


@given(merge_inputs())
def test_merge_preferred_equals_full_merge(args):
    s, lists = args
    assert merge_preferred(s, lists) == merge_exhaustive(s, lists)


def policy(name, numa, strategy, w, scoring, algorithm=FULL, prefer_closest=False):
    opts = PolicyOptions(prefer_closest=prefer_closest, strategy=strategy or "none", weights=w)
    return Policy(name, numa, opts, scoring and strategy is not None, w if scoring else {}, algorithm)


@st.composite
def policy_inputs(draw):
    numa = draw(topologies())
    lists = draw(hint_lists(numa))
    providers = [{resource: hints} for resource, hints in lists]
    return (numa, providers, draw(st.sampled_from(POLICIES)), draw(st.sampled_from(STRATEGIES)), draw(weights()),
            draw(st.booleans()))


@given(policy_inputs())
def test_preferred_first_policy_matches_full_policy(args):
    numa, providers, name, strategy, w, closest = args
    full = policy(name, numa, strategy, w, True, FULL, closest).merge(providers)
    fast = policy(name, numa, strategy, w, True, PREFERRED_FIRST, closest).merge(providers)
    assert full == fast


def strip_scores(providers):
    return [{r: [dataclasses.replace(h, score=0) for h in hints] for r, hints in p.items()} for p in providers]


@given(policy_inputs())
def test_strategy_none_and_gate_off_equal_the_pre_kep_merge(args):
    numa, providers, name, strategy, w, closest = args
    pre_kep = policy(name, numa, None, {}, False, FULL, closest).merge(strip_scores(providers))
    with_none = policy(name, numa, None, w, True, FULL, closest).merge(providers)
    gate_off = policy(name, numa, strategy, w, False, FULL, closest).merge(providers)
    for outcome in (with_none, gate_off):
        assert (outcome.hint.mask, outcome.hint.preferred, outcome.admit) == (pre_kep.hint.mask, pre_kep.hint.preferred, pre_kep.admit)
        assert outcome.score_decided is False


@given(policy_inputs())
def test_chosen_affinity_lies_on_the_machine_and_obeys_the_admit_rule(args):
    numa, providers, name, strategy, w, closest = args
    outcome = policy(name, numa, strategy, w, True, FULL, closest).merge(providers)
    hint = outcome.hint
    if hint.mask is None:
        assert name == SINGLE_NUMA_NODE
    else:
        assert hint.mask & ~numa.default_affinity() == 0
        assert hint.mask != 0
        if name == SINGLE_NUMA_NODE:
            assert hint.mask.bit_count() == 1 and hint.mask != numa.default_affinity()
    assert outcome.admit == (True if name == BEST_EFFORT else hint.preferred)


@st.composite
def contributions(draw):
    n = draw(st.integers(1, 4))
    names = draw(st.lists(st.sampled_from(RESOURCES), min_size=n, max_size=n, unique=True))
    return [(r, TopologyHint(1, True, draw(st.integers(1, 100)))) for r in names]


@given(contributions(), weights(), st.integers(1, 10))
def test_weight_scaling_changes_nothing(contrib, w, k):
    s1 = MergeSettings(NUMAInfo.build([0], None), weights=w)
    # an unnamed resource sits at 1, so scale it explicitly too
    scaled = {r: s1.weight(r) * k for r, _ in contrib}
    s2 = MergeSettings(NUMAInfo.build([0], None), weights=scaled)
    assert aggregate(s1, contrib) == aggregate(s2, contrib)


@given(contributions(), weights(), st.integers(1, 100))
def test_naming_a_resource_never_lowers_its_influence(contrib, w, named_weight):
    resource, target = contrib[0][0], contrib[0][1].score
    unnamed = {k: v for k, v in w.items() if k != resource}
    named = dict(unnamed, **{resource: named_weight})
    before = aggregate(MergeSettings(NUMAInfo.build([0], None), weights=unnamed), contrib)
    after = aggregate(MergeSettings(NUMAInfo.build([0], None), weights=named), contrib)
    # a weight >= 1 moves the aggregate towards the resource's own score, never away
    if before:
        assert abs(after - target) <= abs(before - target)


@given(policy_inputs(), st.integers(2, 5))
def test_weight_scaling_keeps_the_selection(args, k):
    numa, providers, name, strategy, w, closest = args
    resources = {r for p in providers for r in p}
    scaled = {r: (w.get(r, 1)) * k for r in resources}
    a = policy(name, numa, strategy, {r: w.get(r, 1) for r in resources}, True, FULL, closest).merge(providers)
    b = policy(name, numa, strategy, scaled, True, FULL, closest).merge(providers)
    assert a == b


# --- admission ---------------------------------------------------------

@st.composite
def containers(draw, prefix, init=False):
    out = []
    for i in range(draw(st.integers(0 if init else 1, 2))):
        cpu = draw(st.integers(0, 5))
        res = {"memory": f"{draw(st.integers(1, 6))}Gi"}
        if cpu:
            res["cpu"] = str(cpu)
        else:
            res["cpu"] = "500m"
        gpus = draw(st.integers(0, 2))
        if gpus:
            res["example.com/gpu"] = str(gpus)
        c = {"name": f"{prefix}{i}", "resources": {"requests": dict(res), "limits": dict(res)}}
        if init and draw(st.booleans()):
            c["restartPolicy"] = "Always"
        out.append(c)
    return out


@st.composite
def scenarios(draw):
    n = draw(st.integers(1, 4))
    node = {"numaNodes": [{"id": i, "cpus": 8, "memory": "16Gi", "devices": {"example.com/gpu": draw(st.integers(0, 2))}} for i in range(n)]}
    pods = []
    for p in range(draw(st.integers(1, 4))):
        pods.append({"name": f"p{p}", "initContainers": draw(containers("i", init=True)), "containers": draw(containers("c"))})
    cfg = {
        "topologyManagerPolicy": draw(st.sampled_from(POLICIES)),
        "topologyManagerScope": draw(st.sampled_from(["pod", "container"])),
        "topologyManagerPolicyOptions": {"numa-allocation-strategy": draw(st.sampled_from(("none",) + STRATEGIES))},
    }
    return cfg, node, pods


_ROOT = pathlib.Path(__file__).resolve().parents[2] / "schemas" / "operations" / "kubelet"
_INPUT = jsonschema.Draft202012Validator(json.loads((_ROOT / "admit.input.json").read_text()))
_RESULT = jsonschema.Draft202012Validator(json.loads((_ROOT / "admit.result.json").read_text()))


def run_scenario(cfg, node, pods, remove=()):
    events = [{"admit": p} for p in pods] + [{"remove": name} for name in remove]
    input_ = {"featureGates": {"TopologyManagerPolicyAlphaOptions": True}, "kubeletConfiguration": cfg, "node": node, "events": events}
    _INPUT.validate(input_)
    result = admit(input_)
    _RESULT.validate(result)
    return result


@settings(max_examples=60)
@given(scenarios())
def test_pod_scope_gives_every_container_one_affinity(scenario):
    cfg, node, pods = scenario
    cfg = dict(cfg, topologyManagerScope="pod")
    result = run_scenario(cfg, node, pods)
    for entry in result["pods"]:
        if entry["admitted"]:
            assert len({tuple(c["affinity"]) if c["affinity"] is not None else None for c in entry["containers"]}) <= 1


@settings(max_examples=60)
@given(scenarios())
def test_admitted_containers_are_aligned_and_state_is_conserved(scenario):
    cfg, node, pods = scenario
    result = run_scenario(cfg, node, pods)
    nodes = {n["id"] for n in node["numaNodes"]}
    for entry in result["pods"]:
        if not entry["admitted"]:
            continue
        for c in entry["containers"]:
            if c["affinity"] is not None:
                assert set(c["affinity"]) <= nodes
            if cfg["topologyManagerPolicy"] == SINGLE_NUMA_NODE and c["affinity"] is not None:
                # the alignment single-numa-node guarantees
                assert set(c["cpus"]) <= {str(n) for n in c["affinity"]}
                assert set(c["memory"]) <= {str(n) for n in c["affinity"]}
    assert result["metrics"]["admission_requests_total"] == len(pods)
    assert result["metrics"]["admission_errors_total"] == sum(not e["admitted"] for e in result["pods"])
    admitted = [e["name"] for e in result["pods"] if e["admitted"]]
    emptied = run_scenario(cfg, node, pods, remove=admitted)
    for alloc in emptied["allocation"].values():
        assert alloc["cpus"] == 0 and alloc["memory"] == 0 and not any(alloc["devices"].values())
    assert not any(emptied["metrics"]["numa_container_count"].values())


@st.composite
def wide_provider_lists(draw):
    """Five or six NUMA nodes, two or three provider-shaped lists: enough
    permutations that the policies answer through the fast search."""
    n = draw(st.integers(5, 6))
    numa = NUMAInfo.build(list(range(n)), [[10 if i == j else (11 if i // 3 == j // 3 else 21) for j in range(n)] for i in range(n)])
    lists = []
    for r in range(draw(st.integers(2, 3))):
        width = draw(st.integers(1, 3))
        masks = [m for m in bitmask.iterate_masks(range(n)) if draw(st.integers(0, 9)) < 6]
        if not masks:
            masks = [1]
        lists.append((RESOURCES[r], [TopologyHint(m, m.bit_count() == width, draw(st.integers(1, 100))) for m in masks]))
    s = MergeSettings(numa, prefer_closest=draw(st.booleans()), strategy=draw(st.sampled_from((None,) + STRATEGIES)),
                      weights=draw(weights()))
    return s, lists


@settings(max_examples=12)
@given(wide_provider_lists())
def test_fast_search_matches_exhaustive_on_wider_machines(args):
    s, lists = args
    expected = merge_exhaustive(s, lists)
    assert merge_lists(s, lists) == expected
    assert merge_fast(s, lists) == expected
    assert merge_preferred(s, lists) == expected
