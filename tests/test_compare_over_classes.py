"""A metric of every class at once reaches compare and interval through the registry alone.

The tests register a metric that no module names, the macro recall over the classes present
(scikit-learn's balanced accuracy), as one :class:`cvframe.formulas.MetricSpec` with
``over_classes=True`` and one :class:`cvframe.metrics.Metric` entry, and check every fold
test, the resampling tests and both intervals against scikit-learn on the predictions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import stats
from sklearn.metrics import balanced_accuracy_score, confusion_matrix

import cvframe
from cvframe import formulas, metrics
from cvframe.comparison import compare
from cvframe.reduce import _engine

NAME = "fake_bacc"


def _num_den(tp, fp, fn, tn, beta):
    """Sum of the recalls of the classes with support, and how many there are (numpy counts,
    the classes on the last axis)."""
    support = tp + fn
    has = support > 0
    recall = np.where(has, tp / np.where(has, support, 1.0), 0.0)
    return recall.sum(-1), has.sum(-1).astype(np.float64)


@pytest.fixture
def fake(monkeypatch):
    spec = formulas.MetricSpec(
        NAME,
        "sum of the classes' recalls",
        "classes with support",
        _num_den,
        "no class has support",
        ("fake balanced accuracy (empty fold)", "fake balanced accuracy (no samples)"),
        code=-1,
        over_classes=True,
    )
    entry = metrics.Metric(
        NAME,
        "fake balanced accuracy",
        "count",
        NAME,
        ("tp_fp", "avg"),
        scope="all",
        intervals={"tp_fp": "posterior", "avg": "corrected_t"},
        tests={"tp_fp": "paired_delta", "avg": "corrected_t"},
    )
    monkeypatch.setitem(formulas.METRIC_SPECS, NAME, spec)
    monkeypatch.setitem(metrics.REGISTRY, NAME, entry)
    # the fold aggregation keeps two tables of METRIC_SPECS read at import (its names and
    # its warnings' words); a metric added to the table in a test reaches them here
    monkeypatch.setitem(_engine.UNDEFINED, NAME, spec.warning)
    monkeypatch.setattr(_engine.check_metric, "__defaults__", (tuple(formulas.METRIC_SPECS),))
    return NAME


def _frame(n_classes, n=240, folds=5, repeats=1, seed=0):
    """Two models' predictions of the same samples, one row per model, repeat and sample."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    parts = []
    for r in range(repeats):
        fold = rng.permutation(np.arange(n) % folds)
        for model, acc in (("a", 0.6), ("b", 0.8)):
            wrong = rng.integers(0, n_classes, n)
            pred = np.where(rng.random(n) < acc, y, wrong)
            parts.append(
                pd.DataFrame(
                    {"model": model, "repeat": r, "fold": fold, "sample": np.arange(n)}
                    | {"y_true": y, "y_pred": pred}
                )
            )
    return pd.concat(parts, ignore_index=True)


def _per_fold(df):
    """scikit-learn's balanced accuracy per model, repeat and fold: {model: (R, K) array}."""
    out = {}
    for m, part in df.groupby("model"):
        out[m] = np.array(
            [
                [balanced_accuracy_score(f.y_true, f.y_pred) for _, f in rep.groupby("fold")]
                for _, rep in part.groupby("repeat")
            ]
        )
    return out


def _pooled(df):
    """scikit-learn's balanced accuracy of each model's predictions of one repeat merged."""
    return {
        m: np.array([balanced_accuracy_score(r.y_true, r.y_pred) for _, r in p.groupby("repeat")])
        for m, p in df.groupby("model")
    }


# --- compare: the fold tests ------------------------------------------------------------------


