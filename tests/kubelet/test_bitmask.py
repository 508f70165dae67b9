import pytest

from reference_impl.numa import bitmask


def test_from_bits_and_back():
    m = bitmask.from_bits([3, 0, 5])
    assert m == 0b101001
    assert bitmask.bits(m) == [0, 3, 5]
    assert bitmask.count(m) == 3


def test_bits_beyond_63_are_refused():
    bitmask.from_bits([63])
    with pytest.raises(bitmask.BitMaskError):
        bitmask.from_bits([64])
    with pytest.raises(bitmask.BitMaskError):
        bitmask.from_bits([-1])


def test_narrower_is_count_then_numeric():
    # {1,2} = 6 is narrower than {0,3} = 9: numeric order, not lowest bit
    assert bitmask.is_narrower_than(bitmask.from_bits([1, 2]), bitmask.from_bits([0, 3]))
    assert not bitmask.is_narrower_than(bitmask.from_bits([0, 3]), bitmask.from_bits([1, 2]))
    assert bitmask.is_narrower_than(bitmask.from_bits([3]), bitmask.from_bits([0, 1]))
    assert not bitmask.is_narrower_than(5, 5)


def test_and_and_less_than():
    assert bitmask.and_all(0b111, 0b110, 0b011) == 0b010
    assert bitmask.is_less_than(0b011, 0b100)


def test_iterate_masks_by_size_then_lexicographic():
    got = [bitmask.bits(m) for m in bitmask.iterate_masks([0, 1, 2, 3])]
    assert got[:4] == [[0], [1], [2], [3]]
    assert got[4:10] == [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    assert got[10:14] == [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]
    assert got[14] == [0, 1, 2, 3]
    assert len(list(bitmask.iterate_masks(range(8)))) == 255


def test_to_string():
    assert bitmask.to_string(None) == "nil"
    assert bitmask.to_string(0) == "{}"
    assert bitmask.to_string(0b101) == "{0,2}"
