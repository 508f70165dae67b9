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


def go_quote(text: str) -> str:
    """A string as Go's %q writes it, which is how the kubelet quotes names and
    values in its messages (double quotes, backslash escapes)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
