"""The podset annotations and how Kueue turns them into a topology request
(upstream `pkg/controller/jobframework/tas.go`, `Build`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from . import gojson

PREFIX = "kueue.x-k8s.io/"
REQUIRED = PREFIX + "podset-required-topology"
PREFERRED = PREFIX + "podset-preferred-topology"
UNCONSTRAINED = PREFIX + "podset-unconstrained-topology"
GROUP_NAME = PREFIX + "podset-group-name"
SLICE_REQUIRED = PREFIX + "podset-slice-required-topology"
SLICE_SIZE = PREFIX + "podset-slice-size"
SLICE_CONSTRAINTS = PREFIX + "podset-slice-required-topology-constraints"
IS_GROUP_WORKLOAD = PREFIX + "is-group-workload"

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


@dataclass(frozen=True)
class SliceLayer:
    topology: str
    size: int


@dataclass
class TopologyRequest:
    required: str | None = None
    preferred: str | None = None
    unconstrained: bool | None = None
    group_name: str | None = None
    slice_layers: list[SliceLayer] = field(default_factory=list)
    # Set by the job integrations that number their pods (Job, JobSet, the
    # LeaderWorkerSet workers); they tell the ungater how to rank pods, not
    # where to place them.
    pod_index_label: str | None = None
    sub_group_index_label: str | None = None
    sub_group_count: int | None = None

    @property
    def slice_only(self) -> bool:
        return self.required is None and self.preferred is None and bool(self.slice_layers)

    @property
    def mode(self) -> str | None:
        if self.required is not None:
            return "required"
        if self.preferred is not None:
            return "preferred"
        if self.unconstrained is not None or self.slice_only:
            return "unconstrained"
        return None

    @property
    def explicit(self) -> bool:
        """Whether the request asks for TAS by itself (upstream
        `IsExplicitlyRequestingTAS`); one carrying only index labels does not."""
        return self.mode is not None or bool(self.slice_layers)

    def to_dict(self) -> dict:
        return {
            "mode": self.mode,
            "level": self.required if self.required is not None else self.preferred,
            "podSetGroupName": self.group_name,
            "sliceLayers": [{"topology": layer.topology, "size": layer.size} for layer in self.slice_layers],
            "sliceOnly": self.slice_only,
            "podIndexLabel": self.pod_index_label,
            "subGroupIndexLabel": self.sub_group_index_label,
            "subGroupCount": self.sub_group_count,
        }


def parse_bool(value: str) -> bool | None:
    """Go's `strconv.ParseBool`; None when it does not parse."""
    if value in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if value in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return None


def parse_int32(value: str) -> int | None:
    """Go's `strconv.ParseInt(value, 10, 32)`; None on a syntax or range error."""
    text = value
    if text[:1] in "+-":
        text = text[1:]
    if not text or not text.isascii() or not text.isdigit():
        return None
    number = int(value)
    if not INT32_MIN <= number <= INT32_MAX:
        return None
    return number


class ConstraintsError(ValueError):
    pass


class _Object(dict):
    """A decoded JSON object that keeps its keys as written, repeats and order
    included, which a dict loses."""

    def __init__(self, pairs: list):
        super().__init__(pairs)
        self.pairs = pairs


class _Number(float):
    """A decoded JSON fraction or exponent that keeps its text: the decoder's
    error quotes the number as written (`1e2`, `1.50`)."""

    text: str

    def __new__(cls, text: str):
        number = super().__new__(cls, text)
        number.text = text
        return number


def _field(entry: Mapping, name: str):
    # encoding/json sets a field from every key matching its name ignoring case
    # (Unicode simple folding: the long s matches s), so the last such key wins.
    found, value = False, None
    for key, v in getattr(entry, "pairs", entry.items()):
        if isinstance(key, str) and key.casefold() == name.casefold():
            found, value = True, v
    return found, value


