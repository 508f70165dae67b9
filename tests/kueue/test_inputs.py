"""Refusals common to the operations, and input that breaks the contract."""

import pytest

from reference_impl.errors import InvalidInput
from reference_impl.kueue.operations import OPERATIONS

from .helpers import BLOCK, HOST, RACK, REQUIRED, SLICE_SIZE, assign, cluster, flavor, hot_swap, node, pod_set, topology


def test_hostname_must_be_lowest():
    result = assign(cluster(), [pod_set()], levels=(BLOCK, HOST, RACK))
    assert result["refused"]["reason"] == "InvalidTopology"
    assert "lowest level" in result["refused"]["message"]


def test_duplicate_levels_are_refused():
    assert assign(cluster(), [pod_set()], levels=(BLOCK, BLOCK, HOST))["refused"]["reason"] == "InvalidTopology"


def test_flavor_must_reference_the_topology():
    result = assign(cluster(), [pod_set()], resourceFlavor=flavor(topology_name="other"))
    assert result["refused"]["reason"] == "TopologyMismatch"


def test_flavor_with_topology_needs_node_labels():
    rf = flavor()
    rf["spec"]["nodeLabels"] = {}
    assert assign(cluster(), [pod_set()], resourceFlavor=rf)["refused"]["reason"] == "InvalidResourceFlavor"


def test_assign_rejects_invalid_annotations():
    result = assign(cluster(), [pod_set(annotations={SLICE_SIZE: "2"})])
    assert result == {"admitted": False, "rejected": [{
        "podSet": "main", "annotation": SLICE_SIZE, "reason": "SliceSizeWithoutTopology",
        "message": "may not be set when 'kueue.x-k8s.io/podset-slice-required-topology' is not specified",
        "type": "Forbidden", "value": None,
        "field": "podSets[main].annotations[kueue.x-k8s.io/podset-slice-size]"}]}


@pytest.mark.parametrize("mutate", [
    lambda i: i.pop("topology"),
    lambda i: i.update(nodes="n1"),
    lambda i: i["workload"].update(podSets=[{"name": "main"}]),
    lambda i: i["workload"].update(podSets=[{"name": "a", "count": 1}, {"name": "a", "count": 1}]),
    lambda i: i.update(kueueVersion="0.30"),
    lambda i: i["nodes"][0]["status"].update(allocatable={"cpu": "lots"}),
])
def test_malformed_input_is_invalid_input(mutate):
    input_ = {"topology": topology(), "resourceFlavor": flavor(), "nodes": [node("n1")],
              "workload": {"name": "w", "podSets": [pod_set()]}}
    mutate(input_)
    with pytest.raises(InvalidInput):
        OPERATIONS["assign"](input_)


def test_hot_swap_needs_hostname_and_known_nodes():
    pod_sets = [pod_set(count=1, annotations={REQUIRED: RACK},
                        topologyAssignment={"levels": [HOST], "domains": [{"values": ["n1"], "count": 1}]})]
    with pytest.raises(InvalidInput):
        hot_swap([node("n1")], pod_sets, [{"at": 0, "type": "NodeNotReady", "node": "nope"}])
    with pytest.raises(InvalidInput):
        hot_swap([node("n1")], pod_sets, [{"at": 5, "type": "Wait"}, {"at": 1, "type": "Wait"}])


def test_assign_without_the_flavor_level_check_reports_the_placement_message():
    bad = pod_set(annotations={REQUIRED: "example.com/zone"})
    checked = assign(cluster(), [bad])
    assert checked["podSets"][0]["notFit"]["message"].startswith("Flavor ")
    unchecked = assign(cluster(), [bad], flavorLevelCheck=False)
    assert unchecked["podSets"][0]["notFit"] == {
        "reason": "UnknownTopologyLevel", "message": "no requested topology level: example.com/zone"}
    with pytest.raises(InvalidInput):
        assign(cluster(), [bad], flavorLevelCheck="no")
