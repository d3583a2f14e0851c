"""selection_stability: which parameters each outer fold of a nested cross-validation chose.

Oracle: the same search fitted by hand on every outer training set (its ``best_params_``), and
scikit-learn's ``cross_validate(..., return_estimator=True)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, RepeatedStratifiedKFold, StratifiedKFold
from sklearn.model_selection import cross_validate as sk_cross_validate
from sklearn.naive_bayes import GaussianNB

import cvframe
from cvframe.runner import param_label
from cvframe.search import PooledSearchCV, selection_stability

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

GRID = {"var_smoothing": [1e-9, 1e-2, 1e-1, 0.5]}


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=120, n_features=5, n_informative=2, flip_y=0.2, random_state=2
    )
    return X, y


def _search():
    return PooledSearchCV(GaussianNB(), GRID, cv=3)


def test_each_outer_fold_reports_the_choice_of_its_own_search(data):
    X, y = data
    outer = StratifiedKFold(4, shuffle=True, random_state=0)
    frame = cvframe.cross_validate(_search(), X, y, cv=outer, progress=False)
    table = selection_stability(frame)
    by_hand = [_search().fit(X[tr], y[tr]).best_params_ for tr, _ in outer.split(X, y)]
    assert table["fold"].tolist() == [0, 1, 2, 3]
    assert table["choice"].tolist() == [param_label(p) for p in by_hand]
    assert table["param_var_smoothing"].tolist() == [p["var_smoothing"] for p in by_hand]
    counts = pd.Series(table["choice"]).value_counts()
    assert table["count"].tolist() == [counts[c] for c in table["choice"]]
    assert table["share"].tolist() == [counts[c] / 4 for c in table["choice"]]
    assert table.attrs["most_frequent_share"] == counts.max() / 4
    assert table.attrs["most_frequent"] == counts.index[0]
    assert table["most_frequent"].sum() == counts.max()


def test_scikit_learns_cross_validate_and_a_list_of_searches_give_the_same_table(data):
    X, y = data
    outer = StratifiedKFold(4, shuffle=True, random_state=0)
    frame = cvframe.cross_validate(_search(), X, y, cv=outer, progress=False)
    sk = sk_cross_validate(_search(), X, y, cv=outer, return_estimator=True)
    ours = selection_stability(frame)
    pd.testing.assert_frame_equal(selection_stability(sk), ours)
    pd.testing.assert_frame_equal(selection_stability(sk["estimator"]), ours)


def test_repeats_and_several_models(data):
    X, y = data
    outer = RepeatedStratifiedKFold(n_splits=2, n_repeats=2, random_state=0)
    searches = {"pooled": _search(), "grid": GridSearchCV(GaussianNB(), GRID, cv=3)}
    frame = cvframe.cross_validate(searches, X, y, cv=outer, progress=False)
    table = selection_stability(frame)
    assert list(table.columns[:3]) == ["model", "repeat", "fold"]
    assert len(table) == 2 * 4
    assert table.groupby("model")["repeat"].apply(list).to_dict() == {
        "grid": [0, 0, 1, 1],
        "pooled": [0, 0, 1, 1],
    }
    shares = table.attrs["most_frequent_share"]
    assert set(shares) == {"pooled", "grid"}
    for name, part in table.groupby("model"):
        assert shares[name] == part["choice"].value_counts().max() / 4
    # searches given as a list: n_splits says where a repeat ends
    fitted = [_search().fit(X[tr], y[tr]) for tr, _ in outer.split(X, y)]
    alone = selection_stability(fitted, n_splits=2)
    assert alone[["repeat", "fold"]].values.tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]


def test_inputs_that_are_not_searches_are_named(data):
    X, y = data
    plain = cvframe.cross_validate(GaussianNB(), X, y, cv=3, progress=False)
    with pytest.raises(ValueError, match=r"attrs\['best_params'\]"):
        selection_stability(plain)
    with pytest.raises(ValueError, match="return_estimator=True"):
        selection_stability({"test_score": np.zeros(3)})
    with pytest.raises(TypeError, match="best_params_"):
        selection_stability([GaussianNB()])


def test_exported_at_the_root():
    assert cvframe.selection_stability is selection_stability
