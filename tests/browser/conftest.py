"""Headless Chromium for the report's browser tests: absent locally, the tests
say so and skip; in CI (CI=true) its absence is a failure, never a skip."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from chromium import Browser, find  # noqa: E402

INSTALL = ("headless Chromium was not found (looked for chromium, chromium-browser, google-chrome, or "
           "TOPOCONF_CHROMIUM); on Debian or Ubuntu: sudo apt-get install chromium")


@pytest.fixture(scope="session")
def artifacts() -> Path:
    folder = Path(os.environ.get("TOPOCONF_ARTIFACTS") or Path(__file__).parents[2] / "reports" / "browser")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def browser():
    executable = find()
    if executable is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and {INSTALL}")
        pytest.skip(INSTALL)
    # One browser for the whole session: the tests run one at a time in it.
    instance = Browser(executable)
    yield instance
    instance.close()
