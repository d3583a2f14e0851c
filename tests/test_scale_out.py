"""Scale-out: lazy cubes from dask DataFrames, cross_validate and bias_study on a cluster.

The cluster is a small in-process ``distributed.LocalCluster`` (two single-threaded workers),
shared by the module's tests.
"""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import cvframe
from cvframe import CountsError
from cvframe.build import counts_from_frame

# module-scoped fixtures: one worker runs this file, so they are built once
pytestmark = pytest.mark.xdist_group("scale_out")

dask = pytest.importorskip("dask", reason="dask is not installed")
dd = pytest.importorskip("dask.dataframe", reason="dask[dataframe] is not installed")
da = pytest.importorskip("dask.array", reason="dask[array] is not installed")

_lock = threading.Lock()
_calls: list[int] = []


def _spy(part: pd.DataFrame) -> pd.DataFrame:
    """Counts every computation of a partition (dask's meta calls, on 0 or 2 fake rows, not)."""
    if len(part) > 2:
        with _lock:
            _calls.append(len(part))
    return part


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 4000
    y = rng.integers(0, 4, n)
    return pd.DataFrame(
        {
            "y_true": y,
            "y_pred": np.where(rng.random(n) < 0.7, y, rng.integers(0, 4, n)),
            "fold": rng.integers(0, 5, n),
            "repeat": rng.integers(0, 2, n),
            "w": rng.random(n),
        }
    )


def _spied(pdf: pd.DataFrame, npartitions: int = 4):
    return dd.from_pandas(pdf, npartitions=npartitions).map_partitions(_spy)


# --- the lazy cube ------------------------------------------------------------------------------


def test_dask_frame_cube_one_pass_to_label_then_one_per_compute(frame):
    _calls.clear()
    lazy = counts_from_frame(_spied(frame))
    assert len(_calls) == 4  # the one pass that finds classes, folds and repeats
    assert cvframe.schema.is_lazy(lazy)
    _calls.clear()
    got = lazy.compute()
    assert len(_calls) == 4  # every partition computed once for the whole cube
    xr.testing.assert_identical(got, counts_from_frame(frame))


def test_known_classes_and_categorical_groups_need_no_pass(frame):
    pdf = frame.assign(
        fold=pd.Categorical(frame.fold, categories=range(5)),
        repeat=pd.Categorical(frame.repeat, categories=[0, 1]),
    )
    _calls.clear()
    lazy = counts_from_frame(_spied(pdf), labels=[0, 1, 2, 3])
    assert _calls == []  # nothing computed to label the cube
    _calls.clear()
    got = lazy.compute()
    assert len(_calls) == 4
    xr.testing.assert_identical(got, counts_from_frame(frame, labels=[0, 1, 2, 3]))


def test_dask_series_of_one_frame_compute_each_partition_once(frame):
    ddf = _spied(frame, 3)
    lazy = cvframe.from_predictions(ddf.y_true, ddf.y_pred, ddf.fold, repeat=ddf.repeat)
    _calls.clear()
    got = lazy.compute()
    assert len(_calls) == 3
    eager = cvframe.from_predictions(frame.y_true, frame.y_pred, frame.fold, repeat=frame.repeat)
    xr.testing.assert_identical(got, eager)


@pytest.mark.parametrize("kind", ["object", "string", "category"])
def test_string_and_categorical_labels_equal_numpy(frame, kind):
    names = np.array(["ant", "bee", "cat", "dog"], dtype=object)
    yt, yp = names[frame.y_true], names[frame.y_pred]
    dtype = {"object": object, "string": "string", "category": "category"}[kind]
    pdf = frame.assign(y_true=pd.Series(yt).astype(dtype), y_pred=pd.Series(yp).astype(dtype))
    got = counts_from_frame(dd.from_pandas(pdf, npartitions=3)).compute()
    xr.testing.assert_identical(got, counts_from_frame(pdf))


