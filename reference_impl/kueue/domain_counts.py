"""The capacity counts of a domain tree, from the leaves' counts up (upstream
`fillInCounts`): pods, pods beside a leader, leaders, and slices of each at the
slice level. Greedy placement fills them once; balanced placement refills a
pruned tree."""

from __future__ import annotations

from .seams import CONTRACT, Seams
from .topology import Domain


def fill_in_counts_helper(domain: Domain, slice_size: int, slice_level: int, level: int,
                          slice_size_at_level: dict[int, int] | None, leader_required: bool,
                          seams: Seams = CONTRACT) -> None:
    if not domain.children:
        if level == slice_level:
            domain.slice_count = domain.pod_count // slice_size
            domain.slice_count_with_leader = domain.pod_count_with_leader // slice_size
        return
    slice_size_at_level = slice_size_at_level or {}
    children_capacity = 0
    slice_capacity = 0
    contributor = False
    min_pod_diff = None
    min_slice_diff = None
    leader_count = 0
    affinity_score = 0
    inner = slice_size_at_level.get(level + 1)
    # a leaf's own step (the top of this function) is done here without the
    # call: one call saved per node
    child_is_slice_level = level + 1 == slice_level
    for child in domain.children:
        if child.children:
            fill_in_counts_helper(child, slice_size, slice_level, level + 1, slice_size_at_level, leader_required,
                                  seams)
        elif child_is_slice_level:
            child.slice_count = child.pod_count // slice_size
            child.slice_count_with_leader = child.pod_count_with_leader // slice_size
        pods = child.pod_count
        pods_with_leader = child.pod_count_with_leader
        if inner is not None:
            pods = (pods // inner) * inner
            pods_with_leader = (pods_with_leader // inner) * inner
        children_capacity += pods
        slices = child.slice_count
        slice_capacity += slices
        # comparisons rather than min() and max(): one step per domain
        if not leader_required or seams.holds_leader(child, 1):
            contributor = True
            diff = pods - pods_with_leader
            if min_pod_diff is None or diff < min_pod_diff:
                min_pod_diff = diff
            sdiff = slices - child.slice_count_with_leader
            if min_slice_diff is None or sdiff < min_slice_diff:
                min_slice_diff = sdiff
        if child.leader_count > leader_count:
            leader_count = child.leader_count
        affinity_score += child.affinity_score
    domain.pod_count = children_capacity
    domain.affinity_score = affinity_score
    slice_with_leader = 0
    if contributor:
        domain.pod_count_with_leader = children_capacity - min_pod_diff
        slice_with_leader = slice_capacity - min_slice_diff
    else:
        domain.pod_count_with_leader = 0
    domain.leader_count = leader_count
    if level == slice_level:
        slice_capacity = domain.pod_count // slice_size
        slice_with_leader = domain.pod_count_with_leader // slice_size
    domain.slice_count = slice_capacity
    domain.slice_count_with_leader = slice_with_leader
