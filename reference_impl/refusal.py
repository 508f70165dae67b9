"""A domain refusal, the one type all three components raise: the system
declines the input on its own terms (a kubelet that will not start, a pod that
does not fit the node, a workload Kueue rejects), with a stable reason code the
corpus matches and a message for the operator.

It is a result, not an error: an operation catches it and answers with
`as_result()` (or `as_dict()` inside a larger answer). Input that breaks the
operation's contract is `errors.InvalidInput` instead."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Refusal(Exception):
    reason: str
    message: str
    # Where in the component's flow it refused (Koordinator's plugin stage),
    # for a reader of the exception; answers carry the stage they report.
    stage: str = ""

    def __post_init__(self) -> None:
        Exception.__init__(self, f"{self.reason}: {self.message}")

    def as_dict(self) -> dict:
        return {"reason": self.reason, "message": self.message}

    def as_result(self) -> dict:
        return {"refused": self.as_dict()}
