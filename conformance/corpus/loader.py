"""Reading fixture files into cases: file-level and case-level schema problems,
defaults and shared input, blocks, matrix rows, and the checks of
conformance/corpus/checks/ on every row."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import conformance.corpus.matrix as matrix
from conformance import bounds, yamlload
from conformance.corpus import cache
from conformance.corpus.blocks import BlockError, Blocks, deep_merge
from conformance.corpus.budget import Budget, matrix_rows
from conformance.corpus.checks import (
    component_folder,
    feature_claims,
    features,
    ids,
    matchers,
    operation,
    required,
    result_keys,
    schema,
    vocabulary,
)
from conformance.corpus.extra import RULE as EXTRA_RULE
from conformance.corpus.extra import ExtraCorpus, shadowed_blocks
from conformance.corpus.extra import prepare as prepare_extra
from conformance.corpus.files import fixture_files
from conformance.corpus.records import BrokenCase, Corpus
from conformance.model import Case, Problem
from conformance.paths import corpus_dir

COMPONENTS = ("kubelet", "koordinator", "kueue")


class _Loader:
    def __init__(self, root: Path, extra: Sequence[ExtraCorpus] = ()):
        self.root = root.resolve()
        self.extra = tuple(extra)
        self.problems: list[Problem] = []
        # Per file: values built while expanding its cases, and cases made.
        self.budget = Budget()
        self.blocks = Blocks(self.root, self.rel, lambda *where: self.budget.charge(*where))
        # Every id as written (id, file, line), in load order: ids are unique as
        # written, whatever rows a matrix derives from them.
        self.written: list[ids.Written] = []
        self._case_line: int | None = None

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

    def _schema_problems(self, *args: Any) -> list[Problem]:
        found = schema.problems(*args)
        self.problems.extend(found)
        return found

    # -- files ------------------------------------------------------------
    def load_file(self, path: Path, corpus: Corpus) -> None:
        rel = self.rel(path)
        extra = self.owner(path)
        home = extra.path if extra is not None else self.root
        self.blocks.scope = (extra.path, self.root) if extra is not None else (self.root,)
        corpus.files.append(rel)
        self.budget = Budget()
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
        self.problems.extend(component_folder.problems(path, home, doc, rel, self.rel))
        defaults = doc.get("defaults", {})
        try:
            shared = self.blocks.resolve(doc.get("shared", {}), rel, yamlload.line_of(doc, ["shared"]), None,
                                         "/shared")
        except BlockError as exc:
            self.problems.append(exc.problem)
            return
        cases = doc.get("cases")
        if not isinstance(cases, list):
            self._schema_problems("fixture.schema.json", doc, doc, rel, None, [])
            return
        for index, raw_case in enumerate(cases):
            if self.budget.stopped:
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
        found = self._schema_problems("fixture.schema.json", wrapper, {"cases": doc["cases"]}, rel, case_id, [])
        # The wrapper puts this case at index 0; point at its real index.
        for i, problem in enumerate(self.problems[before:]):
            fixed_pointer = problem.pointer.replace("/cases/0", f"/cases/{index}", 1)
            self.problems[before + i] = Problem(
                problem.file, yamlload.line_of(doc, prefix + schema.pointer_parts(problem.pointer)[2:]), case_id,
                fixed_pointer, problem.rule, problem.message,
            )
        if found:
            self._broken(corpus, case_id, component, rel, before)
            return
        line = yamlload.line_of(doc, prefix)
        merged = {**defaults, **{k: v for k, v in raw_case.items() if k != "features"}}
        merged["features"] = list(dict.fromkeys(list(defaults.get("features", [])) + list(raw_case.get("features", []))))
        self.problems.extend(required.problems(rel, line, case_id, index, merged))
        if len(self.problems) > before:
            self._broken(corpus, case_id, component, rel, before)
            return
        try:
            case_input = self.blocks.resolve(raw_case["input"], rel, yamlload.line_of(doc, prefix + ["input"]),
                                             case_id, f"/cases/{index}/input")
            expect = self.blocks.resolve(raw_case["expect"], rel, yamlload.line_of(doc, prefix + ["expect"]),
                                         case_id, f"/cases/{index}/expect")
        except BlockError as exc:
            self.problems.append(exc.problem)
            self._broken(corpus, case_id, component, rel, before)
            return
        case_input = deep_merge(shared, case_input)
        # Counted before any row is made: a product of a few short lists can be
        # millions of cases.
        too_many = self.budget.make_cases(matrix_rows(raw_case.get("matrix")), rel,
                                          yamlload.line_of(doc, prefix + ["matrix"]), case_id, f"/cases/{index}/matrix")
        if too_many is not None:
            self.problems.append(too_many)
            self._broken(corpus, case_id, component, rel, before)
            return
        for expansion in matrix.expand(raw_case.get("matrix"), rel, doc, prefix, case_id):
            if isinstance(expansion, Problem):
                self.problems.append(expansion)
                self._broken(corpus, case_id, component, rel, before)
                return
            params, label, row = expansion
            derived = case_id + label
            sizes = {k: bounds.shape(v, 10**9, bounds.MAX_FILE_VALUES).nodes for k, v in params.items()}
            charge = functools.partial(self.budget.charge_row, sizes, rel, line, derived, f"/cases/{index}")
            try:
                title = matrix.substitute(merged["title"], params, charge)
                claims = matrix.row_claims(defaults, raw_case, prefix, row, params)
                concrete_input = matrix.substitute(case_input, params, charge)
                concrete_expect = matrix.substitute(expect, params, charge)
            except matrix.UnknownParameter as exc:
                self.problems.append(exc.problem(rel, line, derived, f"/cases/{index}", params))
                self._broken(corpus, derived, component, rel, before)
                continue
            except BlockError as exc:
                self.problems.append(exc.problem)
                self._broken(corpus, derived, component, rel, before)
                return
            mark = len(self.problems)
            self.check_row(rel, doc, prefix, derived, component, merged["operation"], concrete_input,
                           concrete_expect, claims, corpus.features)
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

    def check_row(self, rel: str, doc: Any, prefix: list, case_id: str, component: str, operation_name: str,
                  case_input: dict, expect: dict, claims: list[tuple[str, list]],
                  known: dict[str, dict[str, Any]]) -> None:
        """The checks of one row, in the order their problems are listed."""
        mark = len(self.problems)
        vocabulary_file = self.rel(self.root / "features" / f"{component}.yaml")
        self.problems.extend(features.problems(rel, doc, case_id, component, claims, known, vocabulary_file))
        self.problems.extend(operation.problems(rel, doc, prefix, case_id, component, operation_name, case_input))
        if len(self.problems) == mark:
            # Claims are judged on an input the schema accepts, against known features.
            self.problems.extend(feature_claims.problems(rel, doc, prefix, case_id, component, operation_name,
                                                         case_input, claims, known))
        self.problems.extend(matchers.problems(rel, doc, prefix, case_id, expect, ["expect"]))
        self.problems.extend(result_keys.problems(rel, doc, prefix, case_id, component, operation_name, expect))

    def _broken(self, corpus: Corpus, case_id: str | None, component: str, rel: str, since: int) -> None:
        if case_id is not None:
            corpus.broken.append(BrokenCase(case_id, component, rel, self.problems[since:], self._case_line))


def load(root: Path | None = None, paths: list[Path] | None = None, extra: Sequence[Path] = ()) -> Corpus:
    """Load the corpus at root (default: the bundled one) with the extra folders
    layered over it (see conformance/corpus/extra.py).

    With paths, only the fixture files under them are loaded, and their ids are
    still checked against every other file of the corpus and the extra folders.
    """
    root = (root or corpus_dir()).resolve()
    if not paths:
        # The whole corpus is what most commands load; it is kept in the cache (cache.py).
        return cache.load(root, extra, functools.partial(_load, root, None, extra))
    return _load(root, paths, extra)


def _load(root: Path, paths: list[Path] | None, extra: Sequence[Path]) -> Corpus:
    extras, setup_problems = prepare_extra(extra, root)
    loader = _Loader(root, extras)
    loader.problems.extend(setup_problems)
    corpus = Corpus(root=root, extra=tuple(extras))
    corpus.features, vocabulary_problems = vocabulary.load(root, loader.rel)
    loader.problems.extend(vocabulary_problems)
    for one in extras:
        loader.problems.extend(shadowed_blocks(one, root, loader.rel(root)))
        if not fixture_files(root, [one.path], [one.path]):
            loader.problems.append(Problem(one.label, None, None, "", EXTRA_RULE,
                                           f"extra corpus {one.label} holds no <component>/*.yaml fixture file"))
    selected = fixture_files(root, paths, [e.path for e in extras])
    for path in selected:
        loader.load_file(path, corpus)
    loader.problems.extend(ids.reused(loader.written))
    if paths:
        chosen = set(selected)
        others = [p for p in fixture_files(root, None, [e.path for e in extras]) if p not in chosen]
        loader.problems.extend(ids.used_elsewhere(loader.written, others, loader.rel))
    corpus.cases, corpus.broken, duplicates = ids.one_record_each(corpus.cases, corpus.broken)
    loader.problems.extend(duplicates)
    corpus.problems = loader.problems
    return corpus
