"""Folders of a user's own fixtures, layered over the bundled corpus
(`--extra-corpus DIR`).

An extra folder holds `<component>/*.yaml` fixture files and, optionally, a
`blocks/` folder of its own. It has no vocabulary: its cases name features of the
bundled corpus, which is what implementations declare in `hello`. A block name is
looked up in the folder's own `blocks/` first, then in the bundled corpus's; a
name both define is a problem, so that `{$block: NAME}` means one thing to every
reader.

Files of an extra folder are named by the folder as it was given (normalised),
then their path inside it: `--extra-corpus ../team` gives `../team/kubelet/x.yaml`.
Bundled files are named `fixtures/...`; a relative folder whose name would start
the same way is named by its absolute path instead, so no two files share a name.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from conformance.model import Problem

RULE = "extra-corpus"


@dataclass(frozen=True)
class ExtraCorpus:
    path: Path  # resolved
    label: str  # how its files are named in problems, cases and reports

    def name_of(self, path: Path) -> str:
        return f"{self.label}/{path.resolve().relative_to(self.path).as_posix()}"


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def label_for(given: Path, bundled: Path) -> str:
    label = Path(os.path.normpath(given)).as_posix()
    if not given.is_absolute() and label.split("/")[0] == bundled.name:
        return given.resolve().as_posix()
    return label


def prepare(given: Sequence[Path], bundled: Path) -> tuple[list[ExtraCorpus], list[Problem]]:
    """The usable extra folders, in the order given, and a problem for each that is not."""
    bundled = bundled.resolve()
    extras: list[ExtraCorpus] = []
    problems: list[Problem] = []
    for folder in given:
        folder = Path(folder)
        shown = folder.as_posix()
        resolved = folder.resolve()
        reason = None
        if not resolved.is_dir():
            reason = "does not exist" if not resolved.exists() else "is not a folder"
        elif _inside(resolved, bundled) or _inside(bundled, resolved):
            reason = f"overlaps the bundled corpus {bundled}; an extra corpus is a folder of its own"
        else:
            other = next((e for e in extras if _inside(resolved, e.path) or _inside(e.path, resolved)), None)
            if other is not None:
                reason = f"overlaps the extra corpus {other.label} given before it"
        if reason:
            problems.append(Problem(shown, None, None, "", RULE, f"extra corpus {shown} {reason}"))
            continue
        extra = ExtraCorpus(resolved, label_for(folder, bundled))
        if (resolved / "features").exists():
            problems.append(Problem(extra.name_of(resolved / "features"), None, None, "", RULE,
                                    "an extra corpus uses the bundled feature vocabulary; its features/ folder is "
                                    "not read (move the file away, or propose the features for the bundled corpus)"))
        extras.append(extra)
    return extras, problems


def block_names(folder: Path) -> dict[str, Path]:
    """Block name -> file, for the blocks/ folder of a corpus."""
    blocks = folder / "blocks"
    if not blocks.is_dir():
        return {}
    return {p.relative_to(blocks).with_suffix("").as_posix(): p for p in sorted(blocks.rglob("*.yaml"))
            if not any(part.startswith("_") for part in p.relative_to(blocks).parts)}


def shadowed_blocks(extra: ExtraCorpus, bundled: Path, bundled_name: str) -> list[Problem]:
    """A block the extra folder defines under a bundled block's name."""
    bundled_blocks = block_names(bundled)
    return [
        Problem(extra.name_of(path), 1, None, "", "block-shadow",
                f"block {name!r} is also a bundled block ({bundled_name}/blocks/{name}.yaml); give this one "
                "another name so that every reader knows which is meant")
        for name, path in block_names(extra.path).items() if name in bundled_blocks
    ]
