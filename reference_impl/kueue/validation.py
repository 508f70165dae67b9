"""The admission webhook's checks on the podset annotations (upstream
`ValidateTASPodSetRequest`, `ValidateSliceSizeAnnotationUpperBound`,
`ValidatePodSetGroupingTopology`) and the scheduler's level checks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import annotations as ann
from . import integrations
from .integrations import Integration
from .labels import label_name_problems
from .objects import PodSet, Topology

# The webhook's error type per rule (Kubernetes `field.ErrorType`, short
# names); the scheduler's level checks are no webhook errors and have none.
ERROR_TYPES = {
    "MultipleTopologyAnnotations": "Invalid", "InvalidLabelName": "Invalid", "GroupNameNumeric": "Invalid",
    "GroupNameWithSlices": "Forbidden", "GroupNameWithoutTopology": "Forbidden", "InvalidBoolean": "Invalid",
    "SliceSizeNotNumeric": "Invalid", "SliceSizeTooSmall": "Invalid", "SliceSizeMissing": "Required",
    "SliceSizeWithoutTopology": "Forbidden", "MultiLayerGateDisabled": "Forbidden",
    "MultiLayerWithSingleLayer": "Forbidden", "InvalidConstraintsJSON": "Invalid", "ConstraintLayerCount": "Invalid",
    "ConstraintSizeTooSmall": "Invalid", "DuplicateConstraintTopology": "Duplicate",
    "ConstraintSizeNotDividing": "Invalid", "SliceSizeAboveCount": "Invalid", "GroupSize": "Invalid",
    "GroupWithoutSingleReplica": "Invalid", "GroupTopologyMismatch": "Invalid",
    "ElasticTopologyNotSupported": "Forbidden",
}


@dataclass(frozen=True)
class Error:
    pod_set: str
    annotation: str | None
    reason: str
    message: str
    value: Any = None          # the bad value as the webhook reports it; None when it reports none
    field: str | None = None   # the field path the webhook names; None for the level checks

    def to_dict(self) -> dict:
        return {"podSet": self.pod_set, "annotation": self.annotation, "reason": self.reason,
                "message": self.message, "type": ERROR_TYPES.get(self.reason), "value": self.value,
                "field": self.field}


def _reporter(ps: PodSet, path: str, errors: list[Error]):
    """An `err(annotation, reason, message, value, suffix)` that records an
    error at the annotation's key under `path` (the whole annotations map when
    the annotation is None), with `suffix` for a constraint entry's field."""
    def err(annotation, reason, message, value=None, suffix=""):
        where = path if annotation is None else f"{path}[{annotation}]{suffix}"
        errors.append(Error(ps.name, annotation, reason, message, value, where))
    return err


