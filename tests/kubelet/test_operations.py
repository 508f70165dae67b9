"""The component surface: operations, features, and results that satisfy the
result schemas."""

import json
import pathlib
import random
import time

import jsonschema
import yaml

from reference_impl.kubelet import operations
from reference_impl.kubelet.hints import TopologyHint
from reference_impl.kubelet.merge import MergeSettings, merge_exhaustive
from reference_impl.kubelet.merge_fast import merge_fast
from reference_impl.kubelet.merge_preferred import merge_preferred
from reference_impl.kubelet.merge_select import merge_lists
from reference_impl.numa import bitmask
from reference_impl.numa.numa_info import NUMAInfo

from .helpers import ALPHA, config, guaranteed, pod

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas" / "operations" / "kubelet"


def schema(name):
    return json.loads((SCHEMAS / name).read_text())


def test_operations_and_features():
    assert set(operations.OPERATIONS) == {"merge", "start", "admit", "admit_hints"}
    vocabulary = yaml.safe_load((ROOT / "fixtures" / "features" / "kubelet.yaml").read_text())
    assert set(operations.FEATURES) == set(vocabulary["features"])
    assert len(operations.FEATURES) == len(set(operations.FEATURES))


def validate(op, input_, result):
    jsonschema.Draft202012Validator(schema(f"{op}.input.json")).validate(input_)
    jsonschema.Draft202012Validator(schema(f"{op}.result.json")).validate(result)


def test_results_satisfy_their_schemas():
    merge_in = {"policy": "single-numa-node", "numa": {"nodes": [0, 1], "distances": [[10, 20], [20, 10]]},
                "options": {"numa-allocation-strategy": "most-allocated"}, "featureGates": ALPHA,
                "providers": [None, {}, {"cpu": None, "memory": []}, {"gpu": [{"affinity": [0], "preferred": True, "score": 25}]}]}
    validate("merge", merge_in, operations.merge(merge_in))
    refused = dict(merge_in, options={"numa-score-weights": "cpu=x"})
    validate("merge", refused, operations.merge(refused))
    start_in = {"kubernetesVersion": "1.38", "kubeletConfiguration": config("restricted", "pod")}
    validate("start", start_in, operations.start_operation(start_in))
    bad = {"kubeletConfiguration": {"topologyManagerPolicy": "x"}}
    validate("start", bad, operations.start_operation(bad))
    admit_in = {
        "featureGates": ALPHA,
        "kubeletConfiguration": dict(config("best-effort", numa_allocation_strategy="least-allocated"), reservedSystemCPUs="0"),
        "node": {"numaNodes": [{"id": 0, "cpus": 4, "memory": "8Gi", "hugepages-2Mi": "1Gi", "devices": {"example.com/nic": 2}},
                               {"id": 1, "cpus": 4, "memory": "8Gi", "hugepages-2Mi": "1Gi"}],
                 "devicesWithoutTopology": {"example.com/foo": 1},
                 "allocated": [{"numa": 1, "cpus": 1, "memory": "1Gi"}]},
        "events": [{"admit": pod("a", guaranteed("c", cpu=2, extra={"example.com/nic": 1, "example.com/foo": 1, "hugepages-2Mi": "2Mi"}),
                                 init=[guaranteed("i", cpu=1)])},
                   {"admit": pod("b", guaranteed("c", cpu=9))},
                   {"remove": "a"}],
    }
    result = operations.admit(admit_in)
    validate("admit", admit_in, result)
    # reserved CPU 0 is never handed out
    assert 0 not in result["pods"][0]["containers"][0]["cpuIDs"]


def provider_like(rng, nodes, preferred_width):
    hints = []
    for mask in bitmask.iterate_masks(nodes):
        if rng.random() < 0.7:
            hints.append(TopologyHint(mask, mask.bit_count() == preferred_width, rng.randint(1, 100)))
    return hints


def test_eight_nodes_exhaustive_agrees_with_fast_and_preferred_first():
    rng = random.Random(6007)
    numa = NUMAInfo.build(list(range(8)), [[10 if i == j else (11 if i // 4 == j // 4 else 21) for j in range(8)] for i in range(8)])
    for strategy in (None, "most-allocated", "least-allocated"):
        for closest in (False, True):
            s = MergeSettings(numa, prefer_closest=closest, strategy=strategy, weights={"b": 3})
            lists = [("a", provider_like(rng, range(8), 1)), ("b", provider_like(rng, range(8), 2))]
            expected = merge_exhaustive(s, lists)
            assert merge_fast(s, lists) == expected
            assert merge_preferred(s, lists) == expected


def test_eight_node_merges_stay_fast():
    rng = random.Random(1)
    numa = NUMAInfo.build(list(range(8)), None)
    s = MergeSettings(numa, strategy="least-allocated")
    lists = [(r, provider_like(rng, range(8), w)) for r, w in (("cpu", 1), ("memory", 1), ("hugepages-1Gi", 2), ("gpu", 3))]
    start = time.perf_counter()
    full = merge_lists(s, lists)
    assert merge_preferred(s, lists) == full
    # no preferred candidate at all: the non-preferred search over 255^4 permutations
    fragmented = [(r, [TopologyHint(h.mask, False, h.score) for h in hints]) for r, hints in lists]
    merge_lists(s, fragmented)
    assert time.perf_counter() - start < 5
