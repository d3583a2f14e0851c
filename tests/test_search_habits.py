"""PooledSearchCV with scikit-learn's habits: scorer names, verbose, return_train_score,
error_score and the progress bar.

Oracle: ``GridSearchCV`` on the same splits (per-split scores and their mean, training scores,
failed fits), and scikit-learn's metrics on the pooled out-of-fold (or training) predictions.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_iris, make_classification
from sklearn.exceptions import FitFailedWarning
from sklearn.linear_model import RidgeClassifier
from sklearn.metrics import f1_score, roc_auc_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import NearestCentroid

from cvframe.formulas import SCORER_ALIASES, scorer_metric
from cvframe.search import PooledSearchCV

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.UndefinedMetricWarning", "ignore::UserWarning"
)

GRID = {"var_smoothing": [1e-9, 1e-1]}


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=120, n_features=5, n_informative=3, weights=[0.8], flip_y=0.05, random_state=3
    )
    return X, y, StratifiedKFold(4, shuffle=True, random_state=0)


def _pair(X, y, cv, **kw):
    ours = PooledSearchCV(GaussianNB(), GRID, cv=cv, zero_division=0.0, **kw).fit(X, y)
    kw.pop("progress", None)
    theirs = GridSearchCV(GaussianNB(), GRID, cv=cv, **kw).fit(X, y)
    return ours, theirs


# --- scorer names -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SCORER_ALIASES))
def test_each_scorer_name_gives_gridsearchcvs_per_split_scores(data, name):
    X, y, cv = data
    ours, theirs = _pair(X, y, cv, scoring=name, return_train_score=True)
    assert ours.scoring_ == SCORER_ALIASES[name]
    for key in ("mean_test_score", "split0_test_score", "mean_train_score", "std_train_score"):
        np.testing.assert_allclose(ours.cv_results_[key], theirs.cv_results_[key], atol=1e-12)


def test_f1_and_roc_auc_pool_the_out_of_fold_predictions(data):
    X, y, cv = data
    f1 = PooledSearchCV(GaussianNB(), GRID, scoring="f1", cv=cv, refit=False).fit(X, y)
    same = PooledSearchCV(GaussianNB(), GRID, scoring="f_tp_fp", cv=cv, refit=False).fit(X, y)
    np.testing.assert_array_equal(
        f1.cv_results_["pooled_test_score"], same.cv_results_["pooled_test_score"]
    )
    auc = PooledSearchCV(GaussianNB(), GRID, scoring="roc_auc", cv=cv, refit=False).fit(X, y)
    pred = auc.predictions_
    for i, label in enumerate(pred.param.cat.categories):
        part = pred[pred.param == label]
        assert auc.cv_results_["pooled_test_score"][i] == pytest.approx(
            roc_auc_score(part.y_true, part.score)
        )
        part_f = f1.predictions_[f1.predictions_.param == label]
        assert f1.cv_results_["pooled_test_score"][i] == pytest.approx(
            f1_score(part_f.y_true, part_f.y_pred)
        )


@pytest.mark.parametrize("name", ["f1_macro", "f1_weighted", "precision_macro", "neg_log_loss"])
def test_multiclass_names_set_the_average(name):
    X, y = load_iris(return_X_y=True)
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    ours, theirs = _pair(X, y, cv, scoring=name)
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"], atol=1e-12
    )


def test_unknown_names_list_the_accepted_ones():
    with pytest.raises(ValueError, match=r"scoring='f3'.*'f1', 'precision'"):
        scorer_metric("f3")
    X, y = make_classification(n_samples=30, random_state=0)
    with pytest.raises(ValueError, match="asks for average='macro'"):
        PooledSearchCV(GaussianNB(), GRID, scoring="f1_macro", average="weighted").fit(X, y)
    with pytest.raises(ValueError, match="predict_proba"):
        PooledSearchCV(RidgeClassifier(), {"alpha": [1.0]}, scoring="neg_log_loss").fit(X, y)


# --- return_train_score -------------------------------------------------------------------------


def test_train_scores_are_gridsearchcvs_and_the_pooled_train_f(data):
    X, y, cv = data
    ours, theirs = _pair(X, y, cv, scoring="f1", return_train_score=True)
    keys = [k for k in theirs.cv_results_ if "train" in k]
    assert keys and all(k in ours.cv_results_ for k in keys)
    for k in keys:
        np.testing.assert_allclose(ours.cv_results_[k], theirs.cv_results_[k], atol=1e-12)
    # the pooled training F: every training prediction of every split, counted once per split
    splits = list(cv.split(X, y))
    for i, params in enumerate(ours.cv_results_["params"]):
        true, pred = [], []
        for tr, _ in splits:
            model = GaussianNB(**params).fit(X[tr], y[tr])
            true.append(y[tr])
            pred.append(model.predict(X[tr]))
        expected = f1_score(np.concatenate(true), np.concatenate(pred))
        assert ours.cv_results_["pooled_train_score"][i] == pytest.approx(expected)


def test_no_train_keys_by_default(data):
    X, y, cv = data
    ours = PooledSearchCV(GaussianNB(), GRID, cv=cv).fit(X, y)
    assert not [k for k in ours.cv_results_ if "train" in k]


# --- error_score --------------------------------------------------------------------------------


class Flaky(ClassifierMixin, BaseEstimator):
    """A classifier that fails to fit when asked to (``fail=True``)."""

    def __init__(self, fail=False):
        self.fail = fail

    def fit(self, X, y):
        if self.fail:
            raise ValueError("Flaky was asked to fail")
        self.model_ = NearestCentroid().fit(X, y)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(X)


FLAKY = {"fail": [False, True]}


def test_error_score_nan_warns_and_scores_nan_as_gridsearchcv(data):
    X, y, cv = data
    runs = {}
    for cls in (PooledSearchCV, GridSearchCV):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            search = cls(Flaky(), FLAKY, cv=cv, error_score=np.nan).fit(X, y)
        failed = [w for w in caught if issubclass(w.category, FitFailedWarning)]
        assert len(failed) == 1
        assert re.search(r"4 fits failed out of a total of 8", str(failed[0].message))
        runs[cls] = search
    ours, theirs = runs[PooledSearchCV], runs[GridSearchCV]
    for key in ("mean_test_score", "split0_test_score", "rank_test_score"):
        np.testing.assert_array_equal(
            np.isnan(ours.cv_results_[key].astype(float)),
            np.isnan(theirs.cv_results_[key].astype(float)),
        )
    assert np.isnan(ours.cv_results_["pooled_test_score"][1])
    assert ours.best_params_ == theirs.best_params_ == {"fail": False}
    assert ours.cube_.sizes["param"] == 1  # the failed candidate has no predictions
    assert "Flaky was asked to fail" in str(failed[0].message)


def test_error_score_number_and_raise_as_gridsearchcv(data):
    X, y, cv = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitFailedWarning)
        ours = PooledSearchCV(Flaky(), FLAKY, cv=cv, error_score=0.0).fit(X, y)
        theirs = GridSearchCV(Flaky(), FLAKY, cv=cv, error_score=0.0).fit(X, y)
    assert ours.cv_results_["split2_test_score"][1] == theirs.cv_results_["split2_test_score"][1]
    assert ours.cv_results_["pooled_test_score"][1] == 0.0
    for cls in (PooledSearchCV, GridSearchCV):
        with pytest.raises(ValueError, match="asked to fail"):
            cls(Flaky(), FLAKY, cv=cv, error_score="raise").fit(X, y)


def test_every_fit_failing_raises(data):
    X, y, cv = data
    for cls in (PooledSearchCV, GridSearchCV):
        with pytest.raises(ValueError, match="All the 4 fits failed"):
            cls(Flaky(), {"fail": [True]}, cv=cv).fit(X, y)


# --- verbose and the progress bar ---------------------------------------------------------------


def test_verbose_prints_as_gridsearchcv(data, capsys):
    X, y, cv = data
    PooledSearchCV(GaussianNB(), GRID, cv=cv, verbose=0).fit(X, y)
    assert capsys.readouterr().out == ""
    GridSearchCV(GaussianNB(), GRID, cv=cv, verbose=1).fit(X, y)
    theirs = capsys.readouterr().out.splitlines()[0]
    PooledSearchCV(GaussianNB(), GRID, cv=cv, verbose=1).fit(X, y)
    assert capsys.readouterr().out.splitlines() == [theirs]
    PooledSearchCV(GaussianNB(), GRID, cv=cv, verbose=2, return_train_score=True).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 + 2 * 4
    assert re.match(r"\[CV 1/4; 1/2\] END var_smoothing=1e-09; score=\(train=0\.\d{3}, ", lines[1])


def test_progress_bar_on_request(data, capsys):
    X, y, cv = data
    PooledSearchCV(GaussianNB(), GRID, cv=cv, progress=True).fit(X, y)
    assert "PooledSearchCV" in capsys.readouterr().err
    PooledSearchCV(GaussianNB(), GRID, cv=cv, progress=False).fit(X, y)
    assert capsys.readouterr().err == ""


# --- one alias table ------------------------------------------------------------------------------


def test_every_alias_names_a_scoring_of_the_search():
    from cvframe.search import COUNT_SCORINGS, SCORE_SCORINGS

    assert set(SCORER_ALIASES.values()) <= set(COUNT_SCORINGS) | set(SCORE_SCORINGS)
    assert all(scorer_metric(v) == v for v in SCORER_ALIASES.values())


def test_the_command_lines_metric_takes_the_scikit_learn_names(tmp_path, capsys):
    import cvframe
    from cvframe.cli import main

    path = tmp_path / "table1.nc"
    cvframe.datasets.table1().to_netcdf(path)
    assert main(["explain", str(path), "--reported", "0.583", "--metric", "f1"]) == 0
    assert "F_tp,fp" in capsys.readouterr().out
    assert main(["explain", str(path), "--reported", "0.583", "--metric", "f2"]) == 2
    err = capsys.readouterr().err
    assert "--metric 'f2' is not a metric cvframe knows" in err and "'f1'" in err


def test_corrected_score_follows_the_refit_scoring_and_skips_a_callable_refit():
    """With several scorings the winner's-curse correction is of the ``refit`` one (its naive
    value is that scoring's best pooled score); a callable refit picks no scoring: NaN, said."""
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    from cvframe.search import PooledSearchCV

    X, y = make_classification(200, random_state=0)
    grid = {"C": [0.01, 1.0]}
    two = PooledSearchCV(
        LogisticRegression(), grid, scoring=["f1", "accuracy"], refit="accuracy", cv=3
    ).fit(X, y)
    assert two.selection_corrected_["naive"] == two.best_score_
    assert two.best_score_ == max(two.cv_results_["pooled_test_accuracy"])
    low, high = two.best_score_interval_
    assert low <= two.best_score_corrected_ <= high
    picked = PooledSearchCV(LogisticRegression(), grid, refit=lambda r: 1, cv=3).fit(X, y)
    assert picked.best_index_ == 1
    assert np.isnan(picked.best_score_corrected_)
    assert "callable refit" in picked.selection_corrected_["method"]
