import os

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
