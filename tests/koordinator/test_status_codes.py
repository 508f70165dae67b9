"""The status code of filter's refusals: the contract's table, the reference's
table, and where in the cycle a refusal was met."""

import re
from pathlib import Path

import pytest

from reference_impl.koordinator.status_codes import BY_REASON, ERROR, UNRESOLVABLE, UNSCHEDULABLE

from .helpers import LSR, NUMA_SPEC, RESOURCE_SPEC, node, pod, run

DOC = Path(__file__).resolve().parents[2] / "docs" / "operations" / "koordinator.md"


def _section(title: str) -> str:
    text = DOC.read_text()
    start = text.index(f"## {title}\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def _documented() -> dict[str, set[str]]:
    """code -> the reasons the table row names (conditions after ';' included)."""
    rows = {}
    for line in _section("Status codes").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = set(re.findall(r"`([A-Z][A-Za-z]+)`", cells[1]))
    return rows


def test_the_documented_table_is_the_reference_table():
    rows = _documented()
    assert set(rows) == {UNRESOLVABLE, UNSCHEDULABLE}
    # Error reasons are stated in the PreFilter rule, above the table.
    errors = {r for r, code in BY_REASON.items() if code == ERROR}
    assert errors == {"InvalidNUMATopologySpec", "InvalidResourceSpec", "PodNUMAAllocateStrategyNotSupported",
                      "InvalidSchedulingHint", "MissingDesignatedGPU"}
    prefilter_rule = _section("Status codes").split("2. **")[0]
    assert all(f"`{r}`" in prefilter_rule for r in errors)
    prefilter_only = {r for r in BY_REASON if f"`{r}`" in prefilter_rule} - errors - {"InvalidRequestedCPUs"}
    rows[UNRESOLVABLE] |= prefilter_only
    for code in (UNRESOLVABLE, UNSCHEDULABLE):
        rows[code] &= set(BY_REASON)
        table = {r for r, c in BY_REASON.items() if c == code}
        # The two device shortages appear in both rows, by condition; the table maps them to the shortage.
        both = {"InsufficientDevices", "InsufficientVirtualFunctions"}
        assert rows[code] - both == table - both, code


def test_every_filter_refusal_reason_has_a_code():
    block = DOC.read_text().split("<!-- refusal-reasons:begin -->")[1].split("<!-- refusal-reasons:end -->")[0]
    filter_row = next(line for line in block.splitlines() if line.startswith("| `filter`"))
    reasons = set(re.findall(r"`([A-Z][A-Za-z]+)`", filter_row))
    assert reasons == set(BY_REASON)


def _filter(input_):
    return run("filter", input_)


def test_a_fitting_pod_has_no_code():
    result = _filter({"node": node(), "pod": pod(cpu="2", memory="1Gi")})
    assert result["fits"] is True and result["code"] is None


@pytest.mark.parametrize("annotations, reason, code", [
    ({NUMA_SPEC: "not json"}, "InvalidNUMATopologySpec", ERROR),
    ({RESOURCE_SPEC: '{"requiredCPUBindPolicy": 1}'}, "InvalidResourceSpec", ERROR),
])
def test_unreadable_numa_annotations_are_errors(annotations, reason, code):
    result = _filter({"node": node(), "pod": pod(cpu="2", memory="1Gi", labels=LSR, annotations=annotations)})
    assert (result["reason"], result["stage"], result["code"]) == (reason, "PreFilter", code)


def test_a_device_refusal_inside_the_admit_is_unschedulable_outside_unresolvable():
    # A GPU on NUMA node 0, no NIC, a pod asking for a NIC.
    base = node(devices=[{"type": "gpu", "minor": 0, "numaNode": 0, "pcie": "pci0"}])
    restricted = pod(cpu="2", memory="1Gi", annotations={NUMA_SPEC: {"numaTopologyPolicy": "Restricted"}},
                     **{"koordinator.sh/rdma": "1"})
    inside = _filter({"node": base, "pod": restricted})
    assert (inside["reason"], inside["stage"], inside["code"]) == ("InsufficientDevices", "Filter", UNSCHEDULABLE)
    unaligned = _filter({"node": base, "pod": restricted,
                         "args": {"deviceShare": {"disableDeviceNUMATopologyAlignment": True}}})
    assert (unaligned["reason"], unaligned["stage"], unaligned["code"]) == (
        "InsufficientDevices", "Reserve", UNRESOLVABLE)
    plain = _filter({"node": base, "pod": pod(cpu="2", memory="1Gi", **{"koordinator.sh/rdma": "1"})})
    assert (plain["reason"], plain["stage"], plain["code"]) == ("InsufficientDevices", "Filter", UNRESOLVABLE)


def test_taken_devices_are_unschedulable():
    gpu = {"type": "gpu", "minor": 0, "numaNode": 0, "pcie": "pci0"}
    placed = [{"name": "holder", "devices": {"gpu": [0]}}]
    result = _filter({"node": node(devices=[gpu], pods=placed),
                      "pod": pod(cpu="1", memory=None, **{"nvidia.com/gpu": "1"})})
    assert (result["reason"], result["code"]) == ("InsufficientDevices", UNSCHEDULABLE)


def test_missing_numa_resources_keeps_its_code_in_reserve():
    flat = {"numaNodes": [], "allocatable": {"cpu": "16", "memory": "64Gi"}}
    result = _filter({"node": flat, "pod": pod(cpu="2", memory="1Gi",
                                               annotations={NUMA_SPEC: {"numaTopologyPolicy": "BestEffort"}})})
    assert (result["reason"], result["stage"], result["code"]) == ("MissingNUMAResources", "Reserve", UNRESOLVABLE)
