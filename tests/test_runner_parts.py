"""The wings of cvframe.runner that other modules share, and unusual inputs that must work.

``fit_predict``, ``n_repeats`` and ``cvframe.splits.n_samples`` are the one fit step, repeat
count and sample count of :func:`cvframe.cross_validate` and :class:`cvframe.search.PooledSearchCV`;
scikit-learn is the oracle.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn import model_selection as ms
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from cvframe.runner import (
    align_scores,
    cross_validate,
    fit_predict,
    n_repeats,
    progress_from_env,
)
from cvframe.splits import Bootstrap, n_samples


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(90, 4))
    y = (X[:, 0] + 0.7 * rng.normal(size=90) > 0).astype(int)
    return X, y


# --- the shared parts ---------------------------------------------------------------------


def test_fit_predict_matches_a_fit_by_hand(data):
    X, y = data
    train, test = np.arange(60), np.arange(60, 90)
    out = fit_predict(
        LogisticRegression(), {"C": 0.5}, X, y, train, test, "predict_proba", return_train=True
    )
    ref = clone(LogisticRegression(C=0.5)).fit(X[train], y[train])
    pred, score = out["test"]
    assert pred.tolist() == ref.predict(X[test]).tolist()
    np.testing.assert_array_equal(score, ref.predict_proba(X[test]))
    assert out["train"][0].tolist() == ref.predict(X[train]).tolist()
    assert out["classes"].tolist() == [0, 1] and out["fit_time"] >= 0 <= out["score_time"]


def test_fit_predict_indexes_per_sample_fit_params_and_clones_params(data):
    X, y = data
    train, test = np.arange(0, 90, 2), np.arange(1, 90, 2)
    w = np.linspace(0.1, 2.0, 90)
    inner = StandardScaler()
    out = fit_predict(
        make_pipeline(StandardScaler(), GaussianNB()),
        {"standardscaler": inner},
        X,
        y,
        train,
        test,
        fit_params={"gaussiannb__sample_weight": w},
    )
    ref = GaussianNB().fit(StandardScaler().fit_transform(X[train]), y[train], w[train])
    scaled = StandardScaler().fit(X[train]).transform(X[test])
    assert out["test"][0].tolist() == ref.predict(scaled).tolist()
    assert out["test"][1] is None
    assert not hasattr(inner, "mean_")  # the parameter value was cloned, never fitted


def test_fit_predict_adds_the_note_to_a_failed_fit(data):
    X, y = data
    with pytest.raises(ValueError) as info:
        fit_predict(LogisticRegression(C=-1), {}, X, y, np.arange(60), np.arange(60, 90), note="N")
    assert info.value.__notes__ == ["N"]


@pytest.mark.parametrize("method", ["predict_proba", "decision_function"])
def test_align_scores_matches_columns_by_class_name(method):
    X, y = load_iris(return_X_y=True)
    seen = y != 1  # class 1 never in the training set
    est = LogisticRegression(max_iter=500).fit(X[seen], y[seen])
    raw = getattr(est, method)(X[:5])
    s, absent = align_scores(raw, est.classes_, [2, 1, 0], method)
    wide = raw if raw.ndim == 2 else np.column_stack([-raw, raw])  # binary decision_function
    np.testing.assert_array_equal(s[:, [0, 2]], wide[:, [1, 0]])
    if method == "predict_proba":
        assert absent == 0 and (s[:, 1] == 0).all()
    else:
        assert absent == 1 and np.isnan(s[:, 1]).all()


@pytest.mark.parametrize(
    "splitter,n_splits,expected",
    [
        (ms.RepeatedStratifiedKFold(n_splits=3, n_repeats=4), 12, 4),
        (ms.KFold(5), 5, 1),
        (Bootstrap(7), 7, 1),
        (type("Odd", (), {"n_repeats": 4})(), 6, 1),  # does not divide: one repeat
    ],
)
def test_n_repeats(splitter, n_splits, expected):
    assert n_repeats(splitter, n_splits) == expected


def test_n_samples_is_scikit_learns_count():
    from scipy import sparse

    assert n_samples(np.zeros((7, 2))) == 7
    assert n_samples(pd.DataFrame({"a": range(4)})) == 4
    assert n_samples(sparse.csr_matrix((3, 5))) == 3
    assert n_samples([[1, 2], [3, 4]]) == 2
    with pytest.raises(TypeError, match="X must be array-like .* got int"):
        n_samples(3)


@pytest.mark.parametrize(
    "value,expected", [("0", False), ("off", False), ("YES", True), ("", None), ("maybe", None)]
)
def test_progress_from_env(monkeypatch, value, expected):
    monkeypatch.setenv("CVFRAME_PROGRESS", value)
    assert progress_from_env() is expected


# --- unusual inputs that must give scikit-learn's result ----------------------------------


def test_float32_X_gives_the_float64_predictions(data):
    X, y = data
    cv = ms.StratifiedKFold(3, shuffle=True, random_state=0)
    a = cross_validate(GaussianNB(), X.astype(np.float32), y, cv=cv)
    ref = ms.cross_val_predict(GaussianNB(), X.astype(np.float32), y, cv=cv)
    assert a.sort_values("sample")["y_pred"].tolist() == ref.tolist()


def test_pandas_X_with_categorical_y(data):
    X, y = data
    Xdf = pd.DataFrame(X, columns=list("abcd"))
    yc = pd.Series(pd.Categorical(np.where(y == 1, "yes", "no"), categories=["yes", "no"]))
    frame = cross_validate(LogisticRegression(), Xdf, yc, cv=ms.KFold(3))
    ref = ms.cross_val_predict(LogisticRegression(), Xdf, yc, cv=ms.KFold(3))
    assert frame["y_pred"].astype(str).tolist() == list(ref)
    assert frame["y_true"].dtype == yc.dtype and frame.attrs["pos_label"] == "no"
    proba = ms.cross_val_predict(
        LogisticRegression(), Xdf, yc, cv=ms.KFold(3), method="predict_proba"
    )
    np.testing.assert_allclose(frame["score"], proba[:, 0])  # classes_ sorted: "no" first


def test_a_splitter_without_get_n_splits(data):
    X, y = data

    class Thirds:
        def split(self, X, y=None, groups=None):
            idx = np.arange(len(X))
            for k in range(3):
                yield np.setdiff1d(idx, idx[k::3]), idx[k::3]

    frame = cross_validate(GaussianNB(), X, y, cv=Thirds())
    assert frame.attrs["stratified"] == "unknown" and frame.attrs["test_sets"] == "partition"
    assert frame.groupby("fold")["sample"].apply(lambda s: s.min()).tolist() == [0, 1, 2]


def test_a_classifier_without_predict_proba_scores_with_decision_function(data):
    X, y = data
    frame = cross_validate(SVC(), X, y, cv=ms.KFold(3))
    ref = ms.cross_val_predict(SVC(), X, y, cv=ms.KFold(3), method="decision_function")
    assert frame.attrs["scores"] == "decision_function"
    np.testing.assert_allclose(frame["score"], ref)


@pytest.mark.parametrize("random_state", [0, np.random.RandomState(0)])
def test_repeats_with_a_seed_are_scikit_learns_repeated_splits(data, random_state):
    X, y = data
    frame = cross_validate(GaussianNB(), X, y, cv=3, repeats=2, random_state=random_state)
    ref = ms.RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    tests = [te for _, te in ref.split(X, y)]
    got = [g["sample"].to_numpy() for _, g in frame.groupby(["repeat", "fold"])]
    assert all(np.array_equal(a, b) for a, b in zip(got, tests, strict=True))


def test_integer_counts_run_unstratified_as_many_classes():
    X, y = load_iris(return_X_y=True)
    counts = np.arange(150) % 12
    frame = cross_validate(GaussianNB(), X, counts, cv=3, stratified=False)
    assert frame.attrs["task"] == "multiclass" and frame.attrs["labels"] == list(range(12))


def test_an_integer_categorical_target_runs_like_its_integers():
    from sklearn.linear_model import LogisticRegression

    import cvframe

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(90, 3)), np.repeat([0, 1, 2], 30)
    as_cat = cvframe.cross_validate(LogisticRegression(), X, pd.Categorical(y), cv=3)
    as_int = cvframe.cross_validate(LogisticRegression(), X, y, cv=3)
    assert (as_cat.y_pred.astype(int).to_numpy() == as_int.y_pred.to_numpy()).all()
    assert (as_cat.fold.to_numpy() == as_int.fold.to_numpy()).all()
