"""The allocate operation: the allocation step on a supplied NUMA affinity and
the check of a designated allocation (docs/operations/koordinator.md, `allocate`)."""

from __future__ import annotations

import dataclasses

import pytest

from conformance.releases import koordinator_v1_8
from reference_impl import dispatch
from reference_impl.errors import InvalidInput
from reference_impl.koordinator import designated
from reference_impl.refusal import Refusal

from .helpers import LSR, RESOURCE_SPEC, node, pod, run

HINT = "internal.scheduling.koordinator.sh/scheduling-hint"
OLD_HINT = "scheduling.koordinator.sh/scheduling-hint"
STATUS = "scheduling.koordinator.sh/resource-status"
HANDED = {"extensions": {"NodeNUMAResource": {}}}


def _designated_pod(status: dict, cpu="4", memory="8Gi", labels=LSR, hint=HANDED) -> dict:
    annotations = {STATUS: status}
    if hint is not None:
        annotations[HINT] = hint
    return pod(cpu, memory, labels=labels, annotations=annotations)


def test_the_hint_must_name_the_plugin_in_its_extensions():
    assert designated.hands_over({HINT: '{"extensions": {"NodeNUMAResource": null}}'})
    assert not designated.hands_over({HINT: '{"extensions": {"DeviceShare": {}}}'})
    assert not designated.hands_over({HINT: '{"nodeNames": ["n"]}'})
    assert not designated.hands_over({})


def test_the_older_hint_key_is_read_only_without_the_internal_one():
    handed = '{"extensions": {"NodeNUMAResource": {}}}'
    assert designated.hands_over({OLD_HINT: handed})
    assert designated.hands_over({HINT: "", OLD_HINT: handed})
    assert not designated.hands_over({HINT: '{"extensions": {}}', OLD_HINT: handed})


@pytest.mark.parametrize("raw", ["{", "[]", '{"extensions": []}', '{"nodeNames": "n"}'])
def test_an_unreadable_hint_is_refused(raw):
    with pytest.raises(Refusal) as exc:
        designated.hands_over({HINT: raw})
    assert exc.value.reason == "InvalidSchedulingHint"


def test_a_status_reads_its_numa_resources_and_cpuset():
    d = designated.read({STATUS: '{"cpuset": "4-5", "numaNodeResources": [{"node": 1, "resources": {"cpu": "2", "memory": "1Gi"}}]}'})
    assert d.numa == {1: {"cpu": 2000, "memory": 1 << 30}}
    assert d.cpuset == frozenset({4, 5})


def test_a_status_naming_neither_is_no_designation():
    assert designated.read({STATUS: "{}"}) is None
    assert designated.read({STATUS: '{"cpuset": ""}'}) is None
    assert designated.read({}) is None
    # An empty list still designates (upstream keeps the non-nil slice).
    assert designated.read({STATUS: '{"numaNodeResources": []}'}) is not None


@pytest.mark.parametrize("raw", ['{"cpuset": "4-x"}', '{"numaNodeResources": {}}', '{"cpuset": 4}',
                                 '{"numaNodeResources": [{"node": 64}]}',
                                 '{"numaNodeResources": [{"node": 0, "resources": {"cpu": "lots"}}]}'])
def test_an_unreadable_status_is_refused(raw):
    with pytest.raises(Refusal) as exc:
        designated.read({STATUS: raw})
    assert exc.value.reason == "InvalidResourceStatus"


def test_the_supplied_affinity_is_split_over_even_where_one_numa_node_would_do():
    out = run("allocate", {"node": node(labels={"node.koordinator.sh/numa-topology-policy": "Restricted"}),
                           "pod": pod("2", "2Gi"), "affinity": [0, 1]})
    assert out["numaResources"] == {"0": {"cpu": 1000, "memory": 1 << 30}, "1": {"cpu": 1000, "memory": 1 << 30}}


def test_a_status_without_the_hint_is_not_a_designation():
    status = {"cpuset": "4-7", "numaNodeResources": [{"node": 0, "resources": {"cpu": "4"}}]}
    out = run("allocate", {"node": node(), "pod": _designated_pod(status, hint=None)})
    assert out["designated"] is False
    assert out["cpuset"] == [0, 1, 2, 3]


