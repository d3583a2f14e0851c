"""cvframe.compare: the registry of tests, the one metric table, and bad or unusual inputs
(multiclass data, NaN scores, dask-backed data, every argument checked)."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from sklearn.metrics import accuracy_score, f1_score

import cvframe
from cvframe import formulas, metrics
from cvframe.comparison import (
    FOLD_METRICS,
    MULTILABEL_METRICS,
    POOLED_METRICS,
    REGISTRY,
    TESTS,
    compare,
)

KINDS = {
    "fold",
    "bayesian",
    "jackknife",
    "delta-method",
    "paired ROC",
    "resampling",
    "paired-count",
    "ranking over data sets",
}


def _stack(y, fold, preds, scores=None):
    """A predictions frame of several models (``preds``: name -> predicted labels)."""
    parts = [
        pd.DataFrame(
            {"model": m, "fold": fold, "sample": np.arange(len(y)), "y_true": y, "y_pred": p}
        )
        for m, p in preds.items()
    ]
    if scores is not None:
        parts = [part.assign(score=s) for part, s in zip(parts, scores, strict=True)]
    return pd.concat(parts, ignore_index=True)


@functools.cache
def _multiclass(n=120, folds=5, seed=0):
    """Two models on a 3-class problem: the frame and its cube."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    preds = {m: np.where(rng.random(n) < a, y, (y + 1) % 3) for m, a in (("a", 0.6), ("b", 0.85))}
    df = _stack(y, np.arange(n) % folds, preds)
    return df, df.cv.counts()


@functools.cache
def _binary_frame(n=100, seed=1):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    preds = {m: np.where(rng.random(n) < 0.8, y, 1 - y) for m in ("a", "b")}
    scores = [y * 0.5 + rng.random(n) for _ in preds]
    return _stack(y, rng.permutation(np.arange(n) % 5), preds, scores)


def _per_fold(df, func):
    """func(y_true, y_pred) per model and fold, as (model, fold) arrays."""
    return {
        m: np.array([func(f.y_true, f.y_pred) for _, f in p.groupby("fold")])
        for m, p in df.groupby("model")
    }


# --- the registry -------------------------------------------------------------------------


def test_every_test_name_is_a_registry_entry_with_its_description():
    assert TESTS == ("auto", *REGISTRY)
    for name, t in REGISTRY.items():
        assert t.name == name and t.kind in KINDS, t
        assert len(t.assumes) > 20 and len(t.reference) > 20 and callable(t.run)
        assert t.data in ("cube", "frame", "datasets")
    assert REGISTRY["friedman"].kind == "ranking over data sets"
    assert REGISTRY["mcnemar"].kind == "paired-count"
    assert REGISTRY["bayesian"].kind == "bayesian"


def test_compare_dispatches_through_the_registry_and_reports_its_entry(monkeypatch):
    ds = _multiclass()[1]
    calls = []
    entry = REGISTRY["corrected_t"]

    def spy(req):
        calls.append(req.test)
        return entry.run(req)

    monkeypatch.setitem(REGISTRY, "corrected_t", dataclasses.replace(entry, run=spy))
    res = compare(ds, "f", baseline="a")
    assert calls == ["corrected_t"]
    assert res.attrs["assumes"] == entry.assumes and res.attrs["reference"] == entry.reference


def test_the_metric_views_derive_from_the_metric_registry():
    counts = {m.name for m in metrics.by_kind("count").values() if "avg" in m.tests}
    assert set(FOLD_METRICS.values()) == counts and counts >= set(formulas.METRIC_SPECS)
    for name, metric in {**FOLD_METRICS, **MULTILABEL_METRICS}.items():
        r = metrics.resolve(name)
        assert r.metric == metric and r.variant in (None, "avg")
    for name in POOLED_METRICS:
        r = metrics.resolve(name)
        assert r.variant == r.entry.pooled and r.variant in r.entry.tests
    assert "f_tp_fp" in POOLED_METRICS and "accuracy_tp_fp" in POOLED_METRICS


# --- multiclass data -------------------------------------------------------------------------


