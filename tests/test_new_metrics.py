"""Matthews correlation and balanced accuracy: each is one registry entry and its kernel, and
every surface takes it with no code naming it. scikit-learn is the oracle: the pooled value
equals its score on the concatenated predictions, the fold-averaged value the mean of its
per-fold scores, on random binary and multiclass data."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score, matthews_corrcoef
from sklearn.model_selection import StratifiedKFold, cross_val_predict

import cvframe
from cvframe import metrics

SKLEARN = {"mcc": matthews_corrcoef, "balanced_accuracy": balanced_accuracy_score}
NAMES = [name for name in SKLEARN if name in metrics.REGISTRY]
#: The scikit-learn scorer name each metric stands for.
SCORERS = {"mcc": "matthews_corrcoef", "balanced_accuracy": "balanced_accuracy"}


def _frame(n_classes: int, seed: int, n: int = 240, folds: int = 5, acc: float = 0.7):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    pred = np.where(rng.random(n) < acc, y, rng.integers(0, n_classes, n))
    return pd.DataFrame(
        {"fold": rng.permutation(np.arange(n) % folds), "y_true": y, "y_pred": pred}
    )


def _oracle(name: str, df: pd.DataFrame) -> tuple[float, float]:
    func = SKLEARN[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pooled = func(df.y_true, df.y_pred)
        per_fold = [func(g.y_true, g.y_pred) for _, g in df.groupby("fold")]
    return float(pooled), float(np.mean(per_fold))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n_classes", [2, 3, 6])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pooled_and_fold_averaged_equal_scikit_learn(name, n_classes, seed):
    df = _frame(n_classes, seed)
    ds = df.cv.counts()
    pooled, averaged = _oracle(name, df)
    assert ds.cv.aggregate(name, "tp_fp").item() == pytest.approx(pooled, abs=1e-12)
    assert ds.cv.aggregate(name, "avg").item() == pytest.approx(averaged, abs=1e-12)
    per_fold = ds.cv.aggregate(name, None)
    assert per_fold.dims == ("fold",)


@settings(max_examples=25)
@given(
    st.sampled_from(NAMES),
    st.integers(2, 5),
    st.integers(1, 6),
    st.integers(0, 2**31 - 1),
)
def test_any_design_equals_scikit_learn(name, n_classes, folds, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(folds * 3, 80))
    y = rng.integers(0, n_classes, n)
    pred = np.where(rng.random(n) < rng.random(), y, rng.integers(0, n_classes, n))
    df = pd.DataFrame({"fold": np.arange(n) % folds, "y_true": y, "y_pred": pred})
    labels = list(range(n_classes))
    ds = cvframe.from_predictions(df.y_true, df.y_pred, df.fold, labels=labels)
    pooled, _ = _oracle(name, df)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ds.cv.aggregate(name, "tp_fp").item() == pytest.approx(pooled, abs=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_repeats_and_models_are_kept(name):
    parts = [
        _frame(3, s).assign(repeat=r, model=m)
        for s, (r, m) in enumerate([(0, "a"), (1, "a"), (0, "b"), (1, "b")])
    ]
    ds = pd.concat(parts).cv.counts()
    out = ds.cv.aggregate(name, "tp_fp")
    assert set(out.dims) == {"model", "repeat"}
    one = parts[3]
    assert out.sel(model="b", repeat=1).item() == pytest.approx(_oracle(name, one)[0], abs=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_dask_cube_equals_numpy(name):
    pytest.importorskip("dask.array")
    ds = _frame(3, 4).cv.counts()
    lazy = ds.chunk({"fold": 2})
    out = lazy.cv.aggregate(name, "avg")
    assert out.chunks is not None
    xr.testing.assert_allclose(out.compute(), ds.cv.aggregate(name, "avg"))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n_classes", [2, 4])
def test_compare_on_the_cube_and_the_frame(name, n_classes):
    a, b = _frame(n_classes, 5, acc=0.6), _frame(n_classes, 5, acc=0.8)
    both = pd.concat([a.assign(model="a"), b.assign(model="b")])
    fold_test = cvframe.compare(both.cv.counts(), name, baseline="a")
    per_fold = [
        SKLEARN[name](gb.y_true, gb.y_pred) - SKLEARN[name](ga.y_true, ga.y_pred)
        for (_, ga), (_, gb) in zip(a.groupby("fold"), b.groupby("fold"), strict=True)
    ]
    assert fold_test["mean"].item() == pytest.approx(np.mean(per_fold), abs=1e-12)
    pooled = cvframe.compare(both, f"{name}_tp_fp", baseline="a", random_state=0)
    want = _oracle(name, b)[0] - _oracle(name, a)[0]
    assert pooled["difference"].mean().item() == pytest.approx(want, abs=1e-12)
    assert np.isfinite(pooled["p_value"].item())


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_interval_contains_its_estimate(name, n_classes):
    df = _frame(n_classes, 6)
    ds = df.cv.counts()
    pooled, averaged = _oracle(name, df)
    iv = cvframe.interval(ds, name)
    assert iv.attrs["method"] == "posterior"
    assert iv["estimate"].item() == pytest.approx(pooled, abs=1e-12)
    assert iv["lower"].item() <= pooled <= iv["upper"].item()
    avg = ds.cv.interval(f"{name}_avg", zero_division=0.0)
    assert avg.attrs["method"] == "corrected_t"
    assert avg["estimate"].item() == pytest.approx(averaged, abs=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_pooled_search_ranks_by_the_pooled_metric(name):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + 0.8 * rng.normal(size=150) > 0.3).astype(int)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    search = cvframe.PooledSearchCV(
        LogisticRegression(), {"C": [0.01, 1.0]}, scoring=SCORERS[name], cv=cv
    ).fit(X, y)
    for i, params in enumerate(search.cv_results_["params"]):
        pred = cross_val_predict(LogisticRegression(**params), X, y, cv=cv)
        want = SKLEARN[name](y, pred)
        assert search.cv_results_["pooled_test_score"][i] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_explain_and_reconcile_find_the_recipe(name):
    df = _frame(2, 7, acc=0.75)
    pooled, averaged = _oracle(name, df)
    found = cvframe.explain(f"{pooled:.4f}", df.cv.counts(), name)
    assert found.matches["name"].tolist() == [metrics.display(name, "tp_fp")], found.text
    rec = cvframe.reconcile(f"{pooled:.4f}", f"{averaged:.4f}", df.cv.counts(), name)
    assert rec.gap == pytest.approx(float(f"{averaged:.4f}") - float(f"{pooled:.4f}"))


@pytest.mark.parametrize("name", NAMES)
def test_the_report_table_shows_it(name):
    text = _frame(3, 8).cv.counts().cv.report(plots=False)
    assert metrics.REGISTRY[name].display in text
