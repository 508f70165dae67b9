"""Admission details the seeds leave to upstream (kubelet v1.37.2), each
worked by hand from the upstream manager that decides it."""

from reference_impl.kubelet.operations import admit

from .helpers import config, guaranteed, pod

GI = 1 << 30


def run(cfg, node, *events):
    evs = [e if "remove" in e else {"admit": e} for e in events]
    return admit({"kubernetesVersion": "1.38", "featureGates": {}, "kubeletConfiguration": cfg,
                  "node": {"numaNodes": node}, "events": evs})


def single_node(cpus=8, memory="16Gi", **devices):
    return [{"id": 0, "cpus": cpus, "memory": memory, **({"devices": devices} if devices else {})}]


# --- memory manager: a started pod's regular init containers give their memory back


def test_init_container_memory_returns_to_the_node_once_the_pod_starts():
    r = run(config(), single_node(memory="32Gi"),
            pod("pod-0", guaranteed("app", cpu=1, memory="6Gi")),
            pod("pod-1", guaranteed("app", cpu=1, memory="1Gi"), init=[guaranteed("init", cpu=1, memory="7Gi")]))
    # 6Gi of pod-0 plus the 1Gi app block of pod-1; the init's other 6Gi are free again
    assert r["allocation"]["0"]["memory"] == 7 * GI
    entries = {c["name"]: c["memory"] for c in r["pods"][1]["containers"]}
    assert entries == {"init": {"0": 7 * GI}, "app": {"0": 1 * GI}}


def test_freed_init_memory_admits_a_later_pod_and_removal_frees_the_rest():
    node = single_node(memory="16Gi")
    first = pod("pod-1", guaranteed("app", cpu=1, memory="2Gi"), init=[guaranteed("init", cpu=1, memory="12Gi")])
    later = pod("pod-2", guaranteed("app", cpu=1, memory="10Gi"))
    r = run(config(), node, first, later)
    assert [p["admitted"] for p in r["pods"]] == [True, True]
    assert r["allocation"]["0"]["memory"] == 12 * GI
    r = run(config(), node, first, {"remove": "pod-1"})
    assert r["allocation"]["0"]["memory"] == 0


def test_a_sidecar_keeps_its_memory_after_the_pod_starts():
    sidecar = guaranteed("sidecar", cpu=1, memory="3Gi")
    sidecar["restartPolicy"] = "Always"
    r = run(config(), single_node(memory="16Gi"),
            pod("pod-1", guaranteed("app", cpu=1, memory="1Gi"), init=[sidecar, guaranteed("init", cpu=1, memory="8Gi")]))
    # the sidecar's 3Gi and the app's 1Gi stay; the regular init's 8Gi do not
    assert r["allocation"]["0"]["memory"] == 4 * GI


# --- admission_errors_total: policy none rejects without counting

TWO_SMALL = [{"id": i, "cpus": 4, "memory": "8Gi"} for i in (0, 1)]
TOO_BIG = pod("big", guaranteed("app", cpu=10))
FITS = pod("small", guaranteed("app", cpu=2))


def test_policy_none_does_not_count_a_failed_allocation():
    for scope in ("container", "pod"):
        r = run(config("none", scope), TWO_SMALL, TOO_BIG, FITS)
        assert [p["admitted"] for p in r["pods"]] == [False, True]
        assert r["pods"][0]["reason"] == "UnexpectedAdmissionError"
        assert (r["metrics"]["admission_requests_total"], r["metrics"]["admission_errors_total"]) == (2, 0)


def test_other_policies_count_the_same_failure():
    for scope in ("container", "pod"):
        r = run(config("best-effort", scope), TWO_SMALL, TOO_BIG, FITS)
        assert r["pods"][0]["reason"] == "UnexpectedAdmissionError"
        assert (r["metrics"]["admission_requests_total"], r["metrics"]["admission_errors_total"]) == (2, 1)


# --- device manager: a resource whose plugin reports no devices


def test_a_resource_with_no_devices_fails_as_unhealthy():
    node = [{"id": i, "cpus": 4, "memory": "8Gi", "devices": {"nvidia.com/gpu": 0}} for i in (0, 1)]
    for policy in ("none", "best-effort"):
        r = run(config(policy), node, pod("p", guaranteed("app", cpu=1, extra={"nvidia.com/gpu": 1})))
        p = r["pods"][0]
        assert (p["admitted"], p["reason"]) == (False, "UnexpectedAdmissionError")
        assert "no healthy devices present; cannot allocate unhealthy devices nvidia.com/gpu" in p["message"]


def test_devices_all_in_use_still_report_the_shortfall():
    node = [{"id": 0, "cpus": 4, "memory": "8Gi", "devices": {"nvidia.com/gpu": 1}}]
    gpu = {"nvidia.com/gpu": 1}
    r = run(config("none"), node, pod("a", guaranteed("app", cpu=1, extra=gpu)), pod("b", guaranteed("app", cpu=1, extra=gpu)))
    assert "requested number of devices unavailable for nvidia.com/gpu" in r["pods"][1]["message"]


# --- CPU manager: the shortfall message counts what the aligned CPUs left over


def test_not_enough_cpus_reports_the_remainder_after_the_aligned_cpus():
    for scope in ("container", "pod"):
        r = run(config("best-effort", scope), TWO_SMALL, pod("a", guaranteed("app", cpu=3)), pod("big", guaranteed("app", cpu=6)))
        big = r["pods"][1]
        assert big["containers"][0]["affinity"] == [0]
        # 1 free CPU on numa0 is taken first; 5 are still needed and numa1 has 4
        assert "requested=5, available=4" in big["message"]
