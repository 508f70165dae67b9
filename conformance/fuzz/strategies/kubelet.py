"""Generated kubelet inputs (docs/operations/kubelet.md): machines of 1 to 8 NUMA
nodes with symmetric distance matrices, provider hints with nil and empty lists,
kubelet configurations, pods and admission sequences."""

from __future__ import annotations

from hypothesis import strategies as st

from .mutators import apply_one

POLICIES = ("none", "best-effort", "restricted", "single-numa-node")
STRATEGIES = ("none", "most-allocated", "least-allocated")
RESOURCES = ("cpu", "memory", "hugepages-2Mi", "nvidia.com/gpu", "intel.com/sriov-nic")


@st.composite
def numa(draw, max_nodes: int = 8, distances: bool | None = None):
    count = draw(st.integers(1, max_nodes))
    nodes = list(range(count))
    with_distances = draw(st.booleans()) if distances is None else distances
    data = {"nodes": nodes}
    if with_distances:
        far = {}
        for i in nodes:
            for j in nodes:
                if i < j:
                    far[(i, j)] = draw(st.sampled_from((11, 12, 20, 21, 30, 32)))
        data["distances"] = [[10 if i == j else far[(min(i, j), max(i, j))] for j in nodes] for i in nodes]
    return data


def mask(nodes: list[int]):
    return st.lists(st.sampled_from(nodes), min_size=1, max_size=len(nodes), unique=True).map(sorted)


@st.composite
def hint(draw, nodes: list[int], scored: bool):
    affinity = draw(st.one_of(mask(nodes), st.just(None), st.just([])) if draw(st.integers(0, 9)) == 0 else mask(nodes))
    data = {"affinity": affinity, "preferred": draw(st.booleans())}
    if scored and draw(st.booleans()):
        data["score"] = draw(st.integers(0, 100))
    return data


@st.composite
def provider(draw, nodes: list[int], scored: bool):
    kind = draw(st.integers(0, 19))
    if kind == 0:
        return None
    if kind == 1:
        return {}
    resources = draw(st.lists(st.sampled_from(RESOURCES), min_size=1, max_size=2, unique=True))
    out = {}
    for resource in resources:
        shape = draw(st.integers(0, 11))
        if shape == 0:
            out[resource] = None
        elif shape == 1:
            out[resource] = []
        else:
            out[resource] = draw(st.lists(hint(nodes, scored), min_size=1, max_size=5))
    return out


def weights():
    pair = st.tuples(st.sampled_from(RESOURCES), st.integers(0, 100))
    return st.lists(pair, max_size=3, unique_by=lambda p: p[0]).map(lambda ps: ",".join(f"{r}={w}" for r, w in ps))


@st.composite
def merge_input(draw):
    topology = draw(numa(max_nodes=6))
    nodes = topology["nodes"]
    options: dict[str, str] = {}
    if draw(st.booleans()) and "distances" in topology:
        options["prefer-closest-numa-nodes"] = "true"
    scored = draw(st.booleans())
    if scored:
        options["numa-allocation-strategy"] = draw(st.sampled_from(STRATEGIES))
        if draw(st.booleans()):
            options["numa-score-weights"] = draw(weights())
    return {
        "policy": draw(st.sampled_from(POLICIES)),
        "options": options,
        "featureGates": {"TopologyManagerPolicyAlphaOptions": draw(st.booleans())},
        "kubernetesVersion": "1.38",
        "numa": topology,
        "providers": draw(st.lists(provider(nodes, scored), max_size=3)),
    }


OPTION_VALUES = {
    "prefer-closest-numa-nodes": st.sampled_from(("true", "false", "1", "0", "True", "yes", "")),
    "max-allowable-numa-nodes": st.sampled_from(("8", "9", "16", "7", "0", "-1", "eight", "8.5")),
    "numa-allocation-strategy": st.sampled_from(STRATEGIES + ("", "Most-Allocated", "spread")),
    "numa-score-weights": st.one_of(weights(), st.sampled_from(("cpu", "cpu=", "=3", "cpu=1.5", "cpu=-1",
                                                                 "cpu=101", "cpu=NaN", "cpu=3,", " cpu = 3 "))),
    "unknown-option": st.just("true"),
}


