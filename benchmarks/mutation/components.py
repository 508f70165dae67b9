"""The parts of reference_impl/ a mutation run is split into, and the tests of each.

The corpus of a component is the fixture folders whose cases reach its code;
the unit tests are the reference's own unit and property tests for it. The
harness's tests (tests/harness) are left out of both: several of them run the
corpus, which would blur the line between the two passes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Component:
    name: str
    sources: tuple[str, ...]  # only_mutate globs, relative to the checkout
    corpus: tuple[str, ...]  # fixture folders
    unit: tuple[str, ...]  # test files and folders


ALL_FIXTURES = ("fixtures/kubelet", "fixtures/koordinator", "fixtures/kueue")

COMPONENTS: dict[str, Component] = {c.name: c for c in (
    Component("quantity", ("reference_impl/quantity.py",), ALL_FIXTURES,
              ("tests/test_quantity.py", "tests/kubelet", "tests/koordinator", "tests/kueue")),
    # What the kubelet and Koordinator parts share: bitmasks, NUMA info and
    # distances, CPU sets, and the refusal type both raise.
    Component("numa", ("reference_impl/numa/*", "reference_impl/cpuset.py", "reference_impl/refusal.py"),
              ("fixtures/kubelet", "fixtures/koordinator"),
              ("tests/test_cpuset.py", "tests/test_refusal.py", "tests/kubelet", "tests/koordinator")),
    Component("kubelet", ("reference_impl/kubelet/*",), ("fixtures/kubelet",),
              ("tests/kubelet", "tests/metamorphic/test_kubelet.py")),
    Component("koordinator", ("reference_impl/koordinator/*",), ("fixtures/koordinator",),
              ("tests/koordinator", "tests/metamorphic/test_koordinator.py")),
    Component("kueue", ("reference_impl/kueue/*",), ("fixtures/kueue",),
              ("tests/kueue", "tests/metamorphic/test_kueue.py")),
)}

# Reached only through the protocol (server.py, __main__.py) or pure glue
# (dispatch.py, errors.py): not mutated; the corpus's exec runs cover them.
NOT_MUTATED = ("reference_impl/server.py", "reference_impl/__main__.py", "reference_impl/dispatch.py",
               "reference_impl/errors.py", "reference_impl/__init__.py")
