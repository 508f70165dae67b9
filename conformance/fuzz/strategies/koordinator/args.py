"""Plugin arguments of NodeNUMAResource and DeviceShare."""

from __future__ import annotations

from hypothesis import strategies as st

from .values import NODE_STRATEGIES, SCORING


@st.composite
def scoring_strategy(draw, types=SCORING, names=("cpu", "memory")):
    out: dict = {"type": draw(st.sampled_from(types))}
    if draw(st.booleans()):
        out["resources"] = [{"name": n, "weight": draw(st.integers(0, 3))}
                            for n in draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names), unique=True))]
    return out


@st.composite
def args(draw):
    out: dict = {}
    if draw(st.booleans()):
        numa: dict = {}
        if draw(st.booleans()):
            numa["defaultCPUBindPolicy"] = draw(st.sampled_from(("FullPCPUs", "SpreadByPCPUs", "Default", "ConstrainedBurst")))
        if draw(st.booleans()):
            numa["numaAllocateStrategy"] = draw(st.sampled_from(NODE_STRATEGIES))
        if draw(st.booleans()):
            numa["scoringStrategy"] = draw(scoring_strategy())
        if draw(st.booleans()):
            numa["numaScoringStrategy"] = draw(scoring_strategy())
        out["nodeNUMAResource"] = numa
    if draw(st.integers(0, 2)) == 0:
        share: dict = {}
        if draw(st.booleans()):
            share["disableDeviceNUMATopologyAlignment"] = draw(st.booleans())
        if draw(st.booleans()):
            share["scoringStrategy"] = draw(scoring_strategy(
                ("MostAllocated", "LeastAllocated"),
                ("koordinator.sh/gpu-memory-ratio", "koordinator.sh/rdma", "koordinator.sh/fpga")))
        out["deviceShare"] = share
    return out
