"""Metamorphic properties of the kubelet reference: two related inputs whose
answers must relate in a known way, so no expected value is needed."""

from __future__ import annotations

import copy

from hypothesis import assume, event, given
from hypothesis import strategies as st

from conformance.fuzz.strategies import kubelet as gen
from reference_impl import dispatch

POLICIES = ("best-effort", "restricted", "single-numa-node")


def admit(data: dict) -> dict:
    return dispatch.run("kubelet", "admit", data)


def merge(data: dict) -> dict:
    return dispatch.run("kubelet", "merge", data)


def guaranteed(name: str, cpu: int, memory_gi: int, gpus: int = 0) -> dict:
    requests = {"cpu": str(cpu), "memory": f"{memory_gi}Gi"}
    if gpus:
        requests["nvidia.com/gpu"] = str(gpus)
    return {"name": name, "containers": [{"name": "app", "resources": {"requests": requests, "limits": dict(requests)}}]}


def admit_input(policy: str, scope: str, numa_nodes: list[dict], events: list[dict], options=None) -> dict:
    return {
        "kubernetesVersion": "1.38",
        "featureGates": {"TopologyManagerPolicyAlphaOptions": True},
        "kubeletConfiguration": {"topologyManagerPolicy": policy, "topologyManagerScope": scope,
                                 "topologyManagerPolicyOptions": dict(options or {})},
        "node": {"numaNodes": numa_nodes},
        "events": events,
    }


@st.composite
def one_node_fits(draw):
    """2 to 4 NUMA nodes of which exactly one (`big`) can hold the pod's CPUs,
    memory and GPUs; the others are too small in every resource requested."""
    count = draw(st.integers(2, 4))
    big = draw(st.integers(0, count - 1))
    cpu, memory, gpus = draw(st.integers(3, 8)), draw(st.integers(3, 16)), draw(st.integers(0, 2))
    nodes = []
    for i in range(count):
        if i == big:
            nodes.append({"id": i, "cpus": cpu + draw(st.integers(0, 4)), "memory": f"{memory + draw(st.integers(0, 8))}Gi",
                          "devices": {"nvidia.com/gpu": gpus + draw(st.integers(0, 2))}})
        else:
            nodes.append({"id": i, "cpus": draw(st.integers(1, 2)), "memory": f"{draw(st.integers(1, 2))}Gi",
                          "devices": {"nvidia.com/gpu": draw(st.integers(0, gpus - 1)) if gpus else draw(st.integers(0, 2))}})
    policy, scope = draw(st.sampled_from(POLICIES)), draw(st.sampled_from(("container", "pod")))
    return admit_input(policy, scope, nodes, [{"admit": guaranteed("pod", cpu, memory, gpus)}])


def _renamed(mapping: dict, perm: dict[int, int]) -> dict:
    return {str(perm[int(k)]): v for k, v in mapping.items()}


def _container_view(c: dict, perm: dict[int, int]) -> dict:
    return {
        "affinity": None if c["affinity"] is None else sorted(perm[i] for i in c["affinity"]),
        "preferred": c["preferred"],
        "cpus": _renamed(c["cpus"], perm),
        # NUMA id -> bytes, and "hugepages-<size>" -> NUMA id -> bytes
        "memory": {(str(perm[int(k)]) if k.isdigit() else k): (_renamed(v, perm) if isinstance(v, dict) else v)
                   for k, v in c["memory"].items()},
        "devices": {r: _renamed(per, perm) for r, per in c["devices"].items()},
    }


def _view(result: dict, perm: dict[int, int]) -> dict:
    """The answer with NUMA ids renamed through `perm`; CPU ids are left out
    because the contract numbers them in NUMA order."""
    return {
        "pods": [{"admitted": p["admitted"], "reason": p["reason"],
                  "containers": [_container_view(c, perm) for c in p["containers"]]} for p in result["pods"]],
        "allocation": _renamed(result["allocation"], perm),
        "gauge": _renamed(result["metrics"]["numa_container_count"], perm),
    }


