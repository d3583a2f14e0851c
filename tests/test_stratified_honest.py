"""Stratification is recorded honestly: when a stratified splitter cannot give every test
fold a class's positives (a multilabel label with 5 positives under 10-fold iterative
stratification), the frame and cube do not say stratified="yes" for it, and anomalies says
which class and why."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import KFold, StratifiedGroupKFold
from sklearn.tree import DecisionTreeClassifier

import cvframe
from cvframe.diagnostics import anomalies

N = 200


def _multilabel(rare: int = 5) -> tuple[np.ndarray, pd.DataFrame]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, 4))
    Y = (rng.random((N, 3)) < [0.3, 0.5, 0.0]).astype(int)
    Y[rng.choice(N, rare, replace=False), 2] = 1
    return X, pd.DataFrame(Y, columns=["a", "b", "rare"])


@pytest.fixture(scope="module")
def frame():
    X, Y = _multilabel()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cvframe.cross_validate(DecisionTreeClassifier(random_state=0), X, Y, cv=10)


def test_the_frame_and_the_cube_do_not_call_a_rare_label_stratified(frame):
    assert frame.attrs["stratified"] == "partial"
    assert frame.attrs["unstratified_labels"] == ["rare"]
    ds = frame.cv.counts()
    assert ds.attrs["stratified"] == "partial"
    assert list(ds.attrs["unstratified_labels"]) == ["rare"]
    support = (ds.tp + ds.fn).sel({"class": "rare"}).values.ravel()
    assert (support == 0).sum() == 5  # what the record is about: 5 of 10 folds without it


def test_anomalies_says_which_label_and_why(frame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = anomalies(frame.cv.counts())
    rows = found[found.kind == "label_not_stratified"]
    assert rows["class"].tolist() == ["rare"] and rows["code"].tolist() == ["CV203"]
    assert rows.severity.tolist() == ["warning"] and rows.fold.tolist() == [None]
    assert rows.detail.iloc[0] == (
        "5 of 10 test folds hold none of the class's 5 positives: 5 positives cannot fill "
        "10 folds (the cube says stratified='partial')"
    )


def test_every_label_with_enough_positives_stays_stratified():
    X, Y = _multilabel(rare=40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = cvframe.cross_validate(DecisionTreeClassifier(random_state=0), X, Y, cv=5)
        found = anomalies(frame.cv.counts())
    assert frame.attrs["stratified"] == "yes" and "unstratified_labels" not in frame.attrs
    assert "label_not_stratified" not in set(found.kind)


def test_a_repeated_run_and_a_user_stratified_splitter_are_checked_too():
    X, Y = _multilabel()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = cvframe.cross_validate(
            DecisionTreeClassifier(random_state=0), X, Y, cv=10, repeats=2, random_state=0
        )
        found = anomalies(rep.cv.counts())
    assert rep.attrs["stratified"] == "partial"
    rows = found[found.kind == "label_not_stratified"]
    assert rows["class"].tolist() == ["rare", "rare"] and rows["repeat"].tolist() == [0, 1]
    # single-label: a stratified group splitter whose one group holds every positive
    y = np.r_[np.zeros(N - 3, int), np.ones(3, int)]
    groups = np.r_[np.arange(N - 3) % 20 + 1, np.zeros(3, int)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        single = cvframe.cross_validate(
            DecisionTreeClassifier(random_state=0), X, y, cv=StratifiedGroupKFold(3), groups=groups
        )
    assert single.attrs["stratified"] == "partial"
    assert single.attrs["unstratified_labels"] == [1]


def test_an_unstratified_splitter_raises_no_such_finding():
    X, Y = _multilabel()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = cvframe.cross_validate(DecisionTreeClassifier(random_state=0), X, Y, cv=KFold(10))
        found = anomalies(frame.cv.counts())
    assert frame.attrs["stratified"] == "no"
    assert "label_not_stratified" not in set(found.kind)
    assert "undefined_recall" in set(found.kind)  # the folds are still reported one by one