def _pod_set_errors(ps: PodSet, multi_layer: bool, path: str) -> list[Error]:
    a = ps.annotations
    errors: list[Error] = []
    err = _reporter(ps, path, errors)

    found = [k for k in (ann.REQUIRED, ann.PREFERRED, ann.UNCONSTRAINED) if k in a]
    if len(found) > 1:
        err(None, "MultipleTopologyAnnotations",
            f'must not contain more than one topology annotation: ["{ann.REQUIRED}", "{ann.PREFERRED}", '
            f'"{ann.UNCONSTRAINED}"]')
    for key in (ann.REQUIRED, ann.PREFERRED, ann.SLICE_REQUIRED):
        if key in a:
            for problem in label_name_problems(a[key]):
                err(key, "InvalidLabelName", f'Invalid value: "{a[key]}": {problem}', a[key])
    if ann.GROUP_NAME in a:
        group = a[ann.GROUP_NAME]
        if group.isascii() and group.isdigit() and int(group) < 2**64:
            err(ann.GROUP_NAME, "GroupNameNumeric", "must not be a number", group)
        if ann.SLICE_SIZE in a:
            err(ann.GROUP_NAME, "GroupNameWithSlices", f"may not be set when '{ann.SLICE_SIZE}' is specified")
        if ann.SLICE_REQUIRED in a:
            err(ann.GROUP_NAME, "GroupNameWithSlices", f"may not be set when '{ann.SLICE_REQUIRED}' is specified")
        if ann.PREFERRED not in a and ann.REQUIRED not in a:
            err(ann.GROUP_NAME, "GroupNameWithoutTopology",
                f"may not be set when neither '{ann.PREFERRED}' nor '{ann.REQUIRED}' is specified")
    if ann.UNCONSTRAINED in a and ann.parse_bool(a[ann.UNCONSTRAINED]) is None:
        err(ann.UNCONSTRAINED, "InvalidBoolean", "must be a boolean value", a[ann.UNCONSTRAINED])
    if ann.SLICE_SIZE in a:
        size = ann.parse_int32(a[ann.SLICE_SIZE])
        if size is None:
            err(ann.SLICE_SIZE, "SliceSizeNotNumeric", "must be a numeric value", a[ann.SLICE_SIZE])
        elif size < 1:
            err(ann.SLICE_SIZE, "SliceSizeTooSmall", "must be greater than or equal to 1", a[ann.SLICE_SIZE])
    if ann.SLICE_REQUIRED in a and ann.SLICE_SIZE not in a:
        err(ann.SLICE_SIZE, "SliceSizeMissing", f"must be set when '{ann.SLICE_REQUIRED}' is specified")
    if ann.SLICE_REQUIRED not in a and ann.SLICE_SIZE in a:
        err(ann.SLICE_SIZE, "SliceSizeWithoutTopology", f"may not be set when '{ann.SLICE_REQUIRED}' is not specified")
    if ann.SLICE_CONSTRAINTS in a:
        errors.extend(_constraints_errors(ps, multi_layer, path))
    return errors


def _constraints_errors(ps: PodSet, multi_layer: bool, path: str) -> list[Error]:
    a = ps.annotations
    key = ann.SLICE_CONSTRAINTS
    errors: list[Error] = []
    err = _reporter(ps, path, errors)

    if not multi_layer:
        err(key, "MultiLayerGateDisabled", "the TASMultiLayerTopology feature gate must be enabled to use this annotation")
        return errors
    if ann.SLICE_REQUIRED in a:
        err(key, "MultiLayerWithSingleLayer", f"may not be set when '{ann.SLICE_REQUIRED}' is specified")
    if ann.SLICE_SIZE in a:
        err(key, "MultiLayerWithSingleLayer", f"may not be set when '{ann.SLICE_SIZE}' is specified")
    if ann.GROUP_NAME in a:
        err(ann.GROUP_NAME, "GroupNameWithSlices", f"may not be set when '{key}' is specified")
    try:
        layers = ann.parse_constraints(a[key])
    except ann.ConstraintsError as exc:
        err(key, "InvalidConstraintsJSON", f"must be a valid JSON array: {exc}", a[key])
        return errors
    if not 1 <= len(layers) <= 3:
        err(key, "ConstraintLayerCount", "topology constraints must contain between 1 and 3 entries", a[key])
        return errors
    for i, layer in enumerate(layers):
        for problem in label_name_problems(layer.topology):
            err(key, "InvalidLabelName", f'[{i}].topology: Invalid value: "{layer.topology}": {problem}',
                layer.topology, f"[{i}].topology")
        if layer.size < 1:
            err(key, "ConstraintSizeTooSmall", f"[{i}].size: must be greater than or equal to 1", layer.size,
                f"[{i}].size")
    seen: dict[str, int] = {}
    for i, layer in enumerate(layers):
        if layer.topology in seen:
            duplicate = f"{layer.topology} (also at index {seen[layer.topology]})"
            err(key, "DuplicateConstraintTopology", f"[{i}].topology: Duplicate value: {duplicate}", duplicate,
                f"[{i}].topology")
        else:
            seen[layer.topology] = i
    for i in range(len(layers) - 1):
        inner = layers[i + 1].size
        if inner > 0 and layers[i].size % inner != 0:
            err(key, "ConstraintSizeNotDividing",
                f"[{i + 1}].size: must evenly divide the parent layer size {layers[i].size}", inner,
                f"[{i + 1}].size")
    return errors


