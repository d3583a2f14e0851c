"""variance_components(): the one-way ANOVA of per-fold values across repeats, and
fold_composition(): what every fold holds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import cvframe
from cvframe import repeats


def _cube(seed: int, n_repeats: int = 4, n_folds: int = 5, n_classes: int = 2, n: int = 200):
    rng = np.random.default_rng(seed)
    yt = np.tile(rng.integers(0, n_classes, n), n_repeats)
    yp = np.where(rng.random(n * n_repeats) < 0.7, yt, rng.integers(0, n_classes, n * n_repeats))
    fold = np.concatenate([rng.permutation(np.arange(n) % n_folds) for _ in range(n_repeats)])
    rep = np.repeat(np.arange(n_repeats), n)
    labels = list(range(n_classes))
    return cvframe.from_predictions(yt, yp, fold, repeat=rep, labels=labels)


def _anova(x: np.ndarray) -> dict[str, float]:
    """Independent one-way ANOVA of a (repeat, fold) table with NaN for missing cells."""
    groups = [row[~np.isnan(row)] for row in x]
    groups = [g for g in groups if len(g)]
    allv = np.concatenate(groups)
    big_n, r = len(allv), len(groups)
    grand = allv.mean()
    ssw = sum(((g - g.mean()) ** 2).sum() for g in groups)
    ssb = sum(len(g) * (g.mean() - grand) ** 2 for g in groups)
    msw, msb = ssw / (big_n - r), ssb / (r - 1)
    n0 = (big_n - sum(len(g) ** 2 for g in groups) / big_n) / (r - 1)
    return {
        "ss_within": ssw,
        "ss_between": ssb,
        "ss_total": ((allv - grand) ** 2).sum(),
        "ms_within": msw,
        "ms_between": msb,
        "var_between": max(0.0, (msb - msw) / n0),
        "mean": grand,
    }


def test_equals_a_numpy_anova_per_class():
    ds = _cube(0, n_classes=3)
    vc = ds.cv.variance_components("f", zero_division=0.0)
    per_fold = ds.cv.f(zero_division=0.0).transpose("class", "repeat", "fold").values
    for k, c in enumerate(ds["class"].values):
        want = _anova(per_fold[k])
        for name, value in want.items():
            assert float(vc[name].sel({"class": c})) == pytest.approx(value, rel=1e-12, abs=1e-15)
    assert vc["df_within"].values.tolist() == [4 * 5 - 4] * 3
    assert vc["df_between"].values.tolist() == [3] * 3
    assert vc.attrs["method"] == "variance_components"


def test_matches_scipy_f_oneway():
    """The F ratio MS_between / MS_within is scipy's one-way ANOVA statistic."""
    from scipy import stats

    ds = _cube(3)
    vc = ds.cv.variance_components("precision", zero_division=0.0)
    x = ds.cv.precision(zero_division=0.0).isel({"class": 0}).transpose("repeat", "fold").values
    f_stat = stats.f_oneway(*x).statistic
    got = float((vc["ms_between"] / vc["ms_within"]).isel({"class": 0}))
    assert got == pytest.approx(f_stat, rel=1e-10)


@settings(max_examples=30)
@given(
    seed=st.integers(0, 10_000),
    n_repeats=st.integers(2, 5),
    n_folds=st.integers(2, 6),
    metric=st.sampled_from(["f", "precision", "recall", "accuracy", "specificity"]),
)
def test_parts_sum_to_the_total(seed, n_repeats, n_folds, metric):
    ds = _cube(seed, n_repeats, n_folds, n=60)
    vc = repeats.variance_components(ds, metric, zero_division=0.0)
    total = vc["ss_within"] + vc["ss_between"]
    np.testing.assert_allclose(total.values, vc["ss_total"].values, rtol=1e-10, atol=1e-14)
    assert (vc["var_between"] >= 0).all() and (vc["ss_within"] >= 0).all()
    assert (
        (vc["share_between"] >= 0) & (vc["share_between"] <= 1) | vc["share_between"].isnull()
    ).all()


