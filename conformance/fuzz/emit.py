"""A shrunk disagreement as a fixture file in the corpus format, ready to review.

The expectation written is the reference's answer: a reviewer checks it by hand
against the seeds before the file is committed, and either the reference is
fixed or the case goes in with an expectations entry for the implementation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from conformance.corpus.checks import feature_claims
from conformance.fuzz.differential import Disagreement, FuzzReport


def _features(component: str, operation: str, data: dict[str, Any], vocabulary: dict[str, Any]) -> list[str]:
    """The features a generated case plausibly needs, from what its input uses."""
    text = json.dumps(data)
    names = [name for name, info in vocabulary.items() if info["component"] == component
             and (name.split(".")[-1] in text or name == f"{component}.{operation}")]
    if not names:
        names = sorted(name for name, info in vocabulary.items() if info["component"] == component)[:1]
    # What the input sets decides the families the claim rule checks, so the file
    # passes `topoconf validate` as written.
    claimed = dict.fromkeys(names)
    for found in feature_claims.check(component, operation, data, claimed, vocabulary):
        if found.kind == "missing":
            claimed[found.feature] = None
        else:
            claimed.pop(found.feature, None)
    return sorted(claimed)


def portable_command(spec: str, cwd: Path) -> str:
    """An implementation spec as a generated fixture records it: an absolute
    path under `cwd` relative to it, any other absolute path by its file name.

    The fixture is meant to be committed, and the layout of the host that ran
    the fuzzer means nothing to anyone who reads or reruns the case."""
    return " ".join(_portable_word(word, cwd) for word in spec.split(" "))


def _portable_word(word: str, cwd: Path) -> str:
    scheme = "exec:" if word.startswith("exec:") else ""
    path = Path(word[len(scheme):])
    if not path.is_absolute():
        return word
    if path != cwd and path.is_relative_to(cwd):
        return scheme + str(path.relative_to(cwd))
    return scheme + path.name


def fixture(disagreement: Disagreement, report: FuzzReport, vocabulary: dict[str, Any],
            cwd: Path | None = None) -> dict[str, Any]:
    reference = disagreement.reference
    expect = {"result": reference["result"]} if "result" in reference else {"result": {}}
    seed = "derandomized" if report.seed is None else report.seed
    return {
        "format": 1,
        "component": disagreement.component,
        "topic": f"generated: {disagreement.component}.{disagreement.operation} disagreement found by topoconf fuzz",
        "description": (
            f"Found by `topoconf fuzz --impl {portable_command(report.implementation, cwd or Path.cwd())} "
            f"--against {portable_command(report.against, cwd or Path.cwd())} "
            f"--component {disagreement.component} --seed {seed}` and shrunk to a minimal input. "
            "The expectation is the reference's answer: check it by hand against the seeds before committing."
        ),
        "cases": [{
            "id": f"{disagreement.component}.generated.{disagreement.operation}.{disagreement.digest}",
            "title": f"generated: {disagreement.diff[0][:100]}",
            "features": _features(disagreement.component, disagreement.operation, disagreement.input, vocabulary),
            "source": "generated",
            "operation": disagreement.operation,
            "input": disagreement.input,
            "expect": expect,
            "notes": (f"seed {seed}. The implementation answered {json.dumps(disagreement.implementation)[:2000]}; "
                      "differences: " + "; ".join(disagreement.diff[:10])),
            "tags": ["generated", f"seed-{seed}"],
        }],
    }


def write(disagreement: Disagreement, report: FuzzReport, vocabulary: dict[str, Any], out: Path) -> Path:
    path = out / disagreement.component / f"generated-{disagreement.operation}-{disagreement.digest}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(fixture(disagreement, report, vocabulary), sort_keys=False, width=100))
    return path
