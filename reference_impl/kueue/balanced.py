"""Balanced placement (spec "Balanced Placement"; upstream
`tas_balanced_placement.go`, Kueue 0.15+ behind `TASBalancedPlacement`).

Among the groups of sibling domains at the requested level, find the one whose
greedy trial gives the highest per-domain threshold T (the minimum slices any
used domain one level below gets), prune what cannot hold T, pick the subset of
domains that fits with the fewest domains and least waste, and give each T
slices plus the extra greedily. Any failure falls back to the greedy path."""

from __future__ import annotations

import math

from .domain_counts import fill_in_counts_helper
from .ordering import sorted_domains, sorted_domains_with_leader
from .topology import Domain, Snapshot


def evaluate_greedy(domains: list[Domain], slice_count: int, leader_count: int):
    """(fits, domains used, last leader domain, last worker domain), BestFit order."""
    used = 0
    last_leader = last = None
    remaining = slice_count
    remaining_leaders = leader_count
    idx = 0
    if leader_count > 0:
        with_leader = sorted_domains_with_leader(domains, False)
        while remaining_leaders > 0 and idx < len(with_leader) and with_leader[idx].leader_count > 0:
            used += 1
            last_leader = with_leader[idx]
            remaining_leaders -= with_leader[idx].leader_count
            remaining -= with_leader[idx].slice_count_with_leader
            idx += 1
        rest = sorted_domains(with_leader[idx:], False)
    else:
        rest = sorted_domains(domains, False)
    if remaining_leaders > 0:
        return False, 0, None, None
    i = 0
    while remaining > 0 and i < len(rest) and rest[i].slice_count > 0:
        used += 1
        last = rest[i]
        remaining -= rest[i].slice_count
        i += 1
    if remaining > 0:
        return False, 0, None, None
    return True, used, last_leader, last


def _threshold(slice_count: int, used: int, last_leader: Domain | None, last: Domain | None) -> int:
    if used == 0:
        return 0
    threshold = slice_count // used
    if last_leader is not None:
        threshold = min(threshold, last_leader.slice_count_with_leader)
    if last is not None:
        threshold = min(threshold, last.slice_count)
    return threshold


def _entropy(domains: list[Domain]) -> float:
    total = sum(d.pod_count for d in domains)
    if total == 0:
        return 0.0
    entropy = 0.0
    for d in domains:
        if d.pod_count > 0:
            p = d.pod_count / total
            entropy += -p * math.log2(p)
    return entropy


def _capacity_and_entropy_key(d: Domain):
    return (-d.leader_count, -d.slice_count_with_leader, -_entropy(d.children), d.values)


def select_optimal_domain_set(domains: list[Domain], slice_count: int, leader_count: int, slice_size: int,
                              by_entropy: bool) -> list[Domain] | None:
    fits, optimal, _, _ = evaluate_greedy(domains, slice_count, leader_count)
    if not fits:
        return None
    ordered = sorted(domains, key=_capacity_and_entropy_key if by_entropy else (lambda d: d.values))
    # placements[i][leaders_left][pods_left] = first subset of i domains reaching that state
    placements: list[dict[int, dict[int, list[Domain]]]] = [dict() for _ in range(optimal + 1)]
    placements[0][leader_count] = {slice_count * slice_size: []}
    for d in ordered:
        for i in range(optimal, 0, -1):
            for before_leader in sorted(placements[i - 1]):
                for before_pods in sorted(placements[i - 1][before_leader]):
                    before = placements[i - 1][before_leader][before_pods]
                    if before_leader <= 0 and before_pods <= 0:
                        continue
                    new = before + [d]
                    if before_leader > 0 and d.leader_count > 0:
                        after_leader = before_leader - d.leader_count
                        after_pods = before_pods - d.pod_count_with_leader
                        placements[i].setdefault(after_leader, {}).setdefault(after_pods, new)
                    if d.slice_count > 0:
                        after_pods = before_pods - d.pod_count
                        placements[i].setdefault(before_leader, {}).setdefault(after_pods, new)
    done = placements[optimal].get(0, {})
    best_left = None
    best = None
    for left in sorted(done):
        if left <= 0 and (best_left is None or left > best_left):
            best_left, best = left, done[left]
    return best


def place_slices_balanced(domains: list[Domain], slice_count: int, leader_count: int, slice_size: int,
                          threshold: int) -> list[Domain] | None:
    chosen = select_optimal_domain_set(domains, slice_count, leader_count, slice_size, False)
    if chosen is None:
        return None
    if slice_count < len(chosen) * threshold:
        return None
    chosen = sorted_domains_with_leader(chosen, False)
    extra_left = slice_count - len(chosen) * threshold
    leaders_left = leader_count
    for d in chosen:
        if leaders_left > 0:
            extra = min(d.slice_count_with_leader - threshold, extra_left)
            d.leader_count = 1
            leaders_left -= 1
        elif extra_left > 0:
            extra = min(d.slice_count - threshold, extra_left)
            d.leader_count = 0
        else:
            d.leader_count = 0
            extra = 0
        d.pod_count = (threshold + extra) * slice_size
        d.slice_count = threshold + extra
        d.slice_count_with_leader = d.slice_count
        d.pod_count_with_leader = d.pod_count - d.leader_count
        extra_left -= extra
    if extra_left > 0 or leaders_left > 0:
        return None
    return chosen