def test_multiclass_accuracy_is_accuracy_not_one_vs_rest_per_class():
    df, ds = _multiclass()
    acc = _per_fold(df, accuracy_score)
    res = compare(ds, "accuracy", baseline="a")
    assert "class" not in res.dims
    assert res["mean"].item() == pytest.approx((acc["b"] - acc["a"]).mean())
    assert res.attrs["average"].startswith("none")
    pooled = compare(df, "accuracy_pooled", baseline="a")
    sk = {m: accuracy_score(p.y_true, p.y_pred) for m, p in df.groupby("model")}
    assert pooled["mean"].item() == pytest.approx(sk["b"] - sk["a"])


@pytest.mark.parametrize("average", ["macro", "micro", "weighted"])
def test_multiclass_f_is_compared_through_the_class_average(average):
    df, ds = _multiclass()
    f = _per_fold(df, lambda t, p: f1_score(t, p, average=average))
    res = compare(ds, "f", baseline="a", average=average, zero_division=0.0)
    assert "class" not in res.dims
    assert res["mean"].item() == pytest.approx((f["b"] - f["a"]).mean())
    assert res.attrs["average"] == average and "3 classes" in res.attrs["classes"]
    boot = compare(df, "f_tp_fp", baseline="a", average=average, n_resamples=100)
    sk = {m: f1_score(p.y_true, p.y_pred, average=average) for m, p in df.groupby("model")}
    assert boot["mean"].item() == pytest.approx(sk["b"] - sk["a"])


def test_multiclass_per_class_on_request_and_one_class_by_pos_label():
    df, ds = _multiclass()
    res = compare(ds, "f", baseline="a", average=None)
    assert res.sizes["class"] == 3 and "Holm-adjusted" in res.attrs["classes"]
    one = compare(df, "f", baseline="a", pos_label=2)
    assert one["mean"].item() == pytest.approx(res["mean"].sel({"class": 2}).item())
    boot = compare(df, "f_tp_fp", baseline="a", pos_label=2, n_resamples=100)
    sk = {m: f1_score(p.y_true == 2, p.y_pred == 2) for m, p in df.groupby("model")}
    assert boot["mean"].item() == pytest.approx(sk["b"] - sk["a"])
    assert boot.attrs["pos_label"] == 2


# --- NaN scores, dask-backed data -------------------------------------------------------------


@pytest.mark.parametrize("test", ["bootstrap", "permutation", "friedman"])
def test_a_nan_score_is_an_error_naming_the_column_and_rows(test):
    df = _binary_frame().copy()
    df.loc[[7, 11], "score"] = np.nan
    if test == "friedman":
        df = pd.concat([df.assign(dataset=d) for d in ("d0", "d1")], ignore_index=True)
    with pytest.raises(ValueError, match=r"score.*NaN.*rows \[7, 11\]"):
        compare(df, "auc_merge", test=test, n_resamples=100)


def test_a_dask_backed_cube_gives_the_numpy_result():
    pytest.importorskip("dask")
    ds = _multiclass()[1]
    for metric in ("f", "accuracy"):
        eager = compare(ds, metric, baseline="a")
        lazy = compare(ds.chunk(), metric, baseline="a")
        xr.testing.assert_allclose(eager, lazy)


def test_a_dask_frame_gives_the_pandas_result():
    dd = pytest.importorskip("dask.dataframe")
    df = _binary_frame()
    for metric in ("f_tp_fp", "auc_merge", "f"):
        eager = compare(df, metric, random_state=0, n_resamples=200)
        lazy = compare(dd.from_pandas(df, npartitions=3), metric, random_state=0, n_resamples=200)
        xr.testing.assert_allclose(eager, lazy)


def test_training_rows_of_a_frame_are_not_compared():
    df = _binary_frame()
    both = pd.concat([df.assign(subset="test"), df.assign(subset="train")], ignore_index=True)
    a = compare(df, random_state=0, n_resamples=200)
    b = compare(both, random_state=0, n_resamples=200)
    xr.testing.assert_allclose(a, b)


# --- every argument checked --------------------------------------------------------------------

