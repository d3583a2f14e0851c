"""Targets and labels that are not classes: a continuous y or a regressor is named as such
("continuous target", "regressor") by cross_validate, from_predictions, the frame readers and
from_sklearn_cv; a training fold with one class gets a clear error in from_sklearn_cv."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import KFold
from sklearn.model_selection import cross_validate as sk_cross_validate
from sklearn.tree import DecisionTreeRegressor

import cvframe
from cvframe import scores
from cvframe.readers.sklearn import from_sklearn_cv

RNG = np.random.default_rng(0)
X = RNG.normal(size=(60, 3))
Y_CONT = X[:, 0] + RNG.normal(size=60)
Y_BIN = (Y_CONT > 0).astype(int)
FOLD = np.arange(60) % 5


def _sk(est, y, cv=3):
    return sk_cross_validate(est, X, y, cv=cv, return_indices=True, return_estimator=True)


CASES = {
    "cross_validate, continuous y": (
        lambda: cvframe.cross_validate(LogisticRegression(), X, Y_CONT, cv=3),
        r"y looks continuous: a continuous target \(60 distinct values",
    ),
    "cross_validate, object floats": (
        lambda: cvframe.cross_validate(
            LogisticRegression(), X, pd.Series(Y_CONT, dtype=object), cv=3
        ),
        r"continuous target",
    ),
    "cross_validate, regressor": (
        lambda: cvframe.cross_validate(LinearRegression(), X, Y_BIN, cv=3),
        r"estimator=LinearRegression is a regressor, not a classifier",
    ),
    "cross_validate, regressor among models": (
        lambda: cvframe.cross_validate(
            {"lr": LogisticRegression(), "tree": DecisionTreeRegressor()}, X, Y_BIN, cv=3
        ),
        r"estimator\['tree'\]=DecisionTreeRegressor is a regressor",
    ),
    "from_predictions, float labels": (
        lambda: cvframe.from_predictions(Y_CONT, Y_CONT, FOLD),
        r"y_true holds continuous values \(60 distinct, e.g. .*a continuous target",
    ),
    "from_predictions, probabilities as y_pred": (
        lambda: cvframe.from_predictions(Y_BIN, 1 / (1 + np.exp(-Y_CONT)), FOLD),
        r"y_pred holds continuous values .* y_pred must hold predicted class labels",
    ),
    "frame counts, float labels": (
        lambda: pd.DataFrame({"y_true": Y_CONT, "y_pred": Y_BIN, "fold": FOLD}).cv.counts(),
        r"y_true holds continuous values",
    ),
    "frame scores, float labels": (
        lambda: scores.auc(pd.DataFrame({"y_true": Y_CONT, "score": Y_CONT, "fold": FOLD})),
        r"y_true holds continuous values",
    ),
    "dask, float labels": (
        lambda: cvframe.from_predictions(
            pytest.importorskip("dask.array").from_array(Y_CONT, chunks=20), Y_BIN, FOLD
        ),
        r"y_true holds continuous values",
    ),
    "from_sklearn_cv, regressor": (
        lambda: from_sklearn_cv(_sk(LinearRegression(), Y_BIN), X, Y_BIN),
        r"cv_results\['estimator'\]\[0\] is LinearRegression, a regressor",
    ),
    "from_sklearn_cv, regressor on a continuous y": (
        lambda: from_sklearn_cv(_sk(LinearRegression(), Y_CONT), X, Y_CONT),
        r"a regressor, not a classifier",
    ),
    "from_sklearn_cv, continuous y": (
        lambda: from_sklearn_cv(_sk(LogisticRegression(), Y_BIN), X, Y_CONT),
        r"y holds continuous values .*a continuous target",
    ),
    "from_sklearn_cv, one-class training fold": (
        lambda: from_sklearn_cv(
            _sk(DummyClassifier(), np.repeat([0, 1], 30), KFold(2)), X, np.repeat([0, 1], 30)
        ),
        r"cv_results' fold 0: its estimator was fitted on one class only \(classes_=\[1\]\); "
        r"its training set held none of \[0\]",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_what_is_not_classes_is_named(case):
    call, match = CASES[case]
    with pytest.raises(ValueError, match=match):
        call()


def test_whole_floats_and_declared_labels_are_classes():
    ds = cvframe.from_predictions(Y_BIN.astype(float), Y_BIN.astype(float), FOLD)
    assert ds.sizes["class"] == 1 and ds.attrs["task"] == "binary"
    halves = np.where(Y_BIN == 1, 0.5, 1.5)
    declared = cvframe.from_predictions(halves, halves, FOLD, labels=[0.5, 1.5])
    assert declared.sizes["class"] == 2


def test_a_predict_of_numbers_is_named_a_regressor():
    class Numbers(LogisticRegression):
        def predict(self, X):
            return np.asarray(X)[:, 0]

    with pytest.raises(ValueError, match=r"predicted continuous values .* behaves as a regressor"):
        cvframe.cross_validate(Numbers(), X, Y_BIN, cv=3)


def test_object_numbers_are_classes_and_bytes_are_refused_with_the_fix():
    frame = cvframe.cross_validate(LogisticRegression(), X, Y_BIN.astype(object), cv=3)
    assert frame.attrs["task"] == "binary" and frame.attrs["pos_label"] == 1
    with pytest.raises(ValueError, match=r"y holds bytes labels .*decode them first"):
        cvframe.cross_validate(LogisticRegression(), X, np.where(Y_BIN == 1, b"s", b"h"), cv=3)
