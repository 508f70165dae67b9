"""Per-row feature claims: templated names, a row's own features, the
`feature-claim` rule, and what they change for a run and its per-feature counts."""

import textwrap

from conformance import corpus as corpus_mod
from conformance.adapters.base import Response, parse_hello
from conformance.adapters.inprocess import InProcessAdapter
from conformance.corpus.checks import feature_claims
from conformance.fuzz.emit import _features
from conformance.model import FAIL, PASS, UNSUPPORTED
from conformance.report import counts
from conformance.runner import run

POLICIES = ("none", "best-effort", "restricted", "single-numa-node")
VOCABULARY = "component: kubelet\nfeatures:\n" + "".join(
    f"  {name}:\n    description: d\n    source: s\n"
    for name in ("kubelet.merge", "kubelet.scope.container", "kubelet.scope.pod",
                 *(f"kubelet.policy.{p}" for p in POLICIES)))
HEAD = """\
format: 1
component: kubelet
topic: t
defaults: {operation: merge, source: "upstream: policy.go"}
cases:
"""
# One preferred single-node hint: every policy but none selects node 0 and admits.
MERGE = """\
  - id: {id}
    title: t
    features: {features}
{matrix}
    input:
      policy: "{{{{policy}}}}"
      numa: {{nodes: [0, 1]}}
      providers: [{{cpu: [{{affinity: [0], preferred: true}}]}}]
    expect: {{result: {{affinity: [0], preferred: true, admit: true}}}}
"""
THREE = "    matrix: {policy: [single-numa-node, restricted, best-effort]}"


def load(tmp_path, text):
    root = tmp_path / "fixtures"
    (root / "features").mkdir(parents=True)
    (root / "features" / "kubelet.yaml").write_text(VOCABULARY)
    (root / "kubelet").mkdir()
    (root / "kubelet" / "a.yaml").write_text(textwrap.dedent(text))
    return corpus_mod.load(root)


def merge_case(case_id, features, matrix=THREE):
    return MERGE.format(id=case_id, features=features, matrix=matrix)


def test_a_templated_feature_is_substituted_per_row(tmp_path):
    corpus = load(tmp_path, HEAD + merge_case("m", '[kubelet.merge, "kubelet.policy.{{policy}}"]'))
    assert corpus.problems == []
    assert {c.id: c.features for c in corpus.cases} == {
        "m[policy=single-numa-node]": ("kubelet.merge", "kubelet.policy.single-numa-node"),
        "m[policy=restricted]": ("kubelet.merge", "kubelet.policy.restricted"),
        "m[policy=best-effort]": ("kubelet.merge", "kubelet.policy.best-effort"),
    }


def test_a_templated_feature_in_defaults_is_substituted_too(tmp_path):
    head = HEAD.replace("defaults: {", 'defaults: {features: ["kubelet.policy.{{policy}}"], ')
    corpus = load(tmp_path, head + merge_case("m", "[kubelet.merge]"))
    assert corpus.problems == []
    assert corpus.by_id["m[policy=restricted]"].features == ("kubelet.policy.restricted", "kubelet.merge")


def test_a_row_whose_substituted_feature_is_unknown_is_a_problem_naming_that_row(tmp_path):
    matrix = "    matrix: {policy: [restricted, strict]}"
    corpus = load(tmp_path, HEAD + merge_case("m", '[kubelet.merge, "kubelet.policy.{{policy}}"]', matrix))
    assert [c.id for c in corpus.cases] == ["m[policy=restricted]"]
    (problem,) = [p for p in corpus.problems if p.rule == "unknown-feature"]
    assert problem.case_id == "m[policy=strict]"
    assert "'kubelet.policy.strict'" in problem.message and problem.pointer == "/cases/0/features/1"


def test_a_row_features_key_adds_to_that_row_only_and_is_no_parameter(tmp_path):
    matrix = ("    matrix:\n"
              "      - {policy: restricted, features: [kubelet.policy.restricted]}\n"
              "      - {policy: none, features: [kubelet.policy.none]}")
    # (The none row's expectation would fail a run; loading is about the claims.)
    corpus = load(tmp_path, HEAD + merge_case("m", "[kubelet.merge]", matrix))
    assert corpus.problems == []
    assert {c.id: (c.features, c.params) for c in corpus.cases} == {
        "m[policy=restricted]": (("kubelet.merge", "kubelet.policy.restricted"), {"policy": "restricted"}),
        "m[policy=none]": (("kubelet.merge", "kubelet.policy.none"), {"policy": "none"}),
    }
    title_uses_it = HEAD + merge_case("t", "[kubelet.merge]", matrix).replace("title: t", "title: '{{features}}'")
    assert {p.rule for p in load(tmp_path / "2", title_uses_it).problems} == {"matrix-parameter"}


