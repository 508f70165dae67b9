"""The Topology Manager metrics the contract reports."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Metrics:
    admission_requests_total: int = 0
    admission_errors_total: int = 0
    # strategy -> count of merges whose selection the score changed
    numa_score_selection_total: dict[str, int] = field(default_factory=dict)

    def score_selected(self, strategy: str) -> None:
        self.numa_score_selection_total[strategy] = self.numa_score_selection_total.get(strategy, 0) + 1

    def as_dict(self, container_count: dict[int, int]) -> dict:
        return {
            "admission_requests_total": self.admission_requests_total,
            "admission_errors_total": self.admission_errors_total,
            "numa_score_selection_total": {k: v for k, v in sorted(self.numa_score_selection_total.items()) if v},
            "numa_container_count": {str(n): c for n, c in container_count.items()},
        }
