"""Deleting a pod the kubelet rejected frees nothing and is not an error; a name
that was never admitted nor rejected still is."""

import pytest

from reference_impl import dispatch
from reference_impl.errors import InvalidInput


def scenario(events):
    return dispatch.run("kubelet", "admit", {
        "kubeletConfiguration": {"topologyManagerPolicy": "restricted", "topologyManagerScope": "pod"},
        "node": {"numaNodes": [{"id": 0, "cpus": 4, "memory": "8Gi"}, {"id": 1, "cpus": 4, "memory": "8Gi"}]},
        "events": events,
    })


def guaranteed(name, cpus):
    resources = {"cpu": str(cpus), "memory": "1Gi"}
    return {"admit": {"name": name, "containers": [{"name": "app", "resources": {"requests": resources,
                                                                                  "limits": resources}}]}}


def test_removing_a_rejected_pod_is_a_no_op():
    result = scenario([guaranteed("big", 16), {"remove": "big"}, guaranteed("small", 2)])
    assert [p["admitted"] for p in result["pods"]] == [False, True]
    assert result["allocation"]["0"]["cpus"] + result["allocation"]["1"]["cpus"] == 2


def test_removing_an_unknown_pod_is_invalid_input():
    with pytest.raises(InvalidInput):
        scenario([guaranteed("small", 2), {"remove": "other"}])
