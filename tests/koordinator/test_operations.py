"""The operation table, its vocabulary, and contract-breaking input."""

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from reference_impl.errors import InvalidInput
from reference_impl.koordinator.operations import FEATURES, OPERATIONS

from .helpers import LSR, gpus, node, pod, run

ROOT = Path(__file__).resolve().parents[2]


def test_features_match_the_vocabulary():
    vocabulary = yaml.safe_load((ROOT / "fixtures/features/koordinator.yaml").read_text())["features"]
    assert set(FEATURES) == set(vocabulary)


def test_every_operation_has_schemas():
    for name in OPERATIONS:
        for kind in ("input", "result"):
            schema = json.loads((ROOT / f"schemas/operations/koordinator/{name}.{kind}.json").read_text())
            jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("op, input_", [
    ("filter", {"node": node(devices=gpus()), "pod": pod(labels=LSR, **{"nvidia.com/gpu": "1"})}),
    ("score", {"nodes": [node(), node(name="b")], "pod": pod()}),
    ("resolve", {"node": node(), "pod": pod()}),
    ("cpuset", {"cpuTopology": {"coresPerNUMANode": 2}, "need": 1}),
    ("merge", {"numaNodes": [0], "providers": [None]}),
])
def test_results_follow_their_schema(op, input_):
    for kind, value in (("input", input_), ("result", run(op, input_))):
        schema = json.loads((ROOT / f"schemas/operations/koordinator/{op}.{kind}.json").read_text())
        jsonschema.validate(value, schema, cls=jsonschema.Draft202012Validator)


@pytest.mark.parametrize("op, input_, field", [
    ("merge", {"policy": "Strict", "numaNodes": [0], "providers": []}, "policy"),
    ("merge", {"numaNodes": [0], "providers": [], "numaNodeStatus": {"x": "idle"}}, "numaNodeStatus"),
    ("cpuset", {"need": 1}, "cpuTopology"),
    ("cpuset", {"cpuTopology": {"coresPerNUMANode": 1}, "need": 1, "allocated": [{"cpuset": "5"}]}, "allocated/0/cpuset"),
    ("filter", {"node": {"numaNodes": [{"id": 0}, {"id": 0}]}, "pod": {}}, "node/numaNodes/1/id"),
    ("filter", {"node": {}, "pod": {"containers": [{"resources": {"requests": {"cpu": "lots"}}}]}},
     "pod/containers/0/resources/requests/cpu"),
    ("filter", {"node": {}, "pod": {}, "args": {"nodeNUMAResource": {"scoringStrategy": {"type": "Random"}}}},
     "args/nodeNUMAResource/scoringStrategy/type"),
])
def test_contract_breaking_input_raises(op, input_, field):
    with pytest.raises(InvalidInput) as info:
        run(op, input_)
    assert info.value.field == field
