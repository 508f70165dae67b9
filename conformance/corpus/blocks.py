"""Named building blocks (`{$block: NAME}`), resolved into a fixture's values.

A name is looked up in the `blocks/` folder of each corpus in scope, nearest
first (an extra folder's own, then the bundled corpus's). Keys beside `$block`
override parts of the block. Rules: `block-name`, `block-cycle`,
`block-missing`, `block-override`, and `yaml` for a block file that cannot be read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from conformance import bounds, yamlload
from conformance.corpus.extra import block_names
from conformance.model import Problem
from conformance.suggest import did_you_mean

# The rule of a value that grows past conformance/bounds.py's limits.
EXPANSION_LIMIT = "expansion-limit"
_BLOCK_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*(/[a-z0-9][a-z0-9_.-]*)*$")


class BlockError(Exception):
    """A block that cannot be used; its problem names the place that uses it."""

    def __init__(self, file: str, line: int | None, case_id: str | None, pointer: str, rule: str, message: str):
        super().__init__(message)
        self.problem = Problem(file, line, case_id, pointer, rule, message)


class Blocks:
    """Block lookups and the block files read so far, for one load of a corpus."""

    def __init__(self, root: Path, rel: Callable[[Path], str],
                 charge: Callable[[int, str, int | None, str | None, str], None]):
        self.rel = rel
        # Every value resolved is charged to the budget of the file being loaded
        # (conformance/corpus/budget.py).
        self.charge = charge
        self._blocks: dict[Path, Any] = {}
        self._block_files: dict[tuple[tuple[Path, ...], str], Path | None] = {}
        # The corpora whose blocks the file being loaded may use, nearest first.
        self.scope: tuple[Path, ...] = (root,)

    def block(self, name: Any, rel: str, line: int | None, case_id: str | None, pointer: str,
              stack: tuple[str, ...]) -> Any:
        where = (rel, line, case_id, pointer)
        if not isinstance(name, str) or not _BLOCK_NAME.match(name) or ".." in PurePosixPath(name).parts:
            raise BlockError(*where, "block-name",
                             f"block name {name!r} must be a relative name inside fixtures/blocks/ (no '..', no absolute path)")
        if name in stack:
            raise BlockError(*where, "block-cycle", "blocks use each other in a cycle: " + " -> ".join(stack + (name,)))
        places = [base / "blocks" / f"{name}.yaml" for base in self.scope]
        key = (self.scope, name)
        if key not in self._block_files:
            self._block_files[key] = next((p for p in places if p.is_file()), None)
        path = self._block_files[key]
        if path is None:
            known = [n for base in self.scope for n in block_names(base)]
            raise BlockError(*where, "block-missing",
                             f"no block {name!r} (expected {' or '.join(self.rel(p) for p in places)})"
                             + did_you_mean(name, known))
        if path not in self._blocks:
            try:
                # Plain values: a line inside the block file would be reported
                # against the fixture file that uses the block.
                self._blocks[path] = yamlload.plain(yamlload.load_file(path))
            except yamlload.YAMLError as exc:
                raise BlockError(self.rel(path), exc.line, case_id, "", "yaml", exc.message) from None
        # resolve builds new mappings and lists all the way down, so the cached
        # block is never shared with a case.
        return self.resolve(self._blocks[path], rel, line, case_id, pointer, stack + (name,))

    def resolve(self, value: Any, rel: str, line: int | None, case_id: str | None, pointer: str,
                stack: tuple[str, ...] = ()) -> Any:
        """The value with every block in it resolved."""
        self.charge(1, rel, line, case_id, pointer)
        if isinstance(value, (dict, list)) and pointer.count("/") > bounds.MAX_DEPTH:
            # Each file is bounded by the loader, but blocks inside blocks add up.
            raise BlockError(rel, line, case_id, pointer, EXPANSION_LIMIT,
                             f"nested more than {bounds.MAX_DEPTH} levels deep once blocks are resolved")
        if isinstance(value, dict):
            if "$block" in value:
                base = self.block(value["$block"], rel, getattr(value, "line", line), case_id, pointer, stack)
                overrides = {k: v for k, v in value.items() if k != "$block"}
                if not overrides:
                    return base
                if not isinstance(base, dict):
                    raise BlockError(rel, getattr(value, "line", line), case_id, pointer, "block-override",
                                     f"block {value['$block']!r} is not a mapping, so keys beside $block cannot "
                                     "override parts of it")
                return deep_merge(base, self.resolve(overrides, rel, line, case_id, pointer, stack))
            return {k: self.resolve(v, rel, line, case_id, f"{pointer}/{k}", stack) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v, rel, line, case_id, f"{pointer}/{i}", stack) for i, v in enumerate(value)]
        return value


def deep_merge(base: Any, over: Any) -> Any:
    """Mappings merge key by key; anything else in `over` replaces `base` whole."""
    if isinstance(base, dict) and isinstance(over, dict):
        merged = {k: v for k, v in base.items()}
        for key, value in over.items():
            merged[key] = deep_merge(base[key], value) if key in base else value
        return merged
    return over
