"""The kubelet Topology Manager's merge, reference against upstream.

Inputs are made of NUMA size x provider count x hint set x variant:

- hint sets: `dense` (every non-empty mask, preferred when one node wide: what
  the CPU manager offers for a request that fits on one node), `sparse` (three
  masks per provider, drawn with a fixed seed), `realistic` (the CPU-manager
  rule on a partly used machine: a mask is offered when its free capacity
  covers the request, preferred when no narrower mask does; each provider has
  its own request and free capacity);
- variants: `plain`, `prefer-closest` (the option), `hint-scores` (KEP-6007's
  hint scores alone: the merged hint carries their mean), `scores` (KEP-6007:
  hint scores, `least-allocated`, weights).

The release answers `plain` and `prefer-closest`; no served release has a hint
score, so the KEP-6007 variants go to the branch builds (kep6007_branches.py)
when they are built, and are reference only otherwise.

Upstream's merge walks the product of the providers' hint counts, so it is run
only when that product, at the calibrated cost per permutation, fits the
per-call budget; the others are reported as beyond it, with the estimate.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

from reference_impl import dispatch
from reference_impl.kubelet import operations as kubelet_operations

from .kep6007_branches import RULE_TEXT, branch_for, explained
from .shim import Disagreement, ShimProcess, same_answer
from .timing import Sample, interleaved, sections

RESOURCES = ("cpu", "memory", "nvidia.com/gpu", "hugepages-1Gi")
WEIGHTS = "cpu=3,memory=1,nvidia.com/gpu=2"


def distances(n: int) -> list[list[int]]:
    """Two sockets of n/2 nodes; pairs of nodes share a die (11), a socket's
    other nodes are 12 away, the other socket 30 (upstream's 8-node test
    machine, generalised)."""
    socket = max(1, n // 2)

    def d(i: int, j: int) -> int:
        if i == j:
            return 10
        if i // socket != j // socket:
            return 30
        return 11 if i // 2 == j // 2 else 12

    return [[d(i, j) for j in range(n)] for i in range(n)]


def masks(n: int) -> list[tuple[int, ...]]:
    return [c for size in range(1, n + 1) for c in combinations(range(n), size)]


def dense_hints(n: int, scored: bool, salt: int) -> list[dict]:
    return [_hint(m, len(m) == 1, scored, salt + i) for i, m in enumerate(masks(n))]


def sparse_hints(n: int, scored: bool, rng: random.Random, salt: int) -> list[dict]:
    picked = {tuple(sorted(rng.sample(range(n), rng.choice((1, 1, 2, min(4, n)))))) for _ in range(3)}
    return [_hint(m, len(m) == 1, scored, salt + i) for i, m in enumerate(sorted(picked))]


def realistic_hints(n: int, scored: bool, rng: random.Random, salt: int) -> list[dict]:
    free = [rng.choice((0, 2, 4, 8, 16)) for _ in range(n)]
    request = rng.choice((4, 8, 12, 20))
    offered = [m for m in masks(n) if sum(free[i] for i in m) >= request]
    if not offered:
        return []
    narrowest = min(len(m) for m in offered)
    return [_hint(m, len(m) == narrowest, scored, salt + i) for i, m in enumerate(offered)]


def _hint(mask: tuple[int, ...], preferred: bool, scored: bool, salt: int) -> dict:
    hint = {"affinity": list(mask), "preferred": preferred}
    if scored:
        hint["score"] = 1 + (salt * 37) % 100
    return hint


HINT_SETS = ("dense", "sparse", "realistic")
VARIANTS = ("plain", "prefer-closest", "hint-scores", "scores")
ALGORITHMS = ("full", "preferred-first")


def merge_input(n: int, providers: int, hint_set: str, variant: str) -> dict:
    rng = random.Random(f"{n}/{providers}/{hint_set}")
    scored = variant in ("hint-scores", "scores")
    provider_list = []
    for p in range(providers):
        if hint_set == "dense":
            hints = dense_hints(n, scored, 7 * p)
        elif hint_set == "sparse":
            hints = sparse_hints(n, scored, rng, 7 * p)
        else:
            hints = realistic_hints(n, scored, rng, 7 * p)
        provider_list.append({RESOURCES[p % len(RESOURCES)]: hints})
    options: dict[str, str] = {}
    gates: dict[str, bool] = {}
    if n > 8:
        options["max-allowable-numa-nodes"] = str(n)
    if variant == "prefer-closest":
        options["prefer-closest-numa-nodes"] = "true"
    if variant == "scores":
        options.update({"numa-allocation-strategy": "least-allocated", "numa-score-weights": WEIGHTS})
        gates["TopologyManagerPolicyAlphaOptions"] = True
    return {"policy": "best-effort", "options": options, "featureGates": gates,
            "numa": {"nodes": list(range(n)), "distances": distances(n)}, "providers": provider_list}


def permutations(input_: dict) -> int:
    total = 1
    for provider in input_["providers"]:
        for hints in provider.values():
            total *= max(1, len(hints))
    return total


def feasible_hint_set(n: int, hint_set: str) -> bool:
    """Dense sets list every mask: 2^n - 1 hints, which at 32 nodes no
    provider could write out. Realistic sets stop at 8 nodes: their providers'
    narrowest masks need not meet, and without a preferred answer the
    reference searches every partial intersection against every hint (up to
    2^n x 2^n steps a provider: hours at 16 nodes), as upstream walks every
    permutation."""
    if hint_set == "dense":
        return n <= 16
    if hint_set == "realistic":
        return n <= 8
    return True


@dataclass
class MergeRow:
    numa: int
    providers: int
    hint_set: str
    variant: str
    algorithm: str
    hints: int
    permutations: int
    reference: Sample
    upstream: Sample | None
    upstream_note: str
    # the part of the reference's time spent reading the providers' hints
    reference_parse: Sample | None = None
    # the upstream build that answered ("" when none did)
    upstream_build: str = ""
    # a checked, documented rule by which that build's answer differs ("" when it agrees)
    upstream_differs: str = ""

    @property
    def reference_merge(self) -> Sample:
        """The reference's time less reading the hints, run by run."""
        parse = self.reference_parse.seconds if self.reference_parse else [0.0] * len(self.reference.seconds)
        return Sample([t - p for t, p in zip(self.reference.seconds, parse, strict=True)])


