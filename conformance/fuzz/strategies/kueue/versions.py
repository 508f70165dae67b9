"""A Kueue version and the feature gates it knows, and keeping multi-layer
slice constraints to the versions and gates that allow them."""

from __future__ import annotations

from hypothesis import strategies as st

from reference_impl.kueue import annotations as ann

from .values import GATES, PLACEMENT_GATES, minor_of


@st.composite
def version_and_gates(draw, names=PLACEMENT_GATES, tas_on: bool = True):
    """A Kueue version (or none: the default 0.19) and gates that version knows.
    With `tas_on`, versions before 0.14 switch TopologyAwareScheduling on."""
    version = draw(st.sampled_from((None, "0.19", "0.19", "0.20", "0.18", "0.17", "0.16", "0.15", "0.14",
                                    "0.13", "0.12", "0.10", "0.9", "v0.19.2")))
    minor = 19 if version is None else minor_of(version.lstrip("v"))
    gates: dict[str, bool] = {}
    for name in draw(st.lists(st.sampled_from(names), max_size=3, unique=True)):
        if GATES[name] <= minor:
            gates[name] = draw(st.booleans())
    if tas_on and minor < 14:
        gates["TopologyAwareScheduling"] = True
    out: dict = {}
    if version is not None:
        out["kueueVersion"] = version
    if gates or draw(st.booleans()):
        out["featureGates"] = gates
    return out


def multi_layer_on(data: dict) -> bool:
    """TASMultiLayerTopology as the version and gates of `data` set it (exists
    from 0.17, on by default from 0.19)."""
    minor = minor_of(data.get("kueueVersion", "0.19").lstrip("v"))
    return minor >= 17 and data.get("featureGates", {}).get("TASMultiLayerTopology", minor >= 19)


def drop_constraints(sets: list[dict]) -> None:
    for ps in sets:
        notes = ps["template"]["metadata"]["annotations"] if "template" in ps else ps["annotations"]
        notes.pop(ann.SLICE_CONSTRAINTS, None)


@st.composite
def gate_consistent(draw, data: dict, sets: list[dict], always: bool = False) -> None:
    """Mostly keep multi-layer constraints to versions and gates that allow
    them, so most generated workloads get past the webhook."""
    if not multi_layer_on(data) and (always or draw(st.integers(0, 3))):
        drop_constraints(sets)
