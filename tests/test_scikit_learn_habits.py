"""What a scikit-learn user writes, accepted as scikit-learn means it or refused with the reason:
a grid over estimators ranked by AUC, several scorings as a list or dict with ``refit`` naming
one, ``refit`` as a name or a callable, ``scoring=None`` and scorer objects, and
``cross_val_predict``'s default ``cv=None``.

Oracles: ``GridSearchCV`` on the same splits (its per-split scores and their mean),
scikit-learn's metrics of the pooled out-of-fold predictions, ``cross_val_predict`` and
``cross_validate`` with their default 5 folds.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression, RidgeClassifier
from sklearn.metrics import f1_score, make_scorer, roc_auc_score
from sklearn.model_selection import (
    GridSearchCV,
    StratifiedKFold,
    cross_val_predict,
    cross_validate,
)
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import Pipeline

from cvframe.readers.sklearn import from_cross_val_predict
from cvframe.search import PooledSearchCV

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")

X, Y = make_classification(
    n_samples=150, n_features=6, n_informative=3, weights=[0.7], flip_y=0.05, random_state=4
)
CV = StratifiedKFold(4, shuffle=True, random_state=0)
GRID = {"var_smoothing": [1e-9, 1e-1]}
ESTIMATORS = {"clf": [LogisticRegression(), RidgeClassifier(), GaussianNB()]}


def _pipe():
    return Pipeline([("clf", LogisticRegression())])


# --- a grid over estimators ----------------------------------------------------------------------


@pytest.mark.parametrize("scoring", ["roc_auc", "average_precision"])
def test_a_grid_over_estimators_scores_each_candidate_by_its_own_method(scoring):
    ours = PooledSearchCV(_pipe(), ESTIMATORS, scoring=scoring, cv=CV).fit(X, Y)
    theirs = GridSearchCV(_pipe(), ESTIMATORS, scoring=scoring, cv=CV).fit(X, Y)
    # before: RidgeClassifier has no predict_proba, so its fits failed and scored NaN
    assert np.isfinite(ours.cv_results_["pooled_test_score"]).all()
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"], atol=1e-12
    )
    # the pooled AUC: one ranking of each candidate's out-of-fold scores
    if scoring == "roc_auc":
        for i, est in enumerate(ESTIMATORS["clf"]):
            method = "predict_proba" if hasattr(est, "predict_proba") else "decision_function"
            s = cross_val_predict(est, X, Y, cv=CV, method=method)
            s = s[:, 1] if s.ndim == 2 else s
            assert ours.cv_results_["pooled_test_score"][i] == pytest.approx(roc_auc_score(Y, s))
    assert ours.predictions_.attrs["scores"] == "predict_proba and decision_function"


def test_a_probability_scoring_names_the_candidate_without_probabilities():
    with pytest.raises(ValueError, match=r"candidate clf=RidgeClassifier\(\).*no predict_proba"):
        PooledSearchCV(_pipe(), ESTIMATORS, scoring="neg_log_loss", cv=CV).fit(X, Y)


# --- several scorings ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scoring", [["f1", "roc_auc"], ("f1", "roc_auc"), {"f1": "f1", "roc_auc": "roc_auc"}]
)
def test_several_scorings_as_gridsearchcv_takes_them(scoring):
    ours = PooledSearchCV(GaussianNB(), GRID, scoring=scoring, refit="roc_auc", cv=CV).fit(X, Y)
    theirs = GridSearchCV(GaussianNB(), GRID, scoring=scoring, refit="roc_auc", cv=CV).fit(X, Y)
    assert ours.multimetric_ and ours.scoring_ == {"f1": "f_tp_fp", "roc_auc": "auc_merge"}
    for key in ("mean_test_f1", "split0_test_f1", "mean_test_roc_auc", "std_test_roc_auc"):
        np.testing.assert_allclose(ours.cv_results_[key], theirs.cv_results_[key], atol=1e-12)
    for key in ("f1", "roc_auc"):
        single = PooledSearchCV(GaussianNB(), GRID, scoring=key, cv=CV).fit(X, Y)
        np.testing.assert_array_equal(
            ours.cv_results_[f"pooled_test_{key}"], single.cv_results_["pooled_test_score"]
        )
        np.testing.assert_array_equal(
            ours.cv_results_[f"rank_test_{key}"], single.cv_results_["rank_test_score"]
        )
    best = int(np.argmin(ours.cv_results_["rank_test_roc_auc"]))
    assert ours.best_index_ == best
    assert ours.best_score_ == ours.cv_results_["pooled_test_roc_auc"][best]
    assert ours.best_estimator_.get_params() == GaussianNB(**ours.best_params_).get_params()
    part = ours.predictions_[ours.predictions_.param == ours.predictions_.param.cat.categories[0]]
    assert ours.cv_results_["pooled_test_f1"][0] == pytest.approx(
        f1_score(part.y_true, part.y_pred)
    )


def test_several_scorings_need_refit_to_name_one():
    with pytest.raises(ValueError, match=r"refit=True with several scorings.*refit='f1'"):
        PooledSearchCV(GaussianNB(), GRID, scoring=["f1", "roc_auc"], cv=CV).fit(X, Y)
    with pytest.raises(ValueError, match=r"refit='accuracy' is not one of the scorings"):
        PooledSearchCV(GaussianNB(), GRID, scoring=["f1", "roc_auc"], refit="accuracy").fit(X, Y)
    none = PooledSearchCV(GaussianNB(), GRID, scoring=["f1", "roc_auc"], refit=False, cv=CV)
    none.fit(X, Y)
    assert "rank_test_f1" in none.cv_results_ and not hasattr(none, "best_index_")
    assert not hasattr(none, "best_estimator_")
    with pytest.raises(AttributeError, match="refit"):
        none.score(X, Y)


@pytest.mark.parametrize(
    "scoring, match",
    [
        (["f1", "f1"], r"names \['f1'\] twice"),
        ([], "scoring is empty"),
        (["f1", len], "a list of scorings holds names"),
        ({"": "f1"}, "keys of a dict scoring are non-empty names"),
        (["f1", "f3"], r"scoring='f3' is not"),
    ],
)
def test_bad_lists_of_scorings_are_refused_clearly(scoring, match):
    with pytest.raises(ValueError, match=match):
        PooledSearchCV(GaussianNB(), GRID, scoring=scoring, refit=False, cv=CV).fit(X, Y)


def test_a_dict_scoring_takes_a_callable_of_the_cube():
    search = PooledSearchCV(
        GaussianNB(), GRID, scoring={"kappa": lambda ds: ds.cv.kappa(), "f": "f1"}, refit="f"
    ).fit(X, Y)
    assert search.scoring_ == {"kappa": "callable", "f": "f_tp_fp"}
    assert np.isfinite(search.cv_results_["pooled_test_kappa"]).all()


# --- refit as a name or a callable ---------------------------------------------------------------


@pytest.mark.parametrize("refit", ["f1", "f_tp_fp", "score"])
def test_refit_naming_the_one_scoring_is_true(refit):
    named = PooledSearchCV(GaussianNB(), GRID, scoring="f1", refit=refit, cv=CV).fit(X, Y)
    plain = PooledSearchCV(GaussianNB(), GRID, scoring="f1", refit=True, cv=CV).fit(X, Y)
    assert named.best_index_ == plain.best_index_ and named.best_score_ == plain.best_score_
    assert hasattr(named, "best_estimator_")


def test_refit_naming_another_metric_is_refused():
    with pytest.raises(ValueError, match=r"refit='roc_auc' names another metric.*scoring=\["):
        PooledSearchCV(GaussianNB(), GRID, scoring="f1", refit="roc_auc").fit(X, Y)
    with pytest.raises(TypeError, match=r"refit=2 must be True, False, the name"):
        PooledSearchCV(GaussianNB(), GRID, refit=2).fit(X, Y)


def test_a_callable_refit_picks_the_best_index():
    def last(results):
        return len(results["params"]) - 1

    search = PooledSearchCV(GaussianNB(), GRID, scoring="f1", refit=last, cv=CV).fit(X, Y)
    assert search.best_index_ == 1 and search.best_params_ == {"var_smoothing": 1e-1}
    assert not hasattr(search, "best_score_")  # as GridSearchCV with a callable refit
    with pytest.raises(IndexError, match="there are 2 candidates"):
        PooledSearchCV(GaussianNB(), GRID, refit=lambda r: 5, cv=CV).fit(X, Y)


# --- what cannot rank by the pooled folds --------------------------------------------------------


def test_scoring_none_and_scorer_objects_say_what_to_pass():
    with pytest.raises(ValueError, match=r"scoring=None.*'accuracy'"):
        PooledSearchCV(GaussianNB(), GRID, scoring=None).fit(X, Y)
    with pytest.raises(TypeError, match=r"scikit-learn scorer.*'f1' is the pooled F"):
        PooledSearchCV(GaussianNB(), GRID, scoring=make_scorer(f1_score)).fit(X, Y)
    with pytest.raises(TypeError, match=r"scoring\['a'\]=.*scikit-learn scorer"):
        PooledSearchCV(GaussianNB(), GRID, scoring={"a": make_scorer(f1_score)}, refit=False).fit(
            X, Y
        )


# --- cross_val_predict's default cv --------------------------------------------------------------


def test_cross_val_predict_default_cv_is_five_stratified_folds():
    pred = cross_val_predict(LogisticRegression(), X, Y)  # cv=None: 5 folds
    default, none = from_cross_val_predict(Y, pred), from_cross_val_predict(Y, pred, None)
    assert default.equals(none)
    assert sorted(default["fold"].unique()) == [0, 1, 2, 3, 4]
    for i, (_, test) in enumerate(StratifiedKFold(5).split(X, Y)):
        assert set(default.loc[default["fold"] == i, "sample"]) == set(test)
    ds = default.cv.counts()
    res = cross_validate(LogisticRegression(), X, Y, scoring="f1")  # its default cv, too
    per_fold = ds.cv.f(zero_division=0.0).values.ravel()
    np.testing.assert_allclose(per_fold, res["test_score"], atol=1e-12)
    assert ds.cv.f_tp_fp().item() == pytest.approx(f1_score(Y, pred), abs=1e-12)
    with pytest.raises(ValueError, match="cv=True.*None for its default of 5 folds"):
        from_cross_val_predict(Y, pred, True)
