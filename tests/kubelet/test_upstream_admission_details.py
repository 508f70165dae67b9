"""Admission details the seeds leave to upstream (kubelet v1.37.2), each
worked by hand from the upstream manager that decides it."""

from reference_impl.kubelet.node import build_node
from reference_impl.kubelet.operations import admit
from reference_impl.kubelet.pods import parse_pod
from reference_impl.kubelet.providers.devices import DeviceManager

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


# --- device manager: hint masks only span the NUMA nodes that host the resource's devices

GPU_ON_NODE1 = [{"id": 0, "cpus": 16, "memory": "32Gi", "devices": {"nvidia.com/gpu": 0}},
                {"id": 1, "cpus": 4, "memory": "16Gi", "devices": {"nvidia.com/gpu": 2}}]


def test_device_hints_never_name_a_node_without_devices():
    dm = DeviceManager(build_node({"numaNodes": GPU_ON_NODE1}, None))
    p = parse_pod(pod("p", guaranteed("app", cpu=1, extra={"nvidia.com/gpu": 1})), "pod")
    hints = dm.hints(p, p.containers[0])["nvidia.com/gpu"]
    assert [(h.affinity(), h.preferred) for h in hints] == [([1], True)]


def test_cpus_only_numa0_can_hold_follow_the_gpu_to_numa1():
    r = run(config("best-effort"), GPU_ON_NODE1, pod("p", guaranteed("app", cpu=6, extra={"nvidia.com/gpu": 1})))
    c = r["pods"][0]["containers"][0]
    # cpu {0} x gpu {1} is empty; only cpu {0,1} x gpu {1} x memory {1} is left
    assert (c["affinity"], c["preferred"]) == ([1], False)
    assert c["cpus"] == {"0": 2, "1": 4}
    assert c["memory"] == {"1": GI}


def test_app_container_bound_to_init_cpus_still_goes_to_the_gpu_node():
    r = run(config("best-effort"), GPU_ON_NODE1,
            pod("p", guaranteed("app", cpu=1, extra={"nvidia.com/gpu": 1}), init=[guaranteed("init", cpu=4)]))
    init, app = r["pods"][0]["containers"]
    assert init["affinity"] == [0]
    # the CPU hints must hold numa0 (the init's reusable CPUs): {0} and {0,1}; the GPU hint is {1} only
    assert (app["affinity"], app["preferred"], app["cpus"], app["devices"]) == ([1], False, {"1": 1}, {"nvidia.com/gpu": {"1": 1}})
