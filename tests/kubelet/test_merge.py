"""The merge as upstream's table tests drive it, plus KEP-6007's score step.
Expected values are worked out by hand in the comments."""

import pytest

from reference_impl.kubelet.operations import merge

FOUR = [[10, 11, 12, 12], [11, 10, 12, 12], [12, 12, 10, 11], [12, 12, 11, 10]]


def hint(bits, preferred=True, score=None):
    out = {"affinity": bits, "preferred": preferred}
    if score is not None:
        out["score"] = score
    return out


def run(policy, providers, nodes=(0, 1), distances=None, options=None, gates=None, **extra):
    numa = {"nodes": list(nodes)}
    if distances is not None:
        numa["distances"] = distances
    return merge({"policy": policy, "numa": numa, "providers": providers, "options": options or {},
                  "featureGates": gates or {}, **extra})


def brief(result):
    return result["affinity"], result["preferred"], result["admit"]


@pytest.mark.parametrize("providers", [[], [None], [{}], [None, {}], [{"cpu": None}], [{"cpu": [hint(None)]}]])
def test_no_preference_gives_all_nodes_preferred(providers):
    assert brief(run("best-effort", providers)) == ([0, 1], True, True)
    assert brief(run("restricted", providers)) == ([0, 1], True, True)
    # single-numa-node rewrites the all-nodes result to nil
    assert brief(run("single-numa-node", providers)) == (None, True, True)


def test_empty_hint_list_means_no_possible_affinity():
    providers = [{"cpu": []}]
    assert brief(run("best-effort", providers)) == ([0, 1], False, True)
    assert brief(run("restricted", providers)) == ([0, 1], False, False)
    assert brief(run("single-numa-node", providers)) == (None, False, False)


def test_policy_none_never_merges():
    r = run("none", [{"cpu": []}])
    assert r == {"affinity": None, "preferred": False, "score": 0, "admit": True, "scoreDecided": False}


def test_preferred_only_when_all_masks_equal():
    # {0} preferred with {0,1} preferred merges to {0} but not preferred
    assert brief(run("best-effort", [{"cpu": [hint([0])]}, {"gpu": [hint([0, 1])]}])) == ([0], False, True)
    assert brief(run("restricted", [{"cpu": [hint([0])]}, {"gpu": [hint([0, 1])]}])) == ([0], False, False)


def test_common_preferred_single_node_wins():
    cpu = [hint([0]), hint([1]), hint([0, 1], False)]
    gpu = [hint([0]), hint([1]), hint([0, 1], False)]
    for policy in ("best-effort", "restricted", "single-numa-node"):
        assert brief(run(policy, [{"cpu": cpu}, {"gpu": gpu}])) == ([0], True, True)


def test_nil_masks_do_not_restrict():
    assert brief(run("best-effort", [{"cpu": [hint(None)]}, {"gpu": [hint([1])]}])) == ([1], True, True)


def test_no_common_mask_falls_back_to_best_non_preferred_width():
    # cpu needs one node somewhere, gpu only {1}: {0}&{1} is empty and skipped, {1}&{1} preferred
    assert brief(run("best-effort", [{"cpu": [hint([0]), hint([1])]}, {"gpu": [hint([1])]}])) == ([1], True, True)
    # disjoint: every merge empty -> all nodes, not preferred
    assert brief(run("best-effort", [{"cpu": [hint([0])]}, {"gpu": [hint([1])]}])) == ([0, 1], False, True)


def test_widest_below_the_largest_minimal_width():
    nodes = (0, 1, 2, 3)
    # B = max(min widths) = max(1, 4) = 4; candidates {0}, {0,1}, {0,1,2}: the widest below B wins
    a = [hint([0], False), hint([0, 1], False), hint([0, 1, 2], False)]
    b = [hint([0, 1, 2, 3], False)]
    assert brief(run("best-effort", [{"a": a}, {"b": b}], nodes)) == ([0, 1, 2], False, True)
    # a candidate at exactly B is kept against narrower ones: B = 2, {0,1} then {0}
    a = [hint([0, 1], False)]
    b = [hint([0, 1], False), hint([0], False)]
    assert brief(run("best-effort", [{"a": a}, {"b": b}], nodes)) == ([0, 1], False, True)
    # B = max(2, 1) = 2: {0} (below B), {0,1,2} (above, kept out), {0} again, then {0,1} at B wins
    a = [hint([0, 1, 2], False), hint([0, 1], False)]
    b = [hint([0], False), hint(None, False)]
    assert brief(run("best-effort", [{"a": a}, {"b": b}], nodes)) == ([0, 1], False, True)
    # above B the narrower candidate wins: B = 3, {0,1,2,3} then {0,1,2}
    a = [hint([0, 1, 2, 3], False), hint([0, 1, 2], False)]
    assert brief(run("best-effort", [{"a": a}, {"b": [hint(None, False)]}], nodes)) == ([0, 1, 2], False, True)


