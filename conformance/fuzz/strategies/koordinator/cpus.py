"""CPU topologies (compact, or explicit as NRT writes them) and CPU sets in
their two documented spellings."""

from __future__ import annotations

from hypothesis import strategies as st


@st.composite
def compact_topology(draw):
    return {"sockets": draw(st.integers(1, 2)), "numaNodesPerSocket": draw(st.integers(1, 2)),
            "coresPerNUMANode": draw(st.integers(1, 4)), "threadsPerCore": draw(st.integers(1, 2))}


def cpus_of(topology: dict) -> list[dict]:
    """The explicit CPU list of a compact topology, with the documented id order."""
    if "cpus" in topology:
        return topology["cpus"]
    out = []
    per_socket, cores, threads = topology["numaNodesPerSocket"], topology["coresPerNUMANode"], topology["threadsPerCore"]
    for s in range(topology["sockets"]):
        for n in range(per_socket):
            node = s * per_socket + n
            for c in range(cores):
                core = node * cores + c
                for t in range(threads):
                    out.append({"id": core * threads + t, "core": core, "socket": s, "node": node})
    return out


@st.composite
def cpu_topology(draw):
    """Compact, or the explicit NRT form of one (optionally shuffled), with core
    ids that are per socket as NRT writes them."""
    compact = draw(compact_topology())
    if draw(st.integers(0, 3)):
        return compact
    cpus = [dict(c) for c in cpus_of(compact)]
    if draw(st.booleans()):
        cores_per_socket = compact["numaNodesPerSocket"] * compact["coresPerNUMANode"]
        for c in cpus:
            c["core"] = c["core"] % cores_per_socket
    return {"cpus": draw(st.permutations(cpus))}


def numa_ids(topology: dict) -> list[int]:
    return sorted({c.get("node", 0) for c in cpus_of(topology)})


def cpuset_value(draw, ids: list[int]):
    """A CPU set in either documented spelling."""
    ids = sorted(ids)
    if draw(st.booleans()):
        return ids
    parts, start = [], None
    for i, c in enumerate(ids):
        if start is None:
            start = c
        if i + 1 == len(ids) or ids[i + 1] != c + 1:
            parts.append(str(start) if start == c else f"{start}-{c}")
            start = None
    return ",".join(parts)