@given(one_node_fits(), st.randoms(use_true_random=False))
def test_renumbering_numa_nodes_permutes_the_answer(data, rng):
    """Which NUMA node a pod lands on is a property of the node's resources, not
    of the ids they carry: the hint providers derive hints from capacity and
    availability per NUMA node, and with exactly one node able to hold the
    request the merge has a single preferred narrowest hint, so no tie-break
    by mask value is involved (docs/operations/kubelet.md, merge; KEP-6007 /
    Design Details: hints and scores come from the managers' per-NUMA state)."""
    ids = [n["id"] for n in data["node"]["numaNodes"]]
    shuffled = list(ids)
    rng.shuffle(shuffled)
    perm = dict(zip(ids, shuffled, strict=True))
    renumbered = copy.deepcopy(data)
    for n in renumbered["node"]["numaNodes"]:
        n["id"] = perm[n["id"]]
    renumbered["node"]["numaNodes"].sort(key=lambda n: n["id"])
    before, after = admit(data), admit(renumbered)
    assert before["pods"][0]["admitted"]
    assert _view(after, {i: i for i in ids}) == _view(before, perm)


@st.composite
def weighted_merge(draw):
    """A scored merge whose weights name every resource the providers use, so
    scaling them scales every weight (an unnamed resource would stay at 1)."""
    data = draw(gen.merge_input())
    data["featureGates"] = {"TopologyManagerPolicyAlphaOptions": True}
    data["options"] = {"numa-allocation-strategy": draw(st.sampled_from(("most-allocated", "least-allocated")))}
    names = sorted({r for p in data["providers"] if p for r in p})
    weights = {r: draw(st.integers(0, 10)) for r in names}
    return data, weights, draw(st.integers(2, 10))


def _weights(weights: dict[str, int], factor: int) -> str:
    return ",".join(f"{r}={w * factor}" for r, w in weights.items())


@given(weighted_merge())
def test_scaling_all_numa_score_weights_changes_nothing(case):
    """The aggregate is `sum(weight[r] * score[r]) / sum(weight[r])`, "self-
    normalizing" (KEP-6007 / Per-Resource Weights): multiplying every weight by
    the same factor multiplies numerator and denominator alike, and integer
    division of kA by kB equals that of A by B, so every aggregate, and with it
    the whole merge, is unchanged."""
    data, weights, factor = case
    assume(weights)
    once, scaled = copy.deepcopy(data), copy.deepcopy(data)
    once["options"]["numa-score-weights"] = _weights(weights, 1)
    scaled["options"]["numa-score-weights"] = _weights(weights, factor)
    assert merge(scaled) == merge(once)


@st.composite
def admission_sequence(draw, policies=POLICIES):
    count = draw(st.integers(1, 4))
    nodes = [{"id": i, "cpus": draw(st.sampled_from((4, 8))), "memory": f"{draw(st.sampled_from((8, 16)))}Gi",
              "devices": {"nvidia.com/gpu": draw(st.integers(0, 2))}} for i in range(count)]
    events = [{"admit": guaranteed(f"pod-{i}", draw(st.integers(1, 6)), draw(st.integers(1, 8)), draw(st.integers(0, 1)))}
              for i in range(draw(st.integers(1, 3)))]
    options = {}
    if draw(st.booleans()):
        options["numa-allocation-strategy"] = draw(st.sampled_from(("most-allocated", "least-allocated")))
    return admit_input(draw(st.sampled_from(policies)), draw(st.sampled_from(("container", "pod"))), nodes, events, options)


def _strip_cpu_ids(result: dict) -> dict:
    out = copy.deepcopy(result)
    for p in out["pods"]:
        for c in p["containers"]:
            c.pop("cpuIDs", None)
    return out


@given(admission_sequence(), st.sampled_from(("example.com/fpga", "intel.com/sriov-nic")), st.integers(1, 4))
def test_an_unrequested_device_type_changes_nothing(data, resource, amount):
    """Device-plugin resources are read from the pod's limits, and only the
    resources a container requests get hints or allocations (docs/operations/
    kubelet.md, admit: "Device-plugin resources are read from limits and are
    those the node lists"); a device type nobody asks for adds no hint and takes
    nothing, so the answer is the same apart from its own zero in `allocation`."""
    before = admit(data)
    more = copy.deepcopy(data)
    for n in more["node"]["numaNodes"]:
        n["devices"][resource] = amount
    after = admit(more)
    for zone in after["allocation"].values():
        assert zone["devices"].pop(resource, 0) == 0
    assert after == before


