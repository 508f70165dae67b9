"""The common input of every operation except `validate`: gates, the Topology
and ResourceFlavor objects and the cluster state, with the refusals that stop
an operation before anything is computed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from reference_impl.errors import InvalidInput
from reference_impl.refusal import Refusal

from . import gates as gates_mod
from . import objects


@dataclass
class Common:
    gates: gates_mod.Gates
    topology: objects.Topology
    flavor: objects.ResourceFlavor
    nodes: list[objects.Node]
    pods: list[objects.Pod]
    admitted: list[list[objects.AdmittedPodSet]]


def resolve_gates(input_: Mapping) -> gates_mod.Gates:
    try:
        return gates_mod.resolve(input_)
    except gates_mod.UnknownGate as exc:
        raise Refusal("UnknownFeatureGate", f"unrecognized feature gate: {exc.name} (Kueue {exc.version})") from None


def parse_common(input_: Mapping) -> Common:
    if not isinstance(input_, Mapping):
        raise InvalidInput("", "the input must be a mapping")
    gates = resolve_gates(input_)
    if not gates.enabled(gates_mod.TAS):
        raise Refusal("TopologyAwareSchedulingDisabled", "the TopologyAwareScheduling feature gate is disabled")
    if "topology" not in input_:
        raise InvalidInput("topology", "required")
    if "resourceFlavor" not in input_:
        raise InvalidInput("resourceFlavor", "required")
    topology = objects.parse_topology(input_["topology"])
    problem = objects.topology_problem(topology)
    if problem is not None:
        raise Refusal("InvalidTopology", problem)
    flavor = objects.parse_flavor(input_["resourceFlavor"])
    if flavor.topology_name is not None and not flavor.node_labels:
        raise Refusal("InvalidResourceFlavor", "at least one nodeLabel is required when topology is set")
    if flavor.topology_name is None:
        raise Refusal("TopologyMismatch", f'ResourceFlavor "{flavor.name}" has no topologyName: '
                                          f'Flavor "{flavor.name}" does not support TopologyAwareScheduling')
    if flavor.topology_name != topology.name:
        raise Refusal("TopologyMismatch", f'ResourceFlavor "{flavor.name}" references topology '
                                          f'"{flavor.topology_name}", not "{topology.name}"')
    raw_pods = input_.get("pods") or []
    if not isinstance(raw_pods, list):
        raise InvalidInput("pods", "a list of Pod objects")
    pods = [objects.parse_pod(p, f"pods[{i}]") for i, p in enumerate(raw_pods)]
    return Common(gates=gates, topology=topology, flavor=flavor, nodes=objects.parse_nodes(input_.get("nodes")),
                  pods=pods, admitted=objects.parse_admitted_workloads(input_.get("admittedWorkloads")))


def parse_pod_sets(raw, field: str) -> list[objects.PodSet]:
    if not isinstance(raw, list):
        raise InvalidInput(field, "must be a list of pod sets")
    pod_sets = [objects.parse_pod_set(ps, f"{field}[{i}]") for i, ps in enumerate(raw)]
    names = [ps.name for ps in pod_sets]
    if len(set(names)) != len(names):
        raise InvalidInput(field, "pod set names must be unique")
    return pod_sets
