"""Koordinator release behaviours the contract does not follow, reproducible on request.

Where a release answers otherwise than docs/operations/koordinator.md and the
difference is a rule the reference can state, it is named here. The reference
never applies one by itself; a differential run turns one on to recognise that
release's answer exactly (conformance/fuzz/known.py), so the difference is
counted under its corpus case instead of hiding whatever else a run could find.
(The NUMA split order has its own module, split_order.py.)
"""

from __future__ import annotations

from ..release_switches import ReleaseSwitches

# v1.8.0 merges the BestEffort hints in Reserve, after Score, so when it scores
# a node for a BestEffort pod no NUMA affinity is known: the node score is the
# whole node's, and for a pod binding CPUs the CPU already requested is the
# number of CPUs placed pods have bound (nodenumaresource scoring.go Score,
# calculateAllocatableAndRequested; plugin.go Filter, Reserve); corpus case
# koord.score.node.best-effort-numa-allocation.
BEST_EFFORT_SCORED_NODE_WIDE_V1_8 = "v1.8.0: BestEffort scored before its merge"

# v1.8.0's resource manager records no placed pod's allocation on a node whose
# NodeResourceTopology has no valid CPU topology (nodenumaresource
# resource_manager.go Update), so what placed pods hold on the NUMA nodes is
# free again for the hints, the NUMA scores and the NUMA allocation;
# corpus case koord.filter.numa.placed-pods-without-cpu-topology.
PLACED_NUMA_UNRECORDED_WITHOUT_CPU_TOPOLOGY_V1_8 = "v1.8.0: placed NUMA resources unrecorded without CPU topology"

# v1.8.0 takes a node-forced bind policy (FullPCPUsOnly, SpreadByPCPUs) as a
# required one for every pod when it trims the CPU available on each NUMA
# node, also for a pod that requests no CPU and binds none (nodenumaresource
# util.go getCPUBindPolicy, resource_manager.go trimNUMANodeResources); corpus
# case koord.filter.numa.node-bind-policy-without-cpu-request.
NODE_BIND_TRIMS_WITHOUT_CPU_REQUEST_V1_8 = "v1.8.0: node bind policy trims CPUs without a CPU request"

# v1.8.0 lets a merged hint of the same width but a lower mask value replace
# the best one before scores are compared (topologymanager policy.go
# mergeFilteredHints, bitmask IsNarrowerThan); corpus case
# koord.merge.equal-width-higher-score-mask-order.
LOWER_MASK_BEFORE_SCORE_V1_8 = "v1.8.0: equal width decided by the lower mask first"

# v1.8.0's GPU topology tree has no level for requiredTopologyScope Device, so
# the scope is never met, not even by one free GPU, and nothing checks it ahead
# of the partitions: honoured partitions answer first, and only the topology
# allocation after them refuses (deviceshare allocator_gpu.go Allocate,
# allocateByPartition, allocateFromScope); corpus case
# koord.filter.device.scope[scope=Device,gpus=1,busy=#6,want=#6,devs=#6].
DEVICE_SCOPE_NEVER_MET_V1_8 = "v1.8.0: requiredTopologyScope Device never met"

# v1.8.0 scores a pod that binds CPUs but has no NUMA allocation (e.g. a
# SingleNUMANode merge whose best hint is all NUMA nodes, so null) over the
# whole node, and there takes as the CPU already requested the number of CPUs
# placed pods have bound, not their cpu requests: a placed pod without a CPU
# set adds no CPU (nodenumaresource scoring.go calculateAllocatableAndRequested);
# corpus case koord.score.node.whole-node-cpu-binding-pod.
WHOLE_NODE_CPU_AS_BOUND_CPUS_V1_8 = "v1.8.0: whole-node CPU requested counted as bound CPUs"

# The same on the NUMA nodes the merge chose: a pod given a CPU set is scored
# there with, as CPU already requested, the number of CPUs placed pods have
# bound on the whole node, not what they hold on those NUMA nodes (scoring.go
# calculateAllocatableAndRequested, node_allocation.go getAvailableCPUs);
# corpus case koord.score.node.numa-cpu-binding-pod-counts-bound-cpus-node-wide.
NUMA_CPU_AS_BOUND_CPUS_V1_8 = "v1.8.0: NUMA CPU requested counted as bound CPUs node-wide"

KNOWN = frozenset({BEST_EFFORT_SCORED_NODE_WIDE_V1_8, PLACED_NUMA_UNRECORDED_WITHOUT_CPU_TOPOLOGY_V1_8,
                   NODE_BIND_TRIMS_WITHOUT_CPU_REQUEST_V1_8, LOWER_MASK_BEFORE_SCORE_V1_8,
                   DEVICE_SCOPE_NEVER_MET_V1_8, WHOLE_NODE_CPU_AS_BOUND_CPUS_V1_8, NUMA_CPU_AS_BOUND_CPUS_V1_8})

_SWITCHES = ReleaseSwitches("koordinator", KNOWN)
active = _SWITCHES.active
using = _SWITCHES.using
