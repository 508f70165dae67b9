"""Metamorphic properties of the Koordinator reference: two related inputs
whose answers must relate in a known way, so no expected value is needed."""

from __future__ import annotations

import copy
import json

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conformance.fuzz.strategies import koordinator as gen
from reference_impl import dispatch
from reference_impl.koordinator import annotations as ann

DEVICE_RESOURCE = {"gpu": ("nvidia.com/gpu", "koordinator.sh/gpu"), "rdma": ("koordinator.sh/rdma",),
                   "fpga": ("koordinator.sh/fpga",)}


def run(operation: str, data: dict) -> dict:
    return dispatch.run("koordinator", operation, copy.deepcopy(data))


# ---------------------------------------------------------------- renumbering

@st.composite
def one_numa_node_fits(draw):
    """A node of 2 to 4 NUMA nodes (explicit CPU list, one socket) where only
    NUMA node `big` has the CPUs and memory the pod asks for, under a policy
    that allocates on the merged hint."""
    count = draw(st.integers(2, 4))
    big = draw(st.integers(0, count - 1))
    threads = draw(st.integers(1, 2))
    cpus, cpu_id, core = [], 0, 0
    for n in range(count):
        for _ in range(4 if n == big else 1):
            for _ in range(threads):
                cpus.append({"id": cpu_id, "core": core, "socket": 0, "node": n})
                cpu_id += 1
            core += 1
    need = draw(st.integers(threads + 1, 4 * threads)) // threads * threads
    zones = [{"id": n, "memory": "32Gi" if n == big else "1Gi"} for n in range(count)]
    node = {"name": "node", "cpuTopology": {"cpus": cpus}, "numaNodes": zones,
            "labels": {ann.LABEL_NUMA_TOPOLOGY_POLICY: draw(st.sampled_from(("BestEffort", "Restricted", "SingleNUMANode")))}}
    labels = {ann.LABEL_QOS: draw(st.sampled_from(("LSR", "LS")))}
    annotations = {}
    if labels[ann.LABEL_QOS] == "LSR":
        annotations[ann.RESOURCE_SPEC] = json.dumps({"preferredCPUBindPolicy": draw(st.sampled_from(
            ("FullPCPUs", "SpreadByPCPUs")))})
    requests = {"cpu": str(need), "memory": f"{draw(st.integers(2, 16))}Gi"}
    pod = {"name": "pod", "labels": labels, "annotations": annotations,
           "containers": [{"name": "app", "resources": {"requests": requests, "limits": requests}}]}
    return {"node": node, "pod": pod}


def _mask(ids, perm):
    return None if ids is None else sorted(perm[i] for i in ids)


def _hint(h, perm):
    return None if h is None else {**h, "affinity": _mask(h["affinity"], perm)}


def _filter_view(result: dict, perm: dict[int, int]) -> dict:
    return {
        **{k: result[k] for k in ("fits", "reason", "stage", "policy", "cpuset", "devices")},
        "hint": _hint(result["hint"], perm),
        "hints": {r: sorted((_hint(h, perm) for h in hs), key=json.dumps) for r, hs in result["hints"].items()},
        "numaResources": {str(perm[int(k)]): v for k, v in result["numaResources"].items()},
        "numaNodeStatus": {str(perm[int(k)]): v for k, v in result["numaNodeStatus"].items()},
    }


@settings(max_examples=60)
@given(one_numa_node_fits(), st.randoms(use_true_random=False))
def test_renumbering_numa_nodes_permutes_the_answer(data, rng):
    """NodeNUMAResource's hints are computed per NUMA mask from that mask's
    capacity and availability, and with one NUMA node able to hold the pod the
    merge has a single preferred narrowest hint (no tie-break on mask value is
    involved, docs/operations/koordinator.md, merge). The CPU ids keep their
    cores and only the NUMA id they report changes, so the same CPUs are taken
    and the NUMA-keyed parts of the answer are renamed."""
    ids = [z["id"] for z in data["node"]["numaNodes"]]
    shuffled = list(ids)
    rng.shuffle(shuffled)
    perm = dict(zip(ids, shuffled, strict=True))
    renumbered = copy.deepcopy(data)
    for cpu in renumbered["node"]["cpuTopology"]["cpus"]:
        cpu["node"] = perm[cpu["node"]]
    for zone in renumbered["node"]["numaNodes"]:
        zone["id"] = perm[zone["id"]]
    renumbered["node"]["numaNodes"].sort(key=lambda z: z["id"])
    before, after = run("filter", data), run("filter", renumbered)
    assert before["fits"], before
    assert _filter_view(after, {i: i for i in ids}) == _filter_view(before, perm)


# ---------------------------------------------------------------- weights

