"""The provisioning flow: quota, admission checks, then the topology assignment
over the nodes present when the last check turns Ready."""

from reference_impl.kueue.operations import OPERATIONS

from .helpers import RACK, REQUIRED, flavor, node, pod_set, topology


def provision(nodes, events, checks=("prov",), quota=None, count=8):
    input_ = {"topology": topology(), "resourceFlavor": flavor(), "nodes": nodes,
              "workload": {"name": "wl", "podSets": [pod_set(count=count, annotations={REQUIRED: RACK})]},
              "admissionChecks": list(checks), "events": events}
    if quota is not None:
        input_["clusterQueue"] = {"spec": {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
            {"name": "tas-flavor", "resources": [{"name": "cpu", "nominalQuota": quota}]}]}]}}
    return OPERATIONS["provision"](input_)


def test_assignment_uses_the_newly_provisioned_nodes():
    result = provision([node("n1", cpu="4")], [
        {"type": "NodeAdded", "nodeObject": node("n2", cpu="4")},
        {"type": "AdmissionCheckState", "check": "prov", "state": "Ready"}])
    assert result["initial"]["quotaReserved"] is True and result["initial"]["admitted"] is False
    assert result["initial"]["pending"]["reason"] == "AdmissionChecksPending"
    assert result["states"][0]["admitted"] is False
    last = result["states"][1]
    assert last["admitted"] is True
    assert [(d["values"][0], d["count"]) for d in last["podSets"][0]["topologyAssignment"]["domains"]] == [
        ("n1", 4), ("n2", 4)]


def test_not_fit_after_ready_waits_for_more_nodes():
    result = provision([node("n1", cpu="4")], [
        {"type": "AdmissionCheckState", "check": "prov", "state": "Ready"},
        {"type": "NodeAdded", "nodeObject": node("n2", cpu="4")}])
    assert result["states"][0]["admitted"] is False
    assert result["states"][0]["pending"]["reason"] == "TopologyNotFit"
    assert result["states"][1]["admitted"] is True


def test_quota_gates_the_flow():
    result = provision([node("n1", cpu="8")], [{"type": "AdmissionCheckState", "check": "prov", "state": "Ready"}],
                       quota=4)
    assert result["initial"]["quotaReserved"] is False
    assert result["initial"]["pending"]["reason"] == "InsufficientQuota"
    assert result["states"][0]["admitted"] is False


def test_retry_and_rejected():
    result = provision([node("n1", cpu="8")], [
        {"type": "AdmissionCheckState", "check": "prov", "state": "Retry"},
        {"type": "AdmissionCheckState", "check": "prov", "state": "Rejected"},
        {"type": "AdmissionCheckState", "check": "prov", "state": "Ready"}])
    retry, rejected, after = result["states"]
    assert retry["quotaReserved"] is True and retry["admissionChecks"] == {"prov": "Pending"}
    assert rejected["deactivated"] is True and rejected["quotaReserved"] is False
    assert after == rejected
