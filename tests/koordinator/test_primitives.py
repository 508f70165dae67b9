from fractions import Fraction

import pytest

from reference_impl import quantity
from reference_impl.koordinator import reason_text
from reference_impl.numa import bitmask


def test_mask_order_is_width_then_lexicographic():
    masks = [bitmask.bits(m) for m in bitmask.iterate_masks([0, 1, 2, 3])]
    assert masks[:4] == [[0], [1], [2], [3]]
    assert masks[4:10] == [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    assert masks[-1] == [0, 1, 2, 3]


@pytest.mark.parametrize("ids, text", [([0], "01"), ([1], "10"), ([0, 1], "11"), ([2], "100"), ([0, 2], "0101")])
def test_mask_rendering_matches_reason_texts(ids, text):
    assert reason_text.render_mask(bitmask.from_bits(ids)) == text
    assert reason_text.render_mask(None) == "<nil>"


def test_narrower_is_fewer_nodes_then_lower_value():
    assert bitmask.is_narrower_than(bitmask.from_bits([3]), bitmask.from_bits([0, 1]))
    assert bitmask.is_narrower_than(bitmask.from_bits([1, 2]), bitmask.from_bits([0, 3]))


def test_quantities():
    assert quantity.parse("8Gi") == 8 * 2**30
    assert quantity.milli_value(quantity.parse("500m")) == 500
    assert quantity.parse("400Gi") == 400 * 2**30
    assert quantity.parse(2) == Fraction(2)
    with pytest.raises(quantity.QuantityError):
        quantity.parse("eight")
