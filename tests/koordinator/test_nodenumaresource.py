"""NodeNUMAResource through `filter` and `resolve`: policy resolution, bind policies,
NUMA split, hints and the even spread."""

import pytest

from reference_impl.koordinator.args import parse_args
from reference_impl.koordinator.node import parse_node
from reference_impl.koordinator.numa_resources import allocate
from reference_impl.koordinator.pod import parse_pod
from reference_impl.koordinator.policy import resolve
from reference_impl.numa import bitmask

from .helpers import LSR, NUMA_SPEC, RESOURCE_SPEC, node, pod, run

POLICY = "node.koordinator.sh/numa-topology-policy"
STRATEGY = "node.koordinator.sh/numa-allocate-strategy"
BIND = "node.koordinator.sh/cpu-bind-policy"


def test_pod_policy_overrides_absent_node_policy():
    out = run("resolve", {"node": node(), "pod": pod(annotations={NUMA_SPEC: {"numaTopologyPolicy": "Restricted"}})})
    assert out["accepted"] and out["numaTopologyPolicy"] == "Restricted" and out["policySource"] == "pod"
    assert out["singleNUMANodeExclusive"] == "Required"


def test_node_label_then_kubelet_then_none():
    assert run("resolve", {"node": node(labels={POLICY: "BestEffort"}, kubeletTopologyPolicy="Restricted"),
                           "pod": pod()})["numaTopologyPolicy"] == "BestEffort"
    out = run("resolve", {"node": node(kubeletTopologyPolicy="SingleNUMANodePodLevel"), "pod": pod()})
    assert out["numaTopologyPolicy"] == "SingleNUMANode" and out["policySource"] == "kubelet"
    assert out["singleNUMANodeExclusive"] is None
    assert run("resolve", {"node": node(kubeletTopologyPolicy="SingleNUMANodeContainerLevel"),
                           "pod": pod()})["numaTopologyPolicy"] == "None"


def test_pod_and_node_disagree():
    out = run("filter", {"node": node(labels={POLICY: "BestEffort"}),
                         "pod": pod(annotations={NUMA_SPEC: {"numaTopologyPolicy": "SingleNUMANode"}})})
    assert not out["fits"] and out["reason"] == "ErrNotMatchNUMATopology"
    assert out["message"] == "node(s) NUMA Topology policy not match"


def test_same_policy_on_both_is_fine():
    out = run("filter", {"node": node(labels={POLICY: "Restricted"}),
                         "pod": pod(annotations={NUMA_SPEC: {"numaTopologyPolicy": "Restricted"}})})
    assert out["fits"]


@pytest.mark.parametrize("value", ["MostAllocated", "LeastAllocated"])
def test_pod_level_bin_pack_or_spread_is_refused(value):
    out = run("filter", {"node": node(), "pod": pod(annotations={NUMA_SPEC: {"numaAllocateStrategy": value}})})
    assert out["reason"] == "PodNUMAAllocateStrategyNotSupported" and out["stage"] == "PreFilter"


def test_strategy_precedence():
    n = node(labels={STRATEGY: "MostAllocated"})
    assert run("resolve", {"node": n, "pod": pod()})["numaAllocateStrategy"] == "MostAllocated"
    out = run("resolve", {"node": n, "pod": pod(annotations={NUMA_SPEC: {"numaAllocateStrategy": "DistributeEvenly"}})})
    assert out["numaAllocateStrategy"] == "DistributeEvenly" and out["strategySource"] == "pod"
    assert out["distributeEvenly"] is True
    assert run("resolve", {"node": node(), "pod": pod(),
                           "args": {"nodeNUMAResource": {"numaScoringStrategy": {"type": "MostAllocated"}}}}
               )["numaAllocateStrategy"] == "MostAllocated"