@pytest.mark.parametrize("n_classes", [2, 3])
def test_fold_tests_compare_the_per_fold_values_scikit_learn_gives(fake, n_classes):
    df = _frame(n_classes, repeats=2)
    ds = df.cv.counts()
    ba = _per_fold(df)
    d = (ba["b"] - ba["a"]).ravel()
    res = compare(ds, fake, baseline="a")
    assert res.attrs["test"] == "corrected_t" and "class" not in res.dims
    assert res["mean"].item() == pytest.approx(d.mean(), abs=1e-12)
    assert res["effect_size"].item() == pytest.approx(d.mean() / d.std(ddof=1), abs=1e-12)
    np.testing.assert_allclose(res["difference"].values.ravel(), (ba["b"] - ba["a"]).mean(1))
    # the corrected t by hand: 5 folds of 240 samples, n_test/n_train = 1/4
    se = np.sqrt((1 / d.size + 48 / 192) * d.var(ddof=1))
    p = 2 * stats.t.sf(abs(d.mean() / se), d.size - 1)
    assert res["p_value"].item() == pytest.approx(p, rel=1e-9)
    bayes = compare(ds, f"{fake}_avg", baseline="a", test="bayesian")
    assert bayes["mean"].item() == pytest.approx(d.mean(), abs=1e-12)
    assert bayes.attrs["average"].startswith("none") if n_classes > 2 else True
    assert compare(df, fake, baseline="a")["p_value"].item() == pytest.approx(p, rel=1e-9)


def test_five_by_two_and_friedman_read_the_same_values(fake):
    df = _frame(3, n=200, folds=2, repeats=5, seed=3)
    ba = _per_fold(df)
    d = ba["b"] - ba["a"]  # (5 repeats, 2 folds)
    res = compare(df.cv.counts(), fake, baseline="a")
    assert res.attrs["test"] == "5x2cv_t"
    s2 = ((d - d.mean(1, keepdims=True)) ** 2).sum(1)
    assert res["statistic"].item() == pytest.approx(d[0, 0] / np.sqrt(s2.mean()), rel=1e-9)
    f = compare(df.cv.counts(), fake, baseline="a", test="5x2cv_f")
    assert f["statistic"].item() == pytest.approx((d**2).sum() / (2 * s2.sum()), rel=1e-9)
    sets = [_frame(3, seed=s).assign(dataset=f"d{s}") for s in range(3)]
    ranked = compare(pd.concat(sets, ignore_index=True).cv.counts(), fake, baseline="a")
    assert ranked.attrs["test"] == "friedman"
    want = [(v := _per_fold(part))["b"].mean() - v["a"].mean() for part in sets]
    np.testing.assert_allclose(ranked["difference"].values.ravel(), want, atol=1e-12)


# --- compare: the resampling tests ------------------------------------------------------------


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("test", ["bootstrap", "permutation"])
def test_resampling_tests_measure_the_pooled_metric_of_every_class(fake, n_classes, test):
    df = _frame(n_classes, repeats=2, seed=n_classes)
    ba = _pooled(df)
    res = compare(df, f"{fake}_tp_fp", baseline="a", test=test, n_resamples=200, random_state=0)
    # a binary frame's negative class counts too: scikit-learn reads both classes
    np.testing.assert_allclose(res["difference"].values.ravel(), ba["b"] - ba["a"], atol=1e-12)
    assert 0 < res["p_value"].item() <= 1
    if test == "bootstrap":
        assert res["low"].item() < res["mean"].item() < res["high"].item()
    one = compare(
        df, f"{fake}_tp_fp", baseline="a", test=test, n_resamples=200, random_state=0,
        pos_label=1, average=None,
    )  # fmt: skip
    xr.testing.assert_allclose(one[["difference", "p_value"]], res[["difference", "p_value"]])


def test_auto_tests_the_pooled_metric_per_sample_on_the_frame_and_per_fold_on_the_cube(fake):
    df = _frame(3)
    res = compare(df, f"{fake}_tp_fp", baseline="a")
    assert res.attrs["test"] == "paired_delta" and "every class" in res.attrs["average"]
    cube = compare(df.cv.counts(), f"{fake}_tp_fp", baseline="a")
    assert cube.attrs["test"] == "fold_jackknife"
    np.testing.assert_allclose(cube["mean"].values.ravel(), res["mean"].values.ravel())


