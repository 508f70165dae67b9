"""Where an implementation may answer otherwise than the contract, as typed
points of variation; each default is the rule the Kueue TAS document (or, where
it is silent, newer upstream) states, and the reference run as it is uses
only the defaults.

A model of another implementation (kept with the conformance suite) replaces a field with
`dataclasses.replace`, and the operations take the result as `seams=`. The
topology snapshot carries the seams it is read under, so the placement, the
usage between pod sets and the replacement reach them from there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# A topology domain (topology.Domain) and snapshot (topology.Snapshot); not
# imported, since the snapshot carries these seams.
Domain = Any
Snapshot = Any

# (domains in order, units wanted, leaders wanted, slice size, whether units are slices) -> the order to descend in
LeaderOrder = Callable[[list[Domain], int, int, int, bool], list[Domain]]
# (a domain holding leaders that does not finish the placement, its units beside the
#  leader, [units, leaders] still wanted (updated in place), slice size, slices?) -> the domain as taken
LeaderShortfall = Callable[[Domain, int, list[int], int, bool], Domain]


def room_for_leaders(domain: Domain, leaders: int) -> bool:
    """Whether a domain counts for a placement needing `leaders` leaders: only
    when it can hold them, both in its parent's room beside the leader and in
    BestFit's choice of the tightest domain."""
    return domain.leader_count >= leaders


def prioritize_leader_domain(domains: list[Domain], count: int, leader_count: int, slice_size: int,
                             slices: bool) -> list[Domain]:
    """The first domain that can hold the leader and still leaves room for the
    rest moves to the front, so the descent places the leader first."""
    if leader_count == 0 or len(domains) < 2:
        return domains
    required = count // slice_size if slices else count
    available = sum(d.slice_count if slices else d.pod_count for d in domains)
    for i, domain in enumerate(domains):
        if domain.leader_count < leader_count:
            continue
        penalty = (domain.slice_count - domain.slice_count_with_leader) if slices else (
            domain.pod_count - domain.pod_count_with_leader)
        if available - penalty < required:
            continue
        if i == 0:
            return domains
        return [domain] + domains[:i] + domains[i + 1:]
    return domains


def clamp_to_remaining(domain: Domain, with_leader: int, remaining: list[int], slice_size: int,
                       slices: bool) -> Domain:
    """A domain holding leaders that does not finish the placement gives what it
    holds beside the leader, never more than is still wanted."""
    with_leader = min(with_leader, remaining[0])
    if slices:
        domain.slice_count_with_leader = with_leader
        domain.slice_count = with_leader
    else:
        domain.pod_count_with_leader = with_leader
    if domain.leader_count > remaining[1]:
        domain.leader_count = remaining[1]
    domain.pod_count = with_leader * slice_size
    remaining[1] -= domain.leader_count
    remaining[0] -= with_leader
    return domain


def path_id(snap: Snapshot, domain: Domain, level: int) -> str:
    """The id a replacement's required domain is named by: its label path."""
    return domain.path_id()


@dataclass(frozen=True)
class Seams:
    # whether a domain counts for a placement needing that many leaders
    holds_leader: Callable[[Domain, int], bool] = room_for_leaders
    # the order a descent with a leader visits the domains in
    leader_order: LeaderOrder = prioritize_leader_domain
    # what a domain holding leaders gives when it does not finish the placement
    leader_shortfall: LeaderShortfall = clamp_to_remaining
    # whether the usage one pod set leaves for the next counts each pod's one pod slot
    pod_slots_in_podset_usage: bool = True
    # the id of a replacement's required domain (snapshot, that domain, its level)
    required_domain_id: Callable[[Snapshot, Domain, int], str] = path_id


CONTRACT = Seams()