@st.composite
def start_input(draw):
    version = draw(st.sampled_from(("1.26", "1.27", "1.28", "1.31", "1.32", "1.35", "1.38")))
    # One option at a time: upstream walks the option map in Go's random order and
    # reports the first problem, so two bad options have no single right answer.
    names = draw(st.lists(st.sampled_from(sorted(OPTION_VALUES)), max_size=1, unique=True))
    gates = draw(st.dictionaries(st.sampled_from(("TopologyManagerPolicyOptions", "TopologyManagerPolicyBetaOptions",
                                                  "TopologyManagerPolicyAlphaOptions")), st.booleans(), max_size=3))
    return {
        "kubernetesVersion": version,
        "featureGates": gates,
        "numa": draw(numa(max_nodes=12)),
        "kubeletConfiguration": {
            "topologyManagerPolicy": draw(st.sampled_from(POLICIES + ("bogus",))),
            "topologyManagerScope": draw(st.sampled_from(("container", "pod", "node"))),
            "topologyManagerPolicyOptions": {n: draw(OPTION_VALUES[n]) for n in names},
        },
    }


@st.composite
def container(draw, name: str, guaranteed: bool):
    cpu = draw(st.integers(1, 8))
    memory = f"{draw(st.integers(1, 8))}Gi"
    requests = {"cpu": str(cpu), "memory": memory}
    if draw(st.integers(0, 3)) == 0:
        requests["nvidia.com/gpu"] = str(draw(st.integers(1, 2)))
    limits = dict(requests) if guaranteed else {k: v for k, v in requests.items() if k != "cpu"}
    return {"name": name, "resources": {"requests": requests, "limits": limits}}


@st.composite
def pod(draw, name: str):
    guaranteed = draw(st.integers(0, 4)) > 0
    apps = draw(st.integers(1, 3))
    spec = {"name": name, "containers": [draw(container(f"app{i}", guaranteed)) for i in range(apps)]}
    if draw(st.integers(0, 4)) == 0:
        spec["initContainers"] = [draw(container("init", guaranteed))]
    return spec


@st.composite
def admit_input(draw):
    count = draw(st.integers(1, 4))
    numa_nodes = [
        {"id": i, "cpus": draw(st.sampled_from((4, 8, 16))), "memory": f"{draw(st.sampled_from((8, 16, 32)))}Gi",
         "devices": {"nvidia.com/gpu": draw(st.integers(0, 4))}}
        for i in range(count)
    ]
    options: dict[str, str] = {}
    if draw(st.booleans()):
        options["numa-allocation-strategy"] = draw(st.sampled_from(STRATEGIES))
    events, names = [], []
    for index in range(draw(st.integers(1, 5))):
        if names and draw(st.integers(0, 3)) == 0:
            events.append({"remove": names.pop(draw(st.integers(0, len(names) - 1)))})
        else:
            name = f"pod-{index}"
            names.append(name)
            events.append({"admit": draw(pod(name))})
    return {
        "kubernetesVersion": "1.38",
        "featureGates": {"TopologyManagerPolicyAlphaOptions": True},
        "kubeletConfiguration": {
            "topologyManagerPolicy": draw(st.sampled_from(POLICIES)),
            "topologyManagerScope": draw(st.sampled_from(("container", "pod"))),
            "topologyManagerPolicyOptions": options,
        },
        "node": {"numaNodes": numa_nodes},
        "events": events,
    }


def _bad_score_weights(draw, data: dict) -> None:
    data["options"]["numa-score-weights"] = draw(st.sampled_from(("cpu", "cpu=x", "cpu=101", "=1", "cpu=-2")))
    data["options"]["numa-allocation-strategy"] = "most-allocated"


def _bad_allocation_strategy(draw, data: dict) -> None:
    data["options"]["numa-allocation-strategy"] = draw(st.sampled_from(("pack", "MOST-ALLOCATED", "spread")))


def _bad_max_allowable(draw, data: dict) -> None:
    data["options"]["max-allowable-numa-nodes"] = draw(st.sampled_from(("7", "x", "-8")))


def _too_many_numa_nodes(draw, data: dict) -> None:
    data["numa"] = {"nodes": list(range(9))}


MERGE_BREAKAGES = (_bad_score_weights, _bad_allocation_strategy, _bad_max_allowable, _too_many_numa_nodes)


@st.composite
def invalid_merge_input(draw):
    data = draw(merge_input())
    apply_one(draw, MERGE_BREAKAGES, data)
    return data


