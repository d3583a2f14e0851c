"""cross_validate(..., nested=R): Bates, Hastie & Tibshirani's nested CV, checked against a
direct computation of their Algorithm 1 with scikit-learn fits; bad inputs."""

from __future__ import annotations

import io
import sys
import time

import numpy as np
import pytest
from sklearn import model_selection as ms
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from cvframe.runner import cross_validate
from cvframe.runner.nested import ncv_estimate

K, R, SEED = 5, 2, 0


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


def _lr():
    return make_pipeline(StandardScaler(), LogisticRegression())


def _direct(est, X, y, loss):
    """Algorithm 1 of Bates, Hastie & Tibshirani (2024), written out: every (repetition,
    outer fold) fits the outer model and an inner (K-1)-fold CV (K(K-1) inner fits, none
    shared), on the partitions cross_validate documents (RepeatedStratifiedKFold)."""
    splitter = ms.RepeatedStratifiedKFold(n_splits=K, n_repeats=R, random_state=SEED)
    tests = [te for _, te in splitter.split(X, y)]
    n, everyone = len(y), np.arange(len(y))
    a, b, es, outs = [], [], [], []
    for r in range(R):
        folds = tests[r * K : (r + 1) * K]
        for k in range(K):
            fit = clone(est).fit(
                X[np.setdiff1d(everyone, folds[k])], y[np.setdiff1d(everyone, folds[k])]
            )
            e_out = loss(fit, X[folds[k]], y[folds[k]])
            e_in = []
            for k2 in range(K):
                if k2 == k:
                    continue
                train = np.setdiff1d(everyone, np.concatenate([folds[k], folds[k2]]))
                inner_fit = clone(est).fit(X[train], y[train])
                e_in.append(loss(inner_fit, X[folds[k2]], y[folds[k2]]))
            e_in = np.concatenate(e_in)
            a.append((e_in.mean() - e_out.mean()) ** 2)
            b.append(np.var(e_out, ddof=1) / len(e_out))
            es.append(e_in)
            outs.append(e_out)
    es_all = np.concatenate(es)
    err_ncv, err_cv = es_all.mean(), np.concatenate(outs).mean()
    mse = np.mean(a) - np.mean(b)
    naive = es_all.std(ddof=1) / np.sqrt(n)
    se = np.clip(np.sqrt(max(0.0, (K - 1) / K * mse)), naive, np.sqrt(K) * naive)
    bias = (1 + (K - 2) / K) * (err_ncv - err_cv)
    return {"estimate": err_ncv, "se": se, "bias": bias, "cv_estimate": err_cv}


def _zero_one(fit, X, y):
    return (fit.predict(X) != y).astype(float)


