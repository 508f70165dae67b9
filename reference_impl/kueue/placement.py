"""Topology assignment for one pod set (or a leader and worker pod set group):
capacity per domain, the fit level and domains, and the descent to the leaves
(spec "User-facing APIs", "Balanced Placement"; upstream
`tas_flavor_snapshot.go` `findTopologyAssignment`, whose phases this follows)."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import balanced, messages, node_affinity
from .annotations import TopologyRequest
from .domain_counts import fill_in_counts_helper
from .gates import BALANCED, PREFERRED_AFFINITY, PROFILE_MIXED, Gates
from .objects import Assignment, Toleration
from .ordering import best_fit_domain, best_fit_domain_for_slices, sorted_domains, sorted_domains_with_leader
from .resources import Requests, count_in_sorted, plus_one_pod, sub
from .seams import CONTRACT, Seams, prioritize_leader_domain
from .topology import Domain, Snapshot


@dataclass
class PodSetRequest:
    """What TAS receives for one pod set (upstream `TASPodSetRequests`)."""
    name: str
    count: int
    requests: Requests                      # one pod, without the implicit pod
    request: TopologyRequest | None
    implied: bool = False
    tolerations: list[Toleration] = field(default_factory=list)
    node_selector: dict[str, str] = field(default_factory=dict)
    affinity: node_affinity.NodeAffinity = node_affinity.NONE


class NotFit(Exception):
    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass
class Params:
    count: int
    slice_size: int
    leader_count: int
    requested_level: int
    slice_level: int
    required: bool
    unconstrained: bool
    least_free: bool
    respect_preferred: bool
    slice_size_at_level: dict[int, int]
    layers: list                              # multi-layer constraints, [] for one layer
    stats: messages.ExclusionStats
    seams: Seams = CONTRACT


def _level_key(snap: Snapshot, ps: PodSetRequest) -> str | None:
    r = ps.request
    if r is not None:
        if r.required is not None:
            return r.required
        if r.preferred is not None:
            return r.preferred
        if r.slice_only:
            return snap.levels[0]
        if r.unconstrained:
            return snap.levels[-1]
    if ps.implied:
        return snap.levels[-1]
    return None


def is_unconstrained(ps: PodSetRequest) -> bool:
    r = ps.request
    return (r is not None and bool(r.unconstrained)) or ps.implied or (r is not None and r.slice_only)


def untolerated_taint(node, tolerations: list[Toleration]):
    for taint in node.taints:
        if taint.effect not in ("NoSchedule", "NoExecute"):
            continue
        if not any(t.tolerates(taint) for t in tolerations):
            return taint
    return None


def _fill_in_counts(snap: Snapshot, workers: PodSetRequest, leader: PodSetRequest | None, params: Params,
                    assumed: dict[str, Requests], replacement_domain: str) -> None:
    stats = params.stats
    worker_req = plus_one_pod(workers.requests)
    leader_req = plus_one_pod(leader.requests) if leader is not None else None
    tolerations = list(workers.tolerations) + list(snap.flavor.tolerations)
    worker_items = sorted(worker_req.items())
    leader_items = sorted(leader_req.items()) if leader_req is not None else None
    # only the requested resources' free amounts decide the counts
    names = sorted(set(worker_req) | set(leader_req or ()))
    selector = tuple(workers.node_selector.items())
    affinity = workers.affinity
    respect_preferred = params.respect_preferred
    # the node checks below can exclude or score a node only with a selector,
    # a required affinity, preferred scoring or a taint on some node
    check_nodes = snap.lowest_is_hostname and bool(
        selector or affinity.required is not None or respect_preferred
        or any(leaf.nodes[0].taints for leaf in snap.leaves.values()))
    stats.total_nodes += len(snap.leaves)
    for leaf_id, leaf in snap.leaves.items():
        domain = leaf.domain
        # every count of every leaf is written here, and fill_in_counts_helper
        # writes every count of the domains above: nothing of an earlier
        # placement survives without a separate reset of the tree
        domain.pod_count = domain.pod_count_with_leader = domain.leader_count = 0
        domain.slice_count = domain.slice_count_with_leader = domain.affinity_score = 0
        if check_nodes:
            node = leaf.nodes[0]
            taint = untolerated_taint(node, tolerations) if node.taints else None
            if taint is not None:
                stats.taints[taint.text()] = stats.taints.get(taint.text(), 0) + 1
                continue
            if selector and any(node.labels.get(k) != v for k, v in selector):
                stats.node_selector += 1
                continue
            if affinity.required is not None and not affinity.admits(node.name, node.labels):
                stats.affinity += 1
                continue
            if respect_preferred:
                domain.affinity_score = affinity.score(node.name, node.labels)
        if replacement_domain:
            path = domain.path_id()
            if not (path == replacement_domain or path.startswith(replacement_domain + ",")):
                stats.topology_domain += 1
                continue
        used = assumed.get(leaf_id) if assumed else None
        if leader_items is None and not (used or leaf.non_tas_usage or leaf.tas_usage):
            # nothing to subtract: the allocatable is what remains (most nodes
            # of a large cluster), and no copy of it is needed
            remaining = leaf.allocatable
        else:
            remaining = leaf.remaining_of(names, used)
        pods, limiting = count_in_sorted(worker_items, remaining)
        domain.pod_count = pods
        if pods == 0 and limiting is not None:
            stats.resources[limiting] = stats.resources.get(limiting, 0) + 1
        if leader_items is not None and count_in_sorted(leader_items, remaining)[0] > 0:
            domain.leader_count = 1
            sub(remaining, leader_req)
            domain.pod_count_with_leader = count_in_sorted(worker_items, remaining)[0]
        else:
            domain.pod_count_with_leader = pods
    for root in snap.roots:
        fill_in_counts_helper(root, params.slice_size, params.slice_level, 0, params.slice_size_at_level,
                              params.leader_count > 0, params.seams)


def _not_fit(snap: Snapshot, params: Params, level_idx: int, fit: int, needed: int) -> NotFit:
    if params.layers:
        return NotFit("TopologyNotFit", _multi_layer_message(snap, params, level_idx))
    return NotFit("TopologyNotFit", messages.not_fit(snap.name, fit, needed, params.slice_size, params.stats))


def _count_slices(domain: Domain, level: int, target: int, size: int) -> int:
    if level == target:
        return domain.pod_count // size
    return sum(_count_slices(c, level + 1, target, size) for c in domain.children)


def _multi_layer_message(snap: Snapshot, params: Params, level_idx: int) -> str:
    best = None
    for d in snap.domains_per_level[level_idx].values():
        if best is None or d.slice_count > best.slice_count or (d.slice_count == best.slice_count and d.id < best.id):
            best = d
    if best is None:
        return f'topology "{snap.name}" doesn\'t allow to fit'
    parts = []
    for layer in params.layers:
        if layer.topology not in snap.levels:
            continue
        target = snap.levels.index(layer.topology)
        parts.append((_count_slices(best, level_idx, target, layer.size), params.count // layer.size, layer.topology))
    return messages.multi_layer_not_fit(snap.name, parts, params.stats)


def _find_level_with_fit_domains(snap: Snapshot, level_idx: int, params: Params) -> tuple[int, list[Domain]]:
    domains = list(snap.domains_per_level[level_idx].values())
    if not domains:
        raise NotFit("NoTopologyDomains", f"no topology domains at level: {snap.levels[level_idx]}")
    ordered = sorted_domains_with_leader(domains, params.least_free)
    top = ordered[0]
    slices_needed = params.count // params.slice_size
    best_fit = not params.least_free
    if best_fit and top.slice_count_with_leader >= slices_needed and top.leader_count >= params.leader_count:
        top = best_fit_domain_for_slices(ordered, slices_needed, params.leader_count, params.seams)
    if params.least_free:
        for candidate in ordered:
            capacity = candidate.slice_count
            if params.leader_count > 0:
                if candidate.leader_count < params.leader_count:
                    continue
                capacity = candidate.slice_count_with_leader
            if capacity >= slices_needed:
                return level_idx, [candidate]
        if params.required:
            raise _not_fit(snap, params, level_idx, ordered[-1].pod_count, slices_needed)
    if top.slice_count_with_leader < slices_needed or top.leader_count < params.leader_count:
        if params.required:
            # With preferred affinity first in the order, a domain that fits
            # may sit behind the top one.
            if params.respect_preferred:
                for i in range(1, len(ordered)):
                    d = ordered[i]
                    if d.slice_count_with_leader >= slices_needed and d.leader_count >= params.leader_count:
                        return level_idx, [best_fit_domain_for_slices(ordered[i:], slices_needed,
                                                                      params.leader_count, params.seams)]
            raise _not_fit(snap, params, level_idx, top.slice_count, slices_needed)
        if level_idx > 0 and not params.unconstrained:
            return _find_level_with_fit_domains(snap, level_idx - 1, params)
        results: list[Domain] = []
        remaining = slices_needed
        remaining_leaders = params.leader_count
        ordered = prioritize_leader_domain(ordered, params.count, params.leader_count, params.slice_size, True)
        idx = 0
        while remaining_leaders > 0 and idx < len(ordered) and ordered[idx].leader_count > 0:
            domain = ordered[idx]
            if best_fit and domain.slice_count_with_leader >= remaining:
                domain = best_fit_domain_for_slices(ordered[idx:], remaining, remaining_leaders, params.seams)
            results.append(domain)
            remaining_leaders -= domain.leader_count
            remaining -= domain.slice_count_with_leader
            idx += 1
        if remaining_leaders > 0:
            raise _not_fit(snap, params, level_idx, params.leader_count - remaining_leaders, slices_needed)
        if params.leader_count == 0:
            # Without a leader every domain has leader_count 0 and its counts
            # beside a leader equal its counts (fill_in_counts_helper: each
            # leaf's are copied, and the smallest difference a parent
            # subtracts is 0), so the with-leader key orders exactly as
            # sorted_domains' key: `ordered` is that order already.
            rest = ordered
        else:
            rest = sorted_domains(ordered[idx:], params.least_free)
        i = 0
        while remaining > 0 and i < len(rest):
            domain = rest[i]
            if best_fit and domain.slice_count >= remaining:
                domain = best_fit_domain_for_slices(rest[i:], remaining, 0, params.seams)
            results.append(domain)
            remaining -= domain.slice_count
            i += 1
        if remaining > 0:
            raise _not_fit(snap, params, level_idx, slices_needed - remaining, slices_needed)
        return level_idx, results
    return level_idx, [top]


def _consume_with_leaders(domain: Domain, remaining_domains: list[Domain], remaining: list[int], least_free: bool,
                          slice_size: int, slices: bool, seams: Seams) -> tuple[Domain, bool]:
    # `remaining` is [units, leaders], updated in place
    def with_leader(d):
        return d.slice_count_with_leader if slices else d.pod_count_with_leader

    if not least_free and with_leader(domain) >= remaining[0] and domain.leader_count >= remaining[1]:
        if slices:
            domain = best_fit_domain_for_slices(remaining_domains, remaining[0], remaining[1], seams)
        else:
            domain = best_fit_domain(remaining_domains, remaining[0], remaining[1], seams)
    wl = with_leader(domain)
    if wl >= remaining[0] and domain.leader_count >= remaining[1]:
        if slices:
            domain.slice_count = remaining[0]
        domain.leader_count = remaining[1]
        domain.pod_count = remaining[0] * slice_size
        return domain, True
    return seams.leader_shortfall(domain, wl, remaining, slice_size, slices), False


def update_counts_to_minimum(domains: list[Domain], count: int, leader_count: int, slice_size: int,
                             least_free: bool, slices: bool, seams: Seams = CONTRACT) -> list[Domain]:
    """Give each domain, in order, as many units (slices or pods) as it can take
    until `count` is covered; BestFit swaps the last one for the tightest fit."""
    domains = seams.leader_order(domains, count, leader_count, slice_size, slices)
    result: list[Domain] = []
    remaining = [count // slice_size if slices else count, leader_count]
    best_fit = not least_free
    for i, dom in enumerate(domains):
        if remaining[1] > 0:
            d, completed = _consume_with_leaders(dom, domains[i:], remaining, least_free, slice_size, slices, seams)
            result.append(d)
            if completed:
                return result
            continue
        if slices:
            if best_fit and dom.slice_count >= remaining[0]:
                dom = best_fit_domain_for_slices(domains[i:], remaining[0], 0, seams)
            dom.leader_count = 0
            if dom.slice_count >= remaining[0]:
                dom.pod_count = remaining[0] * slice_size
                dom.slice_count = remaining[0]
                result.append(dom)
                return result
            dom.pod_count = dom.slice_count * slice_size
            remaining[0] -= dom.slice_count
            result.append(dom)
            continue
        if best_fit and dom.pod_count >= remaining[0]:
            dom = best_fit_domain(domains[i:], remaining[0], 0, seams)
        dom.leader_count = 0
        if dom.pod_count >= remaining[0]:
            dom.pod_count = remaining[0]
            result.append(dom)
            return result
        remaining[0] -= dom.pod_count
        result.append(dom)
    # Capacity ran out during the descent; upstream logs "code assumptions
    # violated" and yields no assignment.
    raise NotFit("TopologyNotFit", "unexpected remaining count during the descent")


def _slice_size_at_level(snap: Snapshot, request: TopologyRequest | None, slice_size: int,
                         slice_level: int) -> dict[int, int]:
    result: dict[int, int] = {}
    if request is None or len(request.slice_layers) < 2:
        return result
    prev_size, prev_level = slice_size, slice_level
    for layer in request.slice_layers[1:]:
        if layer.topology not in snap.levels:
            raise NotFit("UnknownTopologyLevel",
                         f"no requested topology level for additional slice layer: {layer.topology}")
        idx = snap.levels.index(layer.topology)
        if idx <= prev_level:
            raise NotFit("InvalidSliceLayerOrder",
                         f"additional slice layer topology {layer.topology} must be at a lower level than "
                         f"{snap.levels[prev_level]}")
        if prev_size % layer.size != 0:
            raise NotFit("ConstraintSizeNotDividing",
                         f"additional slice layer size {layer.size} must evenly divide parent layer size {prev_size}")
        for lvl in range(prev_level + 1, idx + 1):
            result[lvl] = layer.size
        prev_size, prev_level = layer.size, idx
    return result


def build_assignment(snap: Snapshot, domains: list[Domain]) -> Assignment:
    """Kueue's rendering: leaves sorted by label path, empty ones dropped, only
    the hostname when the lowest level is the hostname."""
    ordered = sorted(domains, key=lambda d: d.values)
    start = len(snap.levels) - 1 if snap.lowest_is_hostname else 0
    return Assignment(levels=tuple(snap.levels[start:]),
                      domains=[(d.values[start:], d.pod_count) for d in ordered if d.pod_count != 0])


def find_topology_assignment(snap: Snapshot, workers: PodSetRequest, leader: PodSetRequest | None,
                             assumed: dict[str, Requests], gates: Gates,
                             replacement_domain: str = "") -> dict[str, Assignment]:
    """Raises NotFit; returns an assignment per pod set name (the leader's too)."""
    request = workers.request
    layers = list(request.slice_layers) if request is not None else []
    slice_size = layers[0].size if layers else 1
    if slice_size <= 0:
        raise NotFit("SliceSizeMissing", "slice topology requested, but slice size not provided")
    unconstrained = is_unconstrained(workers)
    level_key = _level_key(snap, workers)
    if level_key is None:
        raise NotFit("TopologyLevelNotSpecified", "topology level not specified")
    if level_key not in snap.levels:
        raise NotFit("UnknownTopologyLevel", f"no requested topology level: {level_key}")
    slice_key = layers[0].topology if layers else snap.levels[-1]
    if slice_key not in snap.levels:
        raise NotFit("UnknownTopologyLevel", f"no requested topology level for slices: {slice_key}")
    requested_level = snap.levels.index(level_key)
    slice_level = snap.levels.index(slice_key)
    if requested_level > slice_level:
        raise NotFit("SliceLevelAboveRequest", f"podset slice topology {slice_key} is above the podset topology {level_key}")
    at_level = _slice_size_at_level(snap, request, slice_size, slice_level)
    params = Params(
        count=workers.count, slice_size=slice_size, leader_count=1 if leader is not None else 0,
        requested_level=requested_level, slice_level=slice_level,
        required=request is not None and request.required is not None,
        unconstrained=unconstrained, least_free=unconstrained and gates.enabled(PROFILE_MIXED),
        respect_preferred=gates.enabled(PREFERRED_AFFINITY),
        slice_size_at_level=at_level, layers=layers if at_level else [], stats=messages.ExclusionStats(),
        seams=snap.seams)

    _fill_in_counts(snap, workers, leader, params, assumed, replacement_domain)

    use_balanced = False
    fit: list[Domain] = []
    fit_level = 0
    if gates.enabled(BALANCED) and not params.required and not params.unconstrained:
        fit, threshold = balanced.find_best_domains(snap, params)
        if threshold > 0:
            placed = balanced.apply(snap, params, threshold, fit)
            if placed is not None:
                fit, fit_level = placed
                use_balanced = True
    if not use_balanced:
        fit_level, fit = _find_level_with_fit_domains(snap, requested_level, params)

    fit = update_counts_to_minimum(fit, params.count, params.leader_count, params.slice_size,
                                   params.least_free, True, params.seams)
    level = fit_level
    last = len(snap.levels) - 1
    while level < min(last, params.slice_level) and not use_balanced:
        lower = sorted_domains([c for d in fit for c in d.children], params.least_free)
        fit = update_counts_to_minimum(lower, params.count, params.leader_count, params.slice_size,
                                       params.least_free, True, params.seams)
        level += 1
    while level < last:
        size_here = params.slice_size
        if level >= params.slice_level:
            size_here = params.slice_size_at_level.get(level + 1, 1)
        next_fit: list[Domain] = []
        for domain in fit:
            lower = sorted_domains(domain.children, params.least_free)
            if size_here > 1:
                for child in lower:
                    child.slice_count = child.pod_count // size_here
                    child.slice_count_with_leader = child.pod_count_with_leader // size_here
            next_fit.extend(update_counts_to_minimum(lower, domain.pod_count, domain.leader_count, size_here,
                                                     params.least_free, size_here > 1, params.seams))
        fit = next_fit
        level += 1

    result: dict[str, Assignment] = {}
    if leader is not None:
        leader_domains = []
        worker_domains = []
        for domain in fit:
            if domain.leader_count > 0:
                leader_domains.append((domain, domain.leader_count))
            if domain.pod_count > 0:
                worker_domains.append(domain)
        start = len(snap.levels) - 1 if snap.lowest_is_hostname else 0
        ordered = sorted(leader_domains, key=lambda x: x[0].values)
        result[leader.name] = Assignment(levels=tuple(snap.levels[start:]),
                                         domains=[(d.values[start:], c) for d, c in ordered])
        fit = worker_domains
    result[workers.name] = build_assignment(snap, fit)
    return result
