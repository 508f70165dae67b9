import os
import shutil
import tempfile

from hypothesis import HealthCheck, settings

# ci: reproducible and bounded; nightly: random, many examples, a kept database.
settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=200,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("nightly", max_examples=5000, deadline=None)
settings.register_profile("dev", max_examples=30, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# One corpus cache for the whole run, shared by the xdist workers (they inherit
# the environment) and the topoconf processes tests start: the bundled corpus is
# expanded once per run, and the many small corpora tests build never reach the
# user's own cache folder. A TOPOCONF_CACHE_DIR or TOPOCONF_NO_CACHE already set wins.
_CREATED_CACHE: list[str] = []


def pytest_configure(config):
    if os.environ.get("TOPOCONF_CACHE_DIR") or os.environ.get("TOPOCONF_NO_CACHE"):
        return
    folder = tempfile.mkdtemp(prefix="topoconf-test-cache-")
    os.environ["TOPOCONF_CACHE_DIR"] = folder
    _CREATED_CACHE.append(folder)


def pytest_unconfigure(config):
    for folder in _CREATED_CACHE:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop("TOPOCONF_CACHE_DIR", None)
