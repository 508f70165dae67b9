"""Invariants of the Koordinator reference, checked on generated machines and pods."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from reference_impl.koordinator import topology
from reference_impl.koordinator.cpu_accumulator import take_cpus
from reference_impl.koordinator.hints import Hint
from reference_impl.koordinator.merge import merge
from reference_impl.numa import bitmask

from .helpers import LSR, NUMA_SPEC, RESOURCE_SPEC, node, pod, run

POLICIES = ["BestEffort", "Restricted", "SingleNUMANode"]


@st.composite
def machines(draw):
    sockets = draw(st.integers(1, 2))
    per_socket = draw(st.integers(1, 2))
    cores = draw(st.integers(1, 4))
    threads = draw(st.sampled_from([1, 2]))
    spec = {"sockets": sockets, "numaNodesPerSocket": per_socket, "coresPerNUMANode": cores, "threadsPerCore": threads}
    topo = topology.build(spec)
    taken = draw(st.sets(st.sampled_from(sorted(topo.cpus)), max_size=len(topo.cpus)))
    exclusive = draw(st.sampled_from(["None", "PCPULevel", "NUMANodeLevel"]))
    return spec, topo, sorted(taken), exclusive


@given(machines(), st.data())
def test_filter_cpuset_has_the_requested_size_inside_the_merged_affinity(machine, data):
    spec, topo, taken, exclusive = machine
    numa_ids = sorted({c.node for c in topo.cpus.values()})
    n = {"cpuTopology": spec, "numaNodes": [{"id": i, "memory": "16Gi"} for i in numa_ids],
         "pods": [{"name": "held", "cpuset": taken, "cpuExclusivePolicy": exclusive}] if taken else []}
    policy = data.draw(st.sampled_from(POLICIES + ["None"]))
    bind = data.draw(st.sampled_from(["FullPCPUs", "SpreadByPCPUs"]))
    required = data.draw(st.booleans())
    cpus = data.draw(st.integers(1, len(topo.cpus)))
    spec_key = "requiredCPUBindPolicy" if required else "preferredCPUBindPolicy"
    annotations = {RESOURCE_SPEC: {spec_key: bind}}
    if policy != "None":
        annotations[NUMA_SPEC] = {"numaTopologyPolicy": policy}
    out = run("filter", {"node": n, "pod": pod(cpu=str(cpus), memory="1Gi", labels=LSR, annotations=annotations)})
    if not out["fits"]:
        return
    chosen = out["cpuset"]
    assert len(chosen) == cpus
    assert not set(chosen) & set(taken)
    affinity = (out["hint"] or {}).get("affinity")
    if affinity is not None:
        assert {topo.cpus[c].node for c in chosen} <= set(affinity)
    cpu_by_numa = {int(k): v.get("cpu", 0) for k, v in out["numaResources"].items()}
    if cpu_by_numa:
        assert sum(cpu_by_numa.values()) == 1000 * cpus
        for numa, milli in cpu_by_numa.items():
            assert sum(1 for c in chosen if topo.cpus[c].node == numa) * 1000 == milli


def _whole_cores(topo, cpus):
    by_core = {}
    for c in cpus:
        by_core.setdefault(topo.cpus[c].core, set()).add(c)
    return all(len(v) == topo.cpus_per_core() for v in by_core.values())


@given(machines(), st.data())
def test_full_pcpus_never_splits_a_physical_core(machine, data):
    spec, topo, taken, _ = machine
    per_core = topo.cpus_per_core()
    # Placed pods hold whole cores, and the request is whole cores: nothing forces a split.
    held = {c.id for c in topo.cpus.values() if any(topo.cpus[t].core == c.core for t in taken)}
    free_cores = topo.num_cores - len({topo.cpus[c].core for c in held})
    assume(free_cores > 0)
    cores = data.draw(st.integers(1, free_cores))
    strategy = data.draw(st.sampled_from(["MostAllocated", "LeastAllocated"]))
    available = set(topo.cpus) - held
    chosen = take_cpus(topo, available, {c: "None" for c in held}, cores * per_core, "FullPCPUs", "None", strategy)
    assert len(chosen) == cores * per_core and set(chosen) <= available
    assert _whole_cores(topo, chosen)


@given(machines(), st.data())
def test_required_full_pcpus_through_filter_never_splits(machine, data):
    spec, topo, taken, _ = machine
    cpus = data.draw(st.integers(1, len(topo.cpus)))
    n = {"cpuTopology": spec, "numaNodes": [{"id": i, "memory": "16Gi"} for i in sorted({c.node for c in topo.cpus.values()})],
         "pods": [{"name": "held", "cpuset": taken}] if taken else []}
    out = run("filter", {"node": n, "pod": pod(cpu=str(cpus), memory=None, labels=LSR,
                                               annotations={RESOURCE_SPEC: {"requiredCPUBindPolicy": "FullPCPUs"}})})
    if out["fits"]:
        assert _whole_cores(topo, out["cpuset"])
    elif cpus % topo.cpus_per_core():
        assert out["reason"] == "SMTAlignmentError"


@given(machines(), st.data())
def test_exclusive_pods_keep_apart_when_a_numa_node_allows_it(machine, data):
    spec, topo, taken, _ = machine
    level = data.draw(st.sampled_from(["PCPULevel", "NUMANodeLevel"]))
    bind = data.draw(st.sampled_from(["SpreadByPCPUs", "FullPCPUs"] if level == "NUMANodeLevel" else ["SpreadByPCPUs"]))
    held = {c: level for c in taken}
    free = set(topo.cpus) - set(taken)
    if level == "PCPULevel":
        banned_cores = {topo.cpus[c].core for c in taken}
        # CPUs on cores nobody exclusive holds, one per core, counted per NUMA node.
        room = {}
        for c in free:
            info = topo.cpus[c]
            if info.core not in banned_cores:
                room.setdefault(info.node, set()).add(info.core)
        best = max((len(v) for v in room.values()), default=0)
    else:
        banned_nodes = {topo.cpus[c].node for c in taken}
        room = {}
        for c in free:
            info = topo.cpus[c]
            if info.node not in banned_nodes:
                room.setdefault(info.node, set()).add(c if bind == "FullPCPUs" else info.core)
        best = max((len(v) for v in room.values()), default=0)
        if bind == "FullPCPUs":
            best -= best % topo.cpus_per_core()
    assume(best > 0)
    need = data.draw(st.integers(1, best))
    if bind == "FullPCPUs":
        assume(need % topo.cpus_per_core() == 0)
    chosen = take_cpus(topo, free, held, need, bind, level, data.draw(st.sampled_from(["MostAllocated", "LeastAllocated"])))
    assert len(chosen) == need
    if level == "PCPULevel":
        cores = [topo.cpus[c].core for c in chosen]
        assert not set(cores) & {topo.cpus[c].core for c in taken}
        assert len(set(cores)) == len(cores)
    else:
        assert not {topo.cpus[c].node for c in chosen} & {topo.cpus[c].node for c in taken}


masks4 = st.sets(st.integers(0, 3), min_size=1).map(bitmask.from_bits)
hint_st = st.builds(Hint, st.one_of(st.none(), masks4), st.booleans(), st.integers(0, 600))
provider_st = st.one_of(st.none(), st.dictionaries(st.sampled_from(["cpu", "memory", "gpu"]),
                                                   st.one_of(st.none(), st.lists(hint_st, max_size=4)), max_size=2))


@given(st.sampled_from(["None"] + POLICIES), st.lists(provider_st, max_size=3),
       st.sampled_from([None, "Preferred", "Required"]),
       st.dictionaries(st.integers(0, 3), st.sampled_from(["idle", "shared", "single"])))
def test_the_merged_hint_never_violates_the_policy(policy, providers, exclusive, statuses):
    outcome = merge(policy, [0, 1, 2, 3], providers, exclusive, statuses)
    h = outcome.hint
    if policy == "None":
        assert h.affinity is None and outcome.admit
        return
    if policy == "BestEffort":
        assert outcome.admit and not h.unsatisfied and h.affinity
    if policy in ("Restricted", "SingleNUMANode") and outcome.admit:
        assert h.preferred and not h.unsatisfied
    if policy == "SingleNUMANode" and outcome.admit:
        assert h.affinity is None or bitmask.count(h.affinity) == 1
    if outcome.admit and h.preferred and h.affinity is not None and policy != "BestEffort":
        # An admitted hint sits inside every non-nil affinity it was merged from... so it is narrower
        # than or equal to all NUMA nodes and, under Required exclusivity, respects the statuses.
        if exclusive == "Required":
            nodes = bitmask.bits(h.affinity)
            if len(nodes) > 1:
                assert not any(statuses.get(n) == "single" for n in nodes)
            else:
                assert statuses.get(nodes[0]) != "shared"


@given(st.integers(1, 3), st.integers(1, 3), st.integers(0, 3), st.data())
def test_most_and_least_allocated_pick_opposite_numa_nodes(used_a, used_b, _, data):
    assume(used_a != used_b)
    placed = [{"name": "a", "numaResources": {"0": {"cpu": str(used_a), "memory": f"{used_a}Gi"}}},
              {"name": "b", "numaResources": {"1": {"cpu": str(used_b), "memory": f"{used_b}Gi"}}}]
    n = node(pods=placed, memory="8Gi")
    request = pod(cpu="1", memory="1Gi", annotations={NUMA_SPEC: {"numaTopologyPolicy": "SingleNUMANode"}})
    picks = {}
    for strategy in ("MostAllocated", "LeastAllocated"):
        out = run("filter", {"node": n, "pod": request,
                             "args": {"nodeNUMAResource": {"numaScoringStrategy": {"type": strategy}}}})
        picks[strategy] = out["hint"]["affinity"]
    fuller = [0] if used_a > used_b else [1]
    emptier = [1] if used_a > used_b else [0]
    assert picks == {"MostAllocated": fuller, "LeastAllocated": emptier}


@given(st.integers(0, 12), st.integers(0, 12))
def test_most_and_least_allocated_rank_nodes_oppositely(cpu_a, cpu_b):
    assume(cpu_a != cpu_b)
    nodes = [node(name="a", pods=[{"name": "x", "requests": {"cpu": str(cpu_a), "memory": "1Gi"}}] if cpu_a else []),
             node(name="b", pods=[{"name": "y", "requests": {"cpu": str(cpu_b), "memory": "1Gi"}}] if cpu_b else [])]
    best = {}
    for strategy in ("MostAllocated", "LeastAllocated"):
        out = run("score", {"nodes": nodes, "pod": pod(cpu="2", memory="1Gi"),
                            "args": {"nodeNUMAResource": {"scoringStrategy": {"type": strategy}}}})
        best[strategy] = out["best"]
    assert best["MostAllocated"] != best["LeastAllocated"]


@st.composite
def device_nodes(draw):
    numa = draw(st.integers(1, 2))
    per_numa = draw(st.sampled_from([2, 4]))
    devices = []
    for n in range(numa):
        for i in range(per_numa):
            devices.append({"type": "gpu", "minor": n * per_numa + i, "numaNode": n, "pcie": f"p{n}{i // 2}"})
        devices.append({"type": "rdma", "minor": n, "numaNode": n, "pcie": f"p{n}0"})
    minors = [d["minor"] for d in devices if d["type"] == "gpu"]
    busy = draw(st.lists(st.sampled_from(minors), unique=True, max_size=len(minors)))
    return node(numa=numa, devices=devices, pods=[{"name": "busy", "devices": {"gpu": busy}}] if busy else []), busy


@given(device_nodes(), st.sampled_from(POLICIES), st.integers(1, 4), st.booleans(), st.booleans())
def test_devices_stay_inside_the_merged_affinity(machine, policy, count, joint, same_pcie):
    n, busy = machine
    annotations = {NUMA_SPEC: {"numaTopologyPolicy": policy}}
    if joint:
        annotations["scheduling.koordinator.sh/device-joint-allocate"] = {
            "deviceTypes": ["gpu", "rdma"], **({"requiredScope": "SamePCIe"} if same_pcie else {})}
    out = run("filter", {"node": n, "pod": pod(cpu="1", memory="1Gi", annotations=annotations,
                                               **{"nvidia.com/gpu": str(count), "koordinator.sh/rdma": "1"})})
    if not out["fits"]:
        return
    gpus = [d["minor"] for d in out["devices"]["gpu"]]
    assert len(gpus) == count and not set(gpus) & set(busy)
    numa_of = {d["minor"]: d["numaNode"] for d in n["devices"] if d["type"] == "gpu"}
    affinity = out["hint"]["affinity"]
    if affinity is not None:
        assert {numa_of[m] for m in gpus} <= set(affinity)
        assert {d["minor"] for d in out["devices"]["rdma"]} <= set(affinity)   # one NIC per NUMA node, minor = NUMA id
    if joint and same_pcie:
        pcie_of = {(d["type"], d["minor"]): d["pcie"] for d in n["devices"]}
        assert {pcie_of[("rdma", d["minor"])] for d in out["devices"]["rdma"]} == {pcie_of[("gpu", m)] for m in gpus}
