"""CPU holds (reference counts up to maxRefCount) and preferred CPUs in the
cpuset operation, and the generated cpuset inputs reaching both rules."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from conformance.fuzz.strategies import VALID
from reference_impl import dispatch
from reference_impl.errors import InvalidInput
from reference_impl.koordinator import cpu_accumulator, cpu_holds, topology
from reference_impl.koordinator.cpu_holds import CPUHolds

TOPO = {"sockets": 2, "numaNodesPerSocket": 1, "coresPerNUMANode": 4, "threadsPerCore": 2}


def _cpuset(**fields):
    return dispatch.run("koordinator", "cpuset", {"cpuTopology": TOPO, **fields})


def test_a_cpu_listed_twice_is_held_twice_and_keeps_the_last_policy():
    holds = CPUHolds.of([([0, 1], "PCPULevel"), ([1], "None")])
    assert holds.counts == {0: 1, 1: 2}
    assert holds.policies == {0: "PCPULevel", 1: "None"}


def test_giving_back_drops_one_hold_and_forgets_a_cpu_left_unheld():
    holds = CPUHolds.of([([0, 1], "PCPULevel"), ([1], "PCPULevel")]).give_back([0, 1, 5])
    assert holds.counts == {1: 1}
    assert holds.policies == {1: "PCPULevel"}


def test_a_cpu_is_available_until_held_max_ref_count_times():
    topo = topology.build(TOPO)
    holds = CPUHolds.of([([0, 1], ""), ([1], "")])
    assert {0, 1} & holds.available(topo, 1, []) == set()
    assert {0, 1} & holds.available(topo, 2, []) == {0}
    assert {0, 1} & holds.available(topo, 3, [0]) == {1}


def test_max_ref_count_one_is_the_default():
    held = {"need": 4, "cpuBindPolicy": "FullPCPUs", "allocated": [{"cpuset": "0-5"}]}
    assert _cpuset(**held) == _cpuset(**held, maxRefCount=1)
    assert _cpuset(**held)["cpuset"] == [8, 9, 10, 11]
    assert _cpuset(**held, maxRefCount=2)["cpuset"] == [0, 1, 6, 7]


@pytest.mark.parametrize("field,value", [("maxRefCount", 0), ("maxRefCount", 1.5), ("maxRefCount", True),
                                         ("preferredCPUs", "3-1"), ("preferredCPUs", "16")])
def test_bad_new_fields_are_refused_naming_the_field(field, value):
    with pytest.raises(InvalidInput) as exc:
        _cpuset(need=1, **{field: value})
    assert field in str(exc.value)


def _sample(check):
    @settings(max_examples=400, database=None, derandomize=True, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(VALID[("koordinator", "cpuset")])
    def run(data):
        check(data)
    run()


def test_a_bounded_run_draws_inputs_the_give_back_decides(monkeypatch):
    """Among derandomised draws, the reference with the preferred CPUs' holds
    given back and without answer some inputs differently."""
    seen = {"decided": 0}

    def check(data):
        real = dispatch.run("koordinator", "cpuset", data)
        with monkeypatch.context() as m:
            m.setattr(CPUHolds, "give_back", lambda self, cpus: self)
            kept = dispatch.run("koordinator", "cpuset", data)
        seen["decided"] += real != kept

    _sample(check)
    assert seen["decided"] > 0


def test_a_bounded_run_draws_inputs_the_hold_counts_order(monkeypatch):
    """Some draws are decided by the hold counts as a tie-break (maxRefCount
    above 1 with CPUs held unevenly), not only by what is available."""
    seen = {"decided": 0}

    def check(data):
        real = dispatch.run("koordinator", "cpuset", data)
        with monkeypatch.context() as m:
            m.setattr(cpu_accumulator._Accumulator, "_ref", lambda self, cpu: 0)
            flat = dispatch.run("koordinator", "cpuset", data)
        seen["decided"] += real != flat

    _sample(check)
    assert seen["decided"] > 0


def test_a_bounded_run_draws_inputs_the_separate_selections_decide(monkeypatch):
    """Some draws are decided by the preferred CPUs being a selection of their own."""
    seen = {"decided": 0}
    real_take = cpu_holds.take_cpus

    def one_selection(topo, available, preferred, holds, need, bind, exclusive, strategy, max_ref=1):
        return sorted(real_take(topo, available, holds.policies, need, bind, exclusive, strategy,
                                holds.counts, max_ref))

    def check(data):
        real = dispatch.run("koordinator", "cpuset", data)
        with monkeypatch.context() as m:
            m.setattr("reference_impl.koordinator.operations.take_preferred_cpus", one_selection)
            single = dispatch.run("koordinator", "cpuset", data)
        seen["decided"] += real != single

    _sample(check)
    assert seen["decided"] > 0
