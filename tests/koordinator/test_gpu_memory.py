"""GPU memory in bytes: requests sized so, a GPU's memory, and the bytes every GPU
allocation names."""

import pytest

from reference_impl.errors import InvalidInput

from .helpers import node, pod, run

GIB = 2**30


def _gpu(minor, memory=None, **extra):
    d = {"type": "gpu", "minor": minor, "numaNode": 0, "pcie": "pci0", **extra}
    if memory is not None:
        d["memory"] = memory
    return d


def _filter(devices, requests, pods=()):
    return run("filter", {"node": node(devices=list(devices), pods=list(pods)),
                          "pod": pod(cpu="1", memory=None, **requests)})


def test_a_bytes_share_takes_a_gpu_with_that_much_free_memory():
    held = [{"name": "p", "devices": {"gpu": [{"minor": 0, "percent": 75}]}}]
    # GPU 0: 40Gi of which 30Gi held; GPU 1: 16Gi (the default), free.
    result = _filter([_gpu(0, "40Gi"), _gpu(1)], {"koordinator.sh/gpu-memory": "12Gi"}, held)
    assert result["devices"] == {"gpu": [{"minor": 1, "percent": 75, "gpuMemory": 12 * GIB}]}
    refused = _filter([_gpu(0, "40Gi"), _gpu(1)], {"koordinator.sh/gpu-memory": "17Gi"}, held)
    assert (refused["fits"], refused["reason"]) == (False, "InsufficientDevices")


def test_a_bytes_share_with_core_is_known_by_its_core():
    result = _filter([_gpu(0, "80Gi")], {"koordinator.sh/gpu-memory": "8Gi", "koordinator.sh/gpu-core": "30"})
    assert result["devices"] == {"gpu": [{"minor": 0, "percent": 30, "gpuMemory": 8 * GIB}]}


def test_percent_shares_name_their_bytes():
    result = _filter([_gpu(0, "24Gi")], {"koordinator.sh/gpu": "50"})
    assert result["devices"] == {"gpu": [{"minor": 0, "percent": 50, "gpuMemory": 12 * GIB}]}


@pytest.mark.parametrize("other", [{"koordinator.sh/gpu-memory-ratio": "50"}, {"koordinator.sh/gpu": "50"},
                                   {"nvidia.com/gpu": "1"}])
def test_gpu_memory_beside_another_size_is_refused(other):
    result = _filter([_gpu(0)], {"koordinator.sh/gpu-memory": "8Gi", **other})
    assert (result["reason"], result["stage"]) == ("InvalidDeviceRequest", "PreFilter")


def test_memory_is_a_gpu_field():
    with pytest.raises(InvalidInput) as exc:
        _filter([{"type": "rdma", "minor": 0, "numaNode": 0, "pcie": "pci0", "memory": "1Gi"}],
                {"koordinator.sh/rdma": "1"})
    assert "memory" in str(exc.value)
