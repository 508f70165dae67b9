"""CPU amplification: how the ratio annotation is read and where the
amplified CPU check sits among Filter's checks."""

from __future__ import annotations

import pytest

from reference_impl.koordinator import amplification
from reference_impl.koordinator.node import parse_node
from reference_impl.koordinator.operations import OPERATIONS, op_filter
from reference_impl.refusal import Refusal

KEY = amplification.ANNOTATION


@pytest.mark.parametrize("raw, expected", [
    ('{"cpu": 1.5}', 1.5),
    ('{"cpu": 2}', 2.0),
    ('{"memory": 1.2}', None),
    ('{"cpu": null}', None),
    ("null", None),
])
def test_ratio_read(raw, expected):
    assert amplification.cpu_ratio({KEY: raw}) == expected


@pytest.mark.parametrize("raw", ['{"cpu": "1.5"}', "[1.5]", "1.5", "{", '{"cpu": 1.5, "memory": true}'])
def test_ratio_unreadable(raw):
    with pytest.raises(Refusal) as exc:
        amplification.cpu_ratio({KEY: raw})
    assert exc.value.reason == "InvalidAmplificationRatio"


def test_amplify_rounds_float64_product_up():
    # 3000 * 1.1 is 3300.0000000000005 in float64.
    assert amplification.amplify(3000, 1.1) == 3301
    assert amplification.amplify(4000, 1.0) == 4000
    assert amplification.amplify(4000, 0.5) == 4000


def _node(ratio: str, **extra) -> dict:
    return {"cpuTopology": {"sockets": 1, "numaNodesPerSocket": 1, "coresPerNUMANode": 4, "threadsPerCore": 2},
            "numaNodes": [{"id": 0, "memory": "8Gi"}], "allocatable": {"cpu": "12", "memory": "8Gi"},
            "annotations": {KEY: ratio}, **extra}


def _pod(cpu: str, **extra) -> dict:
    return {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}, "limits": {"cpu": cpu}}}], **extra}


def test_check_runs_before_the_bind_policy_conflict():
    # The node forces SpreadByPCPUs, the pod requires FullPCPUs: a conflict, but
    # its amplified 6 CPUs exceed the 5 left first.
    node = _node('{"cpu": 1.5}', labels={"node.koordinator.sh/cpu-bind-policy": "SpreadByPCPUs"},
                 pods=[{"name": "p", "requests": {"cpu": "7"}}])
    pod = _pod("4", labels={"koordinator.sh/qosClass": "LSR"},
               annotations={"scheduling.koordinator.sh/resource-spec": '{"requiredCPUBindPolicy": "FullPCPUs"}'})
    out = op_filter({"node": node, "pod": pod})
    assert (out["reason"], out["code"]) == ("InsufficientAmplifiedCPU", "Unschedulable")
    roomy = op_filter({"node": _node('{"cpu": 1.5}', labels={"node.koordinator.sh/cpu-bind-policy": "SpreadByPCPUs"}),
                       "pod": pod})
    assert roomy["reason"] == "CPUBindPolicyConflict"


def test_node_forced_fractional_cpu_is_refused_before_the_check():
    node = _node('{"cpu": "bad"}', labels={"node.koordinator.sh/cpu-bind-policy": "FullPCPUsOnly"})
    out = op_filter({"node": node, "pod": _pod("1500m")})
    assert out["reason"] == "InvalidRequestedCPUs"


def test_pod_without_cpu_request_skips_the_check():
    pod = {"containers": [{"name": "c", "resources": {"requests": {"memory": "1Gi"}, "limits": {"memory": "1Gi"}}}]}
    out = op_filter({"node": _node("not json"), "pod": pod})
    assert out["fits"] is True


def _parsed(node: dict):
    return parse_node(node)


@pytest.mark.parametrize("raw, expected", [
    ('{"cpu": 1.5}', ({"cpu": 1.5}, False)),
    # any object is a set of ratios, so the Node's no longer counts the NUMA nodes
    ("{}", ({}, False)),
    # passed over: the Node's ratio counts, amplifying the zones
    ("null", ({"cpu": 2.0}, True)),
    ("[1.5]", ({"cpu": 2.0}, True)),
    ('{"cpu": "1.5"}', ({"cpu": 2.0}, True)),
])
def test_the_topology_ratio_comes_before_the_nodes(raw, expected):
    node = _parsed(_node('{"cpu": 2}', topologyAnnotations={KEY: raw}))
    assert amplification.numa_ratios(node) == expected


def test_a_topology_ratio_keeps_the_zones_as_written():
    node = _parsed(_node('{"cpu": 2}', topologyAnnotations={KEY: '{"cpu": 1.5}'}))
    assert amplification.numa_view(node).numa_capacity[0]["cpu"] == 8000
    node = _parsed(_node('{"cpu": 2}'))
    assert amplification.numa_view(node).numa_capacity[0]["cpu"] == 16000


def test_an_amplified_node_without_a_cpu_topology_refuses_any_cpu_request():
    node = {k: v for k, v in _node('{"cpu": 1.5}').items() if k != "cpuTopology"}
    node["numaNodes"] = [{"id": 0, "memory": "8Gi", "cpu": "8"}]
    assert op_filter({"node": node, "pod": _pod("1")})["reason"] == "InvalidCPUTopology"
    node["annotations"] = {KEY: '{"cpu": 1}'}
    assert op_filter({"node": node, "pod": _pod("1")})["fits"] is True


def test_the_allocation_step_reads_the_nodes_ratio_only_without_a_topology_ratio():
    node = _node("[1.5]")
    pod = _pod("1", labels={"koordinator.sh/qosClass": "LSR"})
    assert OPERATIONS["allocate"]({"node": node, "pod": pod})["reason"] == "InvalidAmplificationRatio"
    node["topologyAnnotations"] = {KEY: '{"cpu": 1.5}'}
    assert OPERATIONS["allocate"]({"node": node, "pod": pod})["allocated"] is True
