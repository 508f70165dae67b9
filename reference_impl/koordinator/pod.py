"""The pod being scheduled: labels, annotations, priority and summed requests."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from .. import quantity
from ..errors import InvalidInput


@dataclass
class Pod:
    name: str
    labels: dict[str, str]
    annotations: dict[str, str]
    priority: int | None
    requests: dict[str, Fraction]       # resource -> summed quantity (exact)

    def milli_cpu(self) -> int:
        return int(self.requests.get("cpu", 0) * 1000)

    def request_int(self, name: str) -> int:
        value = self.requests.get(name, 0)
        return -(-value.numerator // value.denominator) if value else 0


def parse_pod(spec: Mapping, where: str = "pod") -> Pod:
    if not isinstance(spec, Mapping):
        raise InvalidInput(where, "expected a mapping")
    for name in ("labels", "annotations"):
        value = spec.get(name)
        if value is not None and (not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values())):
            raise InvalidInput(f"{where}/{name}", "expected a mapping of string to string")
    requests: dict[str, Fraction] = {}
    containers = spec.get("containers") or []
    if not isinstance(containers, list):
        raise InvalidInput(f"{where}/containers", "expected a list")
    for i, c in enumerate(containers):
        res = ((c or {}).get("resources") or {}).get("requests") or {}
        if not isinstance(res, Mapping):
            raise InvalidInput(f"{where}/containers/{i}/resources/requests", "expected a mapping")
        for r, q in res.items():
            try:
                requests[r] = requests.get(r, Fraction(0)) + quantity.parse(q)
            except quantity.QuantityError as exc:
                raise InvalidInput(f"{where}/containers/{i}/resources/requests/{r}", str(exc)) from None
    priority = spec.get("priority")
    if priority is not None and (not isinstance(priority, int) or isinstance(priority, bool)):
        raise InvalidInput(f"{where}/priority", "expected an integer")
    return Pod(
        name=str(spec.get("name", "pod")),
        labels=dict(spec.get("labels") or {}),
        annotations=dict(spec.get("annotations") or {}),
        priority=priority,
        requests=requests,
    )