def test_designated_amounts_stand_for_what_is_free():
    # NUMA 0's accounting is full, but the designation is all that is consulted.
    spec = node(pods=[{"name": "big", "numaResources": {"0": {"cpu": "8", "memory": "32Gi"}}}])
    status = {"cpuset": "4-7", "numaNodeResources": [{"node": 0, "resources": {"cpu": "4", "memory": "8Gi"}}]}
    out = run("allocate", {"node": spec, "pod": _designated_pod(status)})
    assert out["allocated"] and out["designated"]
    assert out["numaResources"] == {"0": {"cpu": 4000, "memory": 8 << 30}}


def test_designated_cpus_a_placed_pod_holds_are_released_once():
    status = {"cpuset": "4-7", "numaNodeResources": [{"node": 0, "resources": {"cpu": "4"}}]}
    once = node(pods=[{"name": "a", "cpuset": "4-7"}])
    assert run("allocate", {"node": once, "pod": _designated_pod(status)})["cpuset"] == [4, 5, 6, 7]
    # Two holders of CPU 4: releasing one still leaves it taken.
    twice = node(pods=[{"name": "a", "cpuset": "4-7"}, {"name": "b", "cpuset": "4"}])
    out = run("allocate", {"node": twice, "pod": _designated_pod(status)})
    assert (out["allocated"], out["reason"], out["code"]) == (False, "InsufficientCPUs", "Unschedulable")


def test_a_designated_cpuset_of_another_size_is_refused():
    status = {"cpuset": "4-5"}
    out = run("allocate", {"node": node(), "pod": _designated_pod(status, cpu="4")})
    assert (out["allocated"], out["reason"], out["stage"]) == (False, "InsufficientCPUs", "Filter")


def test_a_required_policy_the_designated_set_breaks_is_refused():
    # CPUs 4 and 6 are one thread of two cores: not whole cores.
    status = {"cpuset": "4,6"}
    spec = _designated_pod(status, cpu="2", memory=None)
    spec["annotations"][RESOURCE_SPEC] = '{"requiredCPUBindPolicy": "SpreadByPCPUs"}'
    assert run("allocate", {"node": node(), "pod": spec})["cpuset"] == [4, 6]
    spec["annotations"][RESOURCE_SPEC] = '{"requiredCPUBindPolicy": "FullPCPUs"}'
    out = run("allocate", {"node": node(), "pod": spec})
    assert (out["allocated"], out["reason"]) == (False, "InsufficientCPUs")


def test_a_pod_that_requests_nothing_is_skipped_before_its_status_is_read():
    out = run("allocate", {"node": node(), "pod": _designated_pod({"cpuset": "x"}, cpu=None, memory=None)})
    assert out == {"allocated": True, "reason": None, "message": None, "stage": None, "code": None,
                   "designated": False, "numaResources": {}, "cpuset": None, "cpusetString": None}


@pytest.mark.parametrize("affinity", [[], [64], "0", [True]])
def test_a_malformed_affinity_is_invalid_input(affinity):
    with pytest.raises(InvalidInput):
        run("allocate", {"node": node(), "pod": pod(), "affinity": affinity})


def test_v1_8_forced_trim_without_a_cpu_topology_is_the_steps_refusal():
    # A node-forced bind policy trims the NUMA CPU even for a pod binding none
    # in v1.8.0; without a CPU topology the trim fails (shim answer, fuzz seed 4).
    model = koordinator_v1_8.MODEL
    seams = dataclasses.replace(model.contract, **model.behaviours["node-bind-trims-without-cpu-request"].changes)
    case = {"node": {"labels": {"node.koordinator.sh/numa-topology-policy": "BestEffort",
                                "node.koordinator.sh/cpu-bind-policy": "FullPCPUsOnly"},
                     "numaNodes": [{"id": 0, "memory": "16Gi"}, {"id": 1, "memory": "16Gi"}]},
            "pod": pod(None, "1Gi"), "affinity": [0]}
    assert run("allocate", case)["numaResources"] == {"0": {"memory": 1 << 30}}
    out = dispatch.run("koordinator", "allocate", case, seams=seams)
    assert (out["reason"], out["code"], out["stage"]) == ("InvalidCPUTopology", "UnschedulableAndUnresolvable", "Reserve")