def test_even_spread_gates():
    spread = {NUMA_SPEC: {"numaAllocateStrategy": "DistributeEvenly"}}
    assert run("resolve", {"node": {"labels": {}}, "pod": pod(annotations=spread)})["distributeEvenly"] is False
    with_sn = {NUMA_SPEC: {"numaAllocateStrategy": "DistributeEvenly", "numaTopologyPolicy": "SingleNUMANode"}}
    assert run("resolve", {"node": node(), "pod": pod(annotations=with_sn)})["distributeEvenly"] is False


def test_distribute_evenly_spreads_a_best_effort_pod():
    out = run("filter", {"node": node(), "pod": pod(labels=LSR, annotations={
        NUMA_SPEC: {"numaTopologyPolicy": "BestEffort", "numaAllocateStrategy": "DistributeEvenly"}})})
    assert out["fits"] and out["hint"]["affinity"] == [0, 1]
    assert out["numaResources"] == {"0": {"cpu": 2000, "memory": 4 * 2**30}, "1": {"cpu": 2000, "memory": 4 * 2**30}}
    assert out["cpuset"] == [0, 1, 8, 9]


def test_distribute_evenly_under_none_spreads_too():
    out = run("filter", {"node": node(), "pod": pod(annotations={NUMA_SPEC: {"numaAllocateStrategy": "DistributeEvenly"}})})
    assert out["fits"] and sorted(out["numaResources"]) == ["0", "1"]


def test_distribute_evenly_with_single_numa_node_is_a_no_op():
    base = {NUMA_SPEC: {"numaTopologyPolicy": "SingleNUMANode"}}
    spread = {NUMA_SPEC: {"numaTopologyPolicy": "SingleNUMANode", "numaAllocateStrategy": "DistributeEvenly"}}
    a = run("filter", {"node": node(), "pod": pod(labels=LSR, annotations=base)})
    b = run("filter", {"node": node(), "pod": pod(labels=LSR, annotations=spread)})
    assert a["hint"] == b["hint"] and a["cpuset"] == b["cpuset"] and a["numaResources"] == b["numaResources"]


def test_best_effort_packs_into_one_numa_node_by_default():
    out = run("filter", {"node": node(), "pod": pod(labels=LSR, annotations={NUMA_SPEC: {"numaTopologyPolicy": "BestEffort"}})})
    assert out["hint"]["affinity"] == [0] and out["numaResources"] == {"0": {"cpu": 4000, "memory": 8 * 2**30}}


def test_restricted_marks_every_hint_preferred():
    out = run("filter", {"node": node(), "pod": pod(annotations={NUMA_SPEC: {"numaTopologyPolicy": "Restricted"}})})
    assert all(h["preferred"] for h in out["hints"]["cpu"])


def test_single_numa_node_rejects_a_pod_bigger_than_a_numa_node():
    out = run("filter", {"node": node(), "pod": pod(cpu="12", annotations={NUMA_SPEC: {"numaTopologyPolicy": "SingleNUMANode"}})})
    assert not out["fits"] and out["reason"] == "UnalignedNUMAHint"


def test_missing_numa_topology():
    out = run("filter", {"node": {"name": "flat"}, "pod": pod(annotations={NUMA_SPEC: {"numaTopologyPolicy": "Restricted"}})})
    assert out["reason"] == "MissingNUMAResources"


def test_lsr_pod_gets_full_pcpus_by_default():
    out = run("filter", {"node": node(), "pod": pod(labels=LSR)})
    assert out["policy"]["cpuBindPolicy"] == "FullPCPUs" and out["cpuset"] == [0, 1, 2, 3]


def test_ls_pod_reads_no_resource_spec():
    out = run("filter", {"node": node(), "pod": pod(annotations={RESOURCE_SPEC: {"requiredCPUBindPolicy": "FullPCPUs"}})})
    assert out["cpuset"] is None and out["policy"]["cpuBindPolicy"] is None


def test_non_integer_cpu_for_a_bound_pod():
    out = run("filter", {"node": node(), "pod": pod(cpu="1500m", labels=LSR)})
    assert out["reason"] == "InvalidRequestedCPUs"


