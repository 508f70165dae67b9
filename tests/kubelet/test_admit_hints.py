"""admit_hints: bad input names its field, answers satisfy the schemas; the
kubelet's quoting of names and values; the restart event's form."""

import json
import pathlib

import jsonschema
import pytest

from reference_impl.errors import InvalidInput
from reference_impl.kubelet import operations
from reference_impl.kubelet.refusals import go_quote
from reference_impl.kubelet.supplied import pod_level_set

SCHEMAS = pathlib.Path(__file__).resolve().parents[2] / "schemas" / "operations" / "kubelet"


def validate(input_, result):
    for name, value in (("input", input_), ("result", result)):
        schema = json.loads((SCHEMAS / f"admit_hints.{name}.json").read_text())
        jsonschema.Draft202012Validator(schema).validate(value)


def base(**over):
    case = {
        "kubeletConfiguration": {"topologyManagerPolicy": "restricted", "topologyManagerScope": "container"},
        "numa": {"nodes": [0, 1]},
        "pod": {"name": "p", "containers": [{"name": "a"}, {"name": "b"}]},
        "providers": [{"containerHints": {"a": {"cpu": [{"affinity": [1], "preferred": True}]}}}],
    }
    case.update(over)
    return case


def test_admitted_and_refused_answers_satisfy_the_schemas():
    ok = base()
    result = operations.admit_hints(ok)
    validate(ok, result)
    assert result["containers"] == [
        {"name": "a", "affinity": [1], "preferred": True},
        {"name": "b", "affinity": [0, 1], "preferred": True},
    ]
    refused = base(kubeletConfiguration={"topologyManagerPolicy": "strict"})
    result = operations.admit_hints(refused)
    validate(refused, result)
    assert result["refused"]["reason"] == "UnknownPolicy"


@pytest.mark.parametrize(
    ("providers", "field"),
    [
        ([], "providers"),
        ([{"containerHints": {"c": {}}}], "providers/0/containerHints/c"),
        ([{"allocateErrors": {"a": ""}}], "providers/0/allocateErrors/a"),
        ([{"podHints": {"cpu": [{"affinity": "0", "preferred": True}]}}], "providers/0/podHints/cpu/0/affinity"),
    ],
)
def test_bad_providers_name_the_field(providers, field):
    with pytest.raises(InvalidInput) as err:
        operations.admit_hints(base(providers=providers))
    assert err.value.field == field


def test_duplicate_container_names_are_invalid():
    with pytest.raises(InvalidInput):
        operations.admit_hints(base(pod={"name": "p", "initContainers": [{"name": "a"}], "containers": [{"name": "a"}]}))


def test_go_quote_escapes_as_go_does():
    assert go_quote("max-allowable-numa-nodes") == '"max-allowable-numa-nodes"'
    assert go_quote('a"b\\c\n\x01') == '"a\\"b\\\\c\\n\\x01"'


def test_restart_event_must_be_true():
    case = {"kubeletConfiguration": {"topologyManagerPolicy": "restricted"},
            "node": {"numaNodes": [{"id": 0, "cpus": 2, "memory": "1Gi"}]},
            "events": [{"restart": False}]}
    with pytest.raises(InvalidInput) as err:
        operations.admit(case)
    assert err.value.field == "events/0/restart"


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        (None, False),
        ({"requests": {"example.com/foo": "1"}}, False),
        ({"limits": {"hugepages-2Mi": "64Mi"}}, True),
        ({"requests": {"cpu": "2"}}, True),
    ],
)
def test_pod_level_resources_are_cpu_memory_and_hugepages(resources, expected):
    assert pod_level_set(resources) is expected


def test_pod_level_path_needs_the_gate_and_its_version():
    pod = {"name": "p", "resources": {"limits": {"memory": "1Gi"}}, "containers": [{"name": "a"}]}
    providers = [{"podHints": {"cpu": [{"affinity": [0], "preferred": True}]}, "allocatePodError": "boom"}]
    config = {"topologyManagerPolicy": "best-effort", "topologyManagerScope": "pod"}
    on = operations.admit_hints(base(pod=pod, providers=providers, kubeletConfiguration=config,
                                     featureGates={"PodLevelResourceManagers": True}))
    assert on["reason"] == "UnexpectedAdmissionError"
    before = operations.admit_hints(base(pod=pod, providers=providers, kubeletConfiguration=config,
                                         kubernetesVersion="1.35", featureGates={"PodLevelResourceManagers": True}))
    assert before["admitted"] is True
