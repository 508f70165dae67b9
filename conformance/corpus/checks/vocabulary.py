"""The feature vocabulary (fixtures/features/<component>.yaml): each file
declares its own component, and each feature name starts with it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance import yamlload
from conformance.corpus.checks import schema
from conformance.model import Problem

RULE_FILE = "component-file"
RULE_PREFIX = "feature-prefix"


def load(root: Path, rel: Callable[[Path], str]) -> tuple[dict[str, dict[str, Any]], list[Problem]]:
    """Feature name -> its description and component, and the problems found."""
    features: dict[str, dict[str, Any]] = {}
    found: list[Problem] = []
    for path in sorted((root / "features").glob("*.yaml")):
        name_of = rel(path)
        try:
            doc = yamlload.load_file(path)
        except yamlload.YAMLError as exc:
            found.append(Problem(name_of, exc.line, None, "", "yaml", exc.message))
            continue
        bad = schema.problems("features.schema.json", doc, doc, name_of, None, [])
        found.extend(bad)
        if bad:
            continue
        if path.stem != doc["component"]:
            found.append(Problem(name_of, yamlload.line_of(doc, ["component"]), None, "/component", RULE_FILE,
                                 f"file {path.name} declares component {doc['component']!r}"))
        for name, info in doc["features"].items():
            if not name.startswith(doc["component"] + "."):
                found.append(Problem(name_of, yamlload.line_of(doc, ["features", name]), None,
                                     f"/features/{name}", RULE_PREFIX,
                                     f"feature {name!r} must start with {doc['component'] + '.'!r}"))
            features[name] = {"component": doc["component"], **yamlload.plain(info)}
    return features, found