def test_a_row_missing_the_claim_of_the_policy_its_input_sets_is_broken(tmp_path):
    corpus = load(tmp_path, HEAD + merge_case("m", "[kubelet.merge, kubelet.policy.restricted]"))
    assert [c.id for c in corpus.cases] == ["m[policy=restricted]"]
    claims = {(p.case_id, p.pointer, p.line) for p in corpus.problems if p.rule == "feature-claim"}
    # Missing: pointed at the input field, on the line the case writes it.
    assert ("m[policy=best-effort]", "/cases/0/input/policy", 11) in claims
    missing = next(p for p in corpus.problems if p.case_id == "m[policy=best-effort]" and "exercises" in p.message)
    assert "kubelet.policy.best-effort" in missing.message and missing.file == "fixtures/kubelet/a.yaml"
    assert {b.id for b in corpus.broken} == {"m[policy=best-effort]", "m[policy=single-numa-node]"}


def test_a_row_claiming_another_rows_policy_is_broken(tmp_path):
    corpus = load(tmp_path, HEAD + merge_case(
        "m", "[kubelet.merge, kubelet.policy.best-effort, kubelet.policy.restricted, kubelet.policy.single-numa-node]"))
    assert corpus.cases == []
    extra = {(p.case_id, p.message.split()[3].rstrip(",")) for p in corpus.problems if p.rule == "feature-claim"}
    assert extra == {
        ("m[policy=single-numa-node]", "kubelet.policy.best-effort"),
        ("m[policy=single-numa-node]", "kubelet.policy.restricted"),
        ("m[policy=restricted]", "kubelet.policy.best-effort"),
        ("m[policy=restricted]", "kubelet.policy.single-numa-node"),
        ("m[policy=best-effort]", "kubelet.policy.restricted"),
        ("m[policy=best-effort]", "kubelet.policy.single-numa-node"),
    }
    # An extra claim is pointed at the input field and the line the claim is written on.
    problem = next(p for p in corpus.problems if p.case_id == "m[policy=restricted]")
    assert problem.pointer == "/cases/0/input/policy" and problem.line == 8


def test_a_default_value_may_be_claimed_and_no_other_value_of_its_family():
    vocabulary = dict.fromkeys(("kubelet.scope.container", "kubelet.scope.pod"), {})
    start = {"kubeletConfiguration": {"topologyManagerPolicy": "none"}}
    assert feature_claims.check("kubelet", "start", start, {"kubelet.scope.container": 1}, vocabulary) == []
    (extra,) = feature_claims.check("kubelet", "start", start, {"kubelet.scope.pod": 1}, vocabulary)
    assert (extra.kind, extra.feature, extra.pointer) == ("extra", "kubelet.scope.pod",
                                                           "/kubeletConfiguration/topologyManagerScope")


def test_a_value_written_in_two_places_may_claim_both_and_must():
    """Koordinator: the pod annotation says SingleNUMANode, the node label Restricted
    (ErrNotMatchNUMATopology); both values are exercised."""
    vocabulary = dict.fromkeys((f"koordinator.policy.{p}" for p in POLICIES), {})
    case_input = {
        "pod": {"annotations": {"scheduling.koordinator.sh/numa-topology-spec":
                                '{"numaTopologyPolicy": "SingleNUMANode"}'}},
        "node": {"labels": {"node.koordinator.sh/numa-topology-policy": "Restricted"}},
    }
    both = {"koordinator.policy.single-numa-node": 1, "koordinator.policy.restricted": 1}
    assert feature_claims.check("koordinator", "filter", case_input, both, vocabulary) == []
    found = feature_claims.check("koordinator", "filter", case_input,
                                 {"koordinator.policy.restricted": 1, "koordinator.policy.best-effort": 1}, vocabulary)
    assert {(f.kind, f.feature, f.pointer) for f in found} == {
        ("missing", "koordinator.policy.single-numa-node",
         "/pod/annotations/scheduling.koordinator.sh~1numa-topology-spec"),
        ("extra", "koordinator.policy.best-effort",
         "/pod/annotations/scheduling.koordinator.sh~1numa-topology-spec"),
    }


