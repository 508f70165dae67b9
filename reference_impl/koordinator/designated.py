"""A designated allocation: the NUMA resources and CPU set a pod already
carries in its `resource-status` annotation, honoured only when the pod's
scheduling hint hands them to NodeNUMAResource (upstream v1.8.0
`nodenumaresource` plugin.go `PreFilter`; `apis/extension` multi_scheduler.go
`GetSchedulingHint`, numa_aware.go `GetResourceStatus`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from .. import cpuset, quantity
from ..refusal import Refusal

SCHEDULING_HINT = "internal.scheduling.koordinator.sh/scheduling-hint"
# The older key, read only when the internal one is absent or empty.
SCHEDULING_HINT_OLD = "scheduling.koordinator.sh/scheduling-hint"
RESOURCE_STATUS = "scheduling.koordinator.sh/resource-status"
# The extension name the hint must carry for the status to be read.
PLUGIN = "NodeNUMAResource"


@dataclass(frozen=True)
class Designated:
    numa: dict[int, dict[str, int]]     # NUMA id -> resource -> amount (cpu in millicores)
    cpuset: frozenset[int]
    names_numa: bool                    # the status has a numaNodeResources list, even an empty one


def _json_object(raw: str, key: str, reason: str) -> dict:
    try:
        value = json.loads(raw)
    except (TypeError, ValueError) as exc:
        raise Refusal(reason, f"annotation {key} is not valid JSON: {exc}", "PreFilter") from None
    if value is None:
        # Go decodes a JSON null into a struct as "nothing set".
        return {}
    if not isinstance(value, dict):
        raise Refusal(reason, f"annotation {key} must be a JSON object", "PreFilter")
    return value


def hands_over(annotations: Mapping[str, str], plugin: str = PLUGIN) -> bool:
    """Whether the pod's scheduling hint names `plugin` (NodeNUMAResource unless
    told) in its extensions. A hint that cannot be decoded stops the pod before
    any PreFilter (the SchedulingHint plugin's BeforePreFilter)."""
    key = SCHEDULING_HINT if annotations.get(SCHEDULING_HINT) else SCHEDULING_HINT_OLD
    raw = annotations.get(key)
    if not raw:
        return False
    hint = _json_object(raw, key, "InvalidSchedulingHint")
    for name in ("nodeNames", "preferredNodeNames"):
        names = hint.get(name)
        if names is not None and (not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
            raise Refusal("InvalidSchedulingHint", f"annotation {key}: {name} must be a list of node names",
                          "PreFilter")
    extensions = hint.get("extensions")
    if extensions is not None and not isinstance(extensions, dict):
        raise Refusal("InvalidSchedulingHint", f"annotation {key}: extensions must be an object", "PreFilter")
    return plugin in (extensions or {})


def _resources(value, where: str) -> dict[str, int]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Refusal("InvalidResourceStatus", f"{where} must be an object of quantities", "PreFilter")
    out = {}
    for name, q in value.items():
        if q is None:
            # Go decodes a null map value as the type's zero: a named resource of amount 0.
            out[str(name)] = 0
            continue
        if not isinstance(q, (str, int, float)) or isinstance(q, bool):
            raise Refusal("InvalidResourceStatus", f"{where}.{name}: not a quantity", "PreFilter")
        try:
            amount = quantity.parse(q)
        except quantity.QuantityError as exc:
            raise Refusal("InvalidResourceStatus", f"{where}.{name}: {exc}", "PreFilter") from None
        out[str(name)] = quantity.milli_value(amount) if name == "cpu" else quantity.value(amount)
    return out


def read(annotations: Mapping[str, str]) -> Designated | None:
    """The pod's designated allocation, or None when its resource status names
    neither NUMA resources nor a CPU set."""
    raw = annotations.get(RESOURCE_STATUS)
    if raw is None:
        return None
    status = _json_object(raw, RESOURCE_STATUS, "InvalidResourceStatus")
    text = status.get("cpuset")
    if text is not None and not isinstance(text, str):
        raise Refusal("InvalidResourceStatus", f"annotation {RESOURCE_STATUS}: cpuset must be a CPU list string",
                      "PreFilter")
    entries = status.get("numaNodeResources")
    if entries is not None and not isinstance(entries, list):
        raise Refusal("InvalidResourceStatus", f"annotation {RESOURCE_STATUS}: numaNodeResources must be a list",
                      "PreFilter")
    if entries is None and not text:
        return None
    numa: dict[int, dict[str, int]] = {}
    for i, entry in enumerate(entries or []):
        where = f"annotation {RESOURCE_STATUS}: numaNodeResources[{i}]"
        if not isinstance(entry, dict):
            raise Refusal("InvalidResourceStatus", f"{where} must be an object", "PreFilter")
        node = entry.get("node", 0)
        if not isinstance(node, int) or isinstance(node, bool) or not 0 <= node <= 63:
            raise Refusal("InvalidResourceStatus", f"{where}.node must be a NUMA id 0..63", "PreFilter")
        # A NUMA id given twice keeps its last entry, as a map filled in order does.
        numa[node] = _resources(entry.get("resources"), where + ".resources")
    try:
        cpus = frozenset(cpuset.parse(text or "", ids=True))
    except cpuset.CPUSetError as exc:
        raise Refusal("InvalidResourceStatus", f"annotation {RESOURCE_STATUS}: cpuset {text!r}: {exc}",
                      "PreFilter") from None
    return Designated(numa, cpus, entries is not None)
