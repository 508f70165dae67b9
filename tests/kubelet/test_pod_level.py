"""Pod-level resources (spec.resources) through admit: the QoS class they
give, the CPU and memory managers' budgets and their shared pools, worked
by hand."""

from fractions import Fraction

import pytest

from reference_impl.errors import InvalidInput
from reference_impl.kubelet.operations import admit
from reference_impl.kubelet.pod_level import (
    SHARED_INIT_MESSAGE,
    SHARED_LONG_RUNNING_MESSAGE,
    empty_memory_pool,
    empty_shared_pool,
)
from reference_impl.kubelet.pods import parse_pod, requirements_qos

from .helpers import config, guaranteed, pod

ON = {"PodLevelResourceManagers": True}
NODE = {"numaNodes": [{"id": i, "cpus": 8, "memory": "16Gi"} for i in (0, 1)]}


def budget(cpu, memory="4Gi"):
    res = {"cpu": str(cpu), "memory": memory}
    return {"requests": dict(res), "limits": dict(res)}


def run(cfg, *pods, gates=ON, memory="None"):
    return admit({"kubernetesVersion": "1.38", "featureGates": gates,
                  "kubeletConfiguration": {**cfg, "memoryManagerPolicy": memory},
                  "node": NODE, "events": [{"admit": p} for p in pods]})


@pytest.mark.parametrize(("requests", "limits", "qos"), [
    ({"cpu": 2, "memory": 1}, {"cpu": 2, "memory": 1}, "Guaranteed"),
    ({"cpu": 2, "memory": 1}, {"cpu": 4, "memory": 1}, "Burstable"),
    ({"cpu": 2}, {"cpu": 2}, "Burstable"),          # memory BestEffort, cpu Guaranteed: they disagree
    ({}, {}, "BestEffort"),
])
def test_the_qos_class_of_pod_level_requirements(requests, limits, qos):
    as_fractions = {k: Fraction(v) for k, v in requests.items()}, {k: Fraction(v) for k, v in limits.items()}
    assert requirements_qos(*as_fractions) == qos


def test_pod_level_resources_decide_the_qos_class_over_the_containers():
    raw = pod("p", guaranteed("app", cpu=2))
    assert parse_pod(raw, "pod").qos == "Guaranteed"
    raw["resources"] = {"requests": {"cpu": "2", "memory": "1Gi"}, "limits": {"cpu": "4", "memory": "1Gi"}}
    assert parse_pod(raw, "pod").qos == "Burstable"


def test_a_pod_level_resource_other_than_cpu_memory_or_hugepages_is_invalid():
    with pytest.raises(InvalidInput, match="ephemeral-storage"):
        parse_pod({**pod("p", {"name": "app"}), "resources": {"requests": {"ephemeral-storage": "1Gi"}}}, "pod")


def test_the_shared_pool_checks_name_init_and_long_running_containers():
    sidecar = {**guaranteed("side", cpu=2), "restartPolicy": "Always"}
    init_starved = parse_pod({**pod("p", guaranteed("app", cpu=1), init=[sidecar, {"name": "init"}]),
                              "resources": budget(2)}, "pod")
    assert empty_shared_pool(init_starved) == SHARED_INIT_MESSAGE
    apps_starved = parse_pod({**pod("p", guaranteed("a", cpu=2), {"name": "b"}), "resources": budget(2)}, "pod")
    assert empty_shared_pool(apps_starved) == SHARED_LONG_RUNNING_MESSAGE
    # every container has CPUs of its own: no shared pool is needed
    all_own = parse_pod({**pod("p", guaranteed("a", cpu=2)), "resources": budget(2)}, "pod")
    assert empty_shared_pool(all_own) is None


def test_an_app_container_of_a_pod_level_pod_takes_its_cpus_inside_the_budget():
    p = {**pod("p", guaranteed("a", cpu=2), {"name": "b"}), "resources": budget(5)}
    (entry,) = run(config(scope="pod"), p)["pods"]
    a, b = entry["containers"]
    assert a["cpuIDs"] == [0, 1] and b["cpuIDs"] == [2, 3, 4]


def test_the_gate_off_leaves_a_pod_level_pod_without_exclusive_cpus():
    p = {**pod("p", guaranteed("a", cpu=2)), "resources": budget(4)}
    r = run(config(scope="pod"), p, gates={}, memory="Static")
    assert r["pods"][0]["containers"][0]["cpuIDs"] == []
    assert r["allocation"]["0"]["cpus"] == 0


def test_the_memory_budget_is_shared_out_with_the_sidecars_memory_kept_out():
    sidecar = {**guaranteed("side", cpu=1, memory="1Gi"), "restartPolicy": "Always"}
    p = {**pod("p", guaranteed("a", cpu=1, memory="2Gi"), {"name": "b"}, init=[sidecar, {"name": "init"}]),
         "resources": budget(4, memory="6Gi")}
    r = run(config(scope="pod"), p, memory="Static")
    gib = 1 << 30
    memory = {c["name"]: c["memory"] for c in r["pods"][0]["containers"]}
    # init: budget minus the sidecar before it; b: budget minus the sidecar and a
    assert memory == {"side": {"0": gib}, "init": {"0": 5 * gib}, "a": {"0": 2 * gib}, "b": {"0": 3 * gib}}
    assert r["allocation"]["0"]["memory"] == 6 * gib


def test_the_memory_shared_pool_check_names_the_memory_type():
    p = parse_pod({**pod("p", guaranteed("a", cpu=1, memory="2Gi"), {"name": "b"}),
                   "resources": budget(4, memory="2Gi")}, "pod")
    assert empty_memory_pool(p) == (
        "pod rejected, sum of exclusive container memory requests equals pod budget, leaving no memory for shared containers")


def test_removing_a_pod_level_pod_frees_its_whole_budget():
    p = {**pod("p", guaranteed("a", cpu=1)), "resources": budget(6)}
    # the budget is held whole, though no container runs on five of its CPUs
    assert run(config(scope="pod"), p)["allocation"]["0"]["cpus"] == 6
    r = admit({"kubernetesVersion": "1.38", "featureGates": ON,
               "kubeletConfiguration": {**config(scope="pod"), "memoryManagerPolicy": "None"},
               "node": NODE, "events": [{"admit": p}, {"remove": "p"}]})
    assert r["allocation"]["0"]["cpus"] == 0


def test_pod_level_limits_are_taken_as_written_without_defaulting_requests():
    # the API server defaults pod-level requests from the containers, not from
    # the limits; the contract takes what the case writes
    raw = {**pod("p", guaranteed("app", cpu=2)), "resources": {"limits": {"cpu": "2", "memory": "1Gi"}}}
    parsed = parse_pod(raw, "pod")
    assert parsed.requests == {} and parsed.qos == "Burstable"
