"""Progress bars where the work is long, and one BLAS thread per parallel fit.

One rule (``cvframe.runner.wants_progress``) decides every bar: ``progress=True``/``False``
wins, then ``CVFRAME_PROGRESS``, then a bar where someone sees it (a terminal or a Jupyter
kernel) when the work is long. ``cross_validate`` with more than one worker fits with one
BLAS/OpenMP thread per fit (threadpoolctl).
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
import uuid
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn", reason="cross_validate needs scikit-learn")
threadpoolctl = pytest.importorskip("threadpoolctl", reason="comes with scikit-learn")

from sklearn.naive_bayes import GaussianNB  # noqa: E402

import cvframe.simulation.study as study_module  # noqa: E402
from cvframe.runner import (  # noqa: E402
    LONG_SECONDS,
    cross_validate,
    progress_bar,
    progress_from_env,
    wants_progress,
)
from cvframe.search import PooledSearchCV  # noqa: E402
from cvframe.simulation import bias_study  # noqa: E402


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


class RecordingNB(GaussianNB):
    """GaussianNB whose ``fit`` writes ``threadpoolctl.threadpool_info()`` to a file in
    ``record_dir`` (one file per fit): what the BLAS/OpenMP libraries of the worker that ran
    the fit were allowed."""

    def __init__(self, record_dir: str = "", priors=None, var_smoothing: float = 1e-9):
        super().__init__(priors=priors, var_smoothing=var_smoothing)
        self.record_dir = record_dir

    def fit(self, X, y, sample_weight=None):
        name = f"{os.getpid()}-{threading.get_ident()}-{uuid.uuid4().hex}.json"
        (Path(self.record_dir) / name).write_text(json.dumps(threadpoolctl.threadpool_info()))
        return super().fit(X, y, sample_weight=sample_weight)


def _data(n: int = 60) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, 3)), np.arange(n) % 2


def _records(path: Path) -> list[list[dict]]:
    return [json.loads(p.read_text()) for p in sorted(path.glob("*.json"))]


def _blas_threads(records: list[list[dict]]) -> set[int]:
    return {lib["num_threads"] for rec in records for lib in rec if lib["user_api"] == "blas"}


@pytest.fixture
def quiet_env(monkeypatch):
    monkeypatch.delenv("CVFRAME_PROGRESS", raising=False)


# --- the rule -------------------------------------------------------------------------------------


def test_rule_explicit_env_and_length(monkeypatch, quiet_env):
    assert wants_progress(True) is True and wants_progress(False) is False
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # nobody watches: no bar by default
    assert wants_progress(None) is False and wants_progress(None, long=True) is False
    monkeypatch.setattr(sys, "stderr", _Terminal())
    assert wants_progress(None) is None  # unknown length: shown after LONG_SECONDS
    assert wants_progress(None, long=True) is True
    assert wants_progress(None, long=False) is False
    monkeypatch.setenv("CVFRAME_PROGRESS", "0")
    assert progress_from_env() is False and wants_progress(None, long=True) is False
    assert wants_progress(True) is True  # the argument wins over the environment
    monkeypatch.setenv("CVFRAME_PROGRESS", "1")
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert wants_progress(None, long=False) is True


def test_default_bar_waits_for_long_work(monkeypatch, quiet_env):
    monkeypatch.setattr(sys, "stderr", _Terminal())
    bar = progress_bar(3, "x", "fit", None)
    assert not bar.disable and bar.delay == LONG_SECONDS
    bar.close()
    assert sys.stderr.getvalue() == ""  # closed before LONG_SECONDS: never drawn
    forced = progress_bar(3, "x", "fit", True)
    assert not forced.disable and forced.delay == 0
    forced.close()


def test_the_cli_name_still_works(monkeypatch):
    from cvframe.cli._common import progress

    monkeypatch.setenv("CVFRAME_PROGRESS", "off")
    assert progress(type("Args", (), {"no_progress": False})()) is False


# --- where it applies -----------------------------------------------------------------------------


def test_cross_validate_bar_forced_and_off(capsys, quiet_env):
    X, y = _data()
    cross_validate(GaussianNB(), X, y, cv=3, progress=True)
    err = capsys.readouterr().err
    assert "cross_validate" in err and "3/3" in err
    cross_validate(GaussianNB(), X, y, cv=3, progress=False)
    cross_validate(GaussianNB(), X, y, cv=3)  # quick, and stderr is not a terminal
    assert capsys.readouterr().err == ""


def test_search_bar_forced_and_off(capsys, quiet_env):
    X, y = _data()
    grid = {"var_smoothing": [1e-9, 1e-3]}
    search = PooledSearchCV(GaussianNB(), grid, cv=3, progress=True).fit(X, y)
    assert search.get_params()["progress"] is True
    assert "PooledSearchCV" in capsys.readouterr().err
    PooledSearchCV(GaussianNB(), grid, cv=3, progress=False).fit(X, y)
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match="progress"):
        PooledSearchCV(GaussianNB(), grid, cv=3, progress="yes").fit(X, y)


def test_bias_study_bar_when_long(monkeypatch, quiet_env):
    kw = {"prevalence": 0.05, "f": 0.8, "stratified": True, "trials": 2000, "seed": 0}
    monkeypatch.setattr(sys, "stderr", _Terminal())
    bias_study(**kw)  # 2000 trials: short, no bar
    assert "bias_study" not in sys.stderr.getvalue()
    monkeypatch.setattr(study_module, "LONG_TRIALS", 1000)  # now the same study is long
    bias_study(**kw)
    assert "bias_study" in sys.stderr.getvalue()


# --- one BLAS thread per parallel fit -------------------------------------------------------------


def _parent_blas() -> set[int]:
    return {i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"}


@pytest.fixture
def two_blas_threads():
    """BLAS allowed two threads in this process (the test session's conftest limits it to one,
    which would make the checks below pass whatever cross_validate does)."""
    with threadpoolctl.threadpool_limits(2):
        if _parent_blas() != {2}:
            pytest.skip("no BLAS library that threadpoolctl can set to two threads")
        yield


def test_thread_workers_fit_with_one_blas_thread(tmp_path, two_blas_threads):
    from joblib import parallel_backend

    X, y = _data()
    with parallel_backend("threading", n_jobs=2):
        cross_validate(RecordingNB(str(tmp_path)), X, y, cv=4, progress=False)
    records = _records(tmp_path)
    assert len(records) == 4 and _blas_threads(records) == {1}
    assert _parent_blas() == {2}  # restored after the pool


def test_one_worker_fits_with_one_blas_thread_by_default(tmp_path, two_blas_threads, monkeypatch):
    monkeypatch.delenv("CVFRAME_THREADS", raising=False)
    X, y = _data()
    cross_validate(RecordingNB(str(tmp_path)), X, y, cv=3, progress=False)
    assert _blas_threads(_records(tmp_path)) == {1}  # before: 2, the library's own
    assert _parent_blas() == {2}  # restored after the pool


@pytest.mark.parametrize("env, want", [("all", {2}), ("2", {2}), ("1", {1})])
def test_cvframe_threads_sets_the_threads_of_a_fit(
    tmp_path, two_blas_threads, monkeypatch, env, want
):
    monkeypatch.setenv("CVFRAME_THREADS", env)
    X, y = _data()
    cross_validate(RecordingNB(str(tmp_path)), X, y, cv=3, progress=False)
    assert _blas_threads(_records(tmp_path)) == want


def test_cvframe_threads_refuses_what_is_no_number(monkeypatch):
    monkeypatch.setenv("CVFRAME_THREADS", "many")
    X, y = _data()
    with pytest.raises(ValueError, match="CVFRAME_THREADS='many' is not valid"):
        cross_validate(GaussianNB(), X, y, cv=3, progress=False)


def test_a_kernel_without_ipywidgets_gets_the_text_bar_quietly(monkeypatch):
    import importlib
    import warnings

    from tqdm import tqdm as text_bar

    progress = importlib.import_module("cvframe.runner._progress")
    monkeypatch.setattr(progress, "in_kernel", lambda: True)
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # not installed
    monkeypatch.delitem(sys.modules, "tqdm.autonotebook", raising=False)
    monkeypatch.delitem(sys.modules, "tqdm.auto", raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # tqdm.auto's TqdmWarning would raise here
        assert progress.bar_class(True) is text_bar
        with progress.progress_bar(3, "cross_validate", "fit", True) as bar:
            bar.update(3)
    assert "tqdm.auto" not in sys.modules and "tqdm.autonotebook" not in sys.modules


@pytest.mark.slow(reason="starts loky worker processes, each importing scikit-learn (~4 s)")
def test_process_workers_fit_with_one_blas_thread(tmp_path, monkeypatch, two_blas_threads):
    from joblib import parallel_config

    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(var, raising=False)
    X, y = _data()
    # workers allowed two threads each: the one-thread limit must come from cross_validate
    with parallel_config(backend="loky", inner_max_num_threads=2):
        frame = cross_validate(RecordingNB(str(tmp_path)), X, y, cv=4, n_jobs=2, progress=False)
    records = _records(tmp_path)
    pids = {p.name.split("-")[0] for p in tmp_path.glob("*.json")}
    assert len(records) == 4 and str(os.getpid()) not in pids  # fitted in worker processes
    assert _blas_threads(records) == {1}
    assert len(frame) == len(y)


# --- Jupyter --------------------------------------------------------------------------------------

_CELL = """
import time
import numpy as np
import cvframe
from sklearn.naive_bayes import GaussianNB


