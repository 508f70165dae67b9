"""A pytest plugin for the corpus pass of a mutation run (`-p harness_plugin`).

Two things keep the measurement about the reference alone:

- The harness compares quantities with the reference's own parser
  (conformance/quantity.py imports it). A mutant of that parser would change
  the expected side of the comparison along with the answer, so the harness
  gets its own copy loaded from the unmutated source file.
- mutmut forks one child per mutant from the process that collected its
  coverage statistics, and each child starts a fresh pytest session whose
  topoconf plugin would parse the corpus again (about six CPU seconds). The
  corpus files do not change during a run and loading them touches no
  mutated code once the harness's parser is its own, so the children reuse the
  parent's parsed corpus through the fork.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from pathlib import Path

from conformance import quantity as harness_quantity

# The unmutated reference_impl/ under another package name, so its relative
# imports resolve to unmutated modules too and the mutated package is untouched.
_package = types.ModuleType("_unmutated_reference_impl")
_package.__path__ = [str(Path(os.environ["TOPOCONF_MUTATION_SOURCE"]) / "reference_impl")]
sys.modules[_package.__name__] = _package
_unmutated = importlib.import_module("_unmutated_reference_impl.quantity")
harness_quantity.parse = _unmutated.parse
harness_quantity.is_quantity = _unmutated.is_quantity
harness_quantity.QuantityError = _unmutated.QuantityError

from conformance import corpus as corpus_mod  # noqa: E402

_uncached_load = corpus_mod.load
_loaded: dict[tuple, object] = {}


def _cached_load(root=None, paths=None, **kwargs):
    key = (str(root), tuple(str(p) for p in paths or ()),
           tuple(sorted((k, tuple(str(p) for p in v)) for k, v in kwargs.items())))
    if key not in _loaded:
        _loaded[key] = _uncached_load(root, paths, **kwargs)
    return _loaded[key]


corpus_mod.load = _cached_load