def test_narrowest_uses_numeric_order():
    nodes = (0, 1, 2, 3)
    # {1,2} = 6 and {0,3} = 9: same width, 6 wins
    assert run("best-effort", [{"a": [hint([0, 3]), hint([1, 2])]}], nodes)["affinity"] == [1, 2]


def test_prefer_closest_compares_average_distance():
    nodes = (0, 1, 2, 3)
    providers = [{"a": [hint([1, 2]), hint([2, 3])]}]
    # narrowest: {1,2} = 6 < {2,3} = 12
    assert run("best-effort", providers, nodes, FOUR)["affinity"] == [1, 2]
    # closest: {1,2} averages 11, {2,3} 10.5
    opts = {"prefer-closest-numa-nodes": "true"}
    assert run("best-effort", providers, nodes, FOUR, opts)["affinity"] == [2, 3]
    assert run("restricted", providers, nodes, FOUR, opts)["affinity"] == [2, 3]


def test_prefer_closest_needs_distances_and_is_ignored_by_single_numa_node():
    opts = {"prefer-closest-numa-nodes": "true"}
    r = run("best-effort", [{"a": [hint([0])]}], options=opts)
    assert r["refused"]["reason"] == "MissingNUMADistances"
    providers = [{"a": [hint([0]), hint([1])]}]
    assert run("single-numa-node", providers, distances=[[10, 20], [20, 10]], options=opts)["affinity"] == [0]


def test_single_numa_node_filters_and_rewrites():
    a = [hint([0]), hint([1], False), hint([0, 1])]
    b = [hint([1]), hint([0, 1])]
    # filtered to [{0}] and [{1}]: the only merge is empty -> all nodes, not preferred -> nil
    assert brief(run("single-numa-node", [{"a": a}, {"b": b}])) == (None, False, False)
    # a one-node machine reports nil for its only node
    assert brief(run("single-numa-node", [{"a": [hint([0])]}], nodes=(0,))) == (None, True, True)


def test_max_allowable_numa_nodes_is_checked():
    nine = tuple(range(9))
    r = run("best-effort", [], nodes=nine)
    assert r["refused"]["reason"] == "TooManyNUMANodes"
    assert "8" in r["refused"]["message"]
    assert run("best-effort", [], nodes=nine, options={"max-allowable-numa-nodes": "9"})["affinity"] == list(nine)


def test_bad_option_value_is_refused_without_gate_checks():
    r = run("best-effort", [], options={"numa-score-weights": "cpu=1.5"})
    assert r["refused"]["reason"] == "InvalidPolicyOptionValue"
    assert run("nonsense", [])["refused"]["reason"] == "UnknownPolicy"


# --- KEP-6007 scores ----------------------------------------------------

ALPHA = {"TopologyManagerPolicyAlphaOptions": True}


def example1(**weights):
    # Worked Example 1: cpu 75/25, memory 50/25, gpu 25/75 on numa0/numa1
    return [
        {"nvidia.com/gpu": [hint([0], True, 25), hint([1], True, 75), hint([0, 1], False, 50)]},
        {"cpu": [hint([0], True, 75), hint([1], True, 25), hint([0, 1], False, 50)]},
        {"memory": [hint([0], True, 50), hint([1], True, 25), hint([0, 1], False, 37)]},
    ]


