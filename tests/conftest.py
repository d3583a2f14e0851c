"""Shared test configuration: hypothesis profiles, headless matplotlib, figure cleanup."""

from __future__ import annotations

import os

import matplotlib
import pytest
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

# A fast default profile for development and a thorough one for CI (CI=true).
settings.register_profile(
    "dev", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


# tests/data holds fixtures and the scripts that made them (run by the regeneration tests,
# not collected: --doctest-modules would import two make_fixtures.py as one module).
collect_ignore_glob = ["data/*"]
