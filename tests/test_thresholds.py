"""Counts and metrics at every cut-off (``metric_at_thresholds``) against brute force, and
``PooledThresholdClassifierCV``: the threshold that maximises the pooled metric of the
out-of-fold scores of ``cross_val_predict`` on the same splitter, the fold-averaged and
per-fold choices, folds missing a class, and scikit-learn's estimator checks."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    f1_score,
    fbeta_score,
    precision_score,
    recall_score,
)
from sklearn.model_selection import (
    KFold,
    RepeatedStratifiedKFold,
    StratifiedKFold,
    cross_val_predict,
)
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

import cvframe
from cvframe import PooledThresholdClassifierCV, scores


def _frame(seed: int, n: int = 80, folds: int = 4):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(int)
    s = np.round(rng.normal(0, 1, n) + y, 1)  # ties
    return pd.DataFrame({"fold": np.arange(n) % folds, "y_true": y, "score": s})


_SK = {
    "f": lambda y, p: f1_score(y, p, zero_division=0),
    "precision": lambda y, p: precision_score(y, p, zero_division=0),
    "recall": lambda y, p: recall_score(y, p, zero_division=0),
    "accuracy": accuracy_score,
}


@pytest.mark.parametrize("metric", list(_SK))
def test_metric_at_thresholds_equals_brute_force(metric):
    df = _frame(0)
    t = scores.metric_at_thresholds(df, metric)
    groups = [("fold", f, part) for f, part in df.groupby("fold")] + [("merged", None, df)]
    for kind, f, part in groups:
        rows = t[(t.kind == kind) & ((t.fold == f) if f is not None else t.fold.isna())]
        cuts = np.unique(part.score)[::-1]
        np.testing.assert_array_equal(rows.threshold, cuts)
        y = part.y_true.to_numpy()
        for (_, row), c in zip(rows.iterrows(), cuts, strict=True):
            pred = (part.score >= c).to_numpy().astype(int)
            assert row.tp == np.sum(pred & y) and row.fp == np.sum(pred & (1 - y))
            assert row.fn == np.sum((1 - pred) & y) and row.tn == np.sum((1 - pred) & (1 - y))
            assert row[metric] == pytest.approx(_SK[metric](y, pred), abs=1e-12)


def test_metric_at_given_thresholds_lines_folds_up_and_warns_once():
    df = _frame(1)
    cuts = [5.0, 0.5, -0.3]
    with pytest.warns(
        cvframe.UndefinedMetricWarning, match="precision is undefined .* 5 of 15 rows"
    ):
        t = scores.metric_at_thresholds(df, "precision", cuts)
    assert (
        t.groupby(["kind", "fold"], dropna=False)
        .threshold.apply(list)
        .map(lambda v: v == [5.0, 0.5, -0.3])
        .all()
    )
    top = t[t.threshold == 5.0]
    assert (top.tp == 0).all() and (top.fp == 0).all() and (top.precision == 0).all()
    f = scores.metric_at_thresholds(df, "f", [0.5], beta=2.0, zero_division=np.nan)
    merged = f[f.kind == "merged"].iloc[0]
    assert merged.f == pytest.approx(fbeta_score(df.y_true, df.score >= 0.5, beta=2.0))
    counts = scores.metric_at_thresholds(df, None, [0.5])
    assert list(counts.columns[-5:]) == ["threshold", "tp", "fp", "fn", "tn"]
    pd.testing.assert_frame_equal(df.cv.metric_at_thresholds(None, [0.5]), counts)


def test_metric_at_thresholds_bad_inputs():
    df = _frame(0)
    with pytest.raises(ValueError, match="metric"):
        scores.metric_at_thresholds(df, "auc")
    with pytest.raises(ValueError, match="NaN"):
        scores.metric_at_thresholds(df, "f", [0.1, np.nan])
    with pytest.raises(ValueError, match="method"):
        scores.metric_at_thresholds(df, "f", method="avg")


# --- PooledThresholdClassifierCV -------------------------------------------------------------


def _data(n=150, weight=0.85, seed=0):
    return make_classification(
        n, n_features=6, n_informative=3, weights=[weight], flip_y=0.05, random_state=seed
    )


def _oof(X, y, cv):
    return cross_val_predict(LogisticRegression(), X, y, cv=cv, method="predict_proba")[:, 1]


def _brute(y, p, score, minimize=False):
    """The best value and the lowest threshold reaching it, over every unique score."""
    values = np.array([score(y, (p >= t).astype(int)) for t in np.unique(p)])
    best = values.min() if minimize else values.max()
    return best, np.unique(p)[np.flatnonzero(np.isclose(values, best, rtol=0, atol=1e-12))[0]]


@pytest.mark.parametrize(
    ("scoring", "score"),
    [
        ("f1", lambda y, p: f1_score(y, p, zero_division=0)),
        ("balanced_accuracy", balanced_accuracy_score),
        ("accuracy", accuracy_score),
    ],
)
def test_chosen_threshold_maximises_pooled_metric_of_cross_val_predict(scoring, score):
    X, y = _data()
    cv = StratifiedKFold(5, shuffle=True, random_state=3)
    clf = PooledThresholdClassifierCV(LogisticRegression(), scoring=scoring, cv=cv).fit(X, y)
    p = _oof(X, y, cv)
    best, thr = _brute(y, p, score)
    assert clf.best_score_ == pytest.approx(best, abs=1e-12)
    assert clf.best_threshold_ == pytest.approx(thr, abs=1e-12)
    assert score(y, (p >= clf.best_threshold_).astype(int)) == pytest.approx(best, abs=1e-12)
    np.testing.assert_allclose(np.sort(clf.cv_predictions_.score), np.sort(p), atol=1e-12)
    assert len(clf.cv_results_) == len(np.unique(p))


def test_cost_matrix_minimises_pooled_expected_cost():
    X, y = _data(seed=1)
    cost = np.array([[0.0, 1.0], [5.0, 0.0]])
    cv = StratifiedKFold(4)
    clf = PooledThresholdClassifierCV(LogisticRegression(), cv=cv, cost_matrix=cost).fit(X, y)

    def expected(yt, yp):
        return (
            cost[0, 1] * np.sum((yt == 0) & (yp == 1)) + cost[1, 0] * np.sum((yt == 1) & (yp == 0))
        ) / len(yt)

    best, thr = _brute(y, _oof(X, y, cv), expected, minimize=True)
    assert clf.best_score_ == pytest.approx(best) and clf.best_threshold_ == pytest.approx(thr)
    assert clf.scoring_ == "expected_cost"


def test_repeats_pool_every_repeat_and_fold_choices_are_the_folds_argmax():
    X, y = _data(seed=2)
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    clf = PooledThresholdClassifierCV(LogisticRegression(), cv=cv).fit(X, y)
    df = clf.cv_predictions_
    y_all, p_all = df.y_true.to_numpy(), df.score.to_numpy()
    per = clf.thresholds_per_fold_
    assert len(per) == 6 and per.threshold.notna().all()
    cands = np.unique(p_all)
    curves = []
    for (r, f), part in df.groupby(["repeat", "fold"]):
        yt, s = part.y_true.to_numpy(), part.score.to_numpy()
        pred = s[:, None] >= cands[None, :]  # F at every candidate at once
        tp = (pred & (yt[:, None] == 1)).sum(0)
        curve = 2 * tp / (pred.sum(0) + yt.sum())
        curves.append(curve)
        row = per[(per.repeat == r) & (per.fold == f)].iloc[0]
        assert row.score == pytest.approx(curve.max())
        assert row.threshold == cands[np.argmax(curve)]
    pred = p_all[:, None] >= cands[None, :]
    pooled = 2 * (pred & (y_all[:, None] == 1)).sum(0) / (pred.sum(0) + y_all.sum())
    assert clf.best_score_ == pytest.approx(pooled.max())
    assert clf.best_threshold_ == cands[np.argmax(pooled)]
    mean = np.mean(curves, axis=0)
    assert clf.fold_averaged_threshold_ == cands[np.argmax(mean)]
    assert clf.fold_averaged_score_ == pytest.approx(mean.max())
    assert clf.threshold_spread_["n"] == 6
    assert clf.threshold_spread_["std"] == pytest.approx(per.threshold.std(ddof=1))


def test_fold_missing_a_class_is_flagged_and_undefined():
    X, y = _data(n=120, weight=0.9, seed=3)
    rng = np.random.default_rng(0)
    neg = np.flatnonzero(y == 0)
    # every positive among the first 90 rows: the last of 4 unshuffled folds has none
    head = rng.permutation(np.r_[np.flatnonzero(y == 1), neg[: 90 - np.sum(y)]])
    order = np.r_[head, neg[90 - np.sum(y) :]]
    X, y = X[order], y[order]
    with pytest.warns(UserWarning, match="test folds lack a class"):
        clf = PooledThresholdClassifierCV(LogisticRegression(), cv=KFold(4)).fit(X, y)
    missing = clf.folds_missing_class_
    assert len(missing) >= 1 and set(missing.missing) <= {"positive", "negative"}
    per = clf.thresholds_per_fold_.merge(missing, on=["repeat", "fold"])
    assert per.threshold.isna().all()
    assert np.isfinite(clf.best_threshold_)


def test_predict_uses_the_threshold_and_delegates():
    X, y = _data(seed=4)
    clf = PooledThresholdClassifierCV(LogisticRegression(), thresholds=50).fit(X, y)
    proba = clf.predict_proba(X)[:, 1]
    np.testing.assert_array_equal(clf.predict(X), (proba >= clf.best_threshold_).astype(int))
    np.testing.assert_allclose(clf.decision_function(X), clf.estimator_.decision_function(X))
    assert len(clf.cv_results_) <= 50
    clf = PooledThresholdClassifierCV(LogisticRegression(), thresholds=[0.2, 0.5, 0.8]).fit(X, y)
    assert clf.best_threshold_ in (0.2, 0.5, 0.8)


def test_decision_function_and_string_labels_with_the_first_class_positive():
    X, y = _data(seed=5)
    labels = np.where(y == 1, "bad", "good")  # "bad" sorts first: classes_[0]
    clf = PooledThresholdClassifierCV(LinearSVC(), pos_label="bad", scoring="recall").fit(X, labels)
    assert clf.response_method_ == "decision_function" and clf.pos_label_ == "bad"
    s = -clf.estimator_.decision_function(X)  # the score of "bad"
    np.testing.assert_array_equal(clf.predict(X), np.where(s >= clf.best_threshold_, "bad", "good"))
    assert not hasattr(clf, "predict_proba")


def test_pooled_and_fold_averaged_choices_can_differ():
    X, y = make_classification(200, n_features=5, weights=[0.93], flip_y=0.02, random_state=11)
    clf = PooledThresholdClassifierCV(LogisticRegression(), cv=10).fit(X, y)
    assert clf.best_threshold_ != clf.fold_averaged_threshold_
    assert clf.threshold_spread_["std"] > 0


def test_bad_parameters_are_named():
    X, y = _data()
    with pytest.raises(ValueError, match="roc_auc"):
        PooledThresholdClassifierCV(LogisticRegression(), scoring="roc_auc").fit(X, y)
    with pytest.raises(ValueError, match="scoring="):
        PooledThresholdClassifierCV(LogisticRegression(), scoring="nope").fit(X, y)
    with pytest.raises(ValueError, match="cost_matrix"):
        PooledThresholdClassifierCV(LogisticRegression(), cost_matrix=[1, 2]).fit(X, y)
    with pytest.raises(ValueError, match="thresholds"):
        PooledThresholdClassifierCV(LogisticRegression(), thresholds=[np.nan]).fit(X, y)
    with pytest.raises(ValueError, match="binary"):
        PooledThresholdClassifierCV(LogisticRegression()).fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="response_method"):
        PooledThresholdClassifierCV(LogisticRegression(), response_method="predict").fit(X, y)


_EXPECTED_FAILURES = {
    "check_classifiers_train": (
        "the tuned threshold is not 0.5: predict disagrees with predict_proba >= 0.5 by design "
        "(as TunedThresholdClassifierCV)"
    ),
    "check_fit2d_1feature": (
        "10 samples cannot fill 5 stratified folds: cvframe.cross_validate refuses with its "
        "own message (scikit-learn only warns)"
    ),
}


@pytest.mark.slow(reason="scikit-learn's estimator checks fit ~50 cross-validations")
@parametrize_with_checks(
    [PooledThresholdClassifierCV(LogisticRegression())],
    expected_failed_checks=lambda est: _EXPECTED_FAILURES,
)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)
