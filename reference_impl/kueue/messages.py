"""Not-fit messages and the node exclusion statistics they carry (upstream
`notFitMessage`, `multiLayerNotFitMessage`, `tasExclusionStats`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ExclusionStats:
    total_nodes: int = 0
    node_selector: int = 0
    affinity: int = 0
    topology_domain: int = 0
    taints: dict[str, int] = field(default_factory=dict)
    resources: dict[str, int] = field(default_factory=dict)

    def any(self) -> bool:
        return bool(self.node_selector or self.affinity or self.topology_domain or self.taints or self.resources)

    def reasons(self) -> str:
        reasons = []
        if self.node_selector:
            reasons.append(f"nodeSelector: {self.node_selector}")
        if self.affinity:
            reasons.append(f"affinity: {self.affinity}")
        if self.topology_domain:
            reasons.append(f"topologyDomain: {self.topology_domain}")
        for taint in sorted(self.taints):
            reasons.append(f'taint "{taint}": {self.taints[taint]}')
        for resource in sorted(self.resources):
            reasons.append(f'resource "{resource}": {self.resources[resource]}')
        return ", ".join(sorted(reasons))

    def suffix(self) -> str:
        if not self.any():
            return ""
        return f". Total nodes: {self.total_nodes}; excluded: {self.reasons()}"


def not_fit(topology_name: str, fit: int, needed: int, slice_size: int, stats: ExclusionStats) -> str:
    unit = "pod" if slice_size == 1 else "slice"
    if fit == 0:
        text = f'topology "{topology_name}" doesn\'t allow to fit any of {needed} {unit}(s)'
    else:
        text = f'topology "{topology_name}" allows to fit only {fit} out of {needed} {unit}(s)'
    return text + stats.suffix()


def multi_layer_not_fit(topology_name: str, parts: list[tuple[int, int, str]], stats: ExclusionStats) -> str:
    text = f'topology "{topology_name}" doesn\'t allow to fit'
    for fit, needed, level in parts:
        text += f"; {fit}/{needed} slice(s) fit on level {level}"
    return text + stats.suffix()
