"""The SIG developer's path: the kubelet shim built against a local kubernetes
tree (KUBERNETES_SRC) really links that tree.

The tree is a copy of the pinned release's module source with one constant
changed, the default of max-allowable-numa-nodes (8 upstream, 9 here), which
`start` reports; a build that silently linked the release instead would answer
8. It needs Go and the module cache and costs a build (about half a minute
once the release's packages are in Go's build cache), so it runs only when
TOPOCONF_KUBELET_LOCAL_TREE=1, as the tox `kubelet` env sets after building
the shim.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHIM = ROOT / "shims" / "kubelet"

pytestmark = pytest.mark.skipif(
    os.environ.get("TOPOCONF_KUBELET_LOCAL_TREE") != "1" or shutil.which("go") is None,
    reason="builds the kubelet shim against a local tree; set TOPOCONF_KUBELET_LOCAL_TREE=1 (needs Go)",
)


def pinned_release() -> str:
    match = re.search(r"^\tk8s\.io/kubernetes (v\S+)$", (SHIM / "go.mod").read_text(), re.M)
    assert match, "shims/kubelet/go.mod pins no k8s.io/kubernetes"
    return match.group(1)


def module_source(release: str) -> Path:
    env = dict(os.environ, GOTOOLCHAIN="local", GOFLAGS="-mod=mod")
    out = subprocess.run(["go", "mod", "download", "-json", f"k8s.io/kubernetes@{release}"], cwd="/tmp", env=env,
                         capture_output=True, text=True, check=True).stdout
    return Path(json.loads(out)["Dir"])


def local_tree(tmp_path: Path, release: str) -> Path:
    tree = tmp_path / "kubernetes"
    shutil.copytree(module_source(release), tree)
    for path in [tree, *tree.rglob("*")]:
        if path.is_dir():
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    changed = tree / "pkg" / "kubelet" / "cm" / "topologymanager" / "topology_manager.go"
    changed.chmod(changed.stat().st_mode | stat.S_IWUSR)
    text = changed.read_text()
    assert "defaultMaxAllowableNUMANodes = 8" in text
    changed.write_text(text.replace("defaultMaxAllowableNUMANodes = 8", "defaultMaxAllowableNUMANodes = 9"))
    return tree


def ask(binary: Path, *messages: dict) -> list[dict]:
    lines = "".join(json.dumps(m) + "\n" for m in (*messages, {"cmd": "stop"}))
    out = subprocess.run([str(binary)], input=lines, capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, KUBELET_SHIM_SANDBOXED="0")).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_a_shim_built_against_a_local_tree_answers_with_that_tree(tmp_path):
    release = pinned_release()
    tree = local_tree(tmp_path, release)
    binary = tmp_path / "bin" / "kubelet-shim"
    # The tree is the pinned release's, whatever release the surrounding run builds.
    env = {k: v for k, v in os.environ.items() if k not in ("KUBELET_RELEASE", "KUBELET_SHIM_TAGS", "KUBELET_SHIM_MINOR")}
    env.update(KUBERNETES_SRC=str(tree), KUBELET_SHIM_OUT=str(binary), KUBELET_SHIM_VERSION="local-test")
    build = subprocess.run(["bash", str(SHIM / "build.sh")], env=env, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-4000:]

    hello, started = ask(binary, {"cmd": "hello", "protocol": 1},
                         {"cmd": "run", "seq": 1, "id": "local", "case": {
                             "component": "kubelet", "operation": "start",
                             "input": {"kubeletConfiguration": {"topologyManagerPolicy": "restricted"}}}})[:2]
    assert hello["implementation"]["version"] == "local-test"
    assert started["result"]["options"]["maxAllowableNUMANodes"] == 9