@st.composite
def admit_hints_input(draw):
    """A pod of one to three app containers (and maybe an init container)
    admitted through the scopes with hints the providers are handed directly:
    per container, for the pod, or nil; now and then an Allocate that fails."""
    machine = draw(numa(max_nodes=4, distances=False))
    nodes = machine["nodes"]
    inits = [f"init-{i}" for i in range(draw(st.integers(0, 1)))]
    apps = [f"app-{i}" for i in range(1, draw(st.integers(1, 3)) + 1)]
    names = inits + apps
    pod = {"name": "pod-0", "containers": [{"name": n} for n in apps]}
    if inits:
        pod["initContainers"] = [{"name": n} for n in inits]
    providers = []
    for _ in range(draw(st.integers(1, 3))):
        entry: dict = {}
        named = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
        if named:
            entry["containerHints"] = {n: draw(provider(nodes, False)) for n in named}
        if draw(st.booleans()):
            entry["podHints"] = draw(provider(nodes, False))
        if draw(st.integers(0, 9)) == 0:
            entry["allocateErrors"] = {draw(st.sampled_from(names)): "the provider cannot allocate"}
        providers.append(entry)
    return {"kubernetesVersion": "1.37", "numa": machine,
            "kubeletConfiguration": {"topologyManagerPolicy": draw(st.sampled_from(POLICIES)),
                                     "topologyManagerScope": draw(st.sampled_from(("container", "pod")))},
            "pod": pod, "providers": providers}


VALID = {"merge": merge_input(), "start": start_input(), "admit": admit_input(), "admit_hints": admit_hints_input()}
INVALID = {"merge": invalid_merge_input(), "start": start_input()}
# Which concrete CPU ids a static policy takes is its own choice; how many per
# NUMA node is not.
# Messages are matched by fragment only in the contract, so their wording is each
# implementation's own.
IGNORED = {"admit": ["pods/*/containers/*/cpuIDs", "pods/*/message"], "start": ["refused/message"],
           "merge": ["refused/message"], "admit_hints": ["message"]}
# Result parts that only an implementation of the named feature reports.
REPORTED_WITH = {"admit": {"kubelet.metrics.numa-container-count": ["metrics/numa_container_count"],
                           "kubelet.metrics.numa-score-selection": ["metrics/numa_score_selection_total"]}}


_OPTION_FEATURES = {
    "prefer-closest-numa-nodes": {"kubelet.option.prefer-closest-numa-nodes"},
    "max-allowable-numa-nodes": {"kubelet.option.max-allowable-numa-nodes"},
    "numa-allocation-strategy": {"kubelet.option.numa-allocation-strategy", "kubelet.hint-score"},
    "numa-score-weights": {"kubelet.option.numa-score-weights", "kubelet.hint-score"},
}


def _option_needs(options: dict) -> set[str]:
    needs = {"kubelet.option.validation"} if options else set()
    for name in options:
        needs |= _OPTION_FEATURES.get(name, set())
    return needs


def _merge_needs(data: dict) -> set[str]:
    needs = {"kubelet.merge", f"kubelet.policy.{data['policy']}"} | _option_needs(data.get("options", {}))
    if any(h.get("score") for p in data["providers"] if p for hints in p.values() if hints for h in hints):
        needs.add("kubelet.hint-score")
    return needs


def _start_needs(data: dict) -> set[str]:
    config = data["kubeletConfiguration"]
    return {"kubelet.option.validation", "kubelet.gates.policy-options"} | _option_needs(
        config.get("topologyManagerPolicyOptions", {}))


def _admit_needs(data: dict) -> set[str]:
    config = data["kubeletConfiguration"]
    return ({f"kubelet.policy.{config['topologyManagerPolicy']}", f"kubelet.scope.{config['topologyManagerScope']}",
             "kubelet.provider.cpu", "kubelet.provider.memory", "kubelet.provider.device", "kubelet.metrics.admission"}
            | _option_needs(config.get("topologyManagerPolicyOptions", {})))


def _admit_hints_needs(data: dict) -> set[str]:
    config = data["kubeletConfiguration"]
    return {"kubelet.admit-hints", f"kubelet.policy.{config['topologyManagerPolicy']}",
            f"kubelet.scope.{config['topologyManagerScope']}"}


NEEDS = {"merge": _merge_needs, "start": _start_needs, "admit": _admit_needs, "admit_hints": _admit_hints_needs}
