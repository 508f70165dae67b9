"""Small builders for the kubelet tests."""

from __future__ import annotations

from reference_impl.kubelet.hints import TopologyHint
from reference_impl.numa import bitmask


def h(bits, preferred=True, score=0) -> TopologyHint:
    """A hint from a list of NUMA ids (None for the nil mask)."""
    return TopologyHint(None if bits is None else bitmask.from_bits(bits), preferred, score)


def guaranteed(name, cpu=None, memory="1Gi", extra=None):
    res = {}
    if cpu is not None:
        res["cpu"] = str(cpu)
    if memory is not None:
        res["memory"] = memory
    res.update({k: str(v) for k, v in (extra or {}).items()})
    return {"name": name, "resources": {"requests": dict(res), "limits": dict(res)}}


def pod(name, *containers, init=()):
    out = {"name": name, "containers": list(containers)}
    if init:
        out["initContainers"] = list(init)
    return out


def config(policy="single-numa-node", scope="container", **options):
    cfg = {"topologyManagerPolicy": policy, "topologyManagerScope": scope}
    if options:
        cfg["topologyManagerPolicyOptions"] = {k.replace("_", "-"): v for k, v in options.items()}
    return cfg


ALPHA = {"TopologyManagerPolicyAlphaOptions": True}
