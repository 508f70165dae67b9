"""Kueue v0.17.0's rules where they differ from the contract, as behaviours
over reference_impl/kueue/seams.py. Why each holds, and the corpus case pinning
it, are in conformance/expectations/kueue-v0.17.0.yaml."""

from __future__ import annotations

from reference_impl.kueue import seams

from .model import Behaviour, ReleaseModel, behaviours


def as_given(domains, count, leader_count, slice_size, slices):
    return domains


def offered_before_clamping(domain, with_leader: int, remaining: list[int], slice_size: int, slices: bool):
    """What a domain holding leaders offers comes off the remaining count before
    it is clamped; the domain keeps its pod count and, for slices, its slice count."""
    if slices:
        with_leader = min(with_leader, remaining[0])
        domain.slice_count_with_leader = with_leader
        domain.leader_count = min(domain.leader_count, remaining[1])
        domain.pod_count = with_leader * slice_size
        remaining[1] -= domain.leader_count
        remaining[0] -= with_leader
        return domain
    remaining[0] -= with_leader
    remaining[1] -= domain.leader_count
    domain.pod_count_with_leader = min(with_leader, remaining[0])
    domain.leader_count = min(domain.leader_count, remaining[1])
    return domain


def leaf_id_at_the_hostname(snap, domain, level: int) -> str:
    if level == len(snap.levels) - 1 and len(snap.levels) > 1:
        return domain.values[-1]
    return domain.path_id()


MODEL = ReleaseModel("kueue", "v0.17.0", "kueue", seams.CONTRACT, behaviours(
    Behaviour("podset-usage-without-pod-slots",
              "the usage one pod set leaves for the next leaves out each pod's one pod slot",
              {"pod_slots_in_podset_usage": False}),
    Behaviour("leader-descent",
              "a leader's domain is not moved to the front, and a domain holding leaders that does not finish "
              "the placement is taken off the remaining count before clamping",
              {"leader_order": as_given, "leader_shortfall": offered_before_clamping}),
    Behaviour("leader-capacity",
              "a domain that cannot hold the leader still counts in its parent's room beside the leader and in "
              "BestFit's choice",
              {"holds_leader": lambda domain, leaders: True}),
    Behaviour("hostname-replacement-domain",
              "a replacement required at the hostname level is named by the host alone",
              {"required_domain_id": leaf_id_at_the_hostname}),
))