BAD = [
    ({"level": True}, TypeError, "level=True"),
    ({"level": np.nan}, ValueError, "level=nan"),
    ({"level": 0.9, "alpha": 0.1}, TypeError, "level= only once|once, as level="),
    ({"n_resamples": "100"}, TypeError, "n_resamples='100'"),
    ({"n_resamples": 99}, ValueError, "n_resamples=99"),
    ({"n_resamples": 10**9}, ValueError, "n_resamples=1000000000"),
    ({"random_state": -1}, ValueError, "random_state=-1"),
    ({"random_state": 1.5}, TypeError, "random_state=1.5"),
    ({"baseline": ["a"]}, TypeError, "baseline="),
    ({"baseline": "zz"}, ValueError, "baseline='zz'"),
    ({"dim": 1}, TypeError, "dim=1"),
    ({"dim": "fold"}, ValueError, "dim='fold'"),
    ({"dim": "class"}, ValueError, "dim='class'"),
    ({"metric": None}, ValueError, "metric=None"),
    ({"metric": "auc_merge"}, ValueError, "metric='auc_merge'"),
    ({"test": None}, ValueError, "test=None"),
    ({"test": "wilcoxon"}, ValueError, "test='wilcoxon'"),
    ({"average": "mean"}, ValueError, "average='mean'"),
    ({"rope": np.inf}, ValueError, "rope=inf"),
    ({"beta": -1}, ValueError, "beta=-1"),
    ({"zero_division": "skip"}, ValueError, "zero_division"),
]


@pytest.mark.parametrize("kwargs, error, match", BAD, ids=[str(b[0]) for b in BAD])
def test_every_argument_is_checked_with_a_message_naming_it(kwargs, error, match):
    ds = _multiclass()[1]
    kwargs = {"metric": "f", **kwargs}
    with pytest.raises(error, match=match.replace("[", r"\[")):
        compare(ds, **kwargs)


def test_resampling_tests_refuse_per_class_values():
    df = _multiclass()[0]
    with pytest.raises(ValueError, match="average=None"):
        compare(df, "f_tp_fp", average=None, test="bootstrap")


def test_the_binary_result_keeps_its_class_dim():
    df = _binary_frame()
    res = compare(df.cv.counts(), "f", baseline="a")
    assert res.sizes["class"] == 1 and "average" not in res.attrs
    assert cvframe.compare is compare


# --- the confidence level, names the registry resolves ---------------------------------------


def test_the_confidence_level_is_level_and_alpha_warns_for_one_release():
    ds = _multiclass()[1]
    res = compare(ds, "f", baseline="a", level=0.9)
    assert res.attrs["level"] == 0.9 and "alpha" not in res.attrs
    assert res.attrs["interval"].startswith("90% t interval")
    with pytest.warns(FutureWarning, match="level"):
        old = compare(ds, "f", baseline="a", alpha=0.1)
    xr.testing.assert_identical(old, res)
    wide = compare(ds, "f", baseline="a")
    assert (wide["high"] - wide["low"]).item() > (res["high"] - res["low"]).item()
    with pytest.warns(FutureWarning, match="level"), pytest.raises(ValueError, match="alpha=1.5"):
        compare(ds, "f", alpha=1.5)


def test_scorer_names_and_spellings_mean_the_registry_metric():
    df = _binary_frame()
    kw = {"baseline": "a", "n_resamples": 200, "random_state": 0}
    pooled = compare(df, "f_tp_fp", **kw)
    for name in ("f1", "f_pooled", "f1_macro"):
        same = compare(df, name, **kw)
        assert same.attrs["metric"] == name
        xr.testing.assert_identical(same.drop_attrs(), pooled.drop_attrs())


@pytest.mark.parametrize(
    ("metric", "kw", "match"),
    [
        ("f_pr_re", {}, "F_pr.*no paired test.*.f_tp_fp. \\(paired_delta\\) or .f_avg."),
        ("brier_merge", {}, r"scores.brier_arrays\), not written yet; compare Brier_avg"),
        ("neg_log_loss", {"test": "friedman"}, "lower-is-better"),
        ("f", {"test": "mcnemar"}, "per-fold .F_avg.: test='mcnemar' does not fit it"),
        ("f_tp_fp", {"test": "mcnemar"}, "pooled .* test='mcnemar' does not fit.*'paired_delta'"),
        ("auc_merge", {"test": "paired_delta"}, r"use test='delong' \(or 'auto'\)"),
        ("accuracy", {"test": "bootstrap"}, r"or metric='accuracy_tp_fp' with test='bootstrap'"),
        (
            "auc_merge",
            {"test": "bayesian"},
            r"\(AUC_merge\).*use test='delong' \(or 'auto'\)\.$",
        ),
        ("auc", {}, "across data sets only.*'auc_merge'"),
    ],
)
def test_a_variant_without_its_test_is_refused_with_the_fix(metric, kw, match):
    with pytest.raises(ValueError, match=match):
        compare(_binary_frame(), metric, **kw)
