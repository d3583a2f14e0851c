"""Shared test configuration: hypothesis profiles, headless matplotlib, figure cleanup, and
the checkout's cvframe for the subprocesses tests start."""

from __future__ import annotations

import os
import sys

import matplotlib
import pytest
from hypothesis import HealthCheck, settings
from threadpoolctl import threadpool_limits

matplotlib.use("Agg")

# Subprocesses the tests start (examples, the command line, fixture scripts) import the
# cvframe of this checkout, the one the tests import, whatever else is installed.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ["PYTHONPATH"] = os.pathsep.join(
    [_ROOT, *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != _ROOT]]
)

# One BLAS/OpenMP thread per test process: pytest-xdist already runs one worker per core, and
# oversubscribed BLAS threads make small scikit-learn fits 10x slower on a 2-core machine.
# The variables reach the subprocesses; threadpoolctl limits the libraries already loaded.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
threadpool_limits(1)

# Hypothesis profiles (HYPOTHESIS_PROFILE picks one; CI=true picks "ci"). Tests that set
# their own max_examples keep it. "dev" is the default; "ci" tries as many examples (the suite
# must fit CI's five minutes on 2 cores) and prints the blob that reproduces a failure;
# "thorough" is for an occasional deep run by hand
# (HYPOTHESIS_PROFILE=thorough python -m pytest), not for every push: the suite must stay
# within a few minutes on 2 cores.
_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("dev", max_examples=30, **_COMMON)
settings.register_profile("ci", max_examples=30, print_blob=True, **_COMMON)
settings.register_profile("thorough", max_examples=500, print_blob=True, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt = sys.modules.get("matplotlib.pyplot")  # only a test that drew has loaded pyplot
    if plt is not None:
        plt.close("all")


# --- slow tests carry their reason; a test over 10 s without one is listed at the end ----------

#: A test slower than this (its call, on this machine) needs @pytest.mark.slow(reason=...).
SLOW_S = 10.0
_unexplained: list[tuple[str, float]] = []


def pytest_collection_modifyitems(config, items):
    """Every ``slow`` marker says why the test is slow (``reason=``)."""
    bare = [i.nodeid for i in items for m in i.iter_markers("slow") if not m.kwargs.get("reason")]
    if bare:
        raise pytest.UsageError(
            f"{len(bare)} slow marker(s) without a reason, e.g. {bare[:3]}; write "
            '@pytest.mark.slow(reason="what takes the time, about how long").'
        )


def pytest_runtest_logreport(report):
    if report.when == "call" and report.duration > SLOW_S and "slow" not in report.keywords:
        _unexplained.append((report.nodeid, report.duration))


def pytest_terminal_summary(terminalreporter):
    if _unexplained:  # under load every test stretches: a list to look at, not a failure
        terminalreporter.section(f"tests over {SLOW_S:.0f} s without a slow marker")
        for nodeid, took in sorted(_unexplained, key=lambda x: -x[1]):
            terminalreporter.write_line(f"{took:6.1f} s  {nodeid}")


# tests/data holds fixtures and the scripts that made them (run by the regeneration tests,
# not collected: --doctest-modules would import two make_fixtures.py as one module).
collect_ignore_glob = ["data/*"]
