"""Answers compared as the differential run compares them: the result paths an
implementation may choose freely left out."""

from __future__ import annotations

import fnmatch
from typing import Any


def strip_paths(value: Any, patterns: tuple[str, ...], path: str = "") -> Any:
    if isinstance(value, dict):
        return {k: strip_paths(v, patterns, f"{path}/{k}".lstrip("/")) for k, v in value.items()
                if not any(fnmatch.fnmatchcase(f"{path}/{k}".lstrip("/"), p) for p in patterns)}
    if isinstance(value, list):
        return [strip_paths(v, patterns, f"{path}/{i}".lstrip("/")) for i, v in enumerate(value)]
    return value


def without_keys(value: Any, keys: frozenset[str], messages: bool) -> Any:
    """`value` without the named keys at any depth, nor (with `messages`) any key
    ending in "message"."""
    if isinstance(value, dict):
        return {k: without_keys(v, keys, messages) for k, v in value.items()
                if k not in keys and not (messages and k.endswith("message"))}
    if isinstance(value, list):
        return [without_keys(v, keys, messages) for v in value]
    return value
