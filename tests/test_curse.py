"""The winner's curse of a search, corrected (BBC-CV with a half-sampling interval): against a
brute-force re-computation with scikit-learn, on null data (a small version of the docs'
table), and wired into PooledSearchCV and PooledThresholdClassifierCV."""

from __future__ import annotations

import importlib.util
import math
import os
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.naive_bayes import GaussianNB

import cvframe
from cvframe.search import (
    PooledSearchCV,
    PooledThresholdClassifierCV,
    _corrections,
    curse,
    selection_stability,
    threshold_band,
)

matplotlib.use("Agg")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _bench():
    path = os.path.join(ROOT, "benchmarks", "winners_curse.py")
    spec = importlib.util.spec_from_file_location("_test_winners_curse", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = _bench()


def test_bbc_equals_a_brute_force_loop_with_sklearn():
    rng = np.random.default_rng(3)
    frame, _ = BENCH.null_frame(rng, 300, 0.2, candidates=4, rho=0.3)
    out = curse.selection_corrected(frame, "f1", n_bootstraps=40, random_state=7)
    # the same draws, in the same order: the halves first, then the bootstrap weights
    g = np.random.default_rng(7)
    curse._halves(g, 300, curse.HALVES)
    w = curse._weights(g, 40, 300)
    y = frame[frame.param == "c00"].y_true.to_numpy()
    preds = [frame[frame.param == c].y_pred.to_numpy() for c in ["c00", "c01", "c02", "c03"]]
    oob = []
    for b in range(40):
        inbag = [f1_score(y, p, sample_weight=w[b], zero_division=0) for p in preds]
        best = int(np.argmax(inbag))
        out_w = (w[b] == 0).astype(float)
        oob.append(f1_score(y, preds[best], sample_weight=out_w, zero_division=0))
    assert out.score == pytest.approx(np.mean(oob), abs=1e-12)
    assert out.naive == pytest.approx(max(f1_score(y, p) for p in preds))
    assert out.wins.sum() == pytest.approx(1.0)


def test_null_data_curse_measured_and_corrected_small():
    """The docs' table in small: 30 searches at 10 % positives."""
    df = BENCH.study(prevalences=(0.1,), searches=30, n=1000, n_bootstraps=200)
    naive_bias = (df.naive - df.truth).mean()
    corrected_bias = (df.corrected - df.truth).mean()
    mc = (df.corrected - df.truth).std() / math.sqrt(len(df))
    assert naive_bias > 0.02  # the curse: the best of 20 equal candidates looks better
    assert abs(corrected_bias) <= max(0.25 * naive_bias, 2 * mc)
    assert 0.8 <= df.covered.mean() <= 1.0
    assert df.width.mean() < df.percentile_width.mean()  # narrower than the percentile one


def test_selection_corrected_checks_its_arguments():
    frame, _ = BENCH.null_frame(np.random.default_rng(0), 100, 0.3, candidates=3)
    with pytest.raises(ValueError, match="n_bootstraps"):
        curse.selection_corrected(frame, n_bootstraps=5)
    with pytest.raises(ValueError, match="not a count metric"):
        curse.selection_corrected(frame, "roc_auc")
    with pytest.raises(ValueError, match="candidate"):
        curse.selection_corrected(frame, candidate="model")


@pytest.fixture(scope="module")
def search():
    X, y = load_breast_cancer(return_X_y=True)
    grid = {"var_smoothing": [1e-9, 1e-7, 1e-5, 1e-3]}
    return PooledSearchCV(GaussianNB(), grid, cv=5, n_bootstraps=300).fit(X, y)


def test_search_reports_the_corrected_score(search):
    s = search.selection_corrected_
    assert s["naive"] == search.best_score_
    assert s["low"] <= search.best_score_corrected_ <= s["high"]
    assert search.best_score_interval_ == (s["low"], s["high"])
    assert s["bias"] == pytest.approx(s["naive"] - s["score"])
    assert s["n_bootstraps"] == 300 and "BBC-CV" in s["method"]
    table = search.selection_stability_
    assert list(table["choice"]) == [
        "var_smoothing=1e-09",
        "var_smoothing=1e-07",
        "var_smoothing=1e-05",
        "var_smoothing=0.001",
    ]
    assert table["share"].sum() == pytest.approx(1.0)
    assert table["chosen"].sum() == 1 and bool(table["chosen"].iloc[search.best_index_])
    assert table.attrs["n_bootstraps"] == 300
    assert selection_stability(search).equals(table)


def test_search_correction_is_reproducible_and_can_be_skipped():
    X, y = load_breast_cancer(return_X_y=True)
    grid = {"var_smoothing": [1e-9, 1e-3]}
    a = PooledSearchCV(GaussianNB(), grid, cv=3, n_bootstraps=100).fit(X, y)
    b = PooledSearchCV(GaussianNB(), grid, cv=3, n_bootstraps=100).fit(X, y)
    assert a.best_score_corrected_ == b.best_score_corrected_
    off = PooledSearchCV(GaussianNB(), grid, cv=3, n_bootstraps=0).fit(X, y)
    assert math.isnan(off.best_score_corrected_)
    assert off.selection_corrected_["method"].startswith("skipped")
    with pytest.raises(ValueError, match="n_bootstraps"):
        PooledSearchCV(GaussianNB(), grid, n_bootstraps=-1).fit(X, y)


def test_search_correction_other_scorings():
    X, y = make_classification(400, n_classes=3, n_informative=5, random_state=0)
    grid = {"C": [0.01, 1.0]}
    est = LogisticRegression(max_iter=500)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        macro = PooledSearchCV(est, grid, scoring="f1_macro", cv=3, n_bootstraps=100).fit(X, y)
        acc = PooledSearchCV(est, grid, scoring="accuracy", cv=3, n_bootstraps=100).fit(X, y)
        kappa = PooledSearchCV(
            est, grid, scoring=lambda ds: ds.cv.kappa(), cv=3, n_bootstraps=100
        ).fit(X, y)
    for s in (macro, acc, kappa):
        v = s.selection_corrected_
        assert np.isfinite(v["score"]) and v["low"] <= v["score"] <= v["high"]
        assert v["score"] <= v["naive"] + 0.05
    Xb, yb = make_classification(300, weights=[0.8], random_state=0)
    roc = PooledSearchCV(est, grid, scoring="roc_auc", cv=3, n_bootstraps=100).fit(Xb, yb)
    assert math.isnan(roc.best_score_corrected_)
    assert "not computed" in roc.selection_corrected_["method"]


@pytest.fixture(scope="module")
def tuned():
    X, y = make_classification(300, weights=[0.85], random_state=0)
    return PooledThresholdClassifierCV(LogisticRegression(), cv=5, n_bootstraps=200).fit(X, y)


def test_threshold_correction_and_spread(tuned):
    s = tuned.selection_corrected_
    assert s["naive"] == tuned.best_score_
    assert s["low"] <= tuned.best_score_corrected_ <= s["high"]
    spread = tuned.threshold_bootstrap_
    assert spread["n"] == 200 and spread["low"] <= spread["median"] <= spread["high"]
    table = tuned.selection_stability_
    assert table["share"].sum() == pytest.approx(1.0)
    assert table.loc[table["chosen"], "choice"].iloc[0] == pytest.approx(tuned.best_threshold_)
    band = threshold_band(tuned)
    assert list(band.columns) == ["threshold", "score", "low", "high"]
    ok = band.dropna()
    assert (ok["low"] <= ok["high"]).all() and len(ok) <= _corrections.BAND_POINTS
    assert band.attrs["best_threshold"] == tuned.best_threshold_
    assert band.attrs["corrected"] == tuned.best_score_corrected_
    ax = cvframe.plot.threshold_band(band)
    assert ax.get_xlabel() == "threshold" and ax.get_ylabel() == "f_tp_fp"
    import matplotlib.pyplot as plt

    plt.close("all")


def test_threshold_cost_is_corrected_upwards():
    X, y = make_classification(300, weights=[0.85], random_state=0)
    clf = PooledThresholdClassifierCV(
        LogisticRegression(), cv=5, cost_matrix=[[0, 1], [5, 0]], n_bootstraps=200
    ).fit(X, y)
    s = clf.selection_corrected_
    assert s["naive"] == clf.best_score_
    assert s["score"] >= s["naive"] - 0.02  # a chosen cost is optimistic: it was minimised
    assert s["low"] <= s["score"] <= s["high"]
    assert s["bias"] == pytest.approx(s["naive"] - s["score"])


@pytest.mark.parametrize(
    "grid, words",
    [([1.5, 2.0], "above every score"), ([-1.0, -0.5], "at or below every score")],
)
def test_threshold_grid_no_score_reaches_warns(grid, words):
    X, y = make_classification(200, weights=[0.8], random_state=0)
    clf = PooledThresholdClassifierCV(LogisticRegression(), cv=3, thresholds=grid, n_bootstraps=0)
    with pytest.warns(UserWarning, match=rf"{words}.*range over \[[0-9.e-]+, [0-9.]+\]"):
        clf.fit(X, y)


def test_plot_refuses_other_frames():
    with pytest.raises(ValueError, match="threshold_band"):
        cvframe.plot.threshold_band(pd.DataFrame({"x": [1]}))
