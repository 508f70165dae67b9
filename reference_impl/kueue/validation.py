"""The admission webhook's checks on the podset annotations (upstream
`ValidateTASPodSetRequest`, `ValidateSliceSizeAnnotationUpperBound`,
`ValidatePodSetGroupingTopology`) and the scheduler's level checks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import annotations as ann
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
}


@dataclass(frozen=True)
class Error:
    pod_set: str
    annotation: str | None
    reason: str
    message: str
    value: Any = None          # the bad value as the webhook reports it; None when it reports none

    def to_dict(self) -> dict:
        return {"podSet": self.pod_set, "annotation": self.annotation, "reason": self.reason,
                "message": self.message, "type": ERROR_TYPES.get(self.reason), "value": self.value}


def _pod_set_errors(ps: PodSet, multi_layer: bool) -> list[Error]:
    a = ps.annotations
    errors: list[Error] = []

    def err(annotation, reason, message, value=None):
        errors.append(Error(ps.name, annotation, reason, message, value))

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
        errors.extend(_constraints_errors(ps, multi_layer))
    return errors


def _constraints_errors(ps: PodSet, multi_layer: bool) -> list[Error]:
    a = ps.annotations
    key = ann.SLICE_CONSTRAINTS
    errors: list[Error] = []

    def err(annotation, reason, message, value=None):
        errors.append(Error(ps.name, annotation, reason, message, value))

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
                layer.topology)
        if layer.size < 1:
            err(key, "ConstraintSizeTooSmall", f"[{i}].size: must be greater than or equal to 1", layer.size)
    seen: dict[str, int] = {}
    for i, layer in enumerate(layers):
        if layer.topology in seen:
            duplicate = f"{layer.topology} (also at index {seen[layer.topology]})"
            err(key, "DuplicateConstraintTopology", f"[{i}].topology: Duplicate value: {duplicate}", duplicate)
        else:
            seen[layer.topology] = i
    for i in range(len(layers) - 1):
        inner = layers[i + 1].size
        if inner > 0 and layers[i].size % inner != 0:
            err(key, "ConstraintSizeNotDividing",
                f"[{i + 1}].size: must evenly divide the parent layer size {layers[i].size}", inner)
    return errors


def _upper_bound_errors(ps: PodSet) -> list[Error]:
    a = ps.annotations
    errors = []
    if ann.SLICE_SIZE in a:
        size = ann.parse_int32(a[ann.SLICE_SIZE])
        if size is not None and size > ps.count:
            errors.append(Error(ps.name, ann.SLICE_SIZE, "SliceSizeAboveCount",
                                f"must not be greater than pod set count {ps.count}", a[ann.SLICE_SIZE]))
    if ann.SLICE_CONSTRAINTS in a:
        try:
            layers = ann.parse_constraints(a[ann.SLICE_CONSTRAINTS])
        except ann.ConstraintsError:
            layers = []
        if layers and layers[0].size > ps.count:
            errors.append(Error(ps.name, ann.SLICE_CONSTRAINTS, "SliceSizeAboveCount",
                                f"must not be greater than pod set count {ps.count}", layers[0].size))
    return errors


def _group_errors(pod_sets: list[PodSet], requests: dict) -> list[Error]:
    groups: dict[str, list[PodSet]] = {}
    for ps in pod_sets:
        request = requests.get(ps.name)
        if request is None or request.group_name is None:
            continue
        groups.setdefault(request.group_name, []).append(ps)
    errors = []
    for group, members in groups.items():
        if len(members) != 2:
            for ps in members:
                errors.append(Error(ps.name, ann.GROUP_NAME, "GroupSize",
                                    f"can only define groups of exactly 2 pod sets, got: {len(members)} pod set(s)",
                                    group))
            continue
        first, second = members
        if first.count != 1 and second.count != 1:
            message = ("can only define groups where at least one pod set has only 1 replica, got: "
                       f"{first.count} replica(s) and {second.count} replica(s) in the group")
            errors.append(Error(first.name, ann.GROUP_NAME, "GroupWithoutSingleReplica", message, group))
            errors.append(Error(second.name, ann.GROUP_NAME, "GroupWithoutSingleReplica", message, group))
        r1, r2 = requests[first.name], requests[second.name]
        if (r1.required is None and r1.preferred is None) or (r2.required is None and r2.preferred is None) or (
                r1.required != r2.required or r1.preferred != r2.preferred):
            for ps, other in ((first, second), (second, first)):
                errors.append(Error(ps.name, None, "GroupTopologyMismatch",
                                    f"must specify '{ann.REQUIRED}' or '{ann.PREFERRED}' topology consistent with "
                                    f"'podSets[{other.name}].annotations' in group '{group}'"))
    return errors


def webhook_errors(pod_sets: list[PodSet], multi_layer: bool) -> list[Error]:
    errors: list[Error] = []
    for ps in pod_sets:
        own = _pod_set_errors(ps, multi_layer)
        errors.extend(own)
        if not own:
            errors.extend(_upper_bound_errors(ps))
    if errors:
        return errors
    requests = {ps.name: ann.build_request(ps.annotations, multi_layer) for ps in pod_sets}
    return _group_errors(pod_sets, requests)


def level_errors(pod_set: str, request: ann.TopologyRequest | None, topology: Topology,
                 flavor_name: str) -> list[Error]:
    """The scheduler's checks of a request against the topology's levels
    (upstream `HasLevel` in the flavor assigner, then `findTopologyAssignment`)."""
    if request is None:
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
