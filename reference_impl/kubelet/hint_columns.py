"""One resource's hints held as columns, the form the merge reads.

A provider that offers every mask of a 16-node machine sends 65,535 hints, and
four such providers a quarter of a million. The merge looks at most of them
only through a few summaries (which hints are preferred, whether every hint is
scored, the narrowest width), so building an object per hint, or even a mask
per hint, is most of the work when done eagerly. Here the hints are parallel
tuples, each mask is worked out the first time something asks for it, and the
summaries are kept once computed: the policy's scored merge and its unscored
baseline read the same columns.

`parse` turns the protocol form into columns. It checks the whole list with a
handful of whole-list passes (types, keys, the range of every node id); any
list those passes cannot vouch for goes through the per-hint reader, which
names the first bad hint and field, so the errors are the same as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import chain, compress, repeat
from operator import countOf, itemgetter

from ..numa.bitmask import MAX_BITS
from .hints import TopologyHint

_AFFINITY = itemgetter("affinity")
_PREFERRED = itemgetter("preferred")
# bytes kept when every id of a list is a node id the bitmask can hold
_NODE_IDS = bytes(range(MAX_BITS))


def _mask_of(ids: Sequence[int]) -> int:
    mask = 0
    for bit in ids:
        mask |= 1 << bit
    return mask


class HintColumns(Sequence[TopologyHint]):
    """Hints as columns; `hints[j]` is the j-th TopologyHint, built on demand."""

    __slots__ = ("_ids", "_masks", "preferred", "scores", "_preferred_indices", "_min_width", "_kinds", "_hints")

    def __init__(self, masks: Sequence[int | None] | None, preferred: Sequence[bool], scores: Sequence[int],
                 ids: Sequence[Sequence[int] | None] | None = None,
                 kinds: tuple[frozenset, frozenset] | None = None):
        # exactly one of masks / ids: ids are node-id lists already checked,
        # turned into masks when first asked for; `kinds` when the reader
        # already knows them
        self._masks: list[int | None] | None = None if masks is None else list(masks)
        self._ids = ids
        self.preferred: tuple[bool, ...] = tuple(preferred)
        self.scores: tuple[int, ...] = tuple(scores)
        self._preferred_indices: tuple[int, ...] | None = None
        self._min_width: int | None = -1
        self._kinds: tuple[frozenset, frozenset] | None = kinds
        # the hint objects, when the columns were made from them: handed back as they are
        self._hints: tuple[TopologyHint, ...] | None = None

    @classmethod
    def of(cls, hints: Sequence[TopologyHint]) -> HintColumns:
        if isinstance(hints, HintColumns):
            return hints
        columns = cls([h.mask for h in hints], [h.preferred for h in hints], [h.score for h in hints])
        columns._hints = tuple(hints)
        return columns

    def __len__(self) -> int:
        return len(self.preferred)

    def __getitem__(self, j):
        if isinstance(j, slice):
            return [self[i] for i in range(len(self))[j]]
        if self._hints is not None:
            return self._hints[j]
        return TopologyHint(self.mask(j), self.preferred[j], self.scores[j])

    def __iter__(self) -> Iterator[TopologyHint]:
        return (self[j] for j in range(len(self)))

    def __repr__(self) -> str:
        return f"HintColumns({list(self)!r})"

    def mask(self, j: int) -> int | None:
        if self._masks is not None:
            return self._masks[j]
        ids = self._ids[j]
        return None if ids is None else _mask_of(ids)

    @property
    def masks(self) -> list[int | None]:
        if self._masks is None:
            self._masks = [None if ids is None else _mask_of(ids) for ids in self._ids]
            self._ids = None
        return self._masks

    @property
    def preferred_indices(self) -> tuple[int, ...]:
        if self._preferred_indices is None:
            self._preferred_indices = tuple(compress(range(len(self)), self.preferred))
        return self._preferred_indices

    def select(self, indices: Sequence[int]) -> HintColumns:
        return HintColumns.of([self[j] for j in indices])

    def min_width(self) -> int | None:
        """The narrowest non-nil mask's width; None when every mask is nil."""
        if self._min_width == -1:
            widths = [m.bit_count() for m in self.masks if m is not None]
            self._min_width = min(widths) if widths else None
        return self._min_width

    def kinds(self) -> tuple[frozenset, frozenset]:
        """(whether each hint's mask is nil, whether each non-nil hint is
        scored), as the sets of values that occur."""
        if self._kinds is None:
            column = self._masks if self._masks is not None else self._ids
            nils = countOf(column, None)
            scores = self.scores
            if 0 < nils:
                scores = [s for s, m in zip(scores, column, strict=True) if m is not None]
            nil_kinds = {True} if nils else set()
            if nils < len(column):
                nil_kinds.add(False)
            scored = _scored_kinds(min(scores), max(scores)) if scores else frozenset()
            self._kinds = (frozenset(nil_kinds), scored)
        return self._kinds


def _scored_kinds(lowest: int, highest: int) -> frozenset:
    """Whether hints are scored (> 0), as the set of values that occur, from
    the extremes of their scores."""
    return frozenset(([True] if highest > 0 else []) + ([False] if lowest <= 0 else []))


def parse(raw: list, where: str, one_hint: Callable[[object, str, int], TopologyHint]) -> HintColumns:
    """A protocol hint list as columns; lists the whole-list checks cannot
    vouch for are read hint by hint with `one_hint`, which raises on the first
    bad hint with its field."""
    columns = _plain(raw)
    if columns is None:
        return HintColumns.of([one_hint(h, where, j) for j, h in enumerate(raw)])
    return columns


def _plain(raw: list) -> HintColumns | None:
    """Columns for a list of plain hints (dicts; `affinity` null or a list of
    ints in 0-63; `preferred` a bool; `score`, when given, a non-negative
    int), else None. Each test runs over the whole list at once."""
    if not raw:
        return HintColumns((), (), ())
    # countOf(map(type, ...)) is the cheapest whole-list test of exact types
    if countOf(map(type, raw), dict) != len(raw):
        return None
    try:
        affinities = list(map(_AFFINITY, raw))
        preferred = list(map(_PREFERRED, raw))
    except KeyError:
        return None
    scores = list(map(dict.get, raw, repeat("score"), repeat(0)))
    if countOf(map(type, preferred), bool) != len(raw) or countOf(map(type, scores), int) != len(raw):
        return None
    lowest = min(scores)
    if lowest < 0:
        return None
    affinity_types = set(map(type, affinities))
    if not affinity_types <= {list, type(None)}:
        return None
    has_nil = type(None) in affinity_types
    ids = [a for a in affinities if a is not None] if has_nil else affinities
    flat = list(chain.from_iterable(ids))
    # exact ints only: a bool is an int to bytes() below
    if countOf(map(type, flat), int) != len(flat):
        return None
    try:
        # bytes() takes 0-255; dropping the node ids leaves nothing when all are below 64
        if bytes(flat).translate(None, _NODE_IDS):
            return None
    except ValueError:
        return None
    # without a nil hint, the kinds the merge asks for are known from here
    kinds = None if has_nil else (frozenset([False]), _scored_kinds(lowest, max(scores)))
    return HintColumns(None, preferred, scores, ids=affinities, kinds=kinds)
