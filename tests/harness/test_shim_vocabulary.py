"""The Go shims declare their features from the corpus's vocabulary: each
build.sh writes the names of fixtures/features/<component>.yaml beside the shim
with shims/vocabulary.sh, reading the YAML with awk (the shims have no YAML
decoder). That reading must give exactly the names the corpus loader reads, in
the file's order, or a shim would declare features the corpus does not have
or miss some it does."""

import shutil
import subprocess
from pathlib import Path

import pytest

from conformance import yamlload

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "shims" / "vocabulary.sh"
COMPONENTS = sorted(p.stem for p in (ROOT / "fixtures" / "features").glob("*.yaml"))

pytestmark = pytest.mark.skipif(shutil.which("bash") is None or shutil.which("awk") is None,
                                reason="needs bash and awk, as the shims' build scripts do")


def shim_reading(component: str, dest: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", f'set -euo pipefail; source "{SCRIPT}"; shim_vocabulary "$1" "$2"', "-",
                           component, str(dest)], capture_output=True, text=True, check=False)


@pytest.mark.parametrize("component", COMPONENTS)
def test_the_shims_read_the_vocabulary_the_corpus_reads(component, tmp_path):
    dest = tmp_path / "vocabulary.txt"
    done = shim_reading(component, dest)
    assert done.returncode == 0, done.stderr
    corpus = list(yamlload.load_file(ROOT / "fixtures" / "features" / f"{component}.yaml")["features"])
    assert dest.read_text().splitlines() == corpus


def test_a_component_without_vocabulary_stops_the_build(tmp_path):
    done = shim_reading("no-such-component", tmp_path / "vocabulary.txt")
    assert done.returncode != 0
    assert "no vocabulary for no-such-component" in done.stderr
    assert not (tmp_path / "vocabulary.txt").exists()


def test_an_unchanged_vocabulary_is_not_rewritten(tmp_path):
    dest = tmp_path / "vocabulary.txt"
    assert shim_reading("kubelet", dest).returncode == 0
    before = dest.stat().st_mtime_ns
    dest.touch()
    touched = dest.stat().st_mtime_ns
    assert shim_reading("kubelet", dest).returncode == 0
    assert dest.stat().st_mtime_ns == touched >= before
