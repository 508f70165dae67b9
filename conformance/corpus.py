"""Loading the corpus: files, building blocks, defaults, matrices, and every check
`topoconf validate` reports.

Loading never stops at the first problem: each problem is recorded with its file,
line, case id, JSON pointer and rule, and every case that is sound is still loaded.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import itertools
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any

from conformance import bounds, case_ids, feature_claims, quantity, result_keys, schemas, yamlload
from conformance.extra_corpus import ExtraCorpus, block_names, shadowed_blocks
from conformance.extra_corpus import prepare as prepare_extra
from conformance.model import Case, Problem
from conformance.paths import corpus_dir
from conformance.suggest import did_you_mean

COMPONENTS = ("kubelet", "koordinator", "kueue")
# The key of a list-of-rows matrix row that holds the row's own feature claims.
ROW_FEATURES = "features"
_PARAM = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}")
_BLOCK_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*(/[a-z0-9][a-z0-9_.-]*)*$")


@dataclass
class BrokenCase:
    """A case that could not be loaded; a run reports it as an error."""

    id: str
    component: str
    file: str
    problems: list[Problem]
    line: int | None = None


@dataclass
class Corpus:
    root: Path
    cases: list[Case] = field(default_factory=list)
    broken: list[BrokenCase] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    features: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    # User folders layered over root (see conformance/extra_corpus.py).
    extra: tuple[ExtraCorpus, ...] = ()

    @cached_property
    def by_id(self) -> dict[str, Case]:
        return {case.id: case for case in self.cases}

    @cached_property
    def all_ids(self) -> set[str]:
        return set(self.by_id) | {b.id for b in self.broken}

    def hash(self) -> str:
        return corpus_hash(self.root, [e.path for e in self.extra])

    def unattributed_problems(self) -> list[Problem]:
        """Problems no broken case stands for: a file, a vocabulary or an id that
        cannot be loaded, so a run could not report the cases it loses."""
        attributed = {p for b in self.broken for p in b.problems}
        return [p for p in self.problems if p not in attributed]


def corpus_hash(root: Path, extra: Sequence[Path] = ()) -> str:
    """sha256 over the corpus, the schemas and any extra folders, so a report names
    exactly what ran. Without extra folders the hash is what it always was."""
    digest = hashlib.sha256()
    for index, base in enumerate((root, schemas.schemas_dir(), *extra)):
        if index >= 2:
            # Marks where one extra folder starts, so moving a file between two
            # folders changes the hash.
            digest.update(b"\0extra\0")
        # Folders starting with "_" are not part of the corpus (staged, generated files).
        for path in sorted(p for p in base.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml", ".json")
                           and not any(part.startswith("_") for part in p.relative_to(base).parts)):
            digest.update(path.relative_to(base).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return "sha256:" + digest.hexdigest()


def fixture_files(root: Path, paths: list[Path] | None = None, extra: Sequence[Path] = ()) -> list[Path]:
    """The fixture files under root and the extra folders (or under the given
    paths), in a stable order."""
    roots = [root.resolve(), *(Path(e).resolve() for e in extra)]
    selected: list[Path] = []
    for base in paths or roots:
        base = base.resolve()
        candidates = [base] if base.is_file() else sorted(base.rglob("*.y*ml"))
        for path in candidates:
            if path.suffix not in (".yaml", ".yml"):
                continue
            owner = next((r for r in roots if r in path.parents), None)
            if owner is None:
                selected.append(path)
                continue
            parts = path.relative_to(owner).parts
            if parts[0] in ("features", "blocks") or any(p.startswith("_") for p in parts):
                continue
            selected.append(path)
    # The bundled corpus first, then the extra folders in the order given: a
    # duplicate is reported in the folder that came last, the user's.
    def order(path: Path) -> tuple[int, Path]:
        return next((i for i, r in enumerate(roots) if r in path.parents), len(roots)), path

    return sorted(dict.fromkeys(selected), key=order)


class _Loader:
    def __init__(self, root: Path, extra: Sequence[ExtraCorpus] = ()):
        self.root = root.resolve()
        self.extra = tuple(extra)
        self.problems: list[Problem] = []
        self._blocks: dict[Path, Any] = {}
        self._block_files: dict[tuple[tuple[Path, ...], str], Path | None] = {}
        self._input_validators_missing: set[tuple[str, str]] = set()
        # Per file: values built while expanding its cases, and cases made.
        self._spent = 0
        self._made = 0
        self._stopped = False
        # Every id as written (id, file, line), in load order: ids are unique as
        # written, whatever rows a matrix derives from them.
        self.written: list[tuple[str, str, int | None]] = []
        self._case_line: int | None = None
        # The corpora whose blocks the file being loaded may use, nearest first.
        self._scope: tuple[Path, ...] = (self.root,)

    def _charge_row(self, sizes: dict[str, int], rel: str, line: int | None, case_id: str, pointer: str,
                    name: str | None) -> None:
        self.charge(1 if name is None else sizes[name], rel, line, case_id, pointer)

    def charge(self, amount: int, rel: str, line: int | None, case_id: str | None, pointer: str) -> None:
        """Count values built for the current file; a file whose blocks, shared
        input and matrix rows multiply past the limit is refused where it passes
        it, before it can take the harness's memory."""
        self._spent += amount
        if self._spent > bounds.MAX_FILE_VALUES:
            self._stopped = True
            raise _BlockError(rel, line, case_id, pointer, "expansion-limit",
                              f"the cases of this file expand to more than {bounds.MAX_FILE_VALUES} values "
                              "(each use of a block, of shared input and of a matrix parameter is a copy)")

    def owner(self, path: Path) -> ExtraCorpus | None:
        """The extra folder holding path, if any."""
        resolved = path.resolve()
        return next((e for e in self.extra if e.path in resolved.parents), None)

    def rel(self, path: Path) -> str:
        extra = self.owner(path)
        if extra is not None:
            return extra.name_of(path)
        try:
            return path.resolve().relative_to(self.root.parent).as_posix()
        except ValueError:
            return path.as_posix()

    # -- vocabulary -------------------------------------------------------
    def load_features(self) -> dict[str, dict[str, Any]]:
        features: dict[str, dict[str, Any]] = {}
        folder = self.root / "features"
        for path in sorted(folder.glob("*.yaml")):
            rel = self.rel(path)
            try:
                doc = yamlload.load_file(path)
            except yamlload.YAMLError as exc:
                self.problems.append(Problem(rel, exc.line, None, "", "yaml", exc.message))
                continue
            bad = self._schema_problems("features.schema.json", doc, doc, rel, None, [])
            if bad:
                continue
            if path.stem != doc["component"]:
                self.problems.append(
                    Problem(rel, yamlload.line_of(doc, ["component"]), None, "/component", "component-file",
                            f"file {path.name} declares component {doc['component']!r}")
                )
            for name, info in doc["features"].items():
                if not name.startswith(doc["component"] + "."):
                    self.problems.append(
                        Problem(rel, yamlload.line_of(doc, ["features", name]), None,
                                f"/features/{name}", "feature-prefix",
                                f"feature {name!r} must start with {doc['component'] + '.'!r}")
                    )
                features[name] = {"component": doc["component"], **yamlload.plain(info)}
        return features

    # -- blocks -----------------------------------------------------------
    def block(self, name: Any, rel: str, line: int | None, case_id: str | None, pointer: str,
              stack: tuple[str, ...]) -> Any:
        where = (rel, line, case_id, pointer)
        if not isinstance(name, str) or not _BLOCK_NAME.match(name) or ".." in PurePosixPath(name).parts:
            raise _BlockError(*where, "block-name",
                              f"block name {name!r} must be a relative name inside fixtures/blocks/ (no '..', no absolute path)")
        if name in stack:
            raise _BlockError(*where, "block-cycle", "blocks use each other in a cycle: " + " -> ".join(stack + (name,)))
        places = [base / "blocks" / f"{name}.yaml" for base in self._scope]
        key = (self._scope, name)
        if key not in self._block_files:
            self._block_files[key] = next((p for p in places if p.is_file()), None)
        path = self._block_files[key]
        if path is None:
            known = [n for base in self._scope for n in block_names(base)]
            raise _BlockError(*where, "block-missing",
                              f"no block {name!r} (expected {' or '.join(self.rel(p) for p in places)})"
                              + did_you_mean(name, known))
        if path not in self._blocks:
            try:
                # Plain values: a line inside the block file would be reported
                # against the fixture file that uses the block.
                self._blocks[path] = yamlload.plain(yamlload.load_file(path))
            except yamlload.YAMLError as exc:
                raise _BlockError(self.rel(path), exc.line, case_id, "", "yaml", exc.message) from None
        # resolve builds new mappings and lists all the way down, so the cached
        # block is never shared with a case.
        return self.resolve(self._blocks[path], rel, line, case_id, pointer, stack + (name,))

    def resolve(self, value: Any, rel: str, line: int | None, case_id: str | None, pointer: str,
                stack: tuple[str, ...] = ()) -> Any:
        self.charge(1, rel, line, case_id, pointer)
        if isinstance(value, (dict, list)) and pointer.count("/") > bounds.MAX_DEPTH:
            # Each file is bounded by the loader, but blocks inside blocks add up.
            raise _BlockError(rel, line, case_id, pointer, "expansion-limit",
                              f"nested more than {bounds.MAX_DEPTH} levels deep once blocks are resolved")
        if isinstance(value, dict):
            if "$block" in value:
                base = self.block(value["$block"], rel, getattr(value, "line", line), case_id, pointer, stack)
                overrides = {k: v for k, v in value.items() if k != "$block"}
                if not overrides:
                    return base
                if not isinstance(base, dict):
                    raise _BlockError(rel, getattr(value, "line", line), case_id, pointer, "block-override",
                                      f"block {value['$block']!r} is not a mapping, so keys beside $block cannot "
                                      "override parts of it")
                return deep_merge(base, self.resolve(overrides, rel, line, case_id, pointer, stack))
            return {k: self.resolve(v, rel, line, case_id, f"{pointer}/{k}", stack) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v, rel, line, case_id, f"{pointer}/{i}", stack) for i, v in enumerate(value)]
        return value

    # -- schema problems --------------------------------------------------
    def _schema_problems(self, schema: str, instance: Any, raw: Any, rel: str, case_id: str | None,
                         raw_prefix: list[Any], pointer_prefix: str = "") -> list[Problem]:
        found = []
        for path, rule, message in schemas.errors(schema, instance):
            found.append(
                Problem(rel, yamlload.line_of(raw, raw_prefix + path), case_id,
                        pointer_prefix + schemas.path_pointer(path), rule, message)
            )
        self.problems.extend(found)
        return found

    # -- files ------------------------------------------------------------
    def load_file(self, path: Path, corpus: Corpus) -> None:
        rel = self.rel(path)
        extra = self.owner(path)
        home = extra.path if extra is not None else self.root
        self._scope = (extra.path, self.root) if extra is not None else (self.root,)
        corpus.files.append(rel)
        self._spent = self._made = 0
        self._stopped = False
        try:
            doc = yamlload.load_file(path)
        except yamlload.YAMLError as exc:
            self.problems.append(Problem(rel, exc.line, None, "", "yaml", exc.message))
            return
        except OSError as exc:
            self.problems.append(Problem(rel, None, None, "", "read", str(exc)))
            return
        if not isinstance(doc, dict):
            self.problems.append(Problem(rel, 1, None, "", "type", "a fixture file is a mapping"))
            return
        # File-level problems make every case of the file unusable; case-level
        # problems only their own case.
        file_level = {k: v for k, v in doc.items() if k != "cases"}
        file_level["cases"] = [{"id": "x", "title": "x", "input": {}, "expect": {"result": {}}}]
        if self._schema_problems("fixture.schema.json", file_level, doc, rel, None, []):
            return
        component = doc["component"]
        try:
            rel_in_corpus = path.resolve().relative_to(home)
            if rel_in_corpus.parts[0] != component:
                self.problems.append(
                    Problem(rel, yamlload.line_of(doc, ["component"]), None, "/component", "component-folder",
                            f"a {component} fixture must live under {self.rel(home / component)}/")
                )
        except ValueError:
            pass
        defaults = doc.get("defaults", {})
        try:
            shared = self.resolve(doc.get("shared", {}), rel, yamlload.line_of(doc, ["shared"]), None, "/shared")
        except _BlockError as exc:
            self.problems.append(exc.problem)
            return
        cases = doc.get("cases")
        if not isinstance(cases, list):
            self._schema_problems("fixture.schema.json", doc, doc, rel, None, [])
            return
        for index, raw_case in enumerate(cases):
            if self._stopped:
                # The limit's problem is reported once; the rest of the file is not loaded.
                return
            self._case_line = yamlload.line_of(doc, ["cases", index])
            if isinstance(raw_case, dict) and isinstance(raw_case.get("id"), str):
                self.written.append((raw_case["id"], rel, self._case_line))
            self.load_case(rel, doc, component, defaults, shared, index, raw_case, corpus)

    def load_case(self, rel: str, doc: Any, component: str, defaults: dict, shared: dict, index: int,
                  raw_case: Any, corpus: Corpus) -> None:
        case_id = raw_case.get("id") if isinstance(raw_case, dict) and isinstance(raw_case.get("id"), str) else None
        before = len(self.problems)
        prefix = ["cases", index]
        wrapper = {"format": 1, "component": component, "topic": "x", "cases": [raw_case]}
        found = [
            p for p in self._schema_problems("fixture.schema.json", wrapper, {"cases": doc["cases"]}, rel, case_id, [])
        ]
        # The wrapper puts this case at index 0; point at its real index.
        for i, problem in enumerate(self.problems[before:]):
            fixed_pointer = problem.pointer.replace("/cases/0", f"/cases/{index}", 1)
            self.problems[before + i] = Problem(
                problem.file, yamlload.line_of(doc, prefix + _pointer_parts(problem.pointer)[2:]), case_id,
                fixed_pointer, problem.rule, problem.message,
            )
        if found:
            self._broken(corpus, case_id, component, rel, before)
            return
        line = yamlload.line_of(doc, prefix)
        merged = {**defaults, **{k: v for k, v in raw_case.items() if k != "features"}}
        merged["features"] = list(dict.fromkeys(list(defaults.get("features", [])) + list(raw_case.get("features", []))))
        for key in ("operation", "source"):
            if key not in merged:
                self.problems.append(Problem(rel, line, case_id, f"/cases/{index}", "required",
                                             f"{key!r} is required (in the case or in defaults)"))
        if not merged["features"]:
            self.problems.append(Problem(rel, line, case_id, f"/cases/{index}", "required",
                                         "a case names at least one feature (in the case or in defaults)"))
        if len(self.problems) > before:
            self._broken(corpus, case_id, component, rel, before)
            return
        try:
            case_input = self.resolve(raw_case["input"], rel, yamlload.line_of(doc, prefix + ["input"]), case_id,
                                      f"/cases/{index}/input")
            expect = self.resolve(raw_case["expect"], rel, yamlload.line_of(doc, prefix + ["expect"]), case_id,
                                  f"/cases/{index}/expect")
        except _BlockError as exc:
            self.problems.append(exc.problem)
            self._broken(corpus, case_id, component, rel, before)
            return
        case_input = deep_merge(shared, case_input)
        # Counted before any row is made: a product of a few short lists can be
        # millions of cases.
        self._made += _matrix_rows(raw_case.get("matrix"))
        if self._made > bounds.MAX_FILE_CASES:
            self._stopped = True
            self.problems.append(Problem(rel, yamlload.line_of(doc, prefix + ["matrix"]), case_id,
                                         f"/cases/{index}/matrix", "expansion-limit",
                                         f"the file makes more than {bounds.MAX_FILE_CASES} cases "
                                         "(each matrix row is one)"))
            self._broken(corpus, case_id, component, rel, before)
            return
        for expansion in self.expand_matrix(raw_case.get("matrix"), rel, doc, prefix, case_id):
            if expansion is None:
                self._broken(corpus, case_id, component, rel, before)
                return
            params, label, row = expansion
            derived = case_id + label
            sizes = {k: bounds.shape(v, 10**9, bounds.MAX_FILE_VALUES).nodes for k, v in params.items()}
            charge = functools.partial(self._charge_row, sizes, rel, line, derived, f"/cases/{index}")
            try:
                title = substitute(merged["title"], params, charge)
                claims = _row_claims(defaults, raw_case, prefix, row, params)
                concrete_input = substitute(case_input, params, charge)
                concrete_expect = substitute(expect, params, charge)
            except _UnknownParameter as exc:
                self.problems.append(Problem(rel, line, derived, f"/cases/{index}", "matrix-parameter",
                                             f"{{{{{exc.name}}}}} names no parameter of the matrix"
                                             + did_you_mean(exc.name, params)))
                self._broken(corpus, derived, component, rel, before)
                continue
            except _BlockError as exc:
                self.problems.append(exc.problem)
                self._broken(corpus, derived, component, rel, before)
                return
            mark = len(self.problems)
            self.check_case(rel, doc, prefix, derived, component, merged, concrete_input, corpus.features, claims)
            if len(self.problems) == mark:
                self.check_claims(rel, doc, prefix, derived, component, merged["operation"], concrete_input,
                                  claims, corpus.features)
            self.check_matchers(rel, doc, prefix, derived, concrete_expect, ["expect"])
            self.check_result_keys(rel, doc, prefix, derived, component, merged["operation"], concrete_expect)
            if len(self.problems) > mark:
                self._broken(corpus, derived, component, rel, mark)
                continue
            corpus.cases.append(
                Case(
                    id=derived,
                    component=component,
                    operation=merged["operation"],
                    title=title,
                    features=tuple(name for name, _ in claims),
                    source=merged["source"],
                    input=concrete_input,
                    expect=concrete_expect,
                    file=rel,
                    line=line or 0,
                    base_id=case_id,
                    params=dict(params),
                    notes=raw_case.get("notes"),
                    tags=tuple(merged.get("tags", ())),
                )
            )

    def check_case(self, rel: str, doc: Any, prefix: list, case_id: str, component: str, merged: dict,
                   case_input: dict, features: dict, claims: list[tuple[str, list]]) -> None:
        operation = merged["operation"]
        for name, where in claims:
            pointer = schemas.path_pointer(where)
            known = features.get(name)
            if known is None:
                vocabulary = self.rel(self.root / "features" / f"{component}.yaml")
                self.problems.append(Problem(rel, yamlload.line_of(doc, where), case_id, pointer, "unknown-feature",
                                             f"feature {name!r} is not in {vocabulary}" + did_you_mean(name, features)))
            elif known["component"] != component:
                self.problems.append(Problem(rel, yamlload.line_of(doc, where), case_id, pointer,
                                             "feature-component", f"feature {name!r} belongs to {known['component']}"))
        schema = schemas.operation_schema(component, operation, "input")
        if not schemas.exists(schema):
            self.problems.append(Problem(rel, yamlload.line_of(doc, prefix + ["operation"]), case_id,
                                         f"/cases/{prefix[1]}/operation",
                                         "unknown-operation",
                                         f"{component} has no operation {operation!r} (no schemas/{schema})"
                                         + did_you_mean(operation, schemas.operations().get(component, ()))))
            return
        self._schema_problems(schema, case_input, doc, rel, case_id, prefix + ["input"], f"/cases/{prefix[1]}/input")

    def check_claims(self, rel: str, doc: Any, prefix: list, case_id: str, component: str, operation: str,
                     case_input: dict, claims: list[tuple[str, list]], features: dict) -> None:
        """The `feature-claim` rule (conformance/feature_claims.py): a row claims the
        features its input exercises and no other value's."""
        written = dict(claims)
        for found in feature_claims.check(component, operation, case_input, written, features):
            # A missing claim is pointed at the input field (its line when the case
            # writes it, else the case's); an extra one at where it is claimed.
            where = written.get(found.feature) if found.kind == "extra" else \
                prefix + ["input"] + _pointer_parts(found.pointer)
            line = yamlload.line_of(doc, where) or yamlload.line_of(doc, prefix)
            self.problems.append(Problem(rel, line, case_id, f"/cases/{prefix[1]}/input{found.pointer}",
                                         "feature-claim", found.message))

    def check_matchers(self, rel: str, doc: Any, prefix: list, case_id: str, value: Any, path: list) -> None:
        """Every `$` matcher of the expectation is one compare knows, with an
        argument it can use; otherwise every implementation would fail the case
        (or the comparison would fail on it)."""
        if isinstance(value, list):
            for i, item in enumerate(value):
                self.check_matchers(rel, doc, prefix, case_id, item, path + [i])
            return
        if not isinstance(value, dict):
            return
        dollar = [k for k in value if isinstance(k, str) and k.startswith("$")]
        message = None
        if dollar and len(value) > 1:
            message = f"a matcher is a mapping with a single $ key, not beside other keys: {sorted(map(str, value))}"
        elif dollar:
            (name,) = dollar
            argument = value[name]
            if name not in _MATCHER_ARGUMENTS:
                message = (f"unknown matcher {name!r}{did_you_mean(name, _MATCHER_ARGUMENTS)} "
                           f"(known: {', '.join(_MATCHER_ARGUMENTS)})")
            elif not _MATCHER_ARGUMENTS[name][0](argument):
                message = f"{name} takes {_MATCHER_ARGUMENTS[name][1]}, not {argument!r}"
        if message:
            where = prefix + path
            self.problems.append(Problem(rel, yamlload.line_of(doc, where), case_id,
                                         schemas.path_pointer(where), "matcher", message))
            return
        for key, item in value.items():
            self.check_matchers(rel, doc, prefix, case_id, item, path + [key])

    def check_result_keys(self, rel: str, doc: Any, prefix: list, case_id: str, component: str, operation: str,
                          expect: dict) -> None:
        for unknown in result_keys.check(component, operation, expect.get("result")):
            where = prefix + ["expect", "result"] + unknown.path
            self.problems.append(Problem(rel, yamlload.line_of(doc, where), case_id, schemas.path_pointer(where),
                                         result_keys.RULE, unknown.message))

    def expand_matrix(self, matrix: Any, rel: str, doc: Any, prefix: list, case_id: str):
        """Yield (parameters, id label, row index or None) per combination; None
        after a problem. A row's `features` key is its own feature claims, not a
        parameter."""
        if matrix is None:
            yield {}, "", None
            return
        if isinstance(matrix, dict):
            keys = list(matrix)
            for positions in itertools.product(*(range(len(matrix[k])) for k in keys)):
                params = {k: matrix[k][i] for k, i in zip(keys, positions, strict=True)}
                yield params, _label(params, {k: i + 1 for k, i in zip(keys, positions, strict=True)}), None
            return
        keys = [k for k in matrix[0] if k != ROW_FEATURES]
        for i, row in enumerate(matrix):
            if [k for k in row if k != ROW_FEATURES] != keys:
                self.problems.append(Problem(rel, yamlload.line_of(doc, prefix + ["matrix", i]), case_id,
                                             f"/cases/{prefix[1]}/matrix/{i}", "matrix-rows",
                                             f"every row names the same parameters in the same order: {keys}"))
                yield None
                return
        for i, row in enumerate(matrix):
            params = {k: v for k, v in row.items() if k != ROW_FEATURES}
            yield params, _label(params, dict.fromkeys(params, i + 1)), i

    def _broken(self, corpus: Corpus, case_id: str | None, component: str, rel: str, since: int) -> None:
        if case_id is not None:
            corpus.broken.append(BrokenCase(case_id, component, rel, self.problems[since:], self._case_line))


