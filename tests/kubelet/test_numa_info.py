from reference_impl.numa import bitmask
from reference_impl.numa.numa_info import NUMAInfo

FOUR = [[10, 11, 12, 12], [11, 10, 12, 12], [12, 12, 10, 11], [12, 12, 11, 10]]


def m(*bits):
    return bitmask.from_bits(bits)


def test_average_distance_includes_self_distances():
    info = NUMAInfo.build([0, 1, 2, 3], FOUR)
    assert info.average_distance(m(0, 1)) == 10.5
    assert info.average_distance(m(0, 2)) == 11.0
    assert info.average_distance(m(0, 2, 3)) == (10 + 12 + 12 + 12 + 10 + 11 + 12 + 11 + 10) / 9


def test_asymmetric_matrix_uses_rows_as_given():
    info = NUMAInfo.build([0, 1], [[10, 20], [30, 10]])
    assert info.average_distance(m(0, 1)) == 17.5


def test_closest_prefers_narrower_then_nearer_then_numeric():
    info = NUMAInfo.build([0, 1, 2, 3], FOUR)
    assert info.closest(m(0, 1, 2), m(0, 2)) == m(0, 2)
    assert info.closest(m(0, 2), m(0, 1)) == m(0, 1)
    # equal averages: the numerically lower mask
    assert info.closest(m(2, 3), m(0, 1)) == m(0, 1)
    assert info.closest(m(0, 1), m(2, 3)) == m(0, 1)


def test_narrowest_and_default_affinity():
    info = NUMAInfo.build([0, 1, 3], None)
    assert info.default_affinity() == m(0, 1, 3)
    assert info.narrowest(m(1, 3), m(0, 3)) == m(0, 3)
    assert info.narrowest(m(3), m(0, 1)) == m(3)
