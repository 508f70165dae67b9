"""The Topology (1 to 4 levels) and the TAS ResourceFlavor."""

from __future__ import annotations

from hypothesis import strategies as st

from reference_impl.kueue.objects import HOSTNAME

from .values import BLOCK, GROUP_LABEL, RACK, SUPERBLOCK, TAINT_KEYS, ZONE


@st.composite
def topology_levels(draw, hostname: bool | None = None):
    """1 to 4 levels, outermost first; hostname-lowest unless told otherwise."""
    with_host = draw(st.integers(0, 3)) > 0 if hostname is None else hostname
    above = draw(st.sampled_from(([], [BLOCK], [RACK], [BLOCK, RACK], [ZONE, RACK], [SUPERBLOCK, BLOCK, RACK])))
    levels = above + [HOSTNAME] if with_host else above or [RACK]
    return levels[-4:]


def topology(levels: list[str], name: str = "default") -> dict:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": name},
            "spec": {"levels": [{"nodeLabel": level} for level in levels]}}


@st.composite
def resource_flavor(draw):
    spec: dict = {"nodeLabels": {GROUP_LABEL: "tas-group"}, "topologyName": "default"}
    if draw(st.integers(0, 4)) == 0:
        spec["tolerations"] = [{"key": draw(st.sampled_from(TAINT_KEYS)), "operator": "Exists",
                                "effect": draw(st.sampled_from(("NoSchedule", "NoExecute", "")))}]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "tas-flavor"},
            "spec": spec}
