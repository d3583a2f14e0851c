"""Multilabel folds that stratify every label (iterative stratification): measured closer to
the overall label proportions than KFold's, and used by cross_validate by default."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import model_selection as ms
from sklearn.datasets import make_multilabel_classification
from sklearn.neighbors import KNeighborsClassifier

from cvframe.runner import cross_validate
from cvframe.splits import multilabel_kfold


@pytest.fixture(scope="module")
def data():
    return make_multilabel_classification(
        n_samples=300, n_features=10, n_classes=6, n_labels=2, random_state=0
    )


def _deviation(Y, tests):
    """Mean absolute deviation of every fold's label proportions from the overall ones."""
    overall = Y.mean(axis=0)
    return float(np.mean([np.abs(Y[te].mean(axis=0) - overall) for te in tests]))


def test_iterative_stratification_beats_kfold(data):
    X, Y = data
    strat, plain = [], []
    for seed in range(5):
        strat.append(
            _deviation(Y, [te for _, te in multilabel_kfold(5, random_state=seed).split(X, Y)])
        )
        plain.append(
            _deviation(Y, [te for _, te in ms.KFold(5, shuffle=True, random_state=seed).split(X)])
        )
    assert np.mean(strat) < 0.5 * np.mean(plain)
    assert all(s < p for s, p in zip(strat, plain, strict=True))


def test_multilabel_kfold_splitters(data):
    X, Y = data
    a = [te.tolist() for _, te in multilabel_kfold(5).split(X, Y)]
    b = [te.tolist() for _, te in multilabel_kfold(5).split(X, Y)]
    assert a == b  # random_state=None: the same folds every call
    assert sorted(i for te in a for i in te) == list(range(len(Y)))
    rep = multilabel_kfold(4, repeats=3, random_state=0)
    assert rep.get_n_splits() == 12
    for bad in (1, 2.5, True):
        with pytest.raises(ValueError, match="n_splits"):
            multilabel_kfold(bad)
    with pytest.raises(ValueError, match="repeats"):
        multilabel_kfold(5, repeats=0)


def test_cross_validate_stratifies_multilabel_by_default(data):
    X, Y = data
    est = KNeighborsClassifier(5)  # multilabel natively, and quick
    frame = cross_validate(est, X, Y, cv=5, random_state=0)
    assert frame.attrs["stratified"] == "yes"
    assert "MultilabelStratifiedKFold" in frame.attrs["splitter"]
    tests = [g["sample"].to_numpy() for _, g in frame.groupby("fold")]
    unstrat = cross_validate(est, X, Y, cv=5, random_state=0, stratified=False)
    plain = [g["sample"].to_numpy() for _, g in unstrat.groupby("fold")]
    assert _deviation(Y, tests) < _deviation(Y, plain)
    ds = frame.cv.counts()
    assert ds.attrs["task"] == "multilabel" and ds.attrs["stratified"] == "yes"
    assert list(ds["class"].values) == list(range(Y.shape[1]))
    assert int(ds.tp.sum() + ds.fn.sum()) == int(Y.sum())
    # repeats: one seeded reshuffle per repeat, each a partition
    rep = cross_validate(est, X, Y, cv=3, repeats=2, random_state=0)
    assert sorted(rep["repeat"].unique()) == [0, 1]
    assert (rep.groupby("repeat")["sample"].nunique() == len(Y)).all()
    assert "RepeatedMultilabelStratifiedKFold" in rep.attrs["splitter"]


def test_a_model_that_cannot_fit_several_labels_is_refused_before_any_fit():
    from sklearn.linear_model import LogisticRegression
    from sklearn.multioutput import MultiOutputClassifier

    X, Y = make_multilabel_classification(n_samples=120, n_classes=3, random_state=0)
    with pytest.raises(ValueError, match=r"\['lr'\] cannot fit a multilabel y.*MultiOutput"):
        cross_validate({"lr": LogisticRegression()}, X, Y, cv=3, progress=False)
    wrapped = MultiOutputClassifier(LogisticRegression(max_iter=500))
    frame = cross_validate(wrapped, X, Y, cv=3, progress=False)
    assert frame.cv.counts().sizes["class"] == 3