def parse_constraints(text: str) -> list[SliceLayer]:
    """Decode the constraints JSON as `json.Unmarshal` into
    `[]PodsetSliceRequiredTopologyConstraint` would; raises ConstraintsError."""
    try:
        gojson.check(text)
    except gojson.SyntaxError_ as exc:
        raise ConstraintsError(str(exc)) from None
    data = json.loads(text, object_pairs_hook=_Object, parse_float=_Number)
    if data is None:
        return []
    if not isinstance(data, list):
        raise ConstraintsError(f"json: cannot unmarshal {_json_kind(data, False)} into Go value of type "
                               "[]v1beta2.PodsetSliceRequiredTopologyConstraint")
    layers = []
    for entry in data:
        if entry is None:
            layers.append(SliceLayer("", 0))
            continue
        if not isinstance(entry, dict):
            raise ConstraintsError(f"json: cannot unmarshal {_json_kind(entry, False)} into Go value of type "
                                   "v1beta2.PodsetSliceRequiredTopologyConstraint")
        found, topology = _field(entry, "topology")
        if not found or topology is None:
            topology = ""
        elif not isinstance(topology, str):
            raise ConstraintsError(f"json: cannot unmarshal {_json_kind(topology, False)} into Go struct field "
                                   "PodsetSliceRequiredTopologyConstraint.topology of type string")
        found, size = _field(entry, "size")
        if not found or size is None:
            size = 0
        elif isinstance(size, bool) or not isinstance(size, int) or not INT32_MIN <= size <= INT32_MAX:
            raise ConstraintsError(f"json: cannot unmarshal {_json_kind(size)} into Go struct field "
                                   "PodsetSliceRequiredTopologyConstraint.size of type int32")
        layers.append(SliceLayer(topology, size))
    return layers


def _json_kind(value, into_number: bool = True) -> str:
    # encoding/json quotes the number only when the target is numeric
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return f"number {getattr(value, 'text', None) or json.dumps(value)}" if into_number else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


@dataclass(frozen=True)
class IndexLabels:
    """What an integration tells the request builder about its pod numbering."""
    pod_index_label: str | None = None
    sub_group_index_label: str | None = None
    sub_group_count: int | None = None

    def any(self) -> bool:
        return (self.pod_index_label is not None or self.sub_group_index_label is not None
                or self.sub_group_count is not None)


NO_INDEX = IndexLabels()


def build_request(annotations: Mapping[str, str], multi_layer: bool,
                  index: IndexLabels = NO_INDEX) -> TopologyRequest | None:
    """The podset's topology request after the webhook accepted it; None when the
    podset asks for nothing and its integration sets no index labels (then it
    is implied TAS in a TAS-only ClusterQueue)."""
    request = TopologyRequest(pod_index_label=index.pod_index_label,
                              sub_group_index_label=index.sub_group_index_label,
                              sub_group_count=index.sub_group_count)
    if REQUIRED in annotations:
        request.required = annotations[REQUIRED]
    elif PREFERRED in annotations:
        request.preferred = annotations[PREFERRED]
    elif UNCONSTRAINED in annotations:
        request.unconstrained = parse_bool(annotations[UNCONSTRAINED])
    else:
        has_slice_layer = (SLICE_REQUIRED in annotations and SLICE_SIZE in annotations) or (
            SLICE_CONSTRAINTS in annotations)
        if not has_slice_layer and not index.any():
            return None
    if multi_layer and SLICE_CONSTRAINTS in annotations:
        request.slice_layers = parse_constraints(annotations[SLICE_CONSTRAINTS])
    elif SLICE_REQUIRED in annotations and SLICE_SIZE in annotations:
        request.slice_layers = [SliceLayer(annotations[SLICE_REQUIRED], parse_int32(annotations[SLICE_SIZE]) or 0)]
    if GROUP_NAME in annotations and (REQUIRED in annotations or PREFERRED in annotations):
        request.group_name = annotations[GROUP_NAME]
    return request


def build_fails(annotations: Mapping[str, str], multi_layer: bool, index: IndexLabels = NO_INDEX) -> bool:
    """Whether the request builder returns an error for these annotations (an
    integration's webhook then skips the checks that need the built podsets)."""
    if REQUIRED not in annotations and PREFERRED not in annotations:
        if UNCONSTRAINED in annotations:
            if parse_bool(annotations[UNCONSTRAINED]) is None:
                return True
        elif not ((SLICE_REQUIRED in annotations and SLICE_SIZE in annotations) or SLICE_CONSTRAINTS in annotations
                  or index.any()):
            return False
    if multi_layer and SLICE_CONSTRAINTS in annotations:
        try:
            layers = parse_constraints(annotations[SLICE_CONSTRAINTS])
        except ConstraintsError:
            return True
        return not 1 <= len(layers) <= 3
    if SLICE_REQUIRED in annotations and SLICE_SIZE in annotations:
        return parse_int32(annotations[SLICE_SIZE]) is None
    return False
