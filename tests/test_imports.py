"""``import cvframe`` stays cheap: no heavy module loads until a function needs it.

Each check runs in a fresh interpreter (this process has imported everything already). The
import time itself is not asserted (it depends on the machine); benchmarks/bench_import.py
measures it against ``import xarray``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import cvframe

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Loaded on first use only: distributions, plotting, learners, dask, progress bars, and
# cvframe's own outer layers that need them.
HEAVY = (
    "scipy",
    "matplotlib",
    "seaborn",
    "sklearn",
    "dask",
    "distributed",
    "tqdm",
    "numba",
    "statsmodels",
    "joblib",
    "cvframe.plot",
    "cvframe.cli",
    "cvframe.runner",
    "cvframe.search",
    "cvframe.simulation",
    "cvframe.splits",
    "cvframe.readers",
)

_PROBE = """
import sys, json
import xarray
after_xarray = set(sys.modules)
import cvframe
modules = sorted(sys.modules)
# then, in the same process, after the modules are read: the outer modules load and the
# package's names stay the functions
import cvframe.comparison, cvframe.explanation
from cvframe.comparison import compare
functions = [
    cvframe.compare is compare,
    callable(cvframe.explain) and not hasattr(cvframe.explain, "__path__"),
]
print(json.dumps({"xarray": sorted(after_xarray), "all": modules, "functions": functions}))
"""


@pytest.fixture(scope="module")
def loaded() -> dict[str, list]:
    """Modules of a fresh interpreter after ``import xarray``, then after ``import cvframe``;
    then, whether ``cvframe.compare`` and ``cvframe.explain`` are still the functions once
    ``cvframe.comparison`` and ``cvframe.explanation`` are imported (one interpreter for
    both: the modules are read before the second step imports anything)."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _top(name: str) -> str:
    return name.split(".")[0]


def test_import_loads_no_heavy_module(loaded):
    heavy = [m for m in loaded["all"] if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert heavy == [], f"`import cvframe` loaded {heavy}; import them inside the function"


def test_import_loads_no_third_party_package_beyond_xarray(loaded):
    # what start-up and `import xarray` load (numpy, pandas, ...) is paid already
    paid = {_top(m) for m in loaded["xarray"]} | set(sys.stdlib_module_names)
    extra = sorted({_top(m) for m in loaded["all"]} - paid - {"cvframe", "__main__"})
    assert extra == [], f"`import cvframe` loaded {extra} beyond what `import xarray` loads"


def test_import_loads_the_accessors_and_nothing_else_of_cvframe(loaded):
    """The accessors and what they need to register: every function's module (the cube's
    builders and reductions included) loads on first use, which keeps ``import cvframe``
    within a few milliseconds of ``import xarray``."""
    ours = sorted(m for m in loaded["all"] if _top(m) == "cvframe")
    accessors = ["", "._common", "._hints", ".dask_frame", ".dataset", ".frame"]
    assert ours == sorted(
        ["cvframe", "cvframe._version", "cvframe.errors", "cvframe._core", "cvframe._core.types"]
        + [f"cvframe.accessors{m}" for m in accessors]
    )


@pytest.mark.parametrize("name", cvframe.__all__)
def test_every_public_name_resolves(name):
    assert getattr(cvframe, name) is not None
    assert name in dir(cvframe)


@pytest.mark.parametrize("name", cvframe.__all__)
def test_from_import_works(name):
    namespace: dict[str, object] = {}
    exec(f"from cvframe import {name}", namespace)  # noqa: S102 - the statement under test
    assert namespace[name] is getattr(cvframe, name)


def test_compare_and_explain_stay_functions_after_their_modules_load(loaded):
    # [cvframe.compare is the comparison's compare, cvframe.explain a function, no package]
    assert loaded["functions"] == [True, True], loaded["functions"]


def test_accessors_register_on_import(loaded):
    assert "cvframe.accessors" in loaded["all"]
    import pandas as pd
    import xarray as xr

    assert hasattr(xr.Dataset(), "cv") and hasattr(pd.DataFrame(), "cv")


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        cvframe.no_such_name  # noqa: B018
