"""PooledSearchCV: scikit-learn's search semantics, ranked by the pooled out-of-fold metric.

Oracles: ``GridSearchCV`` on the same splits (the per-fold scores and their mean), and
``f1_score`` / ``roc_auc_score`` of ``cross_val_predict`` (the pooled score of a candidate).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    GridSearchCV,
    RepeatedStratifiedKFold,
    StratifiedKFold,
    cross_val_predict,
)
from sklearn.model_selection import cross_validate as sk_cross_validate
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import cvframe
from cvframe.errors import UndefinedMetricWarning
from cvframe.search import PooledSearchCV

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")


@pytest.fixture(scope="module")
def rare():
    """Rare positives (17 of 150, 3-4 per test fold): the two rankings part (seed pinned)."""
    X, y = make_classification(
        n_samples=150,
        n_features=6,
        n_informative=3,
        weights=[0.9],
        flip_y=0.05,
        random_state=7,
    )
    return X, y, StratifiedKFold(5, shuffle=True, random_state=0)


GRID = {"class_weight": [None, "balanced"]}


def lr():
    return LogisticRegression(C=3.0, max_iter=1000)


@pytest.fixture(scope="module")
def rare_search(rare):
    X, y, cv = rare
    return PooledSearchCV(lr(), GRID, cv=cv, zero_division=0.0).fit(X, y)


# --- oracles --------------------------------------------------------------------------------


def test_pooled_and_mean_pick_different_candidates(rare, rare_search):
    from sklearn.metrics import f1_score

    X, y, cv = rare
    assert all(np.bincount(y[te])[1] in range(2, 6) for _, te in cv.split(X, y))
    grid = GridSearchCV(lr(), GRID, cv=cv, scoring="f1").fit(X, y)
    r = rare_search.cv_results_
    # mean_test_score is GridSearchCV's number, split by split
    np.testing.assert_allclose(r["mean_test_score"], grid.cv_results_["mean_test_score"])
    for i in range(5):
        np.testing.assert_allclose(
            r[f"split{i}_test_score"], grid.cv_results_[f"split{i}_test_score"]
        )
    np.testing.assert_array_equal(r["rank_mean_test_score"], grid.cv_results_["rank_test_score"])
    # pooled_test_score is F1 of cross_val_predict
    for i, params in enumerate(r["params"]):
        pred = cross_val_predict(clone(lr()).set_params(**params), X, y, cv=cv)
        assert r["pooled_test_score"][i] == pytest.approx(f1_score(y, pred))
    # ... and the two rankings disagree: pooled F picks no weighting, GridSearchCV "balanced"
    assert grid.best_params_ == {"class_weight": "balanced"}
    assert rare_search.best_params_ == {"class_weight": None}
    assert rare_search.best_index_ == 0
    assert rare_search.best_score_ == pytest.approx(r["pooled_test_score"][0])
    assert r["pooled_test_score"][0] - r["pooled_test_score"][1] > 0.04
    assert r["mean_test_score"][1] > r["mean_test_score"][0]


def test_auc_merge_against_roc_auc_of_cross_val_predict(rare):
    from sklearn.metrics import roc_auc_score

    X, y, cv = rare
    grid = {"C": [0.01, 1.0]}
    s = PooledSearchCV(lr(), grid, scoring="auc_merge", cv=cv, refit=False).fit(X, y)
    sk = GridSearchCV(lr(), grid, scoring="roc_auc", cv=cv, refit=False).fit(X, y)
    np.testing.assert_allclose(s.cv_results_["mean_test_score"], sk.cv_results_["mean_test_score"])
    for i, p in enumerate(s.cv_results_["params"]):
        proba = cross_val_predict(lr().set_params(**p), X, y, cv=cv, method="predict_proba")
        assert s.cv_results_["pooled_test_score"][i] == pytest.approx(roc_auc_score(y, proba[:, 1]))
    assert "score" in s.predictions_.columns


@pytest.mark.parametrize("average", ["macro", "micro", "weighted"])
def test_multiclass_average_against_f1_score(average):
    from sklearn.metrics import f1_score

    X, y = load_iris(return_X_y=True)
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    grid = {"var_smoothing": [1e-9, 1e-1]}
    s = PooledSearchCV(GaussianNB(), grid, cv=cv, average=average, refit=False).fit(X, y)
    sk = GridSearchCV(GaussianNB(), grid, cv=cv, scoring=f"f1_{average}", refit=False).fit(X, y)
    np.testing.assert_allclose(s.cv_results_["mean_test_score"], sk.cv_results_["mean_test_score"])
    for i, p in enumerate(s.cv_results_["params"]):
        pred = cross_val_predict(GaussianNB(**p), X, y, cv=cv)
        assert s.cv_results_["pooled_test_score"][i] == pytest.approx(
            f1_score(y, pred, average=average)
        )


@pytest.mark.parametrize("average", [None, "macro", "weighted"])
def test_multiclass_accuracy_is_accuracy_whatever_the_average(average):
    from sklearn.metrics import accuracy_score

    X, y = load_iris(return_X_y=True)
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    grid = {"var_smoothing": [1e-9, 1e-1]}
    s = PooledSearchCV(GaussianNB(), grid, scoring="accuracy", average=average, cv=cv)
    s = s.fit(X, y)
    sk = GridSearchCV(GaussianNB(), grid, cv=cv, scoring="accuracy", refit=False).fit(X, y)
    np.testing.assert_allclose(s.cv_results_["mean_test_score"], sk.cv_results_["mean_test_score"])
    for i, p in enumerate(s.cv_results_["params"]):
        pred = cross_val_predict(GaussianNB(**p), X, y, cv=cv)
        assert s.cv_results_["pooled_test_score"][i] == pytest.approx(accuracy_score(y, pred))


def test_the_frame_records_its_positive_class_as_every_writer_does():
    X, y = load_iris(return_X_y=True)
    keep = y > 0
    yb = y[keep] == 2  # booleans: the positive class True round-trips through attrs
    s = PooledSearchCV(GaussianNB(), {"var_smoothing": [1e-9]}, cv=3, refit=False)
    s = s.fit(X[keep], yb)
    written = cvframe.cross_validate(GaussianNB(), X[keep], yb, cv=3, progress=False).attrs[
        "pos_label"
    ]
    assert s.predictions_.attrs["pos_label"] == written
    assert type(s.predictions_.attrs["pos_label"]) is type(written)
    assert s.predictions_.attrs["task"] == "binary"
    assert s.predictions_.cv.counts()["class"].values.tolist() == [True]


def test_a_nan_score_names_the_column_and_rows():
    class NaNProba(GaussianNB):
        def predict_proba(self, X):
            out = super().predict_proba(X)
            out[:2] = np.nan
            return out

    X, y = load_iris(return_X_y=True)
    keep = y > 0
    s = PooledSearchCV(NaNProba(), {"var_smoothing": [1e-9]}, scoring="auc_merge", cv=3)
    with pytest.raises(ValueError, match=r"score.*NaN.*rows"):
        s.fit(X[keep], y[keep] == 2)


def test_repeated_cv_pools_per_repeat_then_averages(rare):
    from sklearn.metrics import f1_score

    X, y, _ = rare
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    s = PooledSearchCV(lr(), {"C": [0.1, 1.0]}, cv=cv, zero_division=0.0, refit=False).fit(X, y)
    assert s.cube_.sizes["repeat"] == 2 and s.cube_.sizes["fold"] == 3
    assert len([k for k in s.cv_results_ if k.startswith("split")]) == 6
    splits = list(cv.split(X, y))
    for i, p in enumerate(s.cv_results_["params"]):
        per_rep = []
        for r in range(2):
            pred = np.empty_like(y)
            for tr, te in splits[3 * r : 3 * r + 3]:
                pred[te] = lr().set_params(**p).fit(X[tr], y[tr]).predict(X[te])
            per_rep.append(f1_score(y, pred))
        assert s.cv_results_["pooled_test_score"][i] == pytest.approx(np.mean(per_rep))


def test_callable_scoring_equals_named(rare):
    X, y, cv = rare
    named = PooledSearchCV(lr(), GRID, scoring="recall_tp_fp", cv=cv, refit=False).fit(X, y)
    call = PooledSearchCV(
        lr(),
        GRID,
        scoring=lambda ds: cvframe.reduce.aggregate(ds, "recall", "tp_fp"),
        cv=cv,
        refit=False,
    ).fit(X, y)
    for key in ("pooled_test_score", "mean_test_score", "split3_test_score"):
        np.testing.assert_allclose(named.cv_results_[key], call.cv_results_[key])
    assert call.scoring_ == "callable"


# --- scikit-learn compatibility ---------------------------------------------------------------


def test_cv_results_load_like_gridsearchcv(rare, rare_search):
    X, y, cv = rare
    df = pd.DataFrame(rare_search.cv_results_)
    grid = GridSearchCV(lr(), GRID, cv=cv, scoring="f1").fit(X, y)
    assert set(grid.cv_results_) <= set(df.columns)
    assert {"pooled_test_score", "rank_mean_test_score"} <= set(df.columns)
    assert len(df) == 2
    sk = pd.DataFrame(grid.cv_results_)
    assert (
        df["param_class_weight"].astype(str).tolist()
        == sk["param_class_weight"].astype(str).tolist()
    )
    assert df.loc[df["rank_test_score"] == 1, "params"].item() == rare_search.best_params_


def test_cube_and_predictions(rare, rare_search):
    X, y, _ = rare
    cube = rare_search.cube_
    assert cube.tp.dims == ("param", "repeat", "fold", "class")
    assert cube.param.values.tolist() == ["class_weight=None", "class_weight='balanced'"]
    assert cube.param_class_weight.values.tolist() == ["None", "'balanced'"]
    support = (cube.tp + cube.fn).sum(["repeat", "fold", "class"])
    assert support.values.tolist() == [int(y.sum())] * 2
    frame = rare_search.predictions_
    assert len(frame) == 2 * len(y)
    again = frame.cv.counts(dims=["param"])
    assert (again.tp == cube.tp).all()
    pooled = cube.cv.f_tp_fp(zero_division=0.0).squeeze().values
    np.testing.assert_allclose(pooled, rare_search.cv_results_["pooled_test_score"])


def test_clone_get_params_round_trip():
    s = PooledSearchCV(lr(), GRID, scoring="auc_merge", cv=3, n_jobs=2, beta=2.0)
    c = clone(s)
    assert c is not s
    p1, p2 = s.get_params(deep=False), c.get_params(deep=False)
    assert p1.keys() == p2.keys()
    assert all(repr(p1[k]) == repr(p2[k]) for k in p1)  # estimators are clones, not the same object
    c.set_params(estimator__C=0.5, scoring="f_tp_fp")
    assert c.get_params()["estimator__C"] == 0.5 and c.scoring == "f_tp_fp"


def test_pipeline_and_delegation(rare):
    X, y, cv = rare
    pipe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    s = PooledSearchCV(pipe, {"logisticregression__C": [0.1, 10.0]}, cv=cv, zero_division=0.0)
    s.fit(X, y)
    best = s.best_estimator_
    assert best.get_params()["logisticregression__C"] == s.best_params_["logisticregression__C"]
    np.testing.assert_array_equal(s.predict(X), best.predict(X))
    np.testing.assert_allclose(s.predict_proba(X), best.predict_proba(X))
    assert s.score(X, y) == pytest.approx(best.score(X, y))
    assert list(s.classes_) == [0, 1]
    # and the search itself inside a pipeline
    outer = make_pipeline(StandardScaler(), PooledSearchCV(lr(), {"C": [0.1, 1]}, cv=3))
    assert outer.fit(X, y).predict(X).shape == y.shape


def test_nested_cv_sklearn_and_cvframe(rare):
    X, y, _ = rare
    search = PooledSearchCV(lr(), GRID, cv=3, zero_division=0.0)
    out = sk_cross_validate(search, X, y, cv=3, scoring="f1")
    assert out["test_score"].shape == (3,)
    frame = cvframe.cross_validate(search, X, y, cv=3, progress=False)
    assert len(frame) == len(y)
    assert 0 <= frame.cv.counts().cv.f_tp_fp().item() <= 1


def test_n_jobs_gives_the_same_results(rare, rare_search):
    X, y, cv = rare
    par = PooledSearchCV(lr(), GRID, cv=cv, zero_division=0.0, n_jobs=2).fit(X, y)
    for key in ("pooled_test_score", "mean_test_score", "rank_test_score"):
        np.testing.assert_array_equal(par.cv_results_[key], rare_search.cv_results_[key])
    assert (par.cube_.tp == rare_search.cube_.tp).all()


def test_param_distributions(rare):
    from scipy.stats import loguniform

    X, y, cv = rare
    kw = dict(param_distributions={"C": loguniform(1e-2, 1e2)}, n_iter=3, cv=cv, refit=False)
    a = PooledSearchCV(lr(), random_state=0, **kw).fit(X, y)
    b = PooledSearchCV(lr(), random_state=0, **kw).fit(X, y)
    assert len(a.cv_results_["params"]) == 3 and a.cube_.sizes["param"] == 3
    assert a.cv_results_["params"] == b.cv_results_["params"]
    assert a.cube_.param_C.dtype == float


def test_refit_false():
    X, y = make_classification(n_samples=60, random_state=0)
    s = PooledSearchCV(lr(), {"C": [0.1, 1]}, cv=3, refit=False).fit(X, y)
    assert s.best_params_ in s.cv_results_["params"]
    assert not hasattr(s, "best_estimator_")
    with pytest.raises(AttributeError, match="predict"):
        s.predict(X)
    with pytest.raises(AttributeError, match="refit=False"):
        s.score(X, y)


def test_one_warning_per_fit(rare):
    X, y, cv = rare
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        PooledSearchCV(lr(), {"C": [1e-4, 1.0]}, scoring="precision_tp_fp", cv=cv, refit=False).fit(
            X, y
        )
    ours = [w for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    assert len(ours) == 1
    assert "PooledSearchCV" in str(ours[0].message)


# --- bad inputs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({}, ValueError, "param_grid"),
        (
            {"param_grid": {"C": [1]}, "param_distributions": {"C": [1]}},
            ValueError,
            "param_distributions",
        ),
        ({"param_grid": {"C": [1]}, "scoring": "f2"}, ValueError, "scoring='f2'.*'f1'"),
        ({"param_grid": {"C": [1]}, "verbose": -1}, ValueError, "verbose"),
        ({"param_grid": {"C": [1]}, "error_score": "nan"}, ValueError, "error_score"),
        ({"param_grid": {"C": [1]}, "return_train_score": 1}, TypeError, "return_train_score"),
        ({"param_grid": {"C": [1]}, "average": "macro"}, ValueError, "average"),
        ({"param_grid": {"C": [1]}, "zero_division": "x"}, ValueError, "zero_division"),
        ({"param_distributions": {"C": [1]}, "n_iter": 0}, ValueError, "n_iter"),
    ],
)
def test_bad_arguments(kwargs, exc, match):
    X, y = make_classification(n_samples=40, random_state=0)
    with pytest.raises(exc, match=match):
        PooledSearchCV(lr(), **kwargs).fit(X, y)


def test_multiclass_needs_average():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=re.escape("average='macro'")):
        PooledSearchCV(GaussianNB(), {"var_smoothing": [1e-9]}, cv=3).fit(X, y)


class _Majority:
    """A classifier without scores: fit/predict only."""

    def __init__(self, bias=0):
        self.bias = bias

    def get_params(self, deep=True):
        return {"bias": self.bias}

    def set_params(self, **params):
        self.bias = params.get("bias", self.bias)
        return self

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[-1])


def test_auc_needs_scores():
    X, y = make_classification(n_samples=40, random_state=0)
    with pytest.raises(ValueError, match="scoring='auc_merge'"):
        PooledSearchCV(_Majority(), {"bias": [0]}, scoring="auc_merge", cv=3).fit(X, y)


# --- the docs page ------------------------------------------------------------------------------


def test_doc_page_examples_run():
    import doctest
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    text = (root / "docs" / "comparing_models.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if ">>>" in b]
    assert len(blocks) >= 4
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, "page", "page", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failures: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