def _copy(d: Domain, parent: Domain | None) -> Domain:
    """`d` with its counts (its affinity score left 0), without children."""
    # positional, in the field order of Domain: a whole tree is copied per
    # sibling group, and keyword arguments cost more per domain
    return Domain(d.level, d.values, d.id, parent, [], d.pod_count, d.pod_count_with_leader, d.slice_count,
                  d.slice_count_with_leader, d.leader_count)


def _clone(d: Domain, parent: Domain | None) -> Domain:
    copy = _copy(d, parent)
    # leaves copied here rather than through a call each
    copy.children = [_clone(c, copy) if c.children else _copy(c, copy) for c in d.children]
    return copy


def _clear_state(d: Domain) -> None:
    d.reset()
    for c in d.children:
        _clear_state(c)


def _clear_leader_capacity(d: Domain) -> None:
    d.pod_count_with_leader = d.slice_count_with_leader = d.leader_count = 0
    for c in d.children:
        _clear_leader_capacity(c)


def _prune_node(d: Domain, threshold: int, leader_required: bool) -> None:
    if d.slice_count < threshold:
        _clear_state(d)
        return
    if leader_required and d.leader_count > 0 and d.slice_count_with_leader < threshold:
        _clear_leader_capacity(d)


def _prune(domains: list[Domain], threshold: int, slice_size: int, slice_level: int, level: int,
           leader_required: bool, seams) -> None:
    for d in domains:
        for c in d.children:
            _prune_node(c, threshold, leader_required)
    for d in domains:
        fill_in_counts_helper(d, slice_size, slice_level, level, None, leader_required, seams)
        _prune_node(d, threshold, leader_required)


def find_best_domains(snap: Snapshot, params) -> tuple[list[Domain], int]:
    slice_count = params.count // params.slice_size
    if params.requested_level == 0:
        groups = [sorted(snap.domains_per_level[0].values(), key=lambda d: d.values)]
    else:
        parents = sorted(snap.domains_per_level[params.requested_level - 1].values(), key=lambda d: d.values)
        groups = [p.children for p in parents]
    best_threshold = 0
    best_count = 0
    best: list[Domain] = []
    for siblings in groups:
        candidates = [_clone(d, None) for d in siblings]
        lower = [c for d in candidates for c in d.children] if params.requested_level < params.slice_level else candidates
        fits, used, last_leader, last = evaluate_greedy(lower, slice_count, params.leader_count)
        if not fits:
            continue
        threshold = _threshold(slice_count, used, last_leader, last)
        with_reservation = threshold
        if params.leader_count > 0 and last is not None:
            with_reservation = min(threshold, last.slice_count_with_leader)
        if threshold < best_threshold:
            continue
        _prune(candidates, threshold, params.slice_size, params.slice_level, params.requested_level,
               params.leader_count > 0, params.seams)
        fits_after, count_at_level, _, _ = evaluate_greedy(candidates, slice_count, params.leader_count)
        if not fits_after and with_reservation < threshold:
            if with_reservation <= 0 or with_reservation < best_threshold:
                continue
            threshold = with_reservation
            candidates = [_clone(d, None) for d in siblings]
            _prune(candidates, threshold, params.slice_size, params.slice_level, params.requested_level,
                   params.leader_count > 0, params.seams)
            fits_after, count_at_level, _, _ = evaluate_greedy(candidates, slice_count, params.leader_count)
        if not fits_after:
            continue
        if threshold > best_threshold or (threshold == best_threshold and count_at_level < best_count):
            best_threshold, best_count, best = threshold, count_at_level, candidates
    return best, best_threshold


def apply(snap: Snapshot, params, threshold: int, fit: list[Domain]) -> tuple[list[Domain], int] | None:
    """The balanced fit domains and their level, or None to fall back."""
    slice_count = params.count // params.slice_size
    if params.requested_level < params.slice_level:
        chosen = select_optimal_domain_set(fit, slice_count, params.leader_count, params.slice_size, True)
        if chosen is None:
            return None
        fit = [c for d in chosen for c in d.children]
        fit_level = params.requested_level + 1
    else:
        fit_level = params.requested_level
    placed = place_slices_balanced(fit, slice_count, params.leader_count, params.slice_size, threshold)
    if placed is None:
        return None
    return placed, fit_level
