"""A configuration the kubelet refuses to start with: a stable reason code and
a message for the operator."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Refusal(Exception):
    reason: str
    message: str

    def as_dict(self) -> dict:
        return {"reason": self.reason, "message": self.message}


UNKNOWN_POLICY = "UnknownPolicy"
UNKNOWN_SCOPE = "UnknownScope"
UNKNOWN_POLICY_OPTION = "UnknownPolicyOption"
POLICY_OPTIONS_NOT_ENABLED = "PolicyOptionsNotEnabled"
POLICY_OPTION_NOT_AVAILABLE = "PolicyOptionNotAvailable"
INVALID_POLICY_OPTION_VALUE = "InvalidPolicyOptionValue"
TOO_MANY_NUMA_NODES = "TooManyNUMANodes"
MISSING_NUMA_DISTANCES = "MissingNUMADistances"
FEATURE_GATE_LOCKED = "FeatureGateLocked"
