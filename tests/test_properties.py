"""Invariants of the counts cube and the fold aggregations, under hypothesis (RELIABILITY §A)."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest
import xarray as xr
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.metrics import f1_score

import cvframe
from cvframe import formulas


@st.composite
def fold_layouts(draw, max_classes=6, max_folds=8, max_size=40):
    """Single-label predictions: 2-6 classes, 1-8 folds, fold sizes 0-40 (0 and 1 included)."""
    c = draw(st.integers(2, max_classes))
    k = draw(st.integers(1, max_folds))
    sizes = draw(st.lists(st.integers(0, max_size), min_size=k, max_size=k))
    if sum(sizes) == 0:
        sizes[0] = 1
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    y = rng.integers(0, c, n)
    yp = np.where(rng.random(n) < draw(st.floats(0, 1)), y, rng.integers(0, c, n))
    fold = np.repeat(np.arange(k), sizes)
    return y, yp, fold, c, k


def _cube(y, yp, fold, c, k):
    """A cube that keeps empty folds (from_predictions only sees folds that have samples)."""
    ds = cvframe.from_predictions(y, yp, fold, labels=list(range(c)))
    return ds.reindex(fold=np.arange(k), fill_value=0)


@given(fold_layouts(), st.randoms(use_true_random=False))
@example((np.array([0, 1]), np.array([1, 1]), np.array([0, 1]), 2, 2), None)
def test_invariants_of_the_cube(layout, rnd):
    y, yp, fold, c, k = layout
    ds = _cube(y, yp, fold, c, k)
    # 1. tp + fn = support, tp + fp = predicted count
    for f in range(k):
        m = fold == f
        sup = np.bincount(y[m], minlength=c)
        pred = np.bincount(yp[m], minlength=c)
        np.testing.assert_array_equal((ds.tp + ds.fn).sel(fold=f).values, sup)
        np.testing.assert_array_equal((ds.tp + ds.fp).sel(fold=f).values, pred)
    # 2. single-label: sum tp = correct; sum fp = sum fn; n equal across classes
    np.testing.assert_array_equal(ds.tp.sum("class"), np.bincount(fold[y == yp], minlength=k))
    xr.testing.assert_equal(ds.fp.sum("class"), ds.fn.sum("class"))
    # 3. summing over folds = counts of the pooled predictions; int64 stays
    pooled = cvframe.from_predictions(y, yp, np.zeros_like(fold), labels=list(range(c)))
    np.testing.assert_array_equal(ds.cv.pooled().tp.values, pooled.tp.values[0])
    assert ds.cv.pooled().tp.dtype == np.int64
    # 4. every aggregate is invariant to permuting folds
    perm = list(range(k))
    rnd.shuffle(perm) if rnd is not None else None
    shuffled = ds.isel(fold=perm)
    xr.testing.assert_allclose(
        ds.cv.f_methods(zero_division=0), shuffled.cv.f_methods(zero_division=0)
    )
    # 6. F_tp,fp = F of scikit-learn on all folds concatenated
    ref = f1_score(y, yp, labels=list(range(c)), average=None, zero_division=0)
    np.testing.assert_allclose(ds.cv.f_tp_fp(zero_division=0).values, ref, atol=1e-12)
    # 7. pooled accuracy = fold-size-weighted mean of fold accuracies
    sizes = (ds.tp + ds.fp + ds.fn + ds.tn).isel({"class": 0})
    acc = ds.cv.accuracy(zero_division=0)
    weighted = float((acc * sizes).sum() / sizes.sum())
    assert ds.cv.accuracy(how="pooled").item() == pytest.approx(weighted, abs=1e-12)
    assert ds.cv.accuracy(how="pooled").item() == pytest.approx(np.mean(y == yp), abs=1e-12)
    # ... and pooled recall = support-weighted mean of fold recalls
    rec = ds.cv.recall(zero_division=0)
    sup = ds.tp + ds.fn
    with np.errstate(invalid="ignore"):
        wrec = (rec * sup).sum("fold") / sup.sum("fold")
    pooled_rec = formulas.recall(ds.tp.sum("fold"), ds.fn.sum("fold"), np.nan)
    np.testing.assert_allclose(wrec, pooled_rec, atol=1e-12)
    # 11. bounds
    for v in ds.cv.f_methods(zero_division=0).data_vars.values():
        assert ((v >= 0) & (v <= 1)).all()


@given(fold_layouts(max_folds=5), st.integers(2, 7))
def test_scaling_counts_and_zero_fold(layout, factor):
    y, yp, fold, c, k = layout
    ds = _cube(y, yp, fold, c, k)
    scaled = ds.copy()
    for v in ("tp", "fp", "fn", "tn"):
        scaled[v] = ds[v] * factor
    scaled = scaled.drop_vars("confusion")
    # 9. multiplying all counts by an integer leaves every ratio metric unchanged
    xr.testing.assert_allclose(
        ds.cv.f_methods(zero_division=0), scaled.cv.f_methods(zero_division=0)
    )
    # ... and adding an all-zero fold leaves pooled metrics unchanged
    zero = xr.zeros_like(ds.isel(fold=[0])).assign_coords(fold=[k + 100])
    more = xr.concat([ds, zero], dim="fold")
    xr.testing.assert_allclose(ds.cv.f_tp_fp(zero_division=0), more.cv.f_tp_fp(zero_division=0))


@given(fold_layouts(max_folds=4))
def test_dim_order_and_sample_order_do_not_matter(layout):
    y, yp, fold, c, k = layout
    ds = _cube(y, yp, fold, c, k)
    t = ds.transpose("class", "fold", ...)
    xr.testing.assert_allclose(
        ds.cv.f_methods(zero_division=0).transpose("class"),
        t.cv.f_methods(zero_division=0).transpose("class"),
    )
    order = np.random.default_rng(0).permutation(len(y))
    again = _cube(y[order], yp[order], fold[order], c, k)
    xr.testing.assert_identical(ds, again)


@given(fold_layouts(max_folds=5))
def test_dask_equals_numpy(layout):
    pytest.importorskip("dask")
    y, yp, fold, c, k = layout
    ds = _cube(y, yp, fold, c, k)
    lazy = ds.chunk({"fold": 1})
    for name in ("f_tp_fp", "f_avg", "f_pr_re"):
        got = getattr(lazy.cv, name)(zero_division=0)
        assert got.chunks is not None  # stays lazy until computed
        computed = got.compute()
        want = getattr(ds.cv, name)(zero_division=0)
        assert computed.dtype == want.dtype
        xr.testing.assert_allclose(computed, want)


@given(fold_layouts(max_folds=3))
def test_netcdf_round_trip_keeps_results(layout):
    y, yp, fold, c, k = layout
    ds = _cube(y, yp, fold, c, k)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cube.nc")
        ds.to_netcdf(path)
        back = cvframe.open_dataset(path)
    xr.testing.assert_identical(back, ds)
    for v in back.variables:
        assert back[v].dtype == ds[v].dtype, v
    xr.testing.assert_identical(
        back.cv.f_methods(zero_division=0), ds.cv.f_methods(zero_division=0)
    )


def test_the_harness_catches_a_wrong_metric():
    """Test the tests: F computed with swapped arguments must break the invariance harness."""
    rng = np.random.default_rng(0)
    y, yp, fold = rng.integers(0, 3, 200), rng.integers(0, 3, 200), rng.integers(0, 4, 200)
    ds = cvframe.from_predictions(y, yp, fold)
    wrong = formulas.f_beta(ds.tp.sum("fold"), ds.fn.sum("fold"), ds.tp.sum("fold"))
    ref = f1_score(y, yp, average=None, zero_division=0)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(wrong.values, ref, atol=1e-12)
    wrong_avg = ds.cv.f(zero_division=0).isel(fold=0)  # "mean" that ignores the other folds
    with pytest.raises(AssertionError):
        xr.testing.assert_allclose(wrong_avg.drop_vars("fold"), ds.cv.f_avg(zero_division=0))


# --- not-a-fold cells and class permutations ---------------------------------------------------

_PERFECT = (np.tile([0, 1, 2], 10), np.tile([0, 1, 2], 10), np.repeat(np.arange(5), 6), 3, 5)


@settings(max_examples=15)
@given(fold_layouts(max_folds=5), st.integers(1, 4), st.sampled_from(["nan", "zero"]))
@example(_PERFECT, 5, "nan")  # a 5-fold repeat padded to 10 folds scored f_avg = 0.5
@example(_PERFECT, 5, "zero")
def test_padding_folds_changes_no_aggregate(layout, extra, pad):
    y, yp, fold, c, k = layout
    ds = _cube(y, yp, fold, c, k).drop_vars("confusion")
    fill = np.nan if pad == "nan" else 0
    padded = ds.reindex(fold=np.arange(k + extra), fill_value=fill)
    xr.testing.assert_allclose(
        ds.cv.f_methods(zero_division=0), padded.cv.f_methods(zero_division=0)
    )
    for fm in ("tp_fp", "avg", "pr_re"):
        for fn in ("macro", "micro", "weighted"):
            xr.testing.assert_allclose(
                getattr(ds.cv, fn)("f", fm, zero_division=0),
                getattr(padded.cv, fn)("f", fm, zero_division=0),
            )
    xr.testing.assert_allclose(
        ds.cv.accuracy(how="avg", zero_division=0), padded.cv.accuracy(how="avg", zero_division=0)
    )


@settings(max_examples=15)
@given(fold_layouts(max_folds=5), st.randoms(use_true_random=False))
@example(_PERFECT, None)
def test_class_averages_are_invariant_to_class_permutation(layout, rnd):
    y, yp, fold, c, k = layout
    ds = _cube(y, yp, fold, c, k)
    order = list(range(c))
    rnd.shuffle(order) if rnd is not None else order.reverse()
    perm = ds.isel({"class": order, "true": order, "pred": order})
    for fm in ("tp_fp", "avg", "pr_re"):
        for fn in ("macro", "micro", "weighted"):
            np.testing.assert_allclose(
                getattr(ds.cv, fn)("f", fm, zero_division=0).values,
                getattr(perm.cv, fn)("f", fm, zero_division=0).values,
                rtol=1e-12,
                atol=1e-15,
            )
    # per-class results follow the permutation
    np.testing.assert_allclose(
        perm.cv.f_avg(zero_division=0).values,
        ds.cv.f_avg(zero_division=0).values[order],
        rtol=1e-12,
    )
    # and every fold aggregation is invariant to permuting folds
    folds = list(range(k))[::-1]
    xr.testing.assert_allclose(
        ds.cv.f_tp_fp(zero_division=0), ds.isel(fold=folds).cv.f_tp_fp(zero_division=0)
    )