def test_an_admit_pod_with_pod_level_resources_must_claim_the_pod_level_feature():
    feature = "kubelet.pod-level-resources.managers"
    vocabulary = {feature: {}, "kubelet.scope.container": {}}
    pod = {"name": "p", "containers": [{"name": "app"}]}
    plain = {"events": [{"admit": pod}]}
    assert feature_claims.check("kubelet", "admit", plain, {"kubelet.scope.container": 1}, vocabulary) == []
    level = {"events": [{"admit": {**pod, "resources": {"requests": {"cpu": "2"}}}}]}
    (missing,) = feature_claims.check("kubelet", "admit", level, {"kubelet.scope.container": 1}, vocabulary)
    assert (missing.kind, missing.feature, missing.pointer) == ("missing", feature, "/events/0/admit/resources")
    assert feature_claims.check("kubelet", "admit", level, {"kubelet.scope.container": 1, feature: 1}, vocabulary) == []


class WithoutFeature:
    """The reference, declaring every feature but one, and answering one case
    wrongly on request."""

    def __init__(self, dropped, wrong_for=None):
        self.inner = InProcessAdapter()
        self.spec = "reference-without-" + dropped
        self.dropped = dropped
        self.wrong_for = wrong_for

    def start(self):
        hello = self.inner.start().raw
        features = [f for f in hello["capabilities"]["features"] if f != self.dropped]
        return parse_hello({**hello, "capabilities": {**hello["capabilities"], "features": features}})

    def run(self, case_id, case):
        if case_id == self.wrong_for:
            return Response("result", result={"affinity": [1], "preferred": True, "score": 0, "admit": True,
                                               "scoreDecided": False})
        return self.inner.run(case_id, case)

    def close(self):
        pass

    @property
    def exhausted(self):
        return False


def run_without(tmp_path, dropped, wrong_for=None):
    corpus = load(tmp_path, HEAD + merge_case("m", '[kubelet.merge, "kubelet.policy.{{policy}}"]'))
    assert corpus.problems == []
    adapter = WithoutFeature(dropped, wrong_for)
    return run(corpus.cases, corpus.broken, adapter, adapter.start())


def test_an_implementation_lacking_one_policy_gets_only_that_policys_rows_unsupported(tmp_path):
    result = run_without(tmp_path, "kubelet.policy.best-effort")
    outcomes = {r.id: r.outcome for r in result.records}
    assert outcomes == {
        "m[policy=single-numa-node]": PASS,
        "m[policy=restricted]": PASS,
        "m[policy=best-effort]": UNSUPPORTED,
    }
    unsupported = next(r for r in result.records if r.outcome == UNSUPPORTED)
    assert unsupported.message.endswith(": kubelet.policy.best-effort")


def test_a_failing_row_is_counted_only_under_its_own_features(tmp_path):
    result = run_without(tmp_path, "kubelet.policy.best-effort", wrong_for="m[policy=restricted]")
    grouped = counts.by_feature([r.to_json() for r in result.records])
    assert grouped == {
        "kubelet.merge": [PASS, FAIL, UNSUPPORTED],
        "kubelet.policy.best-effort": [UNSUPPORTED],
        "kubelet.policy.restricted": [FAIL],
        "kubelet.policy.single-numa-node": [PASS],
    }


def test_a_generated_fixture_claims_what_its_input_sets_and_no_other_value():
    vocabulary = {name: {"component": "kubelet"} for name in
                  ("kubelet.merge", "kubelet.option.prefer-closest-numa-nodes",
                   *(f"kubelet.policy.{p}" for p in POLICIES))}
    data = {"policy": "restricted", "numa": {"nodes": [0, 1]}, "options": {"prefer-closest-numa-nodes": "true"},
            "providers": [{"cpu": [{"affinity": None, "preferred": True}]}], "note": "none best-effort"}
    names = _features("kubelet", "merge", data, vocabulary)
    assert names == ["kubelet.merge", "kubelet.option.prefer-closest-numa-nodes", "kubelet.policy.restricted"]


def test_a_cpuset_case_sharing_cpus_or_preferring_some_must_claim_it():
    shared, preferred = "koordinator.cpuset.shared-cpus", "koordinator.cpuset.preferred-cpus"
    vocabulary = {shared: {}, preferred: {}}
    # maxRefCount 1 is the default: nothing is shared, and nothing need be claimed.
    assert feature_claims.check("koordinator", "cpuset", {"need": 1, "maxRefCount": 1}, {}, vocabulary) == []
    found = feature_claims.check("koordinator", "cpuset", {"need": 1, "maxRefCount": 2, "preferredCPUs": "0-1"},
                                 {}, vocabulary)
    assert {(f.kind, f.feature, f.pointer) for f in found} == {
        ("missing", shared, "/maxRefCount"), ("missing", preferred, "/preferredCPUs")}