# --- interval --------------------------------------------------------------------------------


def _dirichlet_interval(conf, level=0.95, draws=40_000, seed=5):
    """The posterior interval of balanced accuracy by numpy: Dirichlet(1/2) draws of the
    pooled confusion matrix, the macro recall of each draw."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(conf.ravel() + 0.5, size=draws).reshape(draws, *conf.shape)
    rows = p.sum(-1)
    ba = (np.diagonal(p, axis1=1, axis2=2) / rows).mean(-1)
    return np.quantile(ba, [(1 - level) / 2, (1 + level) / 2])


@pytest.mark.parametrize("n_classes", [2, 3])
def test_pooled_interval_draws_the_whole_confusion_matrix(fake, n_classes):
    df = _frame(n_classes, n=300, seed=10 + n_classes)
    ds = df[df.model == "b"].cv.counts()
    iv = cvframe.interval(ds, fake, n_boot=20_000)
    assert iv.attrs["method"] == "posterior" and "class" not in iv.dims
    b = df[df.model == "b"]
    assert iv["estimate"].item() == pytest.approx(balanced_accuracy_score(b.y_true, b.y_pred))
    want = _dirichlet_interval(confusion_matrix(b.y_true, b.y_pred).astype(float))
    np.testing.assert_allclose([iv["lower"].item(), iv["upper"].item()], want, atol=0.006)
    assert iv.attrs["metric"] == f"{fake}_tp_fp"
    if n_classes == 2:  # a 2x2 table: the Dirichlet posterior drawn
        assert iv.attrs["draws"] == 20_000
    else:  # a whole confusion matrix: the normal approximation of that posterior
        assert "multinomial one-pass confusion matrix" in iv.attrs["approximation"]
    assert iv.attrs["estimand"].startswith("pooled fake balanced accuracy of these")
    assert cvframe.interval(ds, fake, average="macro", n_boot=20_000).identical(iv)


def test_bootstrap_interval_of_a_binary_cube_and_its_refusal_for_multiclass(fake):
    df = _frame(2, n=300, seed=7)
    ds = df[df.model == "b"].cv.counts()
    iv = cvframe.interval(ds, fake, method="bootstrap", n_boot=4000)
    post = cvframe.interval(ds, fake)
    assert iv["lower"].item() < iv["estimate"].item() < iv["upper"].item()
    assert iv["lower"].item() == pytest.approx(post["lower"].item(), abs=0.02)
    with pytest.raises(ValueError, match="every sample once across the classes.*posterior"):
        cvframe.interval(_frame(3).query("model == 'b'").cv.counts(), fake, method="bootstrap")


def test_fold_averaged_interval_is_the_corrected_t_of_scikit_learns_values(fake):
    df = _frame(3, repeats=2, seed=4)
    b = df[df.model == "b"]
    x = _per_fold(b)["b"].ravel()
    iv = cvframe.interval(b.cv.counts(), f"{fake}_avg")
    se = np.sqrt((1 / x.size + 0.25) * x.var(ddof=1))
    q = stats.t.ppf(0.975, x.size - 1)
    assert iv.attrs["method"] == "corrected_t"
    assert iv["estimate"].item() == pytest.approx(x.mean(), abs=1e-12)
    assert iv["lower"].item() == pytest.approx(x.mean() - q * se, rel=1e-9)
    assert iv["upper"].item() == pytest.approx(min(x.mean() + q * se, 1.0), rel=1e-9)
    same = cvframe.interval(b.cv.counts(), fake, fold_method="avg", level=0.9)
    assert same["upper"].item() < iv["upper"].item() and same.attrs["level"] == 0.9