def _matrix_rows(matrix: Any) -> int:
    if isinstance(matrix, dict):
        return math.prod(len(values) for values in matrix.values())
    return len(matrix) if isinstance(matrix, list) else 1


def _row_claims(defaults: dict, raw_case: dict, prefix: list, row: int | None,
                params: dict[str, Any]) -> list[tuple[str, list]]:
    """The features one row claims, each with where it is written: `defaults`, the
    case's own list, then the row's `features`, with `{{param}}` substituted.
    A name written in several places points at the most specific one."""
    written: list[tuple[str, list]] = [(n, ["defaults", "features", i])
                                       for i, n in enumerate(defaults.get("features", []))]
    written += [(n, prefix + ["features", i]) for i, n in enumerate(raw_case.get("features", []))]
    if row is not None:
        written += [(n, prefix + ["matrix", row, ROW_FEATURES, i])
                    for i, n in enumerate(raw_case["matrix"][row].get(ROW_FEATURES, []))]
    claims: dict[str, list] = {}
    for name, where in written:
        # A later, more specific place replaces the pointer but keeps the name's
        # first position.
        claims[substitute(name, params)] = where
    return list(claims.items())


_MATCHER_ARGUMENTS = {
    "$contains": (lambda a: isinstance(a, str), "a string"),
    "$unordered": (lambda a: isinstance(a, list), "a list"),
    "$absent": (lambda a: a is True, "true"),
    "$exact": (lambda a: isinstance(a, dict), "a mapping"),
    "$quantity": (quantity.is_quantity, "a Kubernetes quantity"),
    "$any": (lambda a: a is True, "true"),
}


