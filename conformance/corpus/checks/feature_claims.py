"""The `feature-claim` rule: a case claims the features its input exercises, and no
other value's feature of the same family.

Per component, a table of families. A family names the input fields whose values
imply its features (`policy: best-effort` implies `kubelet.policy.best-effort`).
For every row of the corpus:

* missing: the input sets a value whose feature is in the vocabulary, and the row
  does not claim that feature;
* extra: the row claims a feature of a family whose fields the input sets (or
  leaves at a documented default), but no field of the input holds that feature's
  value. An input holding two values of one family (a pod annotation and a node
  label naming different policies) may claim both.

The tables are data read from the vocabulary (fixtures/features/), the operation
documents (docs/operations/) and the input schemas (schemas/operations/); the rule
only walks them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance import yamlload
from conformance.corpus.checks.schema import pointer_parts
from conformance.model import Problem

RULE = "feature-claim"
ABSENT = object()
# Pattern segments with a meaning of their own (see _walk).
ANY = "*"
KEY = "{key}"
JSON = "{json}"


@dataclass(frozen=True)
class Family:
    """Input fields whose values imply the features of one family."""

    name: str
    # JSON pointers into the input; `*` is any key or index, `{key}` (last) makes
    # each key of the mapping there a value, `{json}` reads a string holding JSON.
    fields: tuple[str, ...]
    # value -> feature; a value not listed (a misspelt policy in a validation
    # case) exercises no feature of the family.
    values: Mapping[Any, str | None]
    operations: tuple[str, ...] = ()          # () = every operation of the component
    # pattern -> its own value table, for a field that spells the values its own way
    field_values: Mapping[str, Mapping[Any, str | None]] = field(default_factory=dict)
    # What an absent field means: its feature may be claimed but need not be, and
    # the family's other features are extra.
    default: Any = ABSENT
    # False for families whose features may be claimed without a field setting
    # them (a value's behaviour can be at stake through a default the table
    # cannot tell).
    exclusive: bool = True

    def applies_to(self, operation: str) -> bool:
        return not self.operations or operation in self.operations

    @property
    def features(self) -> frozenset[str]:
        tables = [self.values, *self.field_values.values()]
        return frozenset(f for table in tables for f in table.values() if f)


@dataclass(frozen=True)
class Finding:
    kind: str            # "missing" | "extra"
    family: str
    feature: str
    pointer: str         # JSON pointer inside the input
    message: str


def _named(prefix: str, names: Mapping[Any, str | None]) -> dict[Any, str | None]:
    return {value: prefix + suffix if suffix is not None else None for value, suffix in names.items()}


def _same(prefix: str, *names: str) -> dict[Any, str | None]:
    return {name: prefix + name for name in names}


class _AboveOne(Mapping):
    """Any integer above 1 exercises the feature (a count of 1 is the default)."""

    def __init__(self, feature: str):
        self._feature = feature

    def __getitem__(self, value: Any) -> str:
        if isinstance(value, int) and not isinstance(value, bool) and value > 1:
            return self._feature
        raise KeyError(value)

    def __iter__(self) -> Iterator[Any]:
        return iter((2,))

    def __len__(self) -> int:
        return 1


def _pointer(*parts: str) -> str:
    return "/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


# -- kubelet -------------------------------------------------------------------
_KUBELET_CONFIG = ("start", "admit", "admit_hints")
KUBELET = (
    Family("kubelet.policy", ("/policy",),
           _same("kubelet.policy.", "none", "best-effort", "restricted", "single-numa-node"),
           operations=("merge",)),
    # start and admit read one KubeletConfiguration; an absent policy is none.
    Family("kubelet.policy", ("/kubeletConfiguration/topologyManagerPolicy",),
           _same("kubelet.policy.", "none", "best-effort", "restricted", "single-numa-node"),
           operations=_KUBELET_CONFIG, default="none"),
    Family("kubelet.scope", ("/kubeletConfiguration/topologyManagerScope",),
           _same("kubelet.scope.", "container", "pod"), operations=_KUBELET_CONFIG, default="container"),
    # Option names as keys; an option's default (max-allowable-numa-nodes' 8) can
    # be what a case is about without the option being written, so not exclusive.
    Family("kubelet.option", ("/options/{key}", "/kubeletConfiguration/topologyManagerPolicyOptions/{key}"),
           _same("kubelet.option.", "prefer-closest-numa-nodes", "max-allowable-numa-nodes",
                 "numa-allocation-strategy", "numa-score-weights"),
           exclusive=False),
    # The static CPU policy's options, keyed like the Topology Manager's; the
    # options a release accepts only as false name no feature.
    Family("kubelet.cpu-option", ("/kubeletConfiguration/cpuManagerPolicyOptions/{key}",),
           _same("kubelet.cpu-option.", "full-pcpus-only", "distribute-cpus-across-numa", "align-by-socket"),
           operations=_KUBELET_CONFIG, exclusive=False),
    Family("kubelet.gates", ("/featureGates/{key}",),
           dict.fromkeys(("TopologyManagerPolicyOptions", "TopologyManagerPolicyBetaOptions",
                          "TopologyManagerPolicyAlphaOptions"), "kubelet.gates.policy-options"),
           exclusive=False),
    Family("kubelet.merge-algorithm", ("/mergeAlgorithm",),
           {"full": None, "preferred-first": "kubelet.merge-preferred"}, operations=("merge",), default="full"),
    Family("kubelet.init-containers", ("/events/*/admit/initContainers/*/name",),
           {}, operations=("admit",), exclusive=False),
    Family("kubelet.init-containers", ("/pod/initContainers/*/name",),
           {}, operations=("admit_hints",), exclusive=False),
    # an admit pod's spec.resources decide its QoS class and the managers' path
    Family("kubelet.pod-level-resources.managers", ("/events/*/admit/resources",),
           {}, operations=("admit",), exclusive=False),
)

# -- Koordinator ---------------------------------------------------------------
_POD_ANN = "/pod/annotations/scheduling.koordinator.sh~1"
_NODES = ("/node", "/nodes/*")          # filter / resolve take one node, score several
_KOORD_POLICY = _named("koordinator.policy.", {
    "": "none", "None": "none", "BestEffort": "best-effort", "Restricted": "restricted",
    "SingleNUMANode": "single-numa-node"})
_KOORD_STRATEGY = _named("koordinator.numa.strategy.", {
    "MostAllocated": "most-allocated", "LeastAllocated": "least-allocated", "DistributeEvenly": "distribute-evenly"})
_KOORD_BIND = _named("koordinator.cpubind.", {
    "Default": "default", "FullPCPUs": "full-pcpus", "SpreadByPCPUs": "spread-by-pcpus",
    "ConstrainedBurst": "constrained-burst"})
_KOORD_EXCLUSIVE = _named("koordinator.cpuexclusive.", {
    "None": None, "PCPULevel": "pcpu-level", "NUMANodeLevel": "numa-node-level"})
_KOORD_SCORING = {"MostAllocated": "most-allocated", "LeastAllocated": "least-allocated",
                  "BalancedAllocation": "balanced-allocation"}
_KUBELET_POLICY = tuple(n + "/kubeletTopologyPolicy" for n in _NODES)
_DEVICE_HINT = _POD_ANN + "device-allocate-hint/{json}/*/"

KOORDINATOR = (
    # The policy can be written in four places; a case where pod and node disagree
    # exercises both values. The kubelet's policy on the node is spelt its own way.
    Family("koordinator.policy",
           ("/policy", _POD_ANN + "numa-topology-spec/{json}/numaTopologyPolicy",
            *(n + "/labels/node.koordinator.sh~1numa-topology-policy" for n in _NODES),
            *_KUBELET_POLICY),
           _KOORD_POLICY, default="None",
           field_values=dict.fromkeys(_KUBELET_POLICY, _named("koordinator.policy.", {
               "BestEffort": "best-effort", "Restricted": "restricted", "SingleNUMANodePodLevel": "single-numa-node",
               "SingleNUMANodeContainerLevel": "none", "None": "none"}))),
    Family("koordinator.exclusive",
           ("/singleNUMANodeExclusive", _POD_ANN + "numa-topology-spec/{json}/singleNUMANodeExclusive"),
           {"Preferred": "koordinator.exclusive.single-numa-node", "Required": "koordinator.exclusive.single-numa-node"},
           exclusive=False),
    Family("koordinator.numa.strategy",
           ("/numaAllocateStrategy", _POD_ANN + "numa-topology-spec/{json}/numaAllocateStrategy",
            *(n + "/labels/node.koordinator.sh~1numa-allocate-strategy" for n in _NODES),
            "/args/nodeNUMAResource/numaAllocateStrategy"),
           _KOORD_STRATEGY),
    Family("koordinator.cpubind",
           ("/cpuBindPolicy", _POD_ANN + "resource-spec/{json}/requiredCPUBindPolicy",
            _POD_ANN + "resource-spec/{json}/preferredCPUBindPolicy"),
           _KOORD_BIND),
    Family("koordinator.cpubind.required", (_POD_ANN + "resource-spec/{json}/requiredCPUBindPolicy", "/required"),
           {**dict.fromkeys(_KOORD_BIND, "koordinator.cpubind.required"), True: "koordinator.cpubind.required",
            False: None},
           exclusive=False),
    Family("koordinator.cpubind.node-policy",
           tuple(n + "/labels/node.koordinator.sh~1cpu-bind-policy" for n in _NODES),
           dict.fromkeys(("FullPCPUsOnly", "SpreadByPCPUs", "None"), "koordinator.cpubind.node-policy"),
           exclusive=False),
    Family("koordinator.cpuexclusive",
           ("/cpuExclusivePolicy", "/allocated/*/cpuExclusivePolicy",
            _POD_ANN + "resource-spec/{json}/preferredCPUExclusivePolicy",
            *(n + "/pods/*/cpuExclusivePolicy" for n in _NODES)),
           _KOORD_EXCLUSIVE),
    Family("koordinator.cpuset.preferred-cpus", ("/preferredCPUs",), {}, operations=("cpuset",), exclusive=False),
    Family("koordinator.cpuset.shared-cpus", ("/maxRefCount",), _AboveOne("koordinator.cpuset.shared-cpus"),
           operations=("cpuset",), exclusive=False),
    Family("koordinator.score.node", ("/args/nodeNUMAResource/scoringStrategy/type",),
           _named("koordinator.score.node.", _KOORD_SCORING)),
    Family("koordinator.score.numa", ("/args/nodeNUMAResource/numaScoringStrategy/type",),
           _named("koordinator.score.numa.", _KOORD_SCORING)),
    Family("koordinator.deviceshare.score", ("/args/deviceShare/scoringStrategy/type",),
           _named("koordinator.deviceshare.score.", {"MostAllocated": "most-allocated",
                                                     "LeastAllocated": "least-allocated"})),
    Family("koordinator.deviceshare.disable-numa-alignment", ("/args/deviceShare/disableDeviceNUMATopologyAlignment",),
           {True: "koordinator.deviceshare.disable-numa-alignment", False: None}, exclusive=False),
    Family("koordinator.deviceshare.selector", (_DEVICE_HINT + "selector",),
           {}, exclusive=False),
    Family("koordinator.deviceshare.vf-selector", (_DEVICE_HINT + "vfSelector",),
           {}, exclusive=False),
    Family("koordinator.deviceshare.allocate-strategy", (_DEVICE_HINT + "allocateStrategy",),
           _named("koordinator.deviceshare.allocate-strategy.", {
               "ApplyForAll": "apply-for-all", "RequestsAsCount": "requests-as-count"})),
    Family("koordinator.deviceshare.scope", (_DEVICE_HINT + "requiredTopologyScope",),
           _named("koordinator.deviceshare.scope.", {
               "Device": "device", "PCIe": "pcie", "NUMANode": "numa-node", "Node": "node"})),
    Family("koordinator.deviceshare.exclusive", (_DEVICE_HINT + "exclusivePolicy",),
           _named("koordinator.deviceshare.exclusive.", {"DeviceLevel": "device-level", "PCIeLevel": "pcie-level"})),
    Family("koordinator.deviceshare.joint-allocate", (_POD_ANN + "device-joint-allocate",),
           {}, exclusive=False),
    # The allocation step on a supplied affinity, and a pod handing a designated
    # allocation to NodeNUMAResource through its scheduling hint.
    Family("koordinator.allocate.hint", ("/affinity",), {}, operations=("allocate",), exclusive=False),
    Family("koordinator.allocate.designated",
           ("/pod/annotations/internal.scheduling.koordinator.sh~1scheduling-hint",
            "/pod/annotations/scheduling.koordinator.sh~1scheduling-hint"),
           {}, operations=("allocate",), exclusive=False),
    # A pod carrying devices it already holds (handed over or not).
    Family("koordinator.deviceshare.designated", (_POD_ANN + "device-allocated",), {}, exclusive=False),
    Family("koordinator.deviceshare.gpu-partition.policy", (_POD_ANN + "gpu-partition-spec/{json}/allocatePolicy",),
           _named("koordinator.deviceshare.gpu-partition.", {"Restricted": "restricted", "BestEffort": "best-effort"})),
    Family("koordinator.deviceshare.gpu-partition.ring-bus-bandwidth",
           (_POD_ANN + "gpu-partition-spec/{json}/ringBusBandwidth",), {}, exclusive=False),
    Family("koordinator.numa.cpu-amplification",
           tuple(n + "/annotations/node.koordinator.sh~1resource-amplification-ratio" for n in _NODES),
           {}, exclusive=False),
    Family("koordinator.deviceshare.gpu-partition.node-policy",
           tuple(n + where + "/node.koordinator.sh~1gpu-partition-policy"
                 for n in _NODES for where in ("/labels", "/deviceLabels")),
           {}, exclusive=False),
)

# -- Kueue ---------------------------------------------------------------------
_KUEUE_GATES = {
    "TopologyAwareScheduling": "topology-aware-scheduling",
    "TASProfileMixed": "tas-profile-mixed",
    "TASBalancedPlacement": "tas-balanced-placement",
    "TASMultiLayerTopology": "tas-multi-layer-topology",
    "TASFailedNodeReplacement": "tas-failed-node-replacement",
    "TASFailedNodeReplacementFailFast": "tas-failed-node-replacement-fail-fast",
    "TASReplaceNodeOnPodTermination": "tas-replace-node-on-pod-termination",
    "TASReplaceNodeDueToNotReadyOverFixedTime": "tas-replace-node-due-to-not-ready-over-fixed-time",
    "TASReplaceNodeOnNodeTaints": "tas-replace-node-on-node-taints",
    "SkipReassignmentForPodOwnedWorkloads": "skip-reassignment-for-pod-owned-workloads",
    "TASRespectNodeAffinityPreferred": "tas-respect-node-affinity-preferred",
    "ElasticJobsViaWorkloadSlices": "elastic-jobs-via-workload-slices",
    "ElasticJobsViaWorkloadSlicesWithTAS": "elastic-jobs-via-workload-slices-with-tas",
}
# Pod sets of the workload (assign, hot_swap, provision), of validate, and the one
# pod set of capacity; annotations written directly or on the template.
_PODSETS = ("/workload/podSets/*", "/podSets/*", "/podSet")
# The pod templates of an integration object (validate, assign).
_INTEGRATIONS = ("/integration", "/workload/integration")
_INTEGRATION_TEMPLATES = tuple(i + t for i in _INTEGRATIONS for t in (
    "/spec/template", "/spec/replicatedJobs/*/template/spec/template",
    "/spec/leaderWorkerTemplate/leaderTemplate", "/spec/leaderWorkerTemplate/workerTemplate"))
_PODSET_ANN = tuple(p + a for p in _PODSETS for a in ("/annotations/", "/template/metadata/annotations/")) + tuple(
    t + "/metadata/annotations/" for t in _INTEGRATION_TEMPLATES)


def _annotation(name: str) -> tuple[str, ...]:
    return tuple(a + "kueue.x-k8s.io~1" + name for a in _PODSET_ANN)


KUEUE = (
    Family("kueue.gate", ("/featureGates/{key}",), _named("kueue.gate.", _KUEUE_GATES), exclusive=False),
    Family("kueue.tas.required", _annotation("podset-required-topology"), {}, exclusive=False),
    Family("kueue.tas.preferred", _annotation("podset-preferred-topology"), {}, exclusive=False),
    Family("kueue.tas.unconstrained", _annotation("podset-unconstrained-topology"), {}, exclusive=False),
    Family("kueue.tas.podset-group", _annotation("podset-group-name"), {}, exclusive=False),
    Family("kueue.tas.slices", _annotation("podset-slice-required-topology") + _annotation("podset-slice-size"),
           {}, exclusive=False),
    Family("kueue.tas.multi-layer-slices", _annotation("podset-slice-required-topology-constraints"),
           {}, exclusive=False),
    Family("kueue.tas.placement-level-messages", ("/flavorLevelCheck",),
           {False: "kueue.tas.placement-level-messages", True: None}, operations=("assign",)),
    Family("kueue.tas.node-affinity", tuple(p + a for p in _PODSETS
                                            for a in ("/affinity/nodeAffinity", "/template/spec/affinity/nodeAffinity"))
           + tuple(t + "/spec/affinity/nodeAffinity" for t in _INTEGRATION_TEMPLATES),
           {}, exclusive=False),
    Family("kueue.tas.integration", tuple(i + "/kind" for i in _INTEGRATIONS),
           _named("kueue.tas.integration.", {"Job": "job", "JobSet": "jobset", "LeaderWorkerSet": "leader-worker-set"})),
    Family("kueue.tas.elastic-workload-slices", ("/workload/replacedSlice",), {}, exclusive=False),
)

TABLES: dict[str, tuple[Family, ...]] = {"kubelet": KUBELET, "koordinator": KOORDINATOR, "kueue": KUEUE}


def _walk(value: Any, parts: list[str], at: list[str]) -> Iterator[tuple[str, Any]]:
    """(pointer, value) for every place of `value` the pattern parts reach."""
    if not parts:
        yield _pointer(*at) if at else "", value
        return
    head, rest = parts[0], parts[1:]
    if head == KEY:
        if isinstance(value, dict):
            for key in value:
                yield _pointer(*at, str(key)), key
        return
    if head == JSON:
        if isinstance(value, str):
            try:
                decoded = json.loads(value)
            except ValueError:
                return              # malformed JSON exercises nothing; validation cases say so themselves
            # Pointers stop at the annotation: past it there is no field to point at.
            for _, found in _walk(decoded, rest, []):
                yield _pointer(*at), found
        return
    if head == ANY:
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, item in items:
            yield from _walk(item, rest, at + [str(key)])
        return
    if isinstance(value, dict) and head in value:
        yield from _walk(value[head], rest, at + [head])


def _parts(pattern: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in pattern.split("/")[1:]]


def exercised(family: Family, case_input: Any) -> list[tuple[str, Any, str | None]]:
    """(pointer, value, feature) for every field of the family the input sets."""
    found = []
    for pattern in family.fields:
        for pointer, value in _walk(case_input, _parts(pattern), []):
            values = family.field_values.get(pattern, family.values)
            if not values:
                # A family of one feature named by the family: any value exercises it.
                feature = family.name
            else:
                try:
                    feature = values.get(value)
                except TypeError:           # a mapping or list where a value belongs
                    feature = None
            found.append((pointer, value, feature))
    return found


def check(component: str, operation: str, case_input: Any, claimed: Mapping[str, Any],
          vocabulary: Mapping[str, Any]) -> list[Finding]:
    """Missing and extra claims of one row."""
    findings: list[Finding] = []
    for family in TABLES.get(component, ()):
        if not family.applies_to(operation):
            continue
        hits = exercised(family, case_input)
        present: dict[str, tuple[str, Any]] = {}
        for pointer, value, feature in hits:
            if feature is not None:
                present.setdefault(feature, (pointer, value))
        for feature, (pointer, value) in present.items():
            if feature in vocabulary and feature not in claimed:
                findings.append(Finding("missing", family.name, feature, pointer,
                                        f"the input sets {pointer} to {_show(value)}, which exercises {feature}; "
                                        f"claim {feature}"))
        if not family.exclusive or not (hits or family.default is not ABSENT):
            continue
        allowed = set(present)
        if not hits:
            allowed.add(family.values.get(family.default))
        for feature in sorted(family.features & set(claimed) - allowed):
            if hits:
                pointer = hits[0][0]
                what = ", ".join(f"{p} = {_show(v)}" for p, v, _ in hits)
            else:
                pointer = _parts(family.fields[0])
                pointer = _pointer(*pointer[:next((i for i, p in enumerate(pointer) if p in (ANY, KEY, JSON)),
                                                  len(pointer))])
                what = f"{pointer} absent (= {_show(family.default)})"
            findings.append(Finding("extra", family.name, feature, pointer,
                                    f"the case claims {feature}, but its input exercises no such value "
                                    f"({what}); claim it only in the rows that set it"))
    return findings


def _show(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else repr(value)


def problems(rel: str, doc: Any, prefix: list, case_id: str, component: str, operation: str, case_input: dict,
             claims: list[tuple[str, list]], vocabulary: Mapping[str, Any]) -> list[Problem]:
    """The rule on one row: `claims` are (feature, where it is written)."""
    written = dict(claims)
    found = []
    for finding in check(component, operation, case_input, written, vocabulary):
        # A missing claim is pointed at the input field (its line when the case
        # writes it, else the case's); an extra one at where it is claimed.
        where = written.get(finding.feature) if finding.kind == "extra" else \
            prefix + ["input"] + pointer_parts(finding.pointer)
        line = yamlload.line_of(doc, where) or yamlload.line_of(doc, prefix)
        found.append(Problem(rel, line, case_id, f"/cases/{prefix[1]}/input{finding.pointer}", RULE, finding.message))
    return found
