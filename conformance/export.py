"""`topoconf export --format json DIR`: the expanded corpus as plain JSON, so an
implementation in any language can consume the cases without this runner."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from conformance import FORMAT_VERSION, __version__
from conformance.corpus import Corpus


def write_json(corpus: Corpus, out: Path) -> list[Path]:
    by_file = defaultdict(list)
    for case in corpus.cases:
        by_file[case.file].append(case)
    written = []
    index = []
    for file, cases in sorted(by_file.items()):
        target = out / _place(corpus, file)
        target.parent.mkdir(parents=True, exist_ok=True)
        document = {
            "format": FORMAT_VERSION,
            "component": cases[0].component,
            "file": file,
            "cases": [
                {"id": c.id, "title": c.title, "features": list(c.features), "source": c.source,
                 "operation": c.operation, "input": c.input, "expect": c.expect}
                for c in cases
            ],
        }
        target.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        written.append(target)
        index.append({"file": target.relative_to(out).as_posix(), "cases": len(cases)})
    meta = out / "index.json"
    meta.write_text(json.dumps({"suite_version": __version__, "format": FORMAT_VERSION, "corpus": corpus.hash(),
                                "features": corpus.features, "files": index}, indent=1, sort_keys=True) + "\n",
                    encoding="utf-8")
    written.append(meta)
    return written


def _place(corpus: Corpus, file: str) -> Path:
    """Paths inside the export mirror the corpus: <component>/<topic>.json; the
    files of the n-th extra folder go under extra/<n>/ so no two names meet."""
    for number, extra in enumerate(corpus.extra, 1):
        if file.startswith(extra.label + "/"):
            inside = file[len(extra.label) + 1:]
            return (Path("extra") / str(number) / inside).with_suffix(".json")
    return Path(*Path(file).parts[1:]).with_suffix(".json")