class _BlockError(Exception):
    def __init__(self, file: str, line: int | None, case_id: str | None, pointer: str, rule: str, message: str):
        super().__init__(message)
        self.problem = Problem(file, line, case_id, pointer, rule, message)


class _UnknownParameter(KeyError):
    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


def _pointer_parts(pointer: str) -> list[Any]:
    parts: list[Any] = []
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        parts.append(int(part) if part.isdigit() else part)
    return parts


def _label(params: dict[str, Any], positions: dict[str, int]) -> str:
    """`[k1=v1,k2=v2]`; a list or mapping value is named by its position (`k=#2`)
    so ids stay short and stable."""
    parts = [f"{k}={'#' + str(positions[k]) if isinstance(v, (dict, list)) else _text(v)}" for k, v in params.items()]
    return "[" + ",".join(parts) + "]"


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return str(value)


def substitute(value: Any, params: dict[str, Any], charge: Callable[[str | None], None] | None = None) -> Any:
    """Replace matrix parameters inside a value (see docs/fixture-format.md).

    `charge` hears of each value built: None for one node, a parameter's name
    for a copy of that parameter."""
    if charge is not None:
        charge(None)
    if not params and not isinstance(value, (dict, list, str)):
        return value
    if isinstance(value, str):
        whole = _PARAM.fullmatch(value)
        if whole:
            if whole.group(1) not in params:
                raise _UnknownParameter(whole.group(1))
            if charge is not None:
                charge(whole.group(1))
            return copy.deepcopy(params[whole.group(1)])

        def text(match: re.Match) -> str:
            if match.group(1) not in params:
                raise _UnknownParameter(match.group(1))
            if charge is not None:
                charge(match.group(1))
            return _text(params[match.group(1)])

        return _PARAM.sub(text, value)
    if isinstance(value, dict):
        return {substitute(k, params, charge) if isinstance(k, str) else k: substitute(v, params, charge)
                for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, params, charge) for v in value]
    return value


