"""Recheck the corpus pass's survivors against fixture files written since.

A corpus pass judges every mutant against the corpus as it was when the pass
began (mutmut copies it). A case written afterwards to kill a survivor is
checked here: the named fixture files are copied into the work folder's
mutants/ tree and each survivor is run against them, in one process so the
corpus is parsed once. The verdicts go to .mutation/<component>/recheck.json;
the report counts a survivor they kill as "killed by a case added since".

Each survivor runs in its own fork (corpus_runner.py): in one process, pytest
sessions after the first kept answering as the first mutant did.

Run as a child process of run.py (`run.py recheck kubelet --fixture FILE`).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import corpus_runner


def main(argv: list[str]) -> int:
    work, root, *rest = argv
    split = rest.index("--")
    fixtures, names = rest[:split], rest[split + 1:]
    mutants = Path(work) / "corpus" / "mutants"
    for fixture in fixtures:
        shutil.copy(Path(root) / fixture, mutants / fixture)
    campaign = corpus_runner.load_campaign(Path(work) / "corpus", corpus_runner.Limits())
    # Node ids are relative to the corpus folder (kubelet/x.yaml::case).
    files = {f.split("/", 1)[1] for f in fixtures}
    targets = sorted(n for n in campaign.cases if n.split("::", 1)[0] in files)
    corpus_runner.check_clean(campaign, targets, "recheck", "fix the new case before rechecking")
    path = Path(work) / "recheck.json"
    verdicts = json.loads(path.read_text()) if path.exists() else {}
    for name in names:
        # Every case of the new files, whether or not the statistics saw them reach the function.
        campaign.tests_by_function[corpus_runner.mangled_function(name)] = targets
        verdict = corpus_runner.run_one(campaign, name)
        killed = verdict.exit_code in (corpus_runner.KILLED, corpus_runner.TIMEOUT)
        verdicts[name] = {"killed": killed, "fixtures": fixtures, "killed_by": verdict.killed_by}
        path.write_text(json.dumps(verdicts, indent=2, sort_keys=True) + "\n")
        print(f"{name}: {'killed' if killed else 'not killed'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
