"""What a fresh process pays before any work: the modules it does NOT load.

``import cvframe`` registers ``ds.cv`` and ``df.cv`` without importing the report, the
diagnostics, the score metrics or the comparisons (each accessor method imports its module
when called; its docstring is stored with the package, rendered from the function); a small
``cvframe report FILE`` loads neither numba, tqdm, scipy.stats, the runner nor the plotting
stack. It does load dask when dask is installed: xarray imports ``dask.array`` to ask whether
the first array it wraps is a dask array, and cvframe leaves xarray's checks alone
(docs/performance.md gives the cost). Module sets, not times (benchmarks/bench_import.py
and bench_demo.py time them). Each check runs in a fresh interpreter: this one has imported
everything already.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import numpy as np
import pandas as pd
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: What ``import cvframe`` must not load: cvframe's outer modules and what they import.
NOT_ON_IMPORT = (
    "cvframe.report",
    "cvframe.diagnostics",
    "cvframe.bootstrap",
    "cvframe.scores",
    "cvframe.tidy",
    "cvframe.comparison",
    "cvframe.explanation",
    "cvframe.plot",
    "cvframe.cli",
    "cvframe.runner",
    "cvframe.readers",
    "scipy",
    "dask",
    "numba",
    "matplotlib",
    "sklearn",
    "jinja2",
    "tqdm",
)

#: What a small ``cvframe report FILE`` (a CSV with scores, 2 classes) must not load (dask,
#: when installed, is xarray's to load: it asks it of the first array it wraps).
NOT_IN_REPORT = (
    "numba",
    "tqdm",
    "sklearn",
    "joblib",
    "matplotlib",
    "scipy.stats",
    "cvframe.runner",
    "cvframe.plot",
)


def _python(code: str, *args: str, **env: str) -> str:
    """The last line of stdout of ``python -c code args`` in a fresh interpreter."""
    environ = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    environ.update(env)
    environ.pop("CVFRAME_PROGRESS", None)
    res = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=environ,
        cwd=ROOT,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    return res.stdout.strip().splitlines()[-1]


def _loaded(names: tuple[str, ...]) -> str:
    """Code printing, as JSON, which of ``names`` (or their submodules) are loaded."""
    return (
        "import sys, json\n"
        f"print(json.dumps(sorted({{m for m in sys.modules for h in {names!r} "
        "if m == h or m.startswith(h + '.')})))"
    )


#: One fresh interpreter, step by step: what ``import cvframe`` loads, a hint, a method
#: call, the docstrings looked up on instances and classes (which load nothing), as JSON.
_PROBE = f"""
import sys, json, pydoc
import cvframe, pandas as pd
out = {{}}
out["loaded"] = sorted(m for m in sys.modules for h in {NOT_ON_IMPORT!r}
                       if m == h or m.startswith(h + "."))
out["lazy_compare_explain"] = "cvframe.comparison" not in sys.modules and (
    "cvframe.explanation" not in sys.modules)
try:
    pd.DataFrame().cv.report
except AttributeError as exc:
    out["hint"] = str(exc)
out["report_after_hint"] = "cvframe.report" in sys.modules
ds, df = cvframe.datasets.table1(), pd.DataFrame()
ds.cv.expected_cost()
out["after_call"] = ["cvframe.scores" in sys.modules, "cvframe.report" in sys.modules]
out["help"] = pydoc.render_doc(ds.cv.report, renderer=pydoc.plaintext)
names = {{"ds": ["report", "anomalies", "bootstrap_632", "expected_cost", "compare", "interval",
                 "f_tp_fp"],
         "df": ["auc", "roc", "brier", "compare", "interval", "counts"]}}
objs = {{"ds": ds.cv, "df": df.cv}}
out["docs"] = {{k + "." + n: getattr(objs[k], n).__doc__ for k in names for n in names[k]}}
import inspect, xarray as xr
out["class_docs"] = all(inspect.getdoc(getattr(xr.Dataset.cv, n)) for n in names["ds"])
outer = ("cvframe.report", "cvframe.diagnostics", "cvframe.bootstrap", "cvframe.comparison",
         "cvframe.intervals")
out["after_docs"] = sorted(m for m in outer if m in sys.modules)
import cvframe.intervals, cvframe.explanation
from cvframe.comparison import compare
from cvframe.explanation import explain
out["functions"] = [cvframe.compare is compare, cvframe.explain is explain,
                    callable(cvframe.interval)]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def probe() -> dict[str, Any]:
    return json.loads(_python(_PROBE))


@pytest.mark.slow(reason="one fresh interpreter imports cvframe and looks methods up (~2 s)")
def test_import_cvframe_loads_no_outer_module(probe):
    assert probe["loaded"] == [], f"`import cvframe` loaded {probe['loaded']}: load on first use"
    assert probe["lazy_compare_explain"]