def deep_merge(base: Any, over: Any) -> Any:
    """Mappings merge key by key; anything else in `over` replaces `base` whole."""
    if isinstance(base, dict) and isinstance(over, dict):
        merged = {k: v for k, v in base.items()}
        for key, value in over.items():
            merged[key] = deep_merge(base[key], value) if key in base else value
        return merged
    return over


def load(root: Path | None = None, paths: list[Path] | None = None, extra: Sequence[Path] = ()) -> Corpus:
    """Load the corpus at root (default: the bundled one) with the extra folders
    layered over it (see conformance/extra_corpus.py).

    With paths, only the fixture files under them are loaded, and their ids are
    still checked against every other file of the corpus and the extra folders.
    """
    root = (root or corpus_dir()).resolve()
    extras, setup_problems = prepare_extra(extra, root)
    loader = _Loader(root, extras)
    loader.problems.extend(setup_problems)
    corpus = Corpus(root=root, extra=tuple(extras))
    corpus.features = loader.load_features()
    for one in extras:
        loader.problems.extend(shadowed_blocks(one, root, loader.rel(root)))
        if not fixture_files(root, [one.path], [one.path]):
            loader.problems.append(Problem(one.label, None, None, "", "extra-corpus",
                                           f"extra corpus {one.label} holds no <component>/*.yaml fixture file"))
    selected = fixture_files(root, paths, [e.path for e in extras])
    for path in selected:
        loader.load_file(path, corpus)
    loader.problems.extend(_reused_ids(loader.written))
    if paths:
        loader.problems.extend(_ids_used_elsewhere(loader, root, extras, selected))
    # Each id is one record. An id written twice is reported above; what is left
    # is a matrix deriving the same row twice.
    seen: dict[str, Case | BrokenCase] = {}
    unique: list[Case] = []
    unique_broken: list[BrokenCase] = []
    for record in [*corpus.cases, *corpus.broken]:
        first = seen.get(record.id)
        if first is None:
            seen[record.id] = record
            (unique if isinstance(record, Case) else unique_broken).append(record)
        elif (first.file, first.line) == (record.file, record.line):
            loader.problems.append(Problem(record.file, record.line or None, record.id, "/id", "duplicate-id",
                                           f"the matrix gives the id {record.id!r} to two rows"))
    corpus.broken = unique_broken
    corpus.cases = unique
    corpus.problems = loader.problems
    return corpus


