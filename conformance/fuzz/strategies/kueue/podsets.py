"""Podsets: every TAS annotation kind, tolerations, node selectors, required
node affinity, and leader / worker groups."""

from __future__ import annotations

import json

from hypothesis import strategies as st

from reference_impl.kueue import annotations as ann
from reference_impl.kueue.objects import HOSTNAME

from .nodes import requests
from .values import GROUP_LABEL, TAINT_KEYS, ZONE

# Whether a podset's annotations ask for slices, by a draw of 0 to 3: a slice
# topology and size once, a multi-layer constraint list once, none otherwise.
SLICES_DRAW = ("none", "single-layer", "multi-layer", "none")


@st.composite
def annotations(draw, levels: list[str], count: int, group: str | None = None):
    """One podset's TAS annotations: a mode (or none), maybe slices, maybe a
    multi-layer constraint list, maybe a group name; mostly consistent with the
    topology, sometimes naming a level it does not have."""
    pool = levels + ([ZONE] if draw(st.integers(0, 9)) == 0 else [])
    out: dict[str, str] = {}
    mode = draw(st.sampled_from(("required", "preferred", "unconstrained", "none", "required", "preferred")))
    level = draw(st.sampled_from(pool))
    if mode == "required":
        out[ann.REQUIRED] = level
    elif mode == "preferred":
        out[ann.PREFERRED] = level
    elif mode == "unconstrained":
        out[ann.UNCONSTRAINED] = draw(st.sampled_from(("true", "true", "false", "1", "True", "t")))
    if group is not None and mode in ("required", "preferred"):
        out[ann.GROUP_NAME] = group
        return out
    slices = SLICES_DRAW[draw(st.integers(0, 3))]
    below = levels[levels.index(level):] if level in levels else levels
    if slices == "single-layer":
        out[ann.SLICE_REQUIRED] = draw(st.sampled_from(below))
        out[ann.SLICE_SIZE] = str(draw(st.integers(1, max(1, count))))
    elif slices == "multi-layer":
        layers = sorted(draw(st.lists(st.sampled_from(below), min_size=1, max_size=min(3, len(below)), unique=True)),
                        key=levels.index)
        size = draw(st.integers(1, max(1, count)))
        constraint = []
        for layer in layers:
            constraint.append({"topology": layer, "size": size})
            divisors = [d for d in range(1, size + 1) if size % d == 0]
            size = draw(st.sampled_from(divisors))
        out[ann.SLICE_CONSTRAINTS] = json.dumps(constraint)
    return out


@st.composite
def required_node_affinity(draw, levels: list[str]):
    """Required node affinity over the level labels and node names the
    cluster strategy writes (well-formed selectors only; preferred terms need a
    gate the placement gates leave out)."""
    keys = [lv for lv in levels if lv != HOSTNAME] + [HOSTNAME, "example.com/missing"]
    values = ("b1", "b2", "r1", "r2", "s1", "z1", "n0", "n1", "n2")
    terms = []
    for _ in range(draw(st.integers(1, 2))):
        if draw(st.integers(0, 4)) == 0:
            terms.append({"matchFields": [{"key": "metadata.name", "operator": draw(st.sampled_from(("In", "NotIn"))),
                                           "values": [f"n{draw(st.integers(0, 7))}"]}]})
            continue
        exprs = []
        for _ in range(draw(st.integers(1, 2))):
            expr = {"key": draw(st.sampled_from(keys)),
                    "operator": draw(st.sampled_from(("In", "NotIn", "Exists", "DoesNotExist")))}
            if expr["operator"] in ("In", "NotIn"):
                expr["values"] = draw(st.lists(st.sampled_from(values), min_size=1, max_size=2, unique=True))
            exprs.append(expr)
        terms.append({"matchExpressions": exprs})
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}


@st.composite
def pod_set(draw, name: str, levels: list[str], group: str | None = None, count: int | None = None):
    count = draw(st.integers(0, 8) if draw(st.integers(0, 9)) == 0 else st.integers(1, 8)) if count is None else count
    notes = draw(annotations(levels, count, group))
    req = draw(requests())
    tolerations = []
    if draw(st.integers(0, 3)) == 0:
        toleration = {"key": draw(st.sampled_from(TAINT_KEYS)), "operator": draw(st.sampled_from(("Exists", "Equal")))}
        if toleration["operator"] == "Equal":
            toleration["value"] = "present"
        if draw(st.booleans()):
            toleration["effect"] = draw(st.sampled_from(("NoSchedule", "NoExecute", "")))
        if draw(st.integers(0, 2)) == 0:
            toleration["tolerationSeconds"] = draw(st.sampled_from((0, 10, 45)))
        tolerations.append(toleration)
    selector = {GROUP_LABEL: "tas-group"} if draw(st.integers(0, 5)) == 0 else None
    affinity = draw(required_node_affinity(levels)) if draw(st.integers(0, 4)) == 0 else None
    # The same optional fields go on the pod template's spec or on the pod set.
    optional = {key: value for key, value in (("tolerations", tolerations), ("nodeSelector", selector),
                                              ("affinity", affinity)) if value}
    if draw(st.integers(0, 3)) == 0:
        spec: dict = {"containers": [{"name": "app", "resources": {"requests": req}}]}
        if draw(st.integers(0, 3)) == 0:
            spec["initContainers"] = [{"name": "init", "resources": {"requests": {"cpu": "2"}}}]
        spec.update(optional)
        return {"name": name, "count": count, "template": {"metadata": {"annotations": notes}, "spec": spec}}
    return {"name": name, "count": count, "annotations": notes, "requests": req, **optional}


@st.composite
def pod_sets(draw, levels: list[str], max_sets: int = 3):
    if draw(st.integers(0, 4)) == 0:
        # A leader / workers pair in one group, as the multi-podset integrations write it.
        group = draw(st.sampled_from(("ps-group", "team-a")))
        leader = draw(pod_set("leader", levels, group, count=1))
        workers = draw(pod_set("workers", levels, group))
        same = leader.get("annotations", {}) if "annotations" in leader else leader["template"]["metadata"]["annotations"]
        for target in (workers.get("annotations"), workers.get("template", {}).get("metadata", {}).get("annotations")):
            if target is not None and ann.GROUP_NAME in same and ann.GROUP_NAME in target:
                for key in (ann.REQUIRED, ann.PREFERRED):
                    target.pop(key, None)
                target.update({k: v for k, v in same.items() if k in (ann.REQUIRED, ann.PREFERRED)})
        return [leader, workers]
    return [draw(pod_set(f"ps{i}", levels)) for i in range(draw(st.integers(1, max_sets)))]