@st.composite
def weighted_score(draw):
    """A score input whose plugin arguments list every weight explicitly."""
    data = draw(gen.score_input())
    names = ("cpu", "memory")
    device_names = ("koordinator.sh/gpu-memory-ratio", "koordinator.sh/rdma", "koordinator.sh/fpga")

    def strategy(types, resources):
        return {"type": draw(st.sampled_from(types)),
                "resources": [{"name": n, "weight": draw(st.integers(0, 4))} for n in resources]}

    data["args"] = {
        "nodeNUMAResource": {"scoringStrategy": strategy(gen.SCORING, names),
                             "numaScoringStrategy": strategy(gen.SCORING, names)},
        "deviceShare": {"scoringStrategy": strategy(("MostAllocated", "LeastAllocated"), device_names)},
    }
    return data, draw(st.integers(2, 6))


@settings(max_examples=60)
@given(weighted_score())
def test_scaling_all_scoring_weights_changes_nothing(case):
    """Scores are weighted averages `sum(score * weight) / sum(weight)` of
    integer per-resource scores (docs/operations/koordinator.md, score; upstream
    NodeResourcesFit-style scorers): scaling every weight by k scales both sums
    by k, and integer division of kA by kB equals that of A by B."""
    data, factor = case
    scaled = copy.deepcopy(data)
    for strategy in (scaled["args"]["nodeNUMAResource"]["scoringStrategy"],
                     scaled["args"]["nodeNUMAResource"]["numaScoringStrategy"],
                     scaled["args"]["deviceShare"]["scoringStrategy"]):
        for resource in strategy["resources"]:
            resource["weight"] *= factor
    assert run("score", scaled) == run("score", data)


# ---------------------------------------------------------------- devices

def _requested_types(pod: dict) -> set[str]:
    names = {r for c in pod["containers"] for r in c["resources"].get("requests", {})}
    return {t for t, resources in DEVICE_RESOURCE.items()
            if any(n == r or n.startswith(r) for n in names for r in resources)}


def _add_devices(node: dict, dtype: str, count: int) -> None:
    """Devices of `dtype` on NUMA nodes that already hold devices, or on none."""
    devices = node.setdefault("devices", [])
    holding = sorted({d["numaNode"] for d in devices if d.get("numaNode") is not None and d["numaNode"] >= 0})
    places = [*holding, None]
    for minor in range(count):
        devices.append({"type": dtype, "minor": minor, "numaNode": places[minor % len(places)],
                        "pcie": f"pci-extra{minor}", "busID": f"0000:a{minor}:00.0"})


@settings(max_examples=60)
@given(gen.filter_input(), st.sampled_from(gen.DEVICE_TYPES), st.integers(1, 3))
def test_an_unrequested_device_type_changes_nothing(data, dtype, count):
    """DeviceShare works per requested device type: allocation and the device
    score are built over the types the pod requests (docs/operations/
    koordinator.md, DeviceShare rules, and score: "the sum over the pod's device
    types"), and its hints are "every NUMA mask over the NUMA nodes that hold
    devices" - so devices of a type the pod does not ask for, placed on NUMA
    nodes that already hold devices (or on none), change no mask, no
    allocation and no score."""
    assume(dtype not in _requested_types(data["pod"]))
    assume(not any(d["type"] == dtype for d in data["node"].get("devices", [])))
    more = copy.deepcopy(data)
    _add_devices(more["node"], dtype, count)
    assert run("filter", more) == run("filter", data)
    scored = {"nodes": [data["node"]], "pod": data["pod"], "args": data.get("args", {})}
    scored_more = {"nodes": [more["node"]], "pod": data["pod"], "args": data.get("args", {})}
    assert run("score", scored_more) == run("score", scored)


# ---------------------------------------------------------------- capacity

@settings(max_examples=60)
@given(gen.filter_input(), st.data())
def test_more_memory_never_turns_a_fit_into_a_misfit_under_best_effort(data, extra):
    """BestEffort admits whatever the merged hint is (docs/operations/
    koordinator.md, merge: "BestEffort (an unsatisfied best becomes all nodes,
    not preferred; always admit)"), so only an allocation can refuse; more
    memory on a NUMA node only adds availability to every mask holding it."""
    node, pod = data["node"], data["pod"]
    assume(node.get("numaNodes"))
    node.setdefault("labels", {})[ann.LABEL_NUMA_TOPOLOGY_POLICY] = "BestEffort"
    node.pop("kubeletTopologyPolicy", None)
    pod["annotations"].pop(ann.NUMA_TOPOLOGY_SPEC, None)
    before = run("filter", data)
    assume(before["fits"])
    zone = extra.draw(st.sampled_from(node["numaNodes"]))
    zone["memory"] = f"{int(zone['memory'][:-2]) + extra.draw(st.integers(1, 64))}Gi"
    after = run("filter", data)
    assert after["fits"], after


# ---------------------------------------------------------------- merge

@given(gen.merge_input(), st.data())
def test_a_provider_without_an_opinion_changes_nothing(data, extra):
    """A `null` provider is "a provider with no opinion" (docs/operations/
    koordinator.md, merge), upstream's nil hint map: it adds no resource list to
    the combinations, so inserting one anywhere leaves the merge as it was."""
    before = run("merge", data)
    more = copy.deepcopy(data)
    more["providers"].insert(extra.draw(st.integers(0, len(more["providers"]))), None)
    assert run("merge", more) == before
