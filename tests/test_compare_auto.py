"""compare(test="auto") reads the design: each pick, each refusal, the effect size and the
interval of every difference, and per-class comparisons with Holm's correction."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from cvframe.comparison import compare
from cvframe.comparison.friedman import holm


def _frame(n=200, folds=10, repeats=1, seed=0, accs=(0.7, 0.85), classes=2):
    """A predictions frame of two models tested on the same folds (paired)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    parts = []
    for r in range(repeats):
        fold = rng.permutation(np.arange(n) % folds)
        for m, acc in zip(("lr", "rf"), accs, strict=True):
            pred = np.where(rng.random(n) < acc, y, (y + 1) % classes)
            parts.append(
                pd.DataFrame(
                    {
                        "model": m,
                        "repeat": r,
                        "fold": fold,
                        "sample": np.arange(n),
                        "y_true": y,
                        "y_pred": pred,
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


@functools.cache
def _cube(folds=10, repeats=3, seed=0, classes=2):
    return _frame(folds=folds, repeats=repeats, seed=seed, classes=classes).cv.counts(
        **({"pos_label": 1} if classes == 2 else {})
    )


def _check_common(res):
    assert res.attrs["chosen_by"] == "auto"
    assert res.attrs["reason"]
    assert "effect_size" in res and "effect_size" in res.attrs
    assert np.isfinite(res["low"]).all() and np.isfinite(res["high"]).all()


def test_repeated_folds_pick_the_corrected_t():
    ds = _cube()
    res = compare(ds, "f", baseline="lr")
    assert res.attrs["test"] == "corrected_t"
    assert "3 repeat(s) x 10 folds" in res.attrs["reason"]
    _check_common(res)
    assert float(res["low"].item()) <= float(res["mean"].item()) <= float(res["high"].item())


def test_effect_size_is_cohens_dz_of_the_per_fold_differences():
    ds = _cube()
    res = compare(ds, "f", baseline="lr")
    f = ds.cv.f(zero_division=0.0)
    d = (f.sel(model="rf") - f.sel(model="lr")).values.ravel()
    assert float(res["effect_size"].item()) == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)


def test_five_by_two_design_picks_the_5x2cv_t():
    res = compare(_cube(folds=2, repeats=5), "f", baseline="lr")
    assert res.attrs["test"] == "5x2cv_t"
    assert "5 repeats x 2 folds" in res.attrs["reason"]
    _check_common(res)


def test_pooled_metric_on_the_frame_picks_the_paired_delta_test():
    df = _frame(repeats=2)
    res = compare(df, "f_tp_fp", baseline="lr")
    assert res.attrs["test"] == "paired_delta"
    assert "pooled" in res.attrs["reason"]
    _check_common(res)
    # the effect size of a pooled metric is the difference itself, on the metric's scale
    assert float(res["effect_size"].item()) == float(res["mean"].item())
    assert "scale" in res.attrs["effect_size"]


def test_pooled_accuracy_of_one_run_picks_mcnemar():
    res = compare(_frame(), "accuracy_pooled", baseline="lr")
    assert res.attrs["test"] == "mcnemar"
    _check_common(res)


def test_data_sets_pick_friedman():
    cubes = [_cube(seed=s) for s in range(4)]
    ds = xr.concat(cubes, dim=pd.Index(["a", "b", "c", "d"], name="dataset"))
    res = compare(ds, "f", baseline="lr")
    assert res.attrs["test"] == "friedman"
    assert "4 data sets" in res.attrs["reason"]
    assert "effect_size" in res
    d = res["difference"].values.ravel()
    assert float(res["effect_size"].item()) == pytest.approx(d.mean() / d.std(ddof=1))


def test_refuses_friedman_with_folds_as_blocks():
    with pytest.raises(ValueError, match="folds as blocks"):
        compare(_cube(), "f", baseline="lr", test="friedman")


def test_refuses_the_uncorrected_t_over_folds():
    with pytest.raises(ValueError, match="uncorrected paired t-test over the folds"):
        compare(_cube(), "f", baseline="lr", test="t")


def test_refuses_unpaired_folds():
    ds = _cube()
    other = _frame(repeats=3, seed=9).cv.counts(pos_label=1)
    mixed = xr.concat(
        [ds.sel(model="lr", drop=True), other.sel(model="rf", drop=True)],
        dim=pd.Index(["lr", "rf"], name="model"),
    )
    with pytest.raises(ValueError, match="unpaired design"):
        compare(mixed, "f", baseline="lr")
    df = _frame()
    shuffled = df.copy()
    is_rf = shuffled["model"] == "rf"
    shuffled.loc[is_rf, "fold"] = np.random.default_rng(5).permutation(
        shuffled.loc[is_rf, "fold"].to_numpy()
    )
    with pytest.raises(ValueError, match="unpaired design"):
        compare(shuffled, "f_tp_fp", baseline="lr", n_resamples=100)


def test_a_pooled_metric_on_the_cube_picks_the_fold_jackknife():
    res = compare(_cube(), "f_tp_fp", baseline="lr")
    assert res.attrs["test"] == "fold_jackknife" and "fold jackknife" in res.attrs["reason"]
    _check_common(res)


def test_refuses_auc_merge_on_the_cube_with_the_fix():
    with pytest.raises(ValueError, match="pass the predictions frame with its scores"):
        compare(_cube(), "auc_merge", baseline="lr")


def test_an_asked_test_says_so():
    res = compare(_cube(), "f", baseline="lr", test="corrected_t")
    assert res.attrs["chosen_by"] == "user"
    assert "corrected_t" in res.attrs["reason"]


def test_multiclass_compares_the_average_by_default():
    ds = _cube(classes=3)
    res = compare(ds, "f", baseline="lr")
    assert "class" not in res.dims
    assert res.attrs["average"] == "macro"
    for average in ("micro", "weighted"):
        assert compare(ds, "f", baseline="lr", average=average).attrs["average"] == average


def test_per_class_comparisons_are_holm_adjusted():
    ds = _cube(classes=3)
    res = compare(ds, "f", baseline="lr", average=None)
    assert res.sizes["class"] == 3
    raw = res["p_value_raw"].values.ravel()
    np.testing.assert_allclose(res["p_value"].values.ravel(), holm(raw))
    assert (res["p_value"] >= res["p_value_raw"]).all()
    assert (res["significant"] == (res["p_value"] < 0.05)).all()
    assert "Holm" in res.attrs["correction"]


def test_holm_agrees_with_statsmodels_when_present():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    p = np.array([0.01, 0.04, 0.03, 0.2, 0.001])
    want = multitest.multipletests(p, method="holm")[1]
    np.testing.assert_allclose(holm(p), want)


def test_the_cube_helper_is_paired():
    ds = _cube()
    c = ds.cv.fold_composition()
    assert (c["n"].sel(model="lr") == c["n"].sel(model="rf")).all()
