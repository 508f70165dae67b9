"""Malformed input is reported as InvalidInput, never as a crash."""

import copy

from hypothesis import given
from hypothesis import strategies as st

from reference_impl.errors import InvalidInput
from reference_impl.kubelet import operations

BASE = {
    "merge": {
        "policy": "best-effort",
        "numa": {"nodes": [0, 1], "distances": [[10, 20], [20, 10]]},
        "options": {"numa-allocation-strategy": "most-allocated", "prefer-closest-numa-nodes": "true"},
        "featureGates": {"TopologyManagerPolicyAlphaOptions": True},
        "kubernetesVersion": "1.38",
        "providers": [None, {}, {"cpu": None, "memory": []},
                      {"gpu": [{"affinity": [0], "preferred": True, "score": 25}, {"affinity": None, "preferred": False}]}],
    },
    "start": {
        "kubernetesVersion": "1.38",
        "numa": {"nodes": [0, 1]},
        "kubeletConfiguration": {"topologyManagerPolicy": "restricted", "topologyManagerScope": "pod",
                                 "topologyManagerPolicyOptions": {"max-allowable-numa-nodes": "8"}},
    },
    "admit": {
        "featureGates": {"TopologyManagerPolicyAlphaOptions": True},
        "kubeletConfiguration": {"topologyManagerPolicy": "single-numa-node", "topologyManagerScope": "container",
                                 "topologyManagerPolicyOptions": {"numa-allocation-strategy": "least-allocated"},
                                 "reservedSystemCPUs": "0", "cpuManagerPolicy": "static", "memoryManagerPolicy": "Static"},
        "node": {"numaNodes": [{"id": 0, "cpus": 4, "memory": "8Gi", "hugepages-1Gi": "2Gi", "devices": {"g": 2}},
                               {"id": 1, "cpus": [10, 11, 12], "memory": 1000}],
                 "distances": [[10, 20], [20, 10]], "devicesWithoutTopology": {"f": 1},
                 "allocated": [{"numa": 0, "cpus": 1, "memory": "1Gi", "devices": {"g": 1}}]},
        "events": [{"admit": {"name": "a",
                              "initContainers": [{"name": "i", "restartPolicy": "Always",
                                                  "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}}],
                              "containers": [{"name": "c", "resources": {"requests": {"cpu": "2", "memory": "1Gi", "g": "1"},
                                                                         "limits": {"cpu": "2", "memory": "1Gi", "g": "1"}}}]}},
                   {"remove": "a"}],
    },
}

JUNK = st.sampled_from([None, 0, -1, 1.5, "x", "", [], {}, [1], {"a": 1}, True, [None], {"x": None}, "1.38", 99, [[1]]])


def paths(o, p=()):
    yield p
    if isinstance(o, dict):
        for k, v in o.items():
            yield from paths(v, p + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from paths(v, p + (i,))


PATHS = [(op, p) for op, inp in BASE.items() for p in paths(inp) if p]


@given(st.lists(st.tuples(st.sampled_from(PATHS), JUNK), min_size=1, max_size=2), st.sampled_from(sorted(BASE)))
def test_junk_anywhere_is_invalid_input_or_a_result(edits, op):
    doc = copy.deepcopy(BASE[op])
    for (edit_op, path), value in edits:
        if edit_op != op:
            continue
        target = doc
        try:
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = copy.deepcopy(value)
        except (KeyError, IndexError, TypeError):
            continue
    try:
        assert isinstance(operations.OPERATIONS[op](doc), dict)
    except InvalidInput:
        pass