def test_a_hint_loads_no_module_and_a_method_loads_only_its_own(probe):
    assert "pred.cv.counts().cv.report(scores=pred)" in probe["hint"]
    assert probe["report_after_hint"] is False
    assert probe["after_call"] == [True, False]  # expected_cost loaded the scores, not the report


def test_help_shows_the_docstring_in_a_fresh_process(probe):
    text = probe["help"]
    assert "apples-to-apples report" in text and "scores : " in text and "ds : " not in text


def test_compare_and_explain_stay_functions_after_their_packages_load(probe):
    assert probe["functions"] == [True, True, True]


def test_docstrings_are_there_without_loading_their_modules(probe):
    from cvframe.accessors import _common

    assert probe["after_docs"] == [] and probe["class_docs"]
    classes = {"ds": "CVDatasetAccessor", "df": "CVDataFrameAccessor"}
    stored = {kind: _common.stored()[name] for kind, name in classes.items()}
    for key, text in probe["docs"].items():
        kind, name = key.split(".")
        assert text == stored[kind][name] and len(text.splitlines()) > 3, key


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory: pytest.TempPathFactory) -> str:
    rng = np.random.default_rng(0)
    n = 20_000
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "repeat": np.arange(n) % 2,
            "fold": (np.arange(n) // 2) % 5,
            "y_true": y,
            "y_pred": np.where(rng.random(n) < 0.8, y, 1 - y),
            "score": np.round(y + rng.normal(0, 1, n), 4),
        }
    )
    path = tmp_path_factory.mktemp("import_cost") / "preds.csv"
    frame.to_csv(path, index=False)
    return str(path)


@pytest.mark.slow(reason="a fresh process runs `cvframe report` on a 20,000-row CSV (~3 s)")
def test_small_report_process_loads_no_heavy_module(small_csv):
    argv = ["report", small_csv, "--format", "json"]  # progress left to the default rule
    code = (
        "import sys, io, contextlib\n"
        "from cvframe.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    assert main({argv!r}) == 0\n"
        "assert out.getvalue().lstrip().startswith('{')\n" + _loaded(NOT_IN_REPORT)
    )
    loaded = json.loads(_python(code))
    assert loaded == [], f"a small `cvframe report` loaded {loaded}"


# --- a dask cube stays lazy --------------------------------------------------------------------


@pytest.mark.slow(reason="a fresh process builds a numpy cube, then a dask one (~3 s)")
def test_a_numpy_cube_then_a_dask_cube_that_stays_lazy():
    pytest.importorskip("dask.array")
    code = (
        "import numpy as np, cvframe\n"
        "ds = cvframe.from_predictions([0, 1, 1, 0], [0, 1, 0, 0], [0, 0, 1, 1])\n"
        "ds.cv.f_tp_fp()\n"
        "import dask.array as da\n"
        "y = da.from_array(np.array([0, 1, 1, 0]), chunks=2)\n"
        "lazy = cvframe.from_predictions(y, y, da.from_array(np.array([0, 0, 1, 1]), chunks=2))\n"
        "print(type(lazy.tp.data).__name__, lazy.chunks is not None,"
        " float(lazy.cv.f_tp_fp().values.ravel()[0]))"
    )
    assert _python(code) == "Array True 1.0"


# --- the command line's progress bar: tqdm only where it could draw -----------------------------


class _Stream:
    def __init__(self, tty: bool) -> None:
        self.tty, self.text = tty, list[str]()

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        self.text.append(text)
        return len(text)

    def flush(self) -> None:
        pass


@pytest.mark.parametrize(
    "show, tty, ipython, made",
    [
        (None, False, False, False),  # no terminal: tqdm would hide it, so it is not imported
        (None, True, False, True),  # a terminal: tqdm draws
        (None, False, True, True),  # IPython: tqdm.auto decides (a widget in Jupyter)
        (True, False, False, True),  # forced
        (False, True, False, False),  # --no-progress
    ],
)
def test_steps_make_a_bar_only_where_it_can_show(monkeypatch, show, tty, ipython, made):
    from cvframe.cli._common import Steps

    monkeypatch.setattr(sys, "stderr", _Stream(tty))
    if ipython:
        monkeypatch.setitem(sys.modules, "IPython", sys.modules.get("IPython") or object())
    else:
        monkeypatch.delitem(sys.modules, "IPython", raising=False)
    steps = Steps(2, "x", show)
    assert (steps._bar is not None) is made
    steps.close()


@pytest.mark.parametrize(
    "env, want", [(None, None), ("", None), ("0", False), ("off", False), ("1", True)]
)
def test_progress_reads_the_environment_as_the_runner_does(monkeypatch, env, want):
    import argparse

    from cvframe.cli._common import progress
    from cvframe.runner import progress_from_env

    if env is None:
        monkeypatch.delenv("CVFRAME_PROGRESS", raising=False)
    else:
        monkeypatch.setenv("CVFRAME_PROGRESS", env)
    assert progress(argparse.Namespace(no_progress=False)) is want is progress_from_env()
    assert progress(argparse.Namespace(no_progress=True)) is False
