"""Release bundles: a run's report folder made into something an implementation
publishes with a release and anyone can check, in the manner of a Kubernetes
conformance submission.

A bundle holds results.json, compliance.md, compliance.html and junit.xml from
one run, implementation.yaml (name, version, source and the feature profiles
the implementation claims), and a README with the command that reproduces it.
`verify` checks that a bundle is whole, was made by this suite against this
corpus, ran to the end, and that every case of every claimed profile passed or
fails as an explained expectation.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from conformance import __version__
from conformance.model import PASSED, UNSUPPORTED, XFAIL
from conformance.report import counts, details
from conformance.report import results as results_mod

FILES = ("results.json", "compliance.md", "compliance.html", "junit.xml", "implementation.yaml", "README.md")
_SELECTION_FLAGS = (("components", "--component"), ("features", "--features"),
                    ("exclude_features", "--exclude-features"), ("ids", "--id"))


def command(header: dict[str, Any], out: str) -> str:
    """`topoconf release ...` as the run was made: the implementation, the
    selection, the expectations and strictness the header records."""
    words = ["topoconf", "release", "--impl", header["impl_spec"]]
    selection = header.get("selection") or {}
    for key, flag in _SELECTION_FLAGS:
        for value in selection.get(key) or ():
            words += [flag, value]
    words += details.invocation_words(header)
    for feature in header.get("claimed") or ():
        words += ["--claim", feature]
    return shlex.join([*words, "--out", out])


def claimed_profiles(document: dict[str, Any], claims: tuple[str, ...] = ()) -> list[str]:
    """The features the implementation claims: those named with --claim, else
    every feature its hello declares."""
    declared = sorted(document["header"]["implementation"]["capabilities"]["features"])
    return sorted(claims) if claims else declared


def describe(document: dict[str, Any], claims: list[str]) -> dict[str, Any]:
    implementation = document["header"]["implementation"]["implementation"]
    source = implementation.get("source") or implementation.get("homepage") or document["header"]["impl_spec"]
    return {"name": implementation["name"], "version": implementation["version"], "source": source,
            "homepage": implementation.get("homepage"), "profiles": claims}


def readme(document: dict[str, Any], claims: list[str], out: str, explicit_claims: bool) -> str:
    header = document["header"]
    implementation = header["implementation"]["implementation"]
    tally = counts.tally([r["outcome"] for r in document["records"]])
    reproduce = command({**header, "claimed": claims if explicit_claims else []}, out)
    lines = [
        f"# {implementation['name']} {implementation['version']}: topology-conformance bundle", "",
        f"{implementation['name']} {implementation['version']}: {tally.sentence()}.", "",
        f"Suite {header['suite']['name']} {header['suite']['version']}, corpus `{header['suite']['corpus']}`"
        + (", strict run." if header.get("strict") else "."), "",
        "| file | what it is |", "| --- | --- |",
        "| `results.json` | the run's canonical report |",
        "| `compliance.md` | the compliance table |",
        "| `compliance.html` | the same as a page, with pictures and filters |",
        "| `junit.xml` | for CI systems |",
        "| `implementation.yaml` | name, version, source and the feature profiles claimed |", "",
        f"Claimed profiles ({len(claims)}): " + ", ".join(f"`{c}`" for c in claims) + ".", "",
        "Reproduce (from a checkout of the suite at this version):", "",
        "```sh", reproduce, "```", "",
        "Check the bundle:", "", "```sh", f"topoconf verify {shlex.quote(out)}", "```", "",
    ]
    return "\n".join(lines)


def write(document: dict[str, Any], directory: Path, claims: tuple[str, ...] = (), out_name: str | None = None) -> list[Path]:
    claimed = claimed_profiles(document, claims)
    written = results_mod.write_all(document, directory)
    described = directory / "implementation.yaml"
    described.write_text(yaml.safe_dump(describe(document, claimed), sort_keys=False, allow_unicode=True),
                         encoding="utf-8")
    notes = directory / "README.md"
    notes.write_text(readme(document, claimed, out_name or str(directory), bool(claims)), encoding="utf-8")
    return [*written, described, notes]


@dataclass(frozen=True)
class Check:
    problems: list[str]
    summary: str


def verify(directory: Path, corpus_hash: str) -> Check:
    """Every problem with a bundle, or none."""
    problems = [f"{name} is missing" for name in FILES if not (directory / name).is_file()]
    if not (directory / "results.json").is_file():
        return Check(problems, "")
    try:
        document = results_mod.load(directory / "results.json")
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        return Check([*problems, f"results.json is not a results report: {str(exc).splitlines()[0]}"], "")
    header, footer = document["header"], document["footer"]
    implementation = header["implementation"]["implementation"]
    if header["suite"]["version"] != __version__:
        problems.append(f"made by suite version {header['suite']['version']}, this is {__version__}")
    if header["suite"]["corpus"] != corpus_hash:
        problems.append(f"run against corpus {header['suite']['corpus']}, this corpus is {corpus_hash}")
    if not footer.get("complete"):
        problems.append("the run is incomplete: some cases were not run")
    claims: list[str] = []
    if (directory / "implementation.yaml").is_file():
        try:
            described = yaml.safe_load((directory / "implementation.yaml").read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            described = None
            problems.append(f"implementation.yaml is not YAML: {str(exc).splitlines()[0]}")
        if described is not None and not isinstance(described, dict):
            problems.append("implementation.yaml is not a mapping")
        elif isinstance(described, dict):
            for key in ("name", "version", "source", "profiles"):
                if key not in described:
                    problems.append(f"implementation.yaml has no {key}")
            for key in ("name", "version"):
                if key in described and str(described[key]) != str(implementation[key]):
                    problems.append(f"implementation.yaml names {key} {described[key]!r}, the run "
                                    f"{implementation[key]!r}")
            claims = [str(c) for c in described.get("profiles") or []]
            declared = set(header["implementation"]["capabilities"]["features"])
            problems += [f"profile {c!r} is claimed but the implementation does not declare it" for c in claims
                         if c not in declared]
    claimed = set(claims)
    checked = declined = 0
    for record in document["records"]:
        features = set(record["features"])
        # A case belongs to the claims when every feature it needs is claimed;
        # one needing an unclaimed feature is outside them, whatever its outcome.
        if not features or not features <= claimed:
            continue
        checked += 1
        outcome = record["outcome"]
        if outcome in PASSED and not (outcome == "xpass" and header.get("strict")):
            continue
        if outcome == XFAIL and (record.get("expectation_reason") or "").strip():
            continue
        # Every feature it needs is declared, so the implementation itself declined
        # the case (a release cannot be an older Kubernetes): explained when it says why.
        if outcome == UNSUPPORTED and (record.get("message") or "").strip():
            declined += 1
            continue
        reason = {XFAIL: " without a reason in the expectations file",
                  UNSUPPORTED: " with no reason given"}.get(outcome, "")
        problems.append(f"{record['id']}: {outcome}{reason}, in the claimed profiles {', '.join(sorted(features))}")
    tally = counts.tally([r["outcome"] for r in document["records"]])
    summary = (f"{implementation['name']} {implementation['version']}: {tally.sentence()}; {checked} cases of "
               f"{len(claims)} claimed profiles checked ({declined} declined by the implementation, each "
               "with its reason)")
    return Check(problems, summary)
