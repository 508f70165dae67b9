"""The columnar hint reader against the per-hint one: the same hints, the same
errors, the same summaries."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reference_impl.errors import InvalidInput
from reference_impl.kubelet import hint_columns
from reference_impl.kubelet.hint_columns import HintColumns
from reference_impl.kubelet.hints import TopologyHint
from reference_impl.kubelet.operations import _hint

# node ids the bitmask holds, and values the reader must refuse or hand on
IDS = st.one_of(st.integers(0, 63), st.sampled_from([True, False, 1.0, -1, 64, 255, 256, 2**70, "1", None]))
AFFINITIES = st.one_of(st.none(), st.lists(st.integers(0, 5), max_size=4), st.lists(IDS, max_size=3),
                       st.sampled_from([(0, 1), "0", 3]))
SCORES = st.one_of(st.integers(0, 100), st.sampled_from([True, -1, 1.5, None, "5"]))


@st.composite
def raw_hints(draw):
    hint = {}
    if draw(st.integers(0, 9)):
        hint["affinity"] = draw(AFFINITIES)
    if draw(st.integers(0, 9)):
        hint["preferred"] = draw(st.one_of(st.booleans(), st.sampled_from([0, 1, None, "true"])))
    if draw(st.booleans()):
        hint["score"] = draw(SCORES)
    return draw(st.one_of(st.just(hint), st.just(hint), st.just(hint), st.sampled_from([None, [], "hint", 7])))


# mostly well-formed lists, so the whole-list path is taken often
WELL_FORMED = st.lists(st.fixed_dictionaries(
    {"affinity": st.one_of(st.none(), st.lists(st.integers(0, 7), max_size=4)), "preferred": st.booleans()},
    optional={"score": st.integers(0, 100)}), max_size=8)


def per_hint(raw):
    try:
        return [_hint(h, "providers/0/cpu", j) for j, h in enumerate(raw)]
    except InvalidInput as exc:
        return ("error", str(exc))


def columnar(raw):
    try:
        return list(hint_columns.parse(raw, "providers/0/cpu", _hint))
    except InvalidInput as exc:
        return ("error", str(exc))


@given(st.one_of(WELL_FORMED, st.lists(raw_hints(), max_size=6)))
def test_columns_read_what_the_per_hint_reader_reads(raw):
    assert columnar(raw) == per_hint(raw)


def test_a_bool_among_node_ids_is_refused_as_before():
    raw = [{"affinity": [0, 1], "preferred": True}, {"affinity": [True], "preferred": False}]
    assert columnar(raw) == per_hint(raw)
    assert columnar(raw)[0] == "error"


@given(st.lists(st.builds(TopologyHint, st.one_of(st.none(), st.integers(0, 255)), st.booleans(),
                          st.integers(0, 100)), max_size=8))
def test_summaries_match_the_hints(hints):
    columns = HintColumns.of(hints)
    assert list(columns) == hints
    assert columns.preferred_indices == tuple(j for j, h in enumerate(hints) if h.preferred)
    widths = [h.mask.bit_count() for h in hints if h.mask is not None]
    assert columns.min_width() == (min(widths) if widths else None)
    nil_kinds, scored_kinds = columns.kinds()
    assert nil_kinds == {h.mask is None for h in hints}
    assert scored_kinds == {h.score > 0 for h in hints if h.mask is not None}


@given(WELL_FORMED)
def test_summaries_of_parsed_columns_match_the_hints(raw):
    columns = hint_columns.parse(raw, "providers/0/cpu", _hint)
    hints = per_hint(raw)
    nil_kinds, scored_kinds = columns.kinds()
    assert nil_kinds == {h.mask is None for h in hints}
    assert scored_kinds == {h.score > 0 for h in hints if h.mask is not None}
    assert [columns.mask(j) for j in range(len(columns))] == [h.mask for h in hints]
    assert columns.masks == [h.mask for h in hints]