def test_unbalanced_repeats_leave_out_cells_that_are_not_folds():
    ds = _cube(1, n_repeats=3, n_folds=4)
    for v in ("tp", "fp", "fn", "tn"):  # repeat 2 had 3 folds only: its fold 3 is padding
        ds[v] = ds[v].astype("float64")
        ds[v].loc[{"repeat": 2, "fold": 3}] = np.nan
    vc = repeats.variance_components(ds, "f", zero_division=0.0)
    x = ds.cv.f(zero_division=0.0).isel({"class": 0}).transpose("repeat", "fold").values
    x[2, 3] = np.nan
    want = _anova(x)
    assert int(vc["n_folds"].isel({"class": 0})) == 11
    for name, value in want.items():
        assert float(vc[name].isel({"class": 0})) == pytest.approx(value, rel=1e-12)


def test_keeps_model_and_class_dims():
    ds = xr.concat([_cube(5), _cube(6)], dim=pd.Index(["lr", "rf"], name="model"))
    vc = ds.cv.variance_components()
    assert set(vc["ss_total"].dims) == {"model", "class"}
    assert vc["model"].values.tolist() == ["lr", "rf"]
    one = repeats.variance_components(ds.sel(model="rf", drop=True))
    xr.testing.assert_allclose(vc["ss_total"].sel(model="rf", drop=True), one["ss_total"])


def test_dask_gives_the_same():
    pytest.importorskip("dask")
    ds = _cube(7, n_classes=3)
    eager = repeats.variance_components(ds, "f", zero_division=0.0)
    lazy = repeats.variance_components(ds.chunk({"repeat": 1}), "f", zero_division=0.0)
    assert any(v.chunks is not None for v in lazy.data_vars.values())
    xr.testing.assert_allclose(eager, lazy.compute())
    for k in eager.data_vars:
        assert eager[k].dtype == lazy[k].dtype


def test_identical_repeats_have_no_between_part():
    one = _cube(2, n_repeats=1).isel(repeat=0, drop=True)
    ds = xr.concat([one, one, one], dim="repeat")
    vc = repeats.variance_components(ds, zero_division=0.0)
    assert float(vc["ss_between"].max()) == pytest.approx(0.0, abs=1e-15)
    assert float(vc["share_between"].max()) == 0.0


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: cvframe.datasets.table1(), "dim_repeat='repeat' is not a dimension"),
        (lambda: _cube(0, n_repeats=1), "has 1 repeat; variance_components needs at least 2"),
    ],
)
def test_refuses_a_cube_without_repeats(make, match):
    with pytest.raises(ValueError, match=match):
        repeats.variance_components(make())


def test_bad_metric_and_dims():
    ds = _cube(0)
    with pytest.raises(ValueError, match="metric"):
        repeats.variance_components(ds, "auc")
    with pytest.raises(ValueError, match="folds"):
        repeats.variance_components(ds, dim="folds")
    with pytest.raises(ValueError, match="two different dims"):
        repeats.variance_components(ds, dim="repeat")


def test_fold_composition_counts_positives_negatives_and_pairs():
    ds = _cube(4, n_classes=3)
    fc = ds.cv.fold_composition()
    tp, fp, fn, tn = (ds[k] for k in ("tp", "fp", "fn", "tn"))
    xr.testing.assert_equal(fc["positives"], (tp + fn).astype("int64"))
    xr.testing.assert_equal(fc["negatives"], (fp + tn).astype("int64"))
    xr.testing.assert_equal(fc["auc_pairs"], fc["positives"] * fc["negatives"])
    assert set(fc["min_positives"].dims) == {"repeat", "class"}
    assert (fc["min_positives"] <= fc["max_positives"]).all()
    # the pairs of a fold are those scikit-learn's AUC ranks: n_pos * n_neg
    assert int(fc["n"].isel(repeat=0, fold=0, **{"class": 0})) == int(
        (tp + fp + fn + tn).isel(repeat=0, fold=0, **{"class": 0})
    )
