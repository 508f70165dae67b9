"""Koordinator v1.8.0's rules where they differ from the contract, as behaviours
over reference_impl/koordinator/seams.py. Why each holds, and the corpus case
pinning it, are in conformance/expectations/koordinator-v1.8.0.yaml."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from reference_impl.koordinator import seams
from reference_impl.koordinator.annotations import LABEL_CPU_BIND_POLICY
from reference_impl.koordinator.hints import Hint
from reference_impl.koordinator.policy import node_bind_policy

from .model import Behaviour, ReleaseModel, behaviours

# Go's sort.Slice sorts up to this many elements by insertion sort; beyond it
# the order of a position-keyed comparison depends on pattern-defeating
# quicksort's pivots, which is not modelled.
GO_INSERTION_SORT_LIMIT = 12


class OrderNotModelled(ValueError):
    pass


def slice_position_order(nodes: Sequence[int], free: Mapping[int, int]) -> list[int]:
    """The hint's nodes sorted by a comparison that reads the free amount of the
    NUMA node whose id is the slice position compared, not of the node there."""
    if len(nodes) > GO_INSERTION_SORT_LIMIT:
        raise OrderNotModelled(f"{len(nodes)} NUMA nodes in one hint")
    order = list(nodes)
    # The comparison's keys stay with the positions while the elements move.
    for i in range(1, len(order)):
        j = i
        while j > 0 and free.get(j, 0) < free.get(j - 1, 0):
            order[j], order[j - 1] = order[j - 1], order[j]
            j -= 1
    return order


def lower_mask_first(merged: Hint, best: Hint) -> bool:
    return merged.affinity < best.affinity or merged.score > best.score


def forced_by_node_label(node) -> str | None:
    node_bind = node_bind_policy(node, node.labels.get(LABEL_CPU_BIND_POLICY, ""))
    return {"FullPCPUsOnly": "FullPCPUs", "SpreadByPCPUs": "SpreadByPCPUs"}.get(node_bind)


def gpu_device_scope_below_the_tree(device_type: str, scope: str | None) -> int:
    if device_type == "gpu" and scope == "Device":
        return seams.SCOPE_LEVEL["Device"] + 1
    return seams.scope_level(device_type, scope)


def share_against_its_free(used: int, per_device: int, capacity: int) -> tuple[int, int]:
    """The walk hands the scorer a GPU's free amount where its total goes and
    the total where the free goes: an unused GPU is weighed as the share
    against its capacity, a GPU in use as its free amount against itself, so
    every GPU in use is as full as can be (MostAllocated) or as empty
    (LeastAllocated)."""
    free = capacity - used
    if used == 0:
        return per_device, capacity
    return free, free


def one_instance_requested(per_device: int, count: int) -> int:
    return per_device


def devices_on_the_stored_affinity(decision) -> int | None:
    """The NUMA affinity the Topology Manager stored in Filter; a BestEffort
    merge runs only in Reserve, so only a Restricted or SingleNUMANode pod has
    one when the node is scored."""
    if decision.resolution.policy not in ("Restricted", "SingleNUMANode") or decision.hint is None:
        return None
    return decision.hint.affinity


def lowest_score_first(scores) -> list[int]:
    return sorted(set(scores))


def _unmerged_when_best_effort(decision):
    return {} if decision.resolution.policy == "BestEffort" else decision.numa


MODEL = ReleaseModel("koordinator", "v1.8.0", "koordinator", seams.CONTRACT, behaviours(
    Behaviour("slice-position-split-order",
              "a multi-NUMA split visits the nodes in the order of a position-keyed comparison",
              {"split_order": slice_position_order}),
    Behaviour("lower-mask-before-score",
              "at equal width a lower mask replaces the best hint whatever its score",
              {"replaces_at_equal_width": lower_mask_first}),
    Behaviour("best-effort-scored-before-merge",
              "a BestEffort pod is scored over the whole node, its CPU already requested counted as bound CPUs",
              {"scored_numa": _unmerged_when_best_effort,
               "cpu_requested_as_placed": lambda decision, over_numa: (
                   not over_numa and decision.resolution.policy == "BestEffort")}),
    Behaviour("numa-cpu-as-bound-cpus",
              "on the chosen NUMA nodes the CPU already requested is the CPUs placed pods bound node-wide "
              "(amplified on an amplified node)",
              {"cpu_requested_as_placed": lambda decision, over_numa: over_numa}),
    # Policy None scores the node's own requests (scoreWithAmplifiedCPUs), not
    # the bound CPUs.
    Behaviour("whole-node-cpu-as-bound-cpus",
              "over the whole node the CPU already requested is the CPUs placed pods bound (amplified on an "
              "amplified node), except under policy None",
              {"cpu_requested_as_placed": lambda decision, over_numa: (
                  not over_numa and decision.resolution.policy != "None")}),
    Behaviour("placed-numa-unrecorded-without-cpu-topology",
              "placed pods' NUMA allocations are not recorded on a node without a valid CPU topology",
              {"placed_numa_recorded": lambda node: node.cpu_topology is not None and node.cpu_topology.is_valid()}),
    Behaviour("node-bind-trims-without-cpu-request",
              "a node-forced bind policy trims the NUMA nodes' CPU also for a pod that binds none",
              {"forced_trim": forced_by_node_label}),
    Behaviour("shared-gpu-walk-score-swapped",
              "in the GPU topology walk a shared GPU in use scores as full, whatever its share in use",
              {"share_requested": share_against_its_free}),
    Behaviour("device-score-one-instance",
              "a device node score adds the pod's request of one device, however many it asks for",
              {"device_score_request": one_instance_requested}),
    Behaviour("device-score-on-the-numa-affinity",
              "a device node score weighs only the devices on the pod's NUMA affinity (and those without a NUMA node)",
              {"device_score_numa": devices_on_the_stored_affinity}),
    Behaviour("partition-groups-lowest-score-first",
              "a GPU partition table's allocationScore groups are tried lowest score first",
              {"partition_group_order": lowest_score_first}),
    Behaviour("device-scope-never-met",
              "requiredTopologyScope Device for GPUs is met by no subtree and not checked ahead of partitions",
              {"scope_level": gpu_device_scope_below_the_tree}),
))

# Upstream's main branch at a7a1b76b (61 commits after v1.8.0, built from a local
# tree) answers the whole corpus as v1.8.0 does, so its expectations file names
# the same behaviours (docs/findings/koordinator-v1.8.0-61-ga7a1b76b.md).
MODEL_MAIN_A7A1B76B = dataclasses.replace(MODEL, version="v1.8.0-61-ga7a1b76b")