def test_nested_error_equals_algorithm_1(cancer):
    X, y = cancer
    t0 = time.perf_counter()
    frame = cross_validate(_lr(), X, y, cv=K, random_state=SEED, nested=R)
    seconds = time.perf_counter() - t0
    out = frame.attrs["nested_cv"]
    assert list(out) == ["pipeline"]  # a single estimator: its make_pipeline-style name
    got = out["pipeline"]
    want = _direct(_lr(), X, y, _zero_one)
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key
    assert got["se"] > 0
    assert got["metric"] == "error" and got["repeats"] == R and got["k"] == K
    assert got["n_train"] == len(y)
    assert got["fits"] == R * (K + K * (K - 1) // 2)  # inner fits shared by (k, k'), (k', k)
    # the ordinary CV is kept: one test row per sample
    assert len(frame) == len(y) and frame["sample"].nunique() == len(y)
    assert seconds < 10


def test_nested_probability_losses_equal_sklearn(cancer):
    """The outer losses pool to scikit-learn's brier_score_loss / log_loss of each
    repetition's out-of-fold probabilities (the same partitions)."""
    X, y = cancer
    X = X[:, :5]
    est = GaussianNB()
    splitter = ms.RepeatedStratifiedKFold(n_splits=K, n_repeats=R, random_state=SEED)
    splits = list(splitter.split(X, y))
    per_rep = []
    for r in range(R):
        proba = ms.cross_val_predict(
            est, X, y, cv=splits[r * K : (r + 1) * K], method="predict_proba"
        )[:, 1]
        per_rep.append((brier_score_loss(y, proba), log_loss(y, proba)))
    for i, metric in enumerate(("brier", "log_loss")):
        frame = cross_validate(est, X, y, cv=K, random_state=SEED, nested=R, nested_metric=metric)
        got = frame.attrs["nested_cv"]["gaussiannb"]
        assert got["metric"] == metric
        assert got["cv_estimate"] == pytest.approx(np.mean([p[i] for p in per_rep]), rel=1e-9)
        assert got["se"] > 0 and np.isfinite(got["bias"])


def test_nested_accuracy_mirrors_error_and_multiclass():
    X, y = load_iris(return_X_y=True)
    est = LogisticRegression(max_iter=500)
    err = cross_validate(est, X, y, cv=3, random_state=1, nested=1)
    acc = cross_validate(est, X, y, cv=3, random_state=1, nested=1, nested_metric="accuracy")
    e, a = (
        err.attrs["nested_cv"]["logisticregression"],
        acc.attrs["nested_cv"]["logisticregression"],
    )
    assert a["estimate"] == pytest.approx(1 - e["estimate"], abs=1e-12)
    assert a["bias"] == pytest.approx(-e["bias"], abs=1e-12)
    assert a["se"] == pytest.approx(e["se"], abs=1e-12)
    assert a["fits"] == 1 * (3 + 3)


def test_nested_several_models_and_progress(cancer, monkeypatch):
    X, y = cancer
    X, y = X[::3, :4], y[::3]
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    frame = cross_validate(
        {"lr": LogisticRegression(max_iter=500), "svc": LinearSVC()},
        X,
        y,
        cv=3,
        random_state=0,
        nested=1,
        progress=True,
    )
    assert list(frame.attrs["nested_cv"]) == ["lr", "svc"]
    assert "nested CV" in sys.stderr.getvalue()


def test_ncv_estimate_clips_the_standard_error():
    """MSE below the naive variance: the SE is the naive one; far above: sqrt(K) times it."""
    same = [np.array([0.0, 1.0] * 5)] * 3
    out = ncv_estimate(same, same, n=30, k=3)
    naive = np.concatenate(same).std(ddof=1) / np.sqrt(30)
    assert out["se"] == pytest.approx(naive) and out["bias"] == 0
    inner = [np.zeros(10)] * 3
    outer = [np.ones(10)] * 3
    out = ncv_estimate([np.r_[x, 1.0] for x in inner], outer, n=30, k=3)
    naive = np.concatenate([np.r_[x, 1.0] for x in inner]).std(ddof=1) / np.sqrt(30)
    assert out["se"] == pytest.approx(np.sqrt(3) * naive)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"nested": 0}, "nested=0 is not valid"),
        ({"nested": True}, "nested=True is not valid"),
        ({"nested": 1, "nested_metric": "f1"}, "nested_metric='f1' is not valid"),
        ({"nested": 1, "param_grid": {"C": [1.0]}}, "GridSearchCV"),
        ({"nested": 1, "cv": ms.ShuffleSplit(3, random_state=0)}, "overlapping test sets"),
        ({"nested": 1, "cv": 2}, "at least 3 folds"),
    ],
)
def test_nested_bad_inputs(cancer, kwargs, match):
    X, y = cancer
    with pytest.raises(ValueError, match=match):
        cross_validate(LogisticRegression(), X[:60], y[:60], **{"cv": 3, **kwargs})


def test_nested_refuses_groups_and_missing_proba(cancer):
    X, y = cancer
    X, y = X[:60, :3], y[:60]
    with pytest.raises(ValueError, match="drop groups= or nested="):
        cross_validate(
            LogisticRegression(), X, y, cv=ms.GroupKFold(3), groups=np.arange(60) % 6, nested=1
        )
    with pytest.raises(ValueError, match="needs predict_proba"):
        cross_validate(LinearSVC(), X, y, cv=3, nested=1, nested_metric="brier")


def test_nested_multilabel_subset_error():
    """Multilabel y: 0/1 subset error on iterative-stratified partitions; the outer losses
    pool to 1 - scikit-learn's subset accuracy of each repetition's out-of-fold labels."""
    from iterstrat.ml_stratifiers import RepeatedMultilabelStratifiedKFold
    from sklearn.datasets import make_multilabel_classification
    from sklearn.metrics import accuracy_score
    from sklearn.neighbors import KNeighborsClassifier

    X, Y = make_multilabel_classification(n_samples=150, n_classes=4, random_state=0)
    est = KNeighborsClassifier(5)
    frame = cross_validate(est, X, Y, cv=3, random_state=0, nested=2)
    got = frame.attrs["nested_cv"]["kneighborsclassifier"]
    splits = list(
        RepeatedMultilabelStratifiedKFold(n_splits=3, n_repeats=2, random_state=0).split(X, Y)
    )
    want = [
        1 - accuracy_score(Y, ms.cross_val_predict(est, X, Y, cv=splits[r * 3 : (r + 1) * 3]))
        for r in range(2)
    ]
    assert got["cv_estimate"] == pytest.approx(np.mean(want), abs=1e-12)
    assert got["fits"] == 2 * (3 + 3) and got["se"] > 0
    with pytest.raises(ValueError, match="not defined for multilabel"):
        cross_validate(est, X, Y, cv=3, nested=1, nested_metric="brier")