class SlowNB(GaussianNB):
    def fit(self, X, y, sample_weight=None):
        time.sleep(0.35)
        return super().fit(X, y, sample_weight=sample_weight)


X = np.random.default_rng(0).normal(size=(60, 3))
y = np.arange(60) % 2
frame = cvframe.cross_validate(SlowNB(), X, y, cv=10)
print(len(frame))
"""


@pytest.mark.slow(reason="starts a Jupyter kernel and fits for 3.5 s, past the 2 s threshold")
def test_jupyter_kernel_shows_a_bar_by_default(monkeypatch):
    nbformat = pytest.importorskip("nbformat", reason="the notebook test needs nbformat")
    nbclient = pytest.importorskip("nbclient", reason="the notebook test needs nbclient")
    pytest.importorskip("ipykernel", reason="the notebook test needs ipykernel")
    monkeypatch.delenv("CVFRAME_PROGRESS", raising=False)
    root = Path(__file__).resolve().parents[1]  # the kernel imports this checkout's cvframe
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(_CELL)])
    client = nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(root)}}
    )
    client.execute()
    outputs = nb.cells[0].outputs
    widget = any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)
    stderr = "".join(o.get("text", "") for o in outputs if o.get("name") == "stderr")
    assert "60" in "".join(o.get("text", "") for o in outputs if o.get("name") == "stdout")
    assert widget or ("cross_validate" in stderr and "10/10" in stderr), outputs
    # a kernel without ipywidgets: the text bar, without tqdm.auto's TqdmWarning
    assert "TqdmWarning" not in stderr and "IProgress not found" not in stderr, stderr
