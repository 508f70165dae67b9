"""NodeNUMAResource and DeviceShare plugin arguments."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import InvalidInput

MOST, LEAST, BALANCED = "MostAllocated", "LeastAllocated", "BalancedAllocation"


@dataclass(frozen=True)
class ScoringStrategy:
    type: str
    weights: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Args:
    default_bind_policy: str = "FullPCPUs"
    numa_allocate_strategy: str = "LeastAllocated"
    scoring: ScoringStrategy = ScoringStrategy(LEAST, (("cpu", 1), ("memory", 1)))
    numa_scoring: ScoringStrategy = ScoringStrategy(LEAST, (("cpu", 1), ("memory", 1)))
    disable_device_numa_alignment: bool = False
    device_scoring: ScoringStrategy = ScoringStrategy(LEAST, (
        ("koordinator.sh/gpu-memory-ratio", 1), ("koordinator.sh/rdma", 1), ("koordinator.sh/fpga", 1)))


def _strategy(spec, where: str, allowed, default: ScoringStrategy) -> ScoringStrategy:
    if spec is None:
        return default
    if not isinstance(spec, Mapping):
        raise InvalidInput(where, "expected a mapping")
    stype = spec.get("type", default.type)
    if stype not in allowed:
        raise InvalidInput(where + "/type", f"unknown scoring strategy {stype!r}")
    resources = spec.get("resources")
    if resources is None:
        weights = default.weights
    else:
        if not isinstance(resources, list):
            raise InvalidInput(where + "/resources", "expected a list")
        weights = []
        for i, r in enumerate(resources):
            if not isinstance(r, Mapping) or not isinstance(r.get("name"), str):
                raise InvalidInput(f"{where}/resources/{i}", "expected {name, weight}")
            w = r.get("weight", 1)
            if not isinstance(w, int) or isinstance(w, bool) or w < 0:
                raise InvalidInput(f"{where}/resources/{i}/weight", "expected a non-negative integer")
            weights.append((r["name"], w))
        weights = tuple(weights)
    return ScoringStrategy(stype, weights)


def parse_args(spec) -> Args:
    spec = spec or {}
    if not isinstance(spec, Mapping):
        raise InvalidInput("args", "expected a mapping")
    nnr = spec.get("nodeNUMAResource") or {}
    ds = spec.get("deviceShare") or {}
    base = Args()
    scoring = _strategy(nnr.get("scoringStrategy"), "args/nodeNUMAResource/scoringStrategy",
                        (MOST, LEAST, BALANCED), base.scoring)
    numa_default = ScoringStrategy(base.numa_scoring.type, scoring.weights)
    numa_scoring = _strategy(nnr.get("numaScoringStrategy"), "args/nodeNUMAResource/numaScoringStrategy",
                             (MOST, LEAST, BALANCED), numa_default)
    bind = nnr.get("defaultCPUBindPolicy", "FullPCPUs")
    if bind not in ("FullPCPUs", "SpreadByPCPUs", "Default", "ConstrainedBurst"):
        raise InvalidInput("args/nodeNUMAResource/defaultCPUBindPolicy", f"unknown bind policy {bind!r}")
    strategy = nnr.get("numaAllocateStrategy")
    if strategy is None or strategy == "":
        strategy = "MostAllocated" if numa_scoring.type == MOST else "LeastAllocated"
    elif strategy not in ("MostAllocated", "LeastAllocated", "DistributeEvenly"):
        raise InvalidInput("args/nodeNUMAResource/numaAllocateStrategy", f"unknown strategy {strategy!r}")
    disable = ds.get("disableDeviceNUMATopologyAlignment", False)
    if not isinstance(disable, bool):
        raise InvalidInput("args/deviceShare/disableDeviceNUMATopologyAlignment", "expected a boolean")
    device_scoring = _strategy(ds.get("scoringStrategy"), "args/deviceShare/scoringStrategy", (MOST, LEAST),
                               base.device_scoring)
    return Args(bind, strategy, scoring, numa_scoring, disable, device_scoring)
