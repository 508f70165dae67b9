"""Generated Kueue inputs (docs/operations/kueue.md): topologies of 1 to 4
levels (hostname-lowest or not), node sets with topology and flavor labels,
allocatable, Ready conditions, taints and cordons, non-TAS pods and admitted
workloads as usage, podsets with every annotation kind (required, preferred,
unconstrained, group name, slices, multi-layer slice constraints), feature gates
valid for the Kueue version, hot-swap event timelines and provisioning flows.

Sizes stay small (at most 8 nodes, 3 podsets of at most 8 pods, 6 events) so a
hundred examples of one operation run in seconds.

One module per concern: `values` (label keys, gates, taints), `versions`,
`topology`, `nodes`, `podsets`, `events` (hot-swap timelines), `operations`
(one valid input per operation) and `mutators` (invalid inputs, as named
breakages).
"""

from __future__ import annotations

from .mutators import invalid_capacity_input, invalid_validate_input, invalid_with_workload
from .operations import assign_input, capacity_input, hot_swap_input, provision_input, snapshot, validate_input
from .podsets import pod_set
from .values import GROUP_LABEL, minor_of
from .versions import version_and_gates

__all__ = ["GROUP_LABEL", "IGNORED", "INVALID", "VALID", "assign_input", "capacity_input", "hot_swap_input",
           "minor_of", "pod_set", "provision_input", "snapshot", "validate_input", "version_and_gates"]

VALID = {
    "validate": validate_input(),
    "capacity": capacity_input(),
    "assign": assign_input(),
    "hot_swap": hot_swap_input(),
    "provision": provision_input(),
}
INVALID = {
    "validate": invalid_validate_input(),
    "capacity": invalid_capacity_input(),
    "assign": invalid_with_workload(assign_input()),
    "hot_swap": invalid_with_workload(hot_swap_input()),
    "provision": invalid_with_workload(provision_input()),
}
# Messages: the contract fixes reason codes and message fragments only (the
# corpus matches messages with $contains, docs/fixture-format.md), so the rest
# of the wording is the implementation's. Nothing else in a Kueue result is
# left open: domain orders and tie-breaks are all specified.
IGNORED = {op: ["*message"] for op in VALID}
