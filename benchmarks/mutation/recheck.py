"""Recheck the corpus pass's survivors against fixture files written since.

A corpus pass judges every mutant against the corpus as it was when the pass
began (mutmut copies it). A case written afterwards to kill a survivor is
checked here: the named fixture files are copied into the work folder's
mutants/ tree and each survivor is run against them, in one process so the
corpus is parsed once. The verdicts go to .mutation/<component>/recheck.json;
the report counts a survivor they kill as "killed by a case added since".

Run as a child process of run.py (`run.py recheck kubelet --fixture FILE`),
with the mutants tree first on sys.path.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    work, root, *rest = argv
    split = rest.index("--")
    fixtures, names = rest[:split], rest[split + 1:]
    mutants = Path(work) / "corpus" / "mutants"
    for fixture in fixtures:
        shutil.copy(Path(root) / fixture, mutants / fixture)
    os.chdir(mutants)
    sys.path.insert(0, str(mutants))
    import harness_plugin  # noqa: F401, PLC0415
    import pytest  # noqa: PLC0415

    path = Path(work) / "recheck.json"
    verdicts = json.loads(path.read_text()) if path.exists() else {}
    targets = [f.split("/", 1)[1] for f in fixtures]  # node paths are relative to the corpus
    for name in names:
        os.environ["MUTANT_UNDER_TEST"] = name
        with contextlib.redirect_stdout(io.StringIO()):
            code = pytest.main(["-q", "-x", "-p", "no:cacheprovider", "--impl", "reference", "--no-expectations",
                                "--report-dir", str(Path(work) / "recheck-report"), *targets])
        verdicts[name] = {"killed": code == 1, "fixtures": fixtures}
        path.write_text(json.dumps(verdicts, indent=2, sort_keys=True) + "\n")
        print(f"{name}: {'killed' if code == 1 else 'not killed'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