def test_node_bind_policy_forces_binding_and_conflicts():
    out = run("filter", {"node": node(labels={BIND: "FullPCPUsOnly"}), "pod": pod()})
    assert out["cpuset"] == [0, 1, 2, 3] and out["policy"]["cpuBindRequired"] is True
    out = run("filter", {"node": node(labels={BIND: "FullPCPUsOnly"}),
                         "pod": pod(labels=LSR, annotations={RESOURCE_SPEC: {"requiredCPUBindPolicy": "SpreadByPCPUs"}})})
    assert out["reason"] == "CPUBindPolicyConflict"
    out = run("filter", {"node": node(labels={BIND: "FullPCPUsOnly"}), "pod": pod(cpu="3")})
    assert out["reason"] == "SMTAlignmentError"


def test_spread_node_policy():
    out = run("filter", {"node": node(labels={BIND: "SpreadByPCPUs"}), "pod": pod()})
    assert out["cpuset"] == [0, 2, 4, 6]


def test_kubelet_full_pcpus_only_option():
    out = run("resolve", {"node": node(kubeletCPUManagerPolicy={"policy": "static", "options": {"full-pcpus-only": "true"}}),
                          "pod": pod()})
    assert out["cpuBindPolicy"] == "FullPCPUs" and out["cpuBindRequired"] is True


def test_constrained_burst_binds_no_cpus():
    out = run("filter", {"node": node(), "pod": pod(labels=LSR, annotations={
        RESOURCE_SPEC: {"preferredCPUBindPolicy": "ConstrainedBurst"}, NUMA_SPEC: {"numaTopologyPolicy": "SingleNUMANode"}})})
    assert out["fits"] and out["cpuset"] is None and out["numaResources"]["0"]["cpu"] == 4000


def test_numa_status_and_exclusive_required():
    placed = [{"name": "wide", "cpuset": "0,8"}]
    out = run("filter", {"node": node(pods=placed), "pod": pod(labels=LSR, annotations={
        NUMA_SPEC: {"numaTopologyPolicy": "SingleNUMANode"}})})
    assert out["numaNodeStatus"] == {"0": "shared", "1": "shared"}
    assert out["reason"] == "SingleNUMANodeExclusiveConflict"
    out = run("filter", {"node": node(pods=placed), "pod": pod(labels=LSR, annotations={
        NUMA_SPEC: {"numaTopologyPolicy": "SingleNUMANode", "singleNUMANodeExclusive": "Preferred"}})})
    assert out["fits"]


def test_required_full_pcpus_trims_numa_cpu():
    # NUMA 0 has four free CPUs but on four half-used cores: under required FullPCPUs it offers none.
    placed = [{"name": "p", "cpuset": "0,2,4,6"}]
    out = run("filter", {"node": node(pods=placed), "pod": pod(labels=LSR, annotations={
        RESOURCE_SPEC: {"requiredCPUBindPolicy": "FullPCPUs"}, NUMA_SPEC: {"numaTopologyPolicy": "SingleNUMANode"}})})
    assert out["fits"] and out["hint"]["affinity"] == [1] and out["cpuset"] == [8, 9, 10, 11]


@pytest.mark.parametrize("annotation, reason", [
    ({NUMA_SPEC: "{not json"}, "InvalidNUMATopologySpec"),
    ({NUMA_SPEC: '{"numaTopologyPolicy": "Strict"}'}, "InvalidNUMATopologySpec"),
    ({NUMA_SPEC: '["Restricted"]'}, "InvalidNUMATopologySpec"),
    ({NUMA_SPEC: '{"singleNUMANodeExclusive": true}'}, "InvalidNUMATopologySpec"),
    ({RESOURCE_SPEC: '{"preferredCPUBindPolicy": "Whole"}'}, "InvalidResourceSpec"),
    ({RESOURCE_SPEC: '{"preferredCPUExclusivePolicy": "CoreLevel"}'}, "InvalidResourceSpec"),
])
def test_malformed_annotations(annotation, reason):
    out = run("filter", {"node": node(), "pod": pod(labels=LSR, annotations=annotation)})
    assert out["reason"] == reason and out["stage"] == "PreFilter"


