"""The replacement of one failed node in a workload's assignment (upstream
`findReplacementAssignment`, `requiredReplacementDomain`,
`findIncompleteSliceDomain`, `mergeTopologyAssignments`)."""

from __future__ import annotations

import copy

from .annotations import SliceLayer
from .gates import Gates
from .objects import Assignment
from .placement import NotFit, PodSetRequest, _level_key, find_topology_assignment
from .resources import Requests
from .topology import Snapshot


def _leaf_domain(snap: Snapshot, values: tuple[str, ...]):
    return snap.domains_per_level[-1].get(snap.leaf_id_for_values(values))


def _ancestor(domain, levels_up: int):
    for _ in range(levels_up):
        domain = domain.parent
    return domain


def _incomplete_slice_domain(snap: Snapshot, domains, missing: int, size: int, level_key: str) -> str:
    if level_key not in snap.levels:
        return ""
    slice_level = snap.levels.index(level_key)
    last = len(snap.levels) - 1
    usage: dict[str, int] = {}
    for values, count in domains:
        leaf = _leaf_domain(snap, values)
        if leaf is None:
            continue
        ancestor = _ancestor(leaf, last - slice_level)
        usage[ancestor.path_id()] = usage.get(ancestor.path_id(), 0) + count
    # Upstream walks a Go map here; when several slice domains qualify the
    # choice is unordered. The reference takes the first in assignment order.
    for domain_id, count in usage.items():
        if (count + missing) % size == 0:
            return domain_id
    return ""


def required_replacement_domain(snap: Snapshot, ps: PodSetRequest, remaining, missing: int) -> str:
    key = _level_key(snap, ps)
    if key is None or key not in snap.levels:
        return ""
    level = snap.levels.index(key)
    if not remaining:
        return ""
    layers = ps.request.slice_layers if ps.request is not None else []
    size = layers[0].size if layers else 1
    if layers and missing % size != 0:
        if len(layers) > 1:
            for layer in reversed(layers):
                if missing % layer.size != 0:
                    return _incomplete_slice_domain(snap, remaining, missing, layer.size, layer.topology)
        return _incomplete_slice_domain(snap, remaining, missing, size, layers[0].topology)
    if ps.request is None or ps.request.required is None:
        return ""
    leaf = _leaf_domain(snap, remaining[0][0])
    if leaf is None:
        return ""
    return snap.seams.required_domain_id(snap, _ancestor(leaf, len(snap.levels) - 1 - level), level)


def merge(snap: Snapshot, a: Assignment, b: Assignment) -> Assignment:
    def key(item):
        leaf = _leaf_domain(snap, item[0])
        return ",".join(leaf.values) if leaf is not None else ",".join(item[0])

    merged: list[tuple[tuple[str, ...], int]] = []
    for values, count in sorted(list(a.domains) + list(b.domains), key=key):
        if merged and ",".join(merged[-1][0]) == ",".join(values):
            merged[-1] = (merged[-1][0], merged[-1][1] + count)
        else:
            merged.append((values, count))
    return Assignment(levels=a.levels, domains=merged)


def find_replacement(snap: Snapshot, ps: PodSetRequest, existing: Assignment, node: str,
                     assumed: dict[str, Requests], gates: Gates) -> tuple[Assignment, Assignment]:
    """(new assignment, the replacement part); raises NotFit."""
    remaining = [(v, c) for v, c in existing.domains if v[-1] != node]
    missing = sum(c for v, c in existing.domains if v[-1] == node)
    for values, _ in remaining:
        if snap.leaf_id_for_values(values) not in snap.leaves:
            raise NotFit("StaleAssignment", "Cannot replace the node, because the existing topologyAssignment is "
                                            f"invalid, as it contains the stale domain {values[0]}")
    domain = required_replacement_domain(snap, ps, remaining, missing)
    request = copy.deepcopy(ps)
    request.count = missing
    layers = ps.request.slice_layers if ps.request is not None else []
    if layers and domain and missing % layers[0].size != 0:
        chosen = SliceLayer(topology="", size=1)
        for layer in reversed(layers):
            if missing % layer.size == 0:
                chosen = layer
                break
        # A size of 1 without a topology means no slices (upstream keeps the
        # topology unset, which reads as no slice layer).
        request.request.slice_layers = [chosen] if chosen.topology else []
    result = find_topology_assignment(snap, request, None, assumed, gates, replacement_domain=domain)
    part = result[ps.name]
    if not part.domains:
        raise NotFit("NoReplacement", f"cannot find replacement assignment for unhealthy node: {node}")
    return merge(snap, part, Assignment(levels=existing.levels, domains=remaining)), part