def _upper_bound_errors(ps: PodSet, path: str) -> list[Error]:
    a = ps.annotations
    errors: list[Error] = []
    err = _reporter(ps, path, errors)
    if ann.SLICE_SIZE in a:
        size = ann.parse_int32(a[ann.SLICE_SIZE])
        if size is None:
            # reached only where an integration bounds a podset with errors of
            # its own: the same error again, which the aggregate drops
            err(ann.SLICE_SIZE, "SliceSizeNotNumeric", "must be a numeric value", a[ann.SLICE_SIZE])
            return errors
        if size > ps.count:
            err(ann.SLICE_SIZE, "SliceSizeAboveCount", f"must not be greater than pod set count {ps.count}",
                a[ann.SLICE_SIZE])
    if ann.SLICE_CONSTRAINTS in a:
        try:
            layers = ann.parse_constraints(a[ann.SLICE_CONSTRAINTS])
        except ann.ConstraintsError:
            layers = []
        if layers and layers[0].size > ps.count:
            err(ann.SLICE_CONSTRAINTS, "SliceSizeAboveCount", f"must not be greater than pod set count {ps.count}",
                layers[0].size)
    return errors


def _group_errors(built: tuple[integrations.BuiltPodSet, ...], requests: dict) -> list[Error]:
    groups: dict[str, list[integrations.BuiltPodSet]] = {}
    for b in built:
        request = requests.get(b.pod_set.name)
        if request is None or request.group_name is None:
            continue
        groups.setdefault(request.group_name, []).append(b)
    errors: list[Error] = []
    for group, members in groups.items():
        if len(members) != 2:
            for b in members:
                _reporter(b.pod_set, b.annotations_path, errors)(
                    ann.GROUP_NAME, "GroupSize",
                    f"can only define groups of exactly 2 pod sets, got: {len(members)} pod set(s)", group)
            continue
        first, second = members
        if first.pod_set.count != 1 and second.pod_set.count != 1:
            message = ("can only define groups where at least one pod set has only 1 replica, got: "
                       f"{first.pod_set.count} replica(s) and {second.pod_set.count} replica(s) in the group")
            for b in (first, second):
                _reporter(b.pod_set, b.annotations_path, errors)(ann.GROUP_NAME, "GroupWithoutSingleReplica",
                                                                 message, group)
        r1, r2 = requests[first.pod_set.name], requests[second.pod_set.name]
        if (r1.required is None and r1.preferred is None) or (r2.required is None and r2.preferred is None) or (
                r1.required != r2.required or r1.preferred != r2.preferred):
            for b, other in ((first, second), (second, first)):
                _reporter(b.pod_set, b.annotations_path, errors)(
                    None, "GroupTopologyMismatch",
                    f"must specify '{ann.REQUIRED}' or '{ann.PREFERRED}' topology consistent with "
                    f"'{other.annotations_path}' in group '{group}'")
    return errors


def _elastic_errors(b: integrations.BuiltPodSet) -> list[Error]:
    # The Job webhook names these fields with child segments, not keys.
    for key, mode in ((ann.REQUIRED, "required"), (ann.PREFERRED, "preferred")):
        if key in b.pod_set.annotations:
            return [Error(b.pod_set.name, key, "ElasticTopologyNotSupported",
                          f"{mode} topology is not supported with elastic jobs", None,
                          f"{b.annotations_path}.{key}")]
    return []


def _dedupe(errors: list[Error]) -> list[Error]:
    # The API server's aggregate reports identical field errors once.
    seen = set()
    out = []
    for e in errors:
        key = (e.field, ERROR_TYPES.get(e.reason), repr(e.value), e.message)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def _order(errors: list[Error], built) -> list[Error]:
    rank = {b.pod_set.name: i for i, b in enumerate(built)}
    return sorted(errors, key=lambda e: rank[e.pod_set])   # stable: rule order kept within a podset


