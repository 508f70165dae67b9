"""Domain orders: BestFit and LeastFreeCapacity, with and without a leader, and
the BestFit "tightest domain that still fits" choice (upstream `sortedDomains`,
`sortedDomainsWithLeader`, `findBestFitDomainBy`). Ties are always broken by the
domain's label path, so every order is total and deterministic."""

from __future__ import annotations

from .seams import CONTRACT, Seams
from .topology import Domain


def sorted_domains(domains: list[Domain], least_free: bool) -> list[Domain]:
    # BestFit: most slices first; LeastFreeCapacity: fewest first; then fewer
    # pods first (the tightest among equals), then the path.
    sign = 1 if least_free else -1
    return sorted(domains, key=lambda d: (-d.affinity_score, sign * d.slice_count, d.pod_count, d.values))


def sorted_domains_with_leader(domains: list[Domain], least_free: bool) -> list[Domain]:
    sign = 1 if least_free else -1
    return sorted(domains, key=lambda d: (-d.leader_count, -d.affinity_score, sign * d.slice_count_with_leader,
                                          d.pod_count_with_leader, d.values))


def _top_affinity_tier(domains: list[Domain]) -> list[Domain]:
    # The tightest-fit swap never crosses into a lower preferred-affinity
    # score: affinity outranks capacity (all scores are 0 with the gate off).
    for i, domain in enumerate(domains):
        if domain.affinity_score != domains[0].affinity_score:
            return domains[:i]
    return domains


def _best_fit_by(domains: list[Domain], needed: int, count_of, leader_count: int, seams: Seams) -> Domain:
    domains = _top_affinity_tier(domains)
    best = domains[0]
    best_count = None
    for domain in domains:
        if not seams.holds_leader(domain, leader_count):
            continue
        count = count_of(domain)
        if count >= needed and (best_count is None or count < best_count):
            best, best_count = domain, count
    return best if best_count is not None else domains[0]


def best_fit_domain(domains: list[Domain], count: int, leader_count: int, seams: Seams = CONTRACT) -> Domain:
    if leader_count > 0:
        return _best_fit_by(domains, count, lambda d: d.pod_count_with_leader, leader_count, seams)
    return _best_fit_by(domains, count, lambda d: d.pod_count, leader_count, seams)


def best_fit_domain_for_slices(domains: list[Domain], slice_count: int, leader_count: int,
                               seams: Seams = CONTRACT) -> Domain:
    if leader_count > 0:
        return _best_fit_by(domains, slice_count, lambda d: d.slice_count_with_leader, leader_count, seams)
    return _best_fit_by(domains, slice_count, lambda d: d.slice_count, leader_count, seams)
