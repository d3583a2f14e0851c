"""Catalogue of unusual inputs to :func:`cvframe.cross_validate`.

One row per input: a bad input raises the promised error type with a message naming the
argument; an unusual but legitimate input gives exactly what scikit-learn gives.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn import model_selection as ms
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.metrics import confusion_matrix
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import cvframe
from cvframe.runner import NotAClassifierError, cross_validate


class _Predicts(ClassifierMixin, BaseEstimator):
    """A classifier that predicts ``label`` for every sample."""

    def __init__(self, label=99):
        self.label = label

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.label)


class _NoPredict:
    def fit(self, X, y):
        return self


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    y3 = np.digitize(X[:, 1], [-0.4, 0.4])
    return X, y, y3


def _bad(data, kind):
    X, y, y3 = data
    cases = {
        "regressor": (LinearRegression(), X, y, {}),
        "regressor_pipeline": (make_pipeline(StandardScaler(), Ridge()), X, y, {}),
        "no_predict": (_NoPredict(), X, y, {}),
        "class_not_instance": (GaussianNB, X, y, {}),
        "pos_label_not_a_class": (GaussianNB(), X, y, {"pos_label": 5}),
        "pos_label_str_on_ints": (GaussianNB(), X, y, {"pos_label": "1"}),
        "pos_label_multiclass": (GaussianNB(), X, y3, {"pos_label": 1}),
        "pos_label_multilabel": (
            GaussianNB(),
            X,
            np.column_stack([y, 1 - y, y]),
            {"pos_label": 1, "stratified": False},
        ),
        "pos_label_not_a_category": (
            GaussianNB(),
            X,
            pd.Categorical(np.where(y == 1, "b", "a"), categories=["a", "b"]),
            {"pos_label": "c"},
        ),
        "predicts_outside_y": (_Predicts(99), X, y, {}),
        "predicts_string_for_ints": (_Predicts("1"), X, y, {}),
        "stratified_str": (GaussianNB(), X, y, {"stratified": "no"}),
        "stratified_int": (GaussianNB(), X, y, {"stratified": 0}),
        "return_train_int": (GaussianNB(), X, y, {"return_train": 1}),
        "repeats_bool": (GaussianNB(), X, y, {"repeats": True}),
        "repeats_zero": (GaussianNB(), X, y, {"repeats": 0}),
        "cv_bool": (GaussianNB(), X, y, {"cv": True}),
        "cv_one": (GaussianNB(), X, y, {"cv": 1}),
        "scores_unknown": (GaussianNB(), X, y, {"scores": "proba"}),
        "y_none": (GaussianNB(), X, None, {}),
        "y_short": (GaussianNB(), X, y[:-1], {}),
        "y_continuous": (GaussianNB(), X, X[:, 0], {}),
        "y_scalar": (GaussianNB(), X, 1, {}),
        "y_3d": (GaussianNB(), X, np.zeros((60, 2, 2)), {}),
        "random_state_with_splitter": (GaussianNB(), X, y, {"cv": ms.KFold(3), "random_state": 0}),
        "random_state_generator": (GaussianNB(), X, y, {"random_state": np.random.default_rng(0)}),
        "random_state_float": (GaussianNB(), X, y, {"random_state": 1.5}),
        "random_state_negative": (GaussianNB(), X, y, {"random_state": -1}),
        "groups_ignored_by_cv": (GaussianNB(), X, y, {"groups": np.arange(60) % 6}),
        "groups_ignored_by_pairs": (
            GaussianNB(),
            X,
            y,
            {"cv": [(np.arange(30), np.arange(30, 60))], "groups": y},
        ),
        "groups_missing": (
            GaussianNB(),
            X,
            y,
            {"cv": ms.GroupKFold(3), "groups": np.r_[np.nan, np.arange(59)]},
        ),
        "groups_short": (GaussianNB(), X, y, {"cv": ms.GroupKFold(3), "groups": np.arange(59)}),
        "cv_float_indices": (GaussianNB(), X, y, {"cv": [(np.arange(40.0), np.arange(40.0, 60))]}),
        "cv_boolean_mask": (
            GaussianNB(),
            X,
            y,
            {"cv": [(np.arange(60) < 40, np.arange(60) >= 40)]},
        ),
        "n_jobs_zero": (GaussianNB(), X, y, {"n_jobs": 0}),
        "n_jobs_str": (GaussianNB(), X, y, {"n_jobs": "2"}),
        "y_nan": (GaussianNB(), X, np.r_[np.nan, y[1:]], {}),
        "y_single_class": (GaussianNB(), X, np.zeros(60, dtype=int), {}),
        "y_counts": (GaussianNB(), X, np.arange(60) % 20, {"cv": 10}),
        "y_singleton_class": (GaussianNB(), X, np.r_[2, y[1:]], {}),
    }
    return cases[kind]


@pytest.mark.parametrize(
    "kind,error,name",
    [
        ("regressor", NotAClassifierError, "not a classifier"),
        ("regressor_pipeline", NotAClassifierError, "not a classifier"),
        ("no_predict", NotAClassifierError, "not a classifier"),
        ("class_not_instance", TypeError, "estimator="),
        ("pos_label_not_a_class", ValueError, "pos_label=5"),
        ("pos_label_str_on_ints", ValueError, "pos_label='1'"),
        ("pos_label_multiclass", ValueError, "pos_label=1"),
        ("pos_label_multilabel", ValueError, "pos_label=1"),
        ("pos_label_not_a_category", ValueError, "pos_label='c'"),
        ("predicts_outside_y", ValueError, r"estimator=_Predicts predicted labels \[99\]"),
        ("predicts_string_for_ints", ValueError, r"estimator=_Predicts predicted labels \['1'\]"),
        ("stratified_str", TypeError, "stratified='no'"),
        ("stratified_int", TypeError, "stratified=0"),
        ("return_train_int", TypeError, "return_train=1"),
        ("repeats_bool", ValueError, "repeats=True"),
        ("repeats_zero", ValueError, "repeats=0"),
        ("cv_bool", TypeError, "cv=True"),
        ("cv_one", ValueError, "cv=1"),
        ("scores_unknown", ValueError, "scores='proba'"),
        ("y_none", ValueError, r"\by\b"),
        ("y_short", ValueError, r"\by has 59\b"),
        ("y_continuous", ValueError, r"\by looks continuous"),
        ("y_scalar", TypeError, r"\by\b"),
        ("y_3d", ValueError, r"\by has shape"),
        ("random_state_with_splitter", ValueError, "random_state=0"),
        ("random_state_generator", ValueError, "random_state=Generator.*numpy Generator"),
        ("random_state_float", ValueError, "random_state=1.5"),
        ("random_state_negative", ValueError, "random_state=-1"),
        ("groups_ignored_by_cv", ValueError, "groups= is given but cv=StratifiedKFold"),
        ("groups_ignored_by_pairs", ValueError, "groups= is given but cv=list of 1"),
        ("groups_missing", ValueError, r"groups has 1 missing values at positions \[0\]"),
        ("groups_short", ValueError, r"groups has shape \(59,\) but X has 60"),
        ("cv_float_indices", ValueError, "split 0 of cv=list of 1 .* gives train float64 values"),
        ("cv_boolean_mask", ValueError, "gives train a boolean mask .*np.flatnonzero"),
        ("n_jobs_zero", ValueError, "n_jobs=0"),
        ("n_jobs_str", ValueError, "n_jobs='2'"),
        ("y_nan", ValueError, r"y has 1 missing labels .* at positions \[0\]"),
        ("y_single_class", ValueError, r"y has a single class \[0\]"),
        ("y_counts", ValueError, "20 distinct numeric values.*regression target"),
        ("y_singleton_class", ValueError, r"\[2\] have only \[1\] samples.*Use the unstratified"),
    ],
)
def test_bad_input(data, kind, error, name):
    est, X, y, kwargs = _bad(data, kind)
    with pytest.raises(error, match=name):
        cross_validate(est, X, y, **{"cv": 3, "progress": False, **kwargs})


def test_not_a_classifier_is_both_type_and_value_error(data):
    X, y, _ = data
    for err in (TypeError, ValueError):
        with pytest.raises(err, match="LinearRegression is a regressor, not a classifier"):
            cross_validate(LinearRegression(), X, y, cv=3)


def test_unknown_prediction_never_blames_pos_label(data):
    X, y, _ = data
    with pytest.raises(ValueError) as info:
        cross_validate(_Predicts(7), X, np.where(y == 1, 2, 5), cv=3)
    msg = str(info.value)
    assert "pos_label" not in msg and "[7]" in msg and "_Predicts" in msg


# --- legitimate unusual inputs: exact against scikit-learn ----------------------------------
def _per_fold_confusion(frame, labels):
    return [
        confusion_matrix(g["y_true"].astype(object), g["y_pred"].astype(object), labels=labels)
        for _, g in frame.groupby("fold")
    ]


@pytest.mark.parametrize("wrap", ["categorical", "series"])
def test_categorical_target_keeps_its_categories(data, wrap):
    X, _, y3 = data
    names = np.array(["lo", "mid", "hi"])[y3]
    cats = ["hi", "lo", "mid", "unused"]
    cat = pd.Categorical(names, categories=cats)
    y = cat if wrap == "categorical" else pd.Series(cat)
    frame = cross_validate(GaussianNB(), X, y, cv=3)
    assert isinstance(frame["y_true"].dtype, pd.CategoricalDtype)
    assert list(frame["y_true"].cat.categories) == cats
    assert [c for c in frame.columns if c.startswith("score_")] == [f"score_{c}" for c in cats]
    assert frame.attrs["task"] == "multiclass" and frame.attrs["labels"] == cats
    ds = frame.cv.counts()
    assert list(ds["class"].values) == cats
    for i, m in enumerate(_per_fold_confusion(frame, cats)):
        np.testing.assert_array_equal(ds.tp.isel(repeat=0, fold=i).values, np.diag(m))
        np.testing.assert_array_equal(ds.fn.isel(repeat=0, fold=i).values, m.sum(1) - np.diag(m))


@pytest.mark.parametrize(
    "y_kind,pos",
    [
        ("str", "yes"),
        ("bool", True),
        ("float", 1.0),
        ("int", 1),
        ("column", 1),
    ],
)
def test_binary_labels_record_their_positive_class(data, y_kind, pos):
    X, y, _ = data
    labels = {
        "str": np.where(y == 1, "yes", "no"),
        "bool": y == 1,
        "float": y.astype(float),
        "int": y,
        "column": y[:, None],
    }[y_kind]
    frame = cross_validate(LogisticRegression(), X, labels, cv=ms.KFold(3))
    assert frame.attrs["pos_label"] == pos and type(frame.attrs["pos_label"]) is type(pos)
    ds = frame.cv.counts()
    assert ds["class"].values.tolist() == [pos]
    y_true = np.ravel(labels)
    ref = ms.cross_val_predict(LogisticRegression(), X, np.ravel(labels), cv=ms.KFold(3))
    tp = int(((ref == pos) & (y_true == pos)).sum())
    fp = int(((ref == pos) & (y_true != pos)).sum())
    assert int(ds.tp.sum()) == tp and int(ds.fp.sum()) == fp


def test_string_labels_scores_follow_the_frame_pos_label(data):
    from sklearn.metrics import roc_auc_score

    X, y, _ = data
    labels = np.where(y == 1, "yes", "no")
    cv = ms.KFold(3)
    frame = cross_validate(LogisticRegression(), X, labels, cv=cv)
    per_fold = [roc_auc_score(g["y_true"] == "yes", g["score"]) for _, g in frame.groupby("fold")]
    got = frame.cv.auc(method="avg")
    assert float(np.asarray(got).mean()) == pytest.approx(np.mean(per_fold), abs=1e-12)


def test_pos_label_given_for_string_labels(data):
    X, y, _ = data
    labels = np.where(y == 1, "yes", "no")
    frame = cross_validate(LogisticRegression(), X, labels, cv=ms.KFold(3), pos_label="no")
    assert frame.attrs["pos_label"] == "no"
    ds = frame.cv.counts()
    assert ds["class"].values.tolist() == ["no"]
    assert int((ds.tp + ds.fn).sum()) == int((labels == "no").sum())


def test_top_level_names_still_importable():
    from cvframe.runner import to_counts

    assert cvframe.cross_validate is cross_validate
    assert callable(to_counts)
