"""Builders for Kueue TAS inputs: clusters of blocks x racks x nodes, pod sets,
and calls into the reference's operations."""

from __future__ import annotations

import json

from reference_impl.kueue.operations import OPERATIONS

BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"
HOST = "kubernetes.io/hostname"
POOL = {"cloud.provider.com/node-group": "tas-group"}

REQUIRED = "kueue.x-k8s.io/podset-required-topology"
PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"
GROUP = "kueue.x-k8s.io/podset-group-name"
SLICE_TOPOLOGY = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
CONSTRAINTS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"


def topology(levels=(BLOCK, RACK, HOST), name="default") -> dict:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": name},
            "spec": {"levels": [{"nodeLabel": level} for level in levels]}}


def flavor(tolerations=None, topology_name="default") -> dict:
    spec = {"nodeLabels": dict(POOL), "topologyName": topology_name}
    if tolerations:
        spec["tolerations"] = tolerations
    return {"kind": "ResourceFlavor", "metadata": {"name": "tas-flavor"}, "spec": spec}


def node(name, block="b1", rack="r1", cpu="8", pods="110", ready="True", taints=None, unschedulable=False,
         extra_labels=None, allocatable=None) -> dict:
    labels = {BLOCK: block, RACK: rack, HOST: name, **POOL, **(extra_labels or {})}
    status = {"allocatable": allocatable if allocatable is not None else {"cpu": cpu, "memory": "32Gi", "pods": pods}}
    if ready is not None:
        status["conditions"] = [{"type": "Ready", "status": ready}]
    spec = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {"metadata": {"name": name, "labels": labels}, "spec": spec, "status": status}


def cluster(blocks=2, racks=2, nodes=2, cpu="8", capacities=None) -> list[dict]:
    """`capacities`, when given, maps node name to its CPU count."""
    result = []
    for b in range(1, blocks + 1):
        for r in range(1, racks + 1):
            for n in range(1, nodes + 1):
                name = f"b{b}-r{r}-n{n}"
                result.append(node(name, f"b{b}", f"r{r}", cpu=str((capacities or {}).get(name, cpu))))
    return result


def pod_set(name="main", count=1, annotations=None, cpu="1", **extra) -> dict:
    return {"name": name, "count": count, "annotations": annotations or {}, "requests": {"cpu": cpu}, **extra}


def constraints(*layers) -> str:
    return json.dumps([{"topology": t, "size": s} for t, s in layers])


def assign(nodes, pod_sets, levels=(BLOCK, RACK, HOST), gates=None, version=None, **extra) -> dict:
    input_ = {"topology": topology(levels), "resourceFlavor": extra.pop("resourceFlavor", flavor()),
              "nodes": nodes, "workload": {"name": "wl", "podSets": pod_sets}, **extra}
    if gates:
        input_["featureGates"] = gates
    if version:
        input_["kueueVersion"] = version
    return OPERATIONS["assign"](input_)


def placed(result, pod_set_name="main") -> list[tuple[str, int]]:
    """The assignment of one pod set as (last value, count) pairs."""
    for ps in result["podSets"]:
        if ps["name"] == pod_set_name:
            assert ps["topologyAssignment"] is not None, ps["notFit"]
            return [(d["values"][-1], d["count"]) for d in ps["topologyAssignment"]["domains"]]
    raise KeyError(pod_set_name)


def not_fit(result, pod_set_name="main") -> dict:
    for ps in result["podSets"]:
        if ps["name"] == pod_set_name:
            return ps["notFit"]
    raise KeyError(pod_set_name)


def hot_swap(nodes, pod_sets, events, gates=None, version=None, owners=None, **extra) -> dict:
    workload = {"name": "wl", "owners": owners or [{"apiVersion": "batch/v1", "kind": "Job", "name": "wl"}],
                "podSets": pod_sets}
    if "podStates" in extra:
        workload["podStates"] = extra.pop("podStates")
    input_ = {"topology": topology(), "resourceFlavor": extra.pop("resourceFlavor", flavor()), "nodes": nodes,
              "workload": workload, "events": events, **extra}
    if gates:
        input_["featureGates"] = gates
    if version:
        input_["kueueVersion"] = version
    return OPERATIONS["hot_swap"](input_)


def hosts(assignment_domains) -> dict[str, int]:
    return {d["values"][-1]: d["count"] for d in assignment_domains}