def run(shim: ShimProcess | None, sizes: list[int], provider_counts: list[int], budget_s: float, target_s: float,
        log: Callable[[str], None], branches: dict[str, ShimProcess] | None = None) -> list[MergeRow]:
    """Every combination; upstream interleaved with the reference where it fits the budget.
    `shim` is the release; `branches` the KEP-6007 branch builds there are, by name.

    Raises Disagreement when an answer differs (beyond a branch's checked rule)."""
    per_permutation: dict[str, float] = {}
    rows = []
    for n in sizes:
        for providers in provider_counts:
            for hint_set in HINT_SETS:
                if not feasible_hint_set(n, hint_set):
                    continue
                for variant in VARIANTS:
                    upstream, note = _upstream_for(variant, shim, branches or {})
                    if upstream is not None and variant not in per_permutation:
                        per_permutation[variant] = _calibrate(upstream, variant)
                    rows.extend(_one(upstream, note, n, providers, hint_set, variant, per_permutation.get(variant),
                                     budget_s, target_s, log))
    return rows


def _upstream_for(variant: str, shim: ShimProcess | None, branches: dict[str, ShimProcess]):
    """The build that answers a variant, or None with the reason."""
    branch = branch_for(variant)
    if branch is None:
        return shim, "" if shim is not None else "no shim"
    if branch.name in branches:
        return branches[branch.name], ""
    return None, f"KEP-6007 is in no served release, and the {branch.name} build is not here ({branch.binary})"


def _calibrate(shim: ShimProcess, variant: str) -> float:
    """Upstream's cost per permutation, from 8 nodes x 2 dense providers."""
    input_ = merge_input(8, 2, "dense", variant)
    times = shim.bench("merge", input_, 3)
    return min(times.section_s("merge")) / permutations(input_)


def _one(shim, note, n, providers, hint_set, variant, per_permutation, budget_s, target_s, log) -> list[MergeRow]:
    input_ = merge_input(n, providers, hint_set, variant)
    perms = permutations(input_)
    hints = sum(len(h) for p in input_["providers"] for h in p.values())
    upstream_fn = None
    if shim is not None:
        estimate = perms * per_permutation
        if estimate > budget_s:
            note = f"beyond the {budget_s:g} s budget: about {_human(estimate)} ({perms:.3g} permutations)"
        else:
            def upstream_fn(input_=input_):
                times = shim.bench("merge", input_, 1)
                return times.section_s("merge")[0], times.answer
    rows = []
    for algorithm in ALGORITHMS:
        ref_input = dict(input_, mergeAlgorithm=algorithm)

        parse_s: list[float] = []

        def reference_fn(ref_input=ref_input, parse_s=parse_s):
            with sections({(kubelet_operations, "_providers"): "parse"}) as times:
                answer = dispatch.run("kubelet", "merge", ref_input)
            parse_s.append(times.get("parse", 0.0))
            return answer

        # the upstream side is timed once per input, with the first algorithm
        ref, up, ref_answer, up_answer = interleaved(reference_fn, upstream_fn if algorithm == "full" else None,
                                                     target_s)
        name = f"merge {n} NUMA x {providers} {hint_set} providers, {variant}, {algorithm}"
        differs = ""
        if upstream_fn is not None:
            if algorithm == "full":
                upstream_answer, upstream_sample = up_answer, up
            differs = _check(name, variant, input_, perms, ref_answer, upstream_answer)
        row_upstream = upstream_sample if upstream_fn is not None else None
        if "refused" in ref_answer:
            raise Disagreement(f"{name}: the reference refused the benchmark input: {ref_answer}")
        rows.append(MergeRow(n, providers, hint_set, variant, algorithm, hints, perms, ref, row_upstream, note,
                             Sample(parse_s), shim.version if shim is not None and upstream_fn else "", differs))
        log(f"{name}: reference {ref.median_s * 1e3:.3f} ms"
            + (f", upstream {row_upstream.median_s * 1e3:.3f} ms" if row_upstream else f" ({note})")
            + (f"; upstream {differs}" if differs else ""))
    return rows


def _check(name: str, variant: str, input_: dict, perms: int, ref_answer: dict, upstream_answer: dict) -> str:
    """"" when the answers agree; a branch's documented rule when that rule,
    rerun on the reference, gives the branch's answer; else Disagreement."""
    branch = branch_for(variant)
    if upstream_answer.get("result") != ref_answer and branch is not None \
            and explained(branch, input_, perms, upstream_answer):
        return RULE_TEXT[branch.known_rule]
    same_answer(name, ref_answer, upstream_answer)
    return ""


def _human(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} h"
    if seconds < 2 * 365 * 86400:
        return f"{seconds / 86400:.0f} days"
    return f"{seconds / (365 * 86400):.3g} years"