def test_weighted_binary_dask_arrays_equal_numpy(frame):
    yb, pb = (frame.y_true > 1).to_numpy(int), (frame.y_pred > 1).to_numpy(int)
    fold, w = frame.fold.to_numpy(), frame.w.to_numpy()

    def arr(x):
        return da.from_array(x, chunks=900)

    lazy = cvframe.from_predictions(arr(yb), arr(pb), arr(fold), sample_weight=arr(w))
    eager = cvframe.from_predictions(yb, pb, fold, sample_weight=w)
    assert lazy.attrs["task"] == "binary" and lazy.attrs["weighted"] == "yes"
    (got,) = dask.compute(lazy)  # the whole cube in one compute
    for v in ("tp", "fp", "fn", "tn", "confusion"):
        np.testing.assert_allclose(got[v].values, eager[v].values, rtol=1e-12)


def test_label_outside_declared_labels_raises_when_computed(frame):
    pdf = frame.assign(fold=pd.Categorical(frame.fold), repeat=pd.Categorical(frame.repeat))
    lazy = counts_from_frame(dd.from_pandas(pdf, npartitions=2), labels=[0, 1, 2])
    with pytest.raises(CountsError, match=r"y_true has labels \[3\] that are not among"):
        lazy.compute()


def test_missing_label_in_dask_frame_raises_at_build(frame):
    pdf = frame.assign(y_true=frame.y_true.astype(float))
    pdf.loc[5, "y_true"] = np.nan
    with pytest.raises(CountsError, match="y_true has missing labels"):
        counts_from_frame(dd.from_pandas(pdf, npartitions=2))


def test_dask_arrays_of_unknown_chunk_sizes_equal_numpy(frame):
    ddf = dd.from_pandas(frame, npartitions=3)
    cols = [ddf[c].to_dask_array() for c in ("y_true", "y_pred", "fold")]  # chunks unknown
    got = cvframe.from_predictions(*cols).compute()
    eager = cvframe.from_predictions(frame.y_true, frame.y_pred, frame.fold)
    xr.testing.assert_identical(got, eager)


def test_partitions_of_different_numbers_are_refused(frame):
    a = dd.from_pandas(frame, npartitions=2)
    b = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(CountsError, match="different numbers of partitions"):
        cvframe.from_predictions(a.y_true, b.y_pred, a.fold)


# --- a distributed cluster ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_lazy_cube_computes_on_the_cluster(client, frame):
    lazy = counts_from_frame(dd.from_pandas(frame, npartitions=4))
    got = client.compute(lazy).result()  # one graph for the whole cube
    xr.testing.assert_identical(got, counts_from_frame(frame))


def test_cross_validate_on_joblib_dask_backend_equals_local(client):
    joblib = pytest.importorskip("joblib")
    from distributed import get_task_stream
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    X, y = make_classification(150, n_features=6, random_state=0)
    kw = dict(cv=3, random_state=0)
    local = cvframe.cross_validate(LogisticRegression(), X, y, **kw)
    with get_task_stream(client) as ts, joblib.parallel_backend("dask"):
        dist = cvframe.cross_validate(LogisticRegression(), X, y, n_jobs=2, **kw)
    assert len(ts.data) > 0  # the fits ran on the cluster's workers
    pd.testing.assert_frame_equal(dist, local)
    assert dist.attrs == local.attrs


def test_bias_study_on_the_cluster_equals_local(client, capsys):
    kw = dict(prevalence=0.05, f=0.8, stratified=True, trials=1500, chunks=500, seed=3)
    local = cvframe.bias_study(progress=False, **kw)
    dist = cvframe.bias_study(scheduler=client, progress=True, **kw)
    xr.testing.assert_identical(dist, local)
    assert "bias_study" in capsys.readouterr().err  # the progress bar
    by_address = cvframe.bias_study(scheduler=client.scheduler.address, progress=False, **kw)
    xr.testing.assert_identical(by_address, local)


def _fails(x: int) -> int:
    if x == 2:
        raise ValueError("task 2 failed")
    return x


