"""The KEP-6007 branch builds of the kubelet shim, as the merge benchmark uses them.

No served release has a hint score, so the benchmark's KEP-6007 inputs are
timed against the shim built from the two pull requests' trees
(docs/findings/kubelet-kep6007-branches.md says how they were made; the trees
are not in this repository, so these binaries exist only where someone built
them, and the inputs are reference-only elsewhere):

- #141796 adds `TopologyHint.Score`: a permutation carries its hints' mean
  score, and nothing is chosen by it. It refuses the strategy and weight
  options, so it answers the `hint-scores` variant (scored hints, no options).
- #142226 adds `numa-allocation-strategy` and `numa-score-weights` on top: it
  answers the `scores` variant.

The branches' answers are checked like the release's, with one tolerance that
is itself checked: #142226 keeps the incumbent when two permutations merge to
the same mask, before their scores are compared (the findings' item 1; the
contract, following the KEP, lets the score decide). Where #142226's answer
differs, the reference is run again with that one rule changed, through its
exhaustive fold; the difference is accepted only when that answer is
#142226's.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from reference_impl import dispatch
from reference_impl.kubelet import merge as merge_module
from reference_impl.kubelet import policies

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Branch:
    name: str
    # where `build.sh` puts the binary (shims/kubelet/README.md, "Against a KEP-6007 branch")
    binary: str
    variant: str
    # the documented rule under which its answers may differ, checked per input
    known_rule: str | None = None


IDENTICAL_MASKS = "identical-masks-keep-the-incumbent"
BRANCHES = (
    Branch("pr141796", "shims/kubelet/bin/pr141796/kubelet-shim", "hint-scores"),
    Branch("pr142226", "shims/kubelet/bin/pr142226/kubelet-shim", "scores", IDENTICAL_MASKS),
)
RULE_TEXT = {IDENTICAL_MASKS: "keeps the incumbent on identical masks before scores "
                              "(docs/findings/kubelet-kep6007-branches.md, #142226 item 1)"}
# the rerun walks every permutation in Python: tens of microseconds each
RERUN_LIMIT = 200_000


def branch_for(variant: str) -> Branch | None:
    return next((b for b in BRANCHES if b.variant == variant), None)


@contextmanager
def _identical_masks_keep_the_incumbent():
    """The reference's merge with #142226's order: an equal mask keeps the
    incumbent before the score step. Only the exhaustive fold runs meanwhile:
    the shortcuts' proofs rest on the contract's order."""
    contract_compare = merge_module.compare_masks
    contract_merge = policies.merge_lists

    def compare_masks(settings, current, candidate):
        if current.mask == candidate.mask:
            return current
        return contract_compare(settings, current, candidate)

    merge_module.compare_masks = compare_masks
    policies.merge_lists = merge_module.merge_exhaustive
    try:
        yield
    finally:
        merge_module.compare_masks = contract_compare
        policies.merge_lists = contract_merge


RULES: dict[str, Callable] = {IDENTICAL_MASKS: _identical_masks_keep_the_incumbent}


def explained(branch: Branch, input_: dict, permutations: int, upstream_answer: dict) -> bool:
    """Whether the branch's answer is the reference's under the branch's
    documented rule (False when it has none, or the rerun would be too long)."""
    if branch.known_rule is None or permutations > RERUN_LIMIT or "result" not in upstream_answer:
        return False
    with RULES[branch.known_rule]():
        answer = dispatch.run("kubelet", "merge", dict(input_, mergeAlgorithm="full"))
    return answer == upstream_answer["result"]
