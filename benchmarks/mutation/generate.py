"""mutmut's own mutant generation and coverage statistics, without its per-mutant loop.

Run in a mutmut work folder (the one holding its pyproject.toml), as a child
process of run.py:

    python benchmarks/mutation/generate.py

It does what `mutmut run` does before it tests the first mutant: copies the
sources into mutants/, writes the mutated modules with their trampolines and
the .meta verdict files, and runs the test selection once with the
trampolines recording which test reaches which function
(mutants/mutmut-stats.json). A folder generated before keeps its verdicts; the
statistics are collected again only where mutmut's own change detection says
so. corpus_runner.py then tests the mutants.
"""

from __future__ import annotations

import sys
from pathlib import Path


def generate_mutants() -> int:
    """The mutated copy under mutants/ and its .meta verdict files; returns the files mutated."""
    from mutmut import __main__ as mutmut_main  # noqa: PLC0415
    from mutmut.mutation.trampoline import set_mutant_under_test  # noqa: PLC0415

    set_mutant_under_test("mutant_generation")
    Path("mutants").mkdir(exist_ok=True)
    mutmut_main.copy_src_dir()
    mutmut_main.copy_also_copy_files()
    # Also keeps the unmutated sources off sys.path for the statistics run.
    mutmut_main.setup_source_paths()
    mutmut_main.store_lines_covered_by_tests()
    return mutmut_main.create_mutants(1).mutated


def collect_stats() -> int:
    """mutmut's statistics (which test reaches which function); returns the mutants known."""
    from mutmut import __main__ as mutmut_main  # noqa: PLC0415

    runner = mutmut_main.get_mutant_runner(1)
    mutmut_main.collect_or_load_stats(runner, apply_config_invalidation=True)
    _, by_path = mutmut_main.collect_source_file_mutation_data(mutant_names=())
    mutmut_main._check_test_to_mutant_associations(by_path)
    return sum(len(data.exit_code_by_key) for data in by_path.values())


def main() -> int:
    print(f"generate: {generate_mutants()} files mutated", flush=True)
    print(f"generate: {collect_stats()} mutants; statistics in mutants/mutmut-stats.json", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