def webhook_errors(pod_sets: list[PodSet], multi_layer: bool, integration: Integration | None = None,
                   elastic_jobs: bool = False) -> list[Error]:
    """The admitting webhook's errors: the contract's own pod set list and a
    Job bound each podset only when it has no error of its own; JobSet and
    LeaderWorkerSet bound every podset and check the groups whenever every
    podset's request builds. `elastic_jobs`: the ElasticJobsViaWorkloadSlices
    gate, under which the Job webhook refuses required and preferred topology
    on an elastic Job."""
    integration = integration if integration is not None else integrations.plain(pod_sets)
    built = integration.pod_sets
    errors: list[Error] = []
    if integration.kind in (None, integrations.JOB):
        for b in built:
            own = _pod_set_errors(b.pod_set, multi_layer, b.annotations_path)
            errors.extend(own)
            if own:
                continue
            if integration.kind == integrations.JOB and elastic_jobs and integration.elastic:
                refused = _elastic_errors(b)
                if refused:
                    errors.extend(refused)
                    continue
            errors.extend(_upper_bound_errors(b.pod_set, b.annotations_path))
        if errors or integration.kind == integrations.JOB:
            return errors
        requests = {b.pod_set.name: ann.build_request(b.pod_set.annotations, multi_layer) for b in built}
        return _group_errors(built, requests)
    builds = not any(ann.build_fails(b.pod_set.annotations, multi_layer, b.index) for b in built)
    for b in built:
        errors.extend(_pod_set_errors(b.pod_set, multi_layer, b.annotations_path))
        if builds:
            errors.extend(_upper_bound_errors(b.pod_set, b.annotations_path))
    if builds:
        requests = {b.pod_set.name: ann.build_request(b.pod_set.annotations, multi_layer, b.index) for b in built}
        errors.extend(_group_errors(built, requests))
    return _order(_dedupe(errors), built)


def level_errors(pod_set: str, request: ann.TopologyRequest | None, topology: Topology,
                 flavor_name: str) -> list[Error]:
    """The scheduler's checks of a request against the topology's levels
    (upstream `HasLevel` in the flavor assigner, then `findTopologyAssignment`)."""
    if request is None or not request.explicit:
        return []
    levels = list(topology.levels)
    missing = Error(pod_set, None, "UnknownTopologyLevel", f'Flavor "{flavor_name}" does not contain the requested level')
    main = request.required if request.required is not None else request.preferred
    if main is not None and main not in levels:
        return [missing]
    for layer in request.slice_layers:
        if layer.topology not in levels:
            return [missing]
    if main is None and not request.slice_only and not request.unconstrained:
        return [Error(pod_set, None, "TopologyLevelNotSpecified", "topology level not specified")]
    if not request.slice_layers:
        return []
    if main is not None:
        main_idx = levels.index(main)
    elif request.slice_only:
        main_idx, main = 0, levels[0]
    else:
        main_idx, main = len(levels) - 1, levels[-1]
    slice_idx = levels.index(request.slice_layers[0].topology)
    if main_idx > slice_idx:
        return [Error(pod_set, None, "SliceLevelAboveRequest",
                      f"podset slice topology {request.slice_layers[0].topology} is above the podset topology {main}")]
    prev_idx, prev_size = slice_idx, request.slice_layers[0].size
    for layer in request.slice_layers[1:]:
        idx = levels.index(layer.topology)
        if idx <= prev_idx:
            return [Error(pod_set, None, "InvalidSliceLayerOrder",
                          f"additional slice layer topology {layer.topology} must be at a lower level than {levels[prev_idx]}")]
        if prev_size % layer.size != 0:
            return [Error(pod_set, None, "ConstraintSizeNotDividing",
                          f"additional slice layer size {layer.size} must evenly divide parent layer size {prev_size}")]
        prev_idx, prev_size = idx, layer.size
    return []