@pytest.mark.parametrize("label", [POLICY, STRATEGY, BIND, "node.koordinator.sh/gpu-partition-policy"])
def test_unknown_label_values(label):
    out = run("filter", {"node": node(labels={label: "Sometimes"}), "pod": pod()})
    assert out["reason"] == "InvalidNodeLabel" and label in out["message"]


def test_abbreviated_annotation_key_is_ignored():
    out = run("resolve", {"node": node(), "pod": pod(annotations={"koordinator.sh/numa-topology-spec": {"numaTopologyPolicy": "Restricted"}})})
    assert out["numaTopologyPolicy"] == "None"


def test_pod_without_requests_is_skipped():
    out = run("filter", {"node": node(labels={POLICY: "Bogus"}), "pod": pod(cpu=None, memory=None)})
    assert out["fits"]


def test_resolve_checks_the_cpu_request():
    out = run("resolve", {"node": {}, "pod": pod(cpu="2500m", labels=LSR)})
    assert out["accepted"] is False and out["reason"] == "InvalidRequestedCPUs"
    assert out["cpuBindPolicy"] == "FullPCPUs"
    out = run("resolve", {"node": node(labels={BIND: "FullPCPUsOnly"}), "pod": pod(cpu="3")})
    assert out["reason"] == "SMTAlignmentError"


def test_balanced_numa_scoring_prefers_the_balanced_numa_node():
    # NUMA 0 is cpu-heavy already, NUMA 1 memory-heavy; the pod asks mostly memory, so NUMA 0 ends up balanced.
    placed = [{"name": "c", "numaResources": {"0": {"cpu": "6", "memory": "4Gi"}}},
              {"name": "m", "numaResources": {"1": {"memory": "12Gi"}}}]
    out = run("filter", {"node": node(pods=placed), "pod": pod(cpu="1", memory="16Gi", annotations={
        NUMA_SPEC: {"numaTopologyPolicy": "SingleNUMANode"}}),
        "args": {"nodeNUMAResource": {"numaScoringStrategy": {"type": "BalancedAllocation"}}}})
    scores = {tuple(h["affinity"]): h["score"] for h in out["hints"]["cpu"]}
    # NUMA 0: cpu 7/8, memory 20/32 -> sigma 0.125 -> 87; NUMA 1: cpu 1/8, memory 28/32 -> sigma 0.375 -> 62
    assert scores[(0,)] == 87 and scores[(1,)] == 62
    assert out["hint"]["affinity"] == [0]


def _allocate(node_spec, pod_spec, affinity):
    n, p, a = parse_node(node_spec), parse_pod(pod_spec), parse_args(None)
    return allocate(n, p, resolve(n, p, a), bitmask.from_bits(affinity))


def test_split_over_two_numa_nodes_as_upstream():
    big = node(cores=26)     # two NUMA nodes of 26 hyper-threaded cores: 0-51 and 52-103
    bound = _allocate(big, pod(cpu="4", memory=None, labels=LSR), [0, 1])
    assert bound.numa == {0: {"cpu": 2000}, 1: {"cpu": 2000}} and bound.cpuset == [0, 1, 52, 53]
    shared = _allocate(big, pod(cpu="3500m", memory="1Gi"), [0, 1])
    assert shared.numa == {0: {"cpu": 1750, "memory": 2**29}, 1: {"cpu": 1750, "memory": 2**29}}
    assert shared.cpuset is None


def test_split_fills_the_scarcer_numa_node_first():
    placed = [{"name": "p", "numaResources": {"1": {"cpu": "7"}}}]
    out = _allocate(node(pods=placed), pod(cpu="4", memory=None), [0, 1])
    # NUMA 1 has 1 CPU left: it is first in order and gives min(1, 4/2); NUMA 0 takes the remaining 3.
    assert out.numa == {0: {"cpu": 3000}, 1: {"cpu": 1000}}