def _place(file: str, line: int | None) -> str:
    return f"{file}:{line}" if line else file


def _reused_ids(written: list[tuple[str, str, int | None]]) -> list[Problem]:
    first: dict[str, tuple[str, int | None]] = {}
    found = []
    for case_id, file, line in written:
        if case_id in first:
            found.append(Problem(file, line, case_id, "/id", "duplicate-id",
                                 f"id {case_id!r} is already used in {_place(*first[case_id])}"))
        else:
            first[case_id] = (file, line)
    return found


def _ids_used_elsewhere(loader: _Loader, root: Path, extras: Sequence[ExtraCorpus],
                        selected: list[Path]) -> list[Problem]:
    """A duplicate-id problem for each id of the selection that a file outside it
    also uses."""
    mine: dict[str, tuple[str, int | None]] = {}
    for case_id, file, line in loader.written:
        mine.setdefault(case_id, (file, line))
    found = []
    chosen = set(selected)
    for path in fixture_files(root, None, [e.path for e in extras]):
        if path in chosen:
            continue
        for case_id, line in case_ids.written(path):
            if case_id in mine:
                file, own_line = mine[case_id]
                found.append(Problem(file, own_line, case_id, "/id", "duplicate-id",
                                     f"id {case_id!r} is already used in {_place(loader.rel(path), line)}"))
    return found