@pytest.mark.parametrize(
    "strategy,weights,affinity,score,decided",
    [
        # unset: numa0 (75+50+25)/3 = 50, numa1 (25+25+75)/3 = 41
        ("most-allocated", None, [0], 50, False),
        ("least-allocated", None, [1], 41, True),
        # gpu=10: numa0 (75+50+250)/12 = 31, numa1 (25+25+750)/12 = 66
        ("most-allocated", "nvidia.com/gpu=10", [1], 66, True),
        ("least-allocated", "nvidia.com/gpu=10", [0], 31, False),
        # cpu=5,gpu=5: numa0 (375+50+125)/11 = 50, numa1 (125+25+375)/11 = 47
        ("most-allocated", "cpu=5,nvidia.com/gpu=5", [0], 50, False),
        # gpu=10,cpu=0: numa0 (50+250)/11 = 27, numa1 (25+750)/11 = 70
        ("most-allocated", "nvidia.com/gpu=10,cpu=0", [1], 70, True),
        # scaling: 30/10/60 and 3/1/6: numa0 (225+50+150)/10 = 42, numa1 (75+25+450)/10 = 55
        ("most-allocated", "cpu=30,memory=10,nvidia.com/gpu=60", [1], 55, True),
        ("most-allocated", "cpu=3,memory=1,nvidia.com/gpu=6", [1], 55, True),
        ("none", "nvidia.com/gpu=10", [0], 31, False),
    ],
)
def test_worked_example_1(strategy, weights, affinity, score, decided):
    opts = {"numa-allocation-strategy": strategy}
    if weights:
        opts["numa-score-weights"] = weights
    for policy in ("best-effort", "restricted", "single-numa-node"):
        r = run(policy, example1(), options=opts, gates=ALPHA)
        assert (r["affinity"], r["score"], r["scoreDecided"], r["admit"]) == (affinity, score, decided, True), policy
        assert run(policy, example1(), options=opts, gates=ALPHA, mergeAlgorithm="preferred-first") == r


def test_gate_off_ignores_strategy_and_weights():
    opts = {"numa-allocation-strategy": "most-allocated", "numa-score-weights": "nvidia.com/gpu=10"}
    r = run("single-numa-node", example1(), options=opts)
    # structural choice numa0; score is the unweighted aggregate
    assert (r["affinity"], r["score"], r["scoreDecided"]) == ([0], 50, False)


def test_worked_example_2():
    vf = "intel.com/sriov-nic"
    pct = {0: (25, 25, 75), 1: (75, 75, 25), 2: (50, 50, 50), 3: (50, 50, 50)}
    providers = [
        {vf: [hint([n], True, pct[n][2]) for n in range(4)]},
        {"cpu": [hint([n], True, pct[n][0]) for n in range(4)]},
        {"memory": [hint([n], True, pct[n][1]) for n in range(4)]},
    ]
    nodes = (0, 1, 2, 3)
    unset = run("single-numa-node", providers, nodes, options={"numa-allocation-strategy": "least-allocated"}, gates=ALPHA)
    # numa0 (25+25+75)/3 = 41 is the lowest
    assert (unset["affinity"], unset["score"], unset["scoreDecided"]) == ([0], 41, False)
    zero = run("single-numa-node", providers, nodes, gates=ALPHA,
               options={"numa-allocation-strategy": "least-allocated", "numa-score-weights": "cpu=0,memory=0"})
    # only the VF score remains: numa1 at 25
    assert (zero["affinity"], zero["score"], zero["scoreDecided"]) == ([1], 25, True)


def test_score_never_beats_width_or_preference():
    opts = {"numa-allocation-strategy": "most-allocated"}
    a = [hint([0], True, 10), hint([0, 1], True, 90)]
    assert run("best-effort", [{"a": a}], options=opts, gates=ALPHA)["affinity"] == [0]
    a = [hint([0], False, 90), hint([1], True, 10)]
    assert run("best-effort", [{"a": a}], options=opts, gates=ALPHA)["affinity"] == [1]


def test_unscored_or_equal_scores_fall_back_to_structure():
    opts = {"numa-allocation-strategy": "most-allocated"}
    a = [hint([1], True, 50), hint([0], True, 0)]
    assert run("best-effort", [{"a": a}], options=opts, gates=ALPHA)["affinity"] == [0]
    a = [hint([1], True, 50), hint([0], True, 50)]
    assert run("best-effort", [{"a": a}], options=opts, gates=ALPHA)["affinity"] == [0]
    # zero total weight: structural only, score 0
    opts["numa-score-weights"] = "a=0"
    a = [hint([1], True, 90), hint([0], True, 10)]
    r = run("best-effort", [{"a": a}], options=opts, gates=ALPHA)
    assert (r["affinity"], r["score"], r["scoreDecided"]) == ([0], 0, False)


def test_score_applies_after_closest():
    nodes = (0, 1, 2, 3)
    opts = {"prefer-closest-numa-nodes": "true", "numa-allocation-strategy": "least-allocated"}
    # {0,2} averages 11, {0,1} and {2,3} 10.5: distance first, then the lower score
    a = [hint([0, 2], True, 1), hint([0, 1], True, 60), hint([2, 3], True, 40)]
    r = run("best-effort", [{"a": a}], nodes, FOUR, opts, ALPHA)
    assert (r["affinity"], r["score"], r["scoreDecided"]) == ([2, 3], 40, True)