@given(admission_sequence(policies=("best-effort",)), st.data())
def test_adding_capacity_never_turns_an_admit_into_a_reject_under_best_effort(data, extra):
    """best-effort admits whatever the merged hint ("`admit` is `true` for
    best-effort", docs/operations/kubelet.md), so only an allocation failure
    can reject a pod; with more CPUs, memory or devices on a NUMA node every
    allocation that succeeded still has room (the managers allocate from
    availability, and more capacity only adds availability)."""
    data["events"] = data["events"][:1]
    before = admit(data)
    assume(before["pods"][0]["admitted"])
    bigger = copy.deepcopy(data)
    zone = bigger["node"]["numaNodes"][extra.draw(st.integers(0, len(bigger["node"]["numaNodes"]) - 1))]
    what = extra.draw(st.sampled_from(("cpus", "memory", "devices")))
    if what == "cpus":
        zone["cpus"] += extra.draw(st.integers(1, 8))
    elif what == "memory":
        zone["memory"] = f"{int(zone['memory'][:-2]) + extra.draw(st.integers(1, 16))}Gi"
    else:
        zone["devices"]["nvidia.com/gpu"] += extra.draw(st.integers(1, 2))
    assert admit(bigger)["pods"][0]["admitted"]


def _without_memory_split(allocation: dict) -> dict:
    """CPUs and devices per NUMA node, memory as the node's total."""
    per_node = {n: {k: v for k, v in zone.items() if k != "memory"} for n, zone in allocation.items()}
    return {"nodes": per_node, "memory": sum(zone.get("memory", 0) for zone in allocation.values())}


@given(admission_sequence(), st.integers(1, 6), st.integers(1, 8), st.integers(0, 1))
def test_removing_and_re_adding_a_pod_restores_the_allocation_state(data, cpu, memory, gpus):
    """`remove` "releases everything pod-a holds" (docs/operations/kubelet.md,
    admit), and the allocators are deterministic functions of the free state:
    after admit P, remove P the state is the one before P, and admitting P again
    gives P the same resources (the same CPU ids included) and the node the same
    state as the first admission did.

    Qualified as the contract qualifies it, after upstream's memory manager: a
    block is released off its mask's nodes in id order, and a container placed
    on one node of a multi-node group regroups that node. So when P spans several
    NUMA nodes, or lands on a node another container holds as part of a group,
    only what does not depend on the memory groups is restored: CPUs and devices
    per node and the node's total memory."""
    pod = guaranteed("probe", cpu, memory, gpus)
    base = admit(data)
    first = copy.deepcopy(data)
    first["events"].append({"admit": pod})
    once = admit(first)
    assume(once["pods"][-1]["admitted"])
    def spans(container):
        # where a container's memory block lies: its affinity, or where its bytes went without one
        return set(container["affinity"] or []) | {int(n) for n in container.get("memory", {})}

    probe = spans(once["pods"][-1]["containers"][0])
    grouped = {n for p in once["pods"][:-1] if p["admitted"] for c in p["containers"]
               if len(spans(c)) > 1 for n in spans(c)}
    exact = len(probe) <= 1 and not probe & grouped
    event("restored exactly" if exact else "restored apart from the memory split")

    removed = copy.deepcopy(first)
    removed["events"].append({"remove": "probe"})
    after_removal = admit(removed)["allocation"]
    if not exact:
        assert _without_memory_split(after_removal) == _without_memory_split(base["allocation"])
        return
    assert after_removal == base["allocation"]
    again = copy.deepcopy(removed)
    again["events"].append({"admit": pod})
    twice = admit(again)
    assert twice["allocation"] == once["allocation"]
    assert twice["pods"][-1] == once["pods"][-1]
    assert twice["metrics"]["numa_container_count"] == once["metrics"]["numa_container_count"]
