"""What a fresh process pays before any work: the modules it does NOT load.

``import cvframe`` registers ``ds.cv`` and ``df.cv`` without importing the report, the
diagnostics, the score metrics or the comparisons (each accessor method imports its module
when called, and is documented on its first look-up, from the same function); a small
``cvframe report FILE`` loads neither dask (xarray asks dask whether a numpy array is a dask
collection: cvframe answers it without the import) nor numba, tqdm, the runner or the
plotting stack. Module sets, not times (benchmarks/bench_import.py and bench_demo.py time
them). Each check runs in a fresh interpreter: this one has imported everything already.
"""

from __future__ import annotations

import inspect
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

#: What a small ``cvframe report FILE`` (a CSV with scores, 2 classes) must not load.
NOT_IN_REPORT = (
    "dask",
    "jinja2",
    "numba",
    "tqdm",
    "sklearn",
    "joblib",
    "matplotlib",
    "scipy.stats",
    "scipy.sparse",
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
#: call, then the docstrings looked up on instances (which load the rest), as JSON.
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


def test_lazy_docstrings_equal_the_rendered_function_docstrings(probe):
    from cvframe import bootstrap, build, diagnostics, reduce, report, scores
    from cvframe._core.docs import accessor_doc
    from cvframe.accessors import CVDataFrameAccessor, CVDatasetAccessor
    from cvframe.accessors._common import in_method_order
    from cvframe.comparison import compare
    from cvframe.intervals import interval

    twins = {
        "ds.report": report.report,
        "ds.anomalies": diagnostics.anomalies,
        "ds.bootstrap_632": bootstrap.bootstrap_632,
        "ds.expected_cost": scores.expected_cost,
        "ds.compare": compare,
        "ds.interval": interval,
        "ds.f_tp_fp": reduce.f_tp_fp,
        "df.auc": scores.auc,
        "df.roc": scores.roc,
        "df.brier": scores.brier,
        "df.compare": compare,
        "df.interval": interval,
        "df.counts": build.counts_from_frame,
    }
    classes = {"ds": CVDatasetAccessor, "df": CVDataFrameAccessor}
    for key, func in twins.items():
        kind, name = key.split(".")
        method = vars(classes[kind])[name]
        assert inspect.isfunction(method) and method.__name__ == name  # plain, once named
        data = ("data",) if name in ("compare", "interval") else ("ds", "df")
        want = in_method_order(accessor_doc(func, data), method)
        assert probe["docs"][key] == want == method.__doc__, key
        assert len(want.splitlines()) > 3


@pytest.mark.slow(reason="a fresh interpreter documents every method of the class (~2 s)")
def test_looking_at_the_class_documents_every_method():
    code = (
        "import sys, inspect, cvframe\n"
        "from cvframe.accessors.dataset import CVDatasetAccessor as C\n"
        "methods = [getattr(C, n) for n in dir(C) if not n.startswith('_') and n != 'plot']\n"
        "docs = [inspect.getdoc(m) for m in methods]\n"
        "print(all(d and len(d.splitlines()) > 3 for d in docs), 'cvframe.report' in sys.modules)"
    )
    assert _python(code) == "True True"


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


# --- xarray's dask check, answered without importing dask ----------------------------------------


def test_collection_check_answers_as_dask_does():
    dask_base = pytest.importorskip("dask.base")
    from xarray.namedarray import utils

    from cvframe.build import _lazy

    assert getattr(utils.is_dask_collection, "_cvframe_deferred", False)
    assert _lazy.defer_collection_check() is False  # never installed twice
    da = pytest.importorskip("dask.array")
    xr = pytest.importorskip("xarray")
    lazy = da.ones(4, chunks=2)
    objects = [
        np.arange(3),
        pd.Index([1, 2]),
        [1, 2],
        3.0,
        lazy,
        xr.DataArray(lazy, dims="x"),
        xr.DataArray(np.arange(3), dims="x"),
        type(lazy),
    ]
    for obj in objects:
        assert utils.is_dask_collection(obj) == dask_base.is_dask_collection(obj), obj


@pytest.mark.slow(reason="a fresh process builds a numpy cube, then a dask one (~3 s)")
def test_a_numpy_cube_loads_no_dask_and_a_dask_cube_still_stays_lazy():
    pytest.importorskip("dask.array")
    code = (
        "import sys, numpy as np, cvframe\n"
        "ds = cvframe.from_predictions([0, 1, 1, 0], [0, 1, 0, 0], [0, 0, 1, 1])\n"
        "ds.cv.f_tp_fp()\n"
        "before = 'dask' in sys.modules\n"
        "import dask.array as da\n"
        "y = da.from_array(np.array([0, 1, 1, 0]), chunks=2)\n"
        "lazy = cvframe.from_predictions(y, y, da.from_array(np.array([0, 0, 1, 1]), chunks=2))\n"
        "print(before, type(lazy.tp.data).__name__, lazy.chunks is not None,"
        " float(lazy.cv.f_tp_fp().values.ravel()[0]))"
    )
    assert _python(code) == "False Array True 1.0"


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
