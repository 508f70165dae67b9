"""The two NUMA split orders: the document's (the seam's default), and v1.8.0's
position-keyed sort (its release model)."""

from hypothesis import given
from hypothesis import strategies as st

from conformance import corpus
from conformance.releases import koordinator_v1_8
from conformance.releases.koordinator_v1_8 import OrderNotModelled, slice_position_order
from reference_impl import dispatch
from reference_impl.koordinator import seams


def test_document_order_is_fewest_free_first_ties_by_id():
    assert seams.by_availability([1, 2, 3], {1: 4000, 2: 2000, 3: 4000}) == [2, 1, 3]


def test_v1_8_compares_the_nodes_whose_ids_are_the_positions():
    free = {0: 0, 1: 4000, 2: 2000, 3: 0}
    # position 1 against position 0: NUMA 1 (4000) against NUMA 0 (0), no swap
    assert slice_position_order([1, 2], free) == [1, 2]
    # positions 2 and 1 read NUMA 2 (2000) < NUMA 1 (4000): the elements 2 and 3 swap
    assert slice_position_order([1, 2, 3], free) == [1, 3, 2]


def test_v1_8_does_not_model_more_nodes_than_go_sorts_by_insertion():
    try:
        slice_position_order(list(range(13)), {})
    except OrderNotModelled:
        return
    raise AssertionError("13 nodes were ordered")


@given(st.lists(st.integers(0, 8), min_size=1, max_size=12), st.data())
def test_v1_8_moves_nodes_only_where_the_positions_free_amounts_descend(frees, data):
    """The comparison never reads the nodes being moved, so the nodes come back as
    a permutation, untouched when the amounts at positions 0..k-1 never descend."""
    free = dict(enumerate(frees))
    nodes = sorted(data.draw(st.sets(st.integers(0, 15), min_size=len(frees), max_size=len(frees))))
    order = slice_position_order(nodes, free)
    assert sorted(order) == nodes
    if all(a <= b for a, b in zip(frees, frees[1:], strict=False)):
        assert order == nodes


def test_v1_8_misorders_even_nodes_0_to_k():
    # positions 1 and 0 swap NUMA 0 and 1; position 2 (0 free) is never compared below 1 (0 free)
    assert slice_position_order([0, 1, 2], {0: 1, 1: 0, 2: 0}) == [1, 0, 2]
    assert seams.by_availability([0, 1, 2], {0: 1, 1: 0, 2: 0}) == [1, 2, 0]


def test_the_reference_splits_in_the_order_its_seams_give():
    """The corpus case on the split order: whole in the document's order; in
    v1.8.0's, {1,2} comes up short and Restricted has no preferred hint left."""
    case = next(c for c in corpus.load().cases if c.id == "koord.filter.policy.split-visits-the-fuller-node-first")
    assert seams.CONTRACT.split_order is seams.by_availability
    assert dispatch.run("koordinator", "filter", case.input)["fits"] is True
    v1_8 = koordinator_v1_8.MODEL.seams(["slice-position-split-order"])
    assert v1_8.split_order is slice_position_order
    assert dispatch.run("koordinator", "filter", case.input, seams=v1_8)["fits"] is False
    assert dispatch.run("koordinator", "filter", case.input)["fits"] is True
