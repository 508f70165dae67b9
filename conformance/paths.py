"""Where the corpus and the schemas live: beside the source tree, or in the wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_SOURCE_ROOT = _PACKAGE.parent


def _first_existing(*candidates: Path) -> Path:
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return candidates[0]


def corpus_dir() -> Path:
    return _first_existing(_SOURCE_ROOT / "fixtures", _PACKAGE / "data" / "fixtures")


def schemas_dir() -> Path:
    return _first_existing(_SOURCE_ROOT / "schemas", _PACKAGE / "data" / "schemas")


def expectations_dir() -> Path:
    return _PACKAGE / "expectations"