def test_scheduler_keeps_task_order_and_raises_a_failed_task(client):
    from cvframe.simulation import _scheduler

    assert _scheduler.run([(_fails, i) for i in (5, 3, 1)], client, False) == [5, 3, 1]
    with pytest.raises(ValueError, match="task 2 failed"):
        _scheduler.run([(_fails, i) for i in range(4)], client, False)


# --- ddf.cv: the methods of df.cv that run lazily or by reduction --------------------------------


@pytest.fixture(scope="module")
def scored() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 3000
    y = rng.integers(0, 3, n)
    p = rng.dirichlet([1, 1, 1], n) + np.eye(3)[y] * 0.4
    p = np.round(p / p.sum(axis=1, keepdims=True), 2)
    df = pd.DataFrame(
        {
            "repeat": rng.integers(0, 2, n),
            "fold": rng.integers(0, 4, n),
            "y_true": y,
            "y_pred": p.argmax(axis=1),
        }
    )
    for c in range(3):
        df[f"score_{c}"] = p[:, c]
    return df


def test_dask_accessor_equals_pandas(scored):
    ddf = dd.from_pandas(scored, npartitions=3)
    xr.testing.assert_identical(ddf.cv.counts().compute(), scored.cv.counts())
    for name in ("auc", "auc_methods", "average_precision", "brier", "log_loss"):
        xr.testing.assert_allclose(getattr(ddf.cv, name)(), getattr(scored.cv, name)())
    for metric in ("auc", "auc_avg"):
        got, want = ddf.cv.interval(metric), scored.cv.interval(metric)
        xr.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        assert got.attrs == want.attrs
    for name in ("pr_curve", "calibration_curve", "roc"):
        pd.testing.assert_frame_equal(getattr(ddf.cv, name)(), getattr(scored.cv, name)())


def test_dask_accessor_reads_the_frame_once_per_metric(scored):
    _calls.clear()
    scored_spied = _spied(scored, npartitions=3)
    scored_spied.cv.auc("merge")
    assert len(_calls) == 3  # one pass: each partition counted once
    _calls.clear()
    lazy = scored_spied.cv.counts(labels=[0, 1, 2])
    assert _calls == [] or len(_calls) == 3  # the folds (not categorical) found in one pass
    assert cvframe.schema.is_lazy(lazy)


def test_dask_accessor_methods_are_those_of_the_frame_accessor():
    from cvframe.accessors import CVDaskFrameAccessor, CVDataFrameAccessor

    shared = [n for n, v in vars(CVDaskFrameAccessor).items() if callable(v) and n[0] != "_"]
    assert {"counts", "auc", "interval", "pr_curve", "calibration_curve"} <= set(shared)
    for name in shared:  # the very method: signature, docstring and call
        assert vars(CVDaskFrameAccessor)[name] is vars(CVDataFrameAccessor)[name]
    ddf = dd.from_pandas(pd.DataFrame({"fold": [0], "y_true": [1], "score": [0.5]}), 1)
    with pytest.raises(AttributeError, match="compare"):
        ddf.cv.compare()


def test_ddf_cv_exists_when_dask_is_imported_after_cvframe():
    import subprocess
    import sys

    code = (
        "import sys, cvframe\n"
        "assert 'dask' not in sys.modules\n"
        "import dask.dataframe as dd, pandas as pd\n"
        "ddf = dd.from_pandas(pd.DataFrame({'fold': [0, 0, 1, 1], 'y_true': [0, 1, 0, 1],"
        " 'score': [0.1, 0.9, 0.4, 0.3]}), 2)\n"
        "print(float(ddf.cv.auc('merge').item()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    assert out.stdout.strip().splitlines()[-1] == "0.75"


def test_report_of_a_dask_frame_equals_the_pandas_report(scored):
    ddf = dd.from_pandas(scored, npartitions=3)
    want = cvframe.report.report(scored.cv.counts(), scores=scored)
    got = cvframe.report.report(ddf.cv.counts(), scores=ddf)
    assert got == want
