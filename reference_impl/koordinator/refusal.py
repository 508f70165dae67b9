"""A domain refusal: the pod does not get onto the node, with a stable reason."""

from __future__ import annotations


class Refusal(Exception):
    def __init__(self, reason: str, message: str, stage: str = "Filter"):
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message
        self.stage = stage
