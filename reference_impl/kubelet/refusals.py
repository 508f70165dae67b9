"""The reason codes of the configurations the kubelet refuses to start with
(raised as `reference_impl.refusal.Refusal`)."""

UNKNOWN_POLICY = "UnknownPolicy"
UNKNOWN_SCOPE = "UnknownScope"
UNKNOWN_POLICY_OPTION = "UnknownPolicyOption"
POLICY_OPTIONS_NOT_ENABLED = "PolicyOptionsNotEnabled"
POLICY_OPTION_NOT_AVAILABLE = "PolicyOptionNotAvailable"
INVALID_POLICY_OPTION_VALUE = "InvalidPolicyOptionValue"
TOO_MANY_NUMA_NODES = "TooManyNUMANodes"
MISSING_NUMA_DISTANCES = "MissingNUMADistances"
FEATURE_GATE_LOCKED = "FeatureGateLocked"
