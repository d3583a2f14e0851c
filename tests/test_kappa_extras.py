"""Kappa's chance matrix, its strength-of-agreement bands, and "mean ± sd" over folds.

Oracles: the evaluation-of-learning slides' worked numbers in exact fractions (the random
classifier's 60 + 18 + 4 = 82 agreements, 58 extra successes of at most 118, kappa = 58/118,
the kappa band table, the "mean (+/- sd)" lines with the population sd), scikit-learn's
``cohen_kappa_score`` and numpy's ``std``.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import cvframe
from cvframe import kappa, multiclass

SLIDES = [[88, 10, 2], [14, 40, 6], [18, 10, 12]]


def _expected_exact(conf):
    n = sum(map(sum, conf))
    rows = [sum(r) for r in conf]
    cols = [sum(conf[j][k] for j in range(len(conf))) for k in range(len(conf))]
    return [[Fraction(r * c, n) for c in cols] for r in rows], n


# --- the chance matrix --------------------------------------------------------------------


def test_chance_matrix_of_the_slides_is_exact():
    ds = cvframe.datasets.slides_confusion()
    e = ds.cv.kappa_expected()
    want, n = _expected_exact(SLIDES)
    assert e.dims == ("true", "pred") and e.dtype == np.float64
    assert e.values.tolist() == [[float(x) for x in row] for row in want]
    chance = sum(want[i][i] for i in range(3))
    assert [want[i][i] for i in range(3)] == [60, 18, 4] and chance == 82
    correct = sum(SLIDES[i][i] for i in range(3))
    extra, most = correct - chance, n - chance
    assert (extra, most) == (58, 118)
    assert float(e.values.trace()) == 82.0
    assert ds.cv.kappa().item() == float(Fraction(58, 118))  # 0.4915..., to the last bit
    assert list(e["true"].values) == ["A", "B", "C"] and e.attrs["method"] == "kappa_expected"


def test_chance_matrix_keeps_marginals_and_gives_sklearns_kappa():
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(7)
    y = rng.integers(0, 4, 400)
    yp = np.where(rng.random(400) < 0.5, y, rng.integers(0, 4, 400))
    fold = np.arange(400) % 5
    ds = cvframe.from_predictions(y, yp, fold)
    conf = ds.cv.confusion()
    e = ds.cv.kappa_expected()
    np.testing.assert_allclose(e.sum("pred").values, conf.sum("pred").values)
    np.testing.assert_allclose(e.sum("true").values, conf.sum("true").values)
    n = float(conf.sum())
    kappa = (np.trace(conf.values) - np.trace(e.values)) / (n - np.trace(e.values))
    assert kappa == pytest.approx(cohen_kappa_score(y, yp), rel=1e-12)
    per_fold = ds.cv.kappa_expected(dim=None)
    assert per_fold.dims == ("fold", "true", "pred")
    for f in range(5):
        m = fold == f
        c = ds.confusion.isel(fold=f).values.astype(float)
        np.testing.assert_allclose(
            per_fold.isel(fold=f).values, np.outer(c.sum(1), c.sum(0)) / m.sum()
        )


def test_chance_matrix_keeps_other_dims_and_dask():
    one = cvframe.datasets.slides_confusion()
    ds = xr.concat([one, one], dim="repeat")
    e = ds.cv.kappa_expected()
    assert e.dims == ("repeat", "true", "pred")
    pytest.importorskip("dask")
    lazy = ds.chunk({"repeat": 1}).cv.kappa_expected()
    assert lazy.chunks is not None
    np.testing.assert_array_equal(lazy.compute().values, e.values)


def test_chance_matrix_of_an_empty_fold_is_zero():
    m = np.array([[[3, 1], [0, 2]], [[0, 0], [0, 0]]])
    ds = cvframe.from_confusion(m, ["a", "b"], pos_label="b")
    e = ds.cv.kappa_expected(dim=None)
    assert e.isel(fold=1).values.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_chance_matrix_needs_a_confusion_variable_and_a_good_dim():
    with pytest.raises(cvframe.CountsError, match="confusion"):
        cvframe.datasets.table1().cv.kappa_expected()
    with pytest.raises(ValueError, match="dim"):
        cvframe.datasets.slides_confusion().cv.kappa_expected(dim="true")


# --- the bands ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "band"),
    [
        (-1.0, "Poor"),
        (-0.2, "Poor"),
        (0.0, "Poor"),
        (0.2, "Poor"),
        (0.21, "Fair"),
        (0.4, "Fair"),
        (0.41, "Moderate"),
        (float(Fraction(58, 118)), "Moderate"),
        (0.6, "Moderate"),
        (0.61, "Good"),
        (0.8, "Good"),
        (0.81, "Very good"),
        (1.0, "Very good"),
        (float("nan"), "undefined"),
    ],
)
def test_bands_of_the_slides_table(value, band):
    assert multiclass.kappa_band(value) == band
    assert multiclass.kappa_band(np.float64(value)) == band


def test_band_just_above_each_limit_is_the_next_band():
    labels = [lab for _, lab in multiclass.KAPPA_BANDS]
    for i, (upper, _) in enumerate(multiclass.KAPPA_BANDS[:-1]):
        assert multiclass.kappa_band(np.nextafter(upper, 2.0)) == labels[i + 1]
        assert multiclass.kappa_band(upper) == labels[i]


@settings(max_examples=50)
@given(st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=20))
def test_bands_are_monotone_and_vectorised(values):
    order = [lab for _, lab in multiclass.KAPPA_BANDS]
    arr = np.array(values)
    got = multiclass.kappa_band(arr)
    assert got.shape == arr.shape
    assert got.tolist() == [multiclass.kappa_band(v) for v in values]
    ranks = [order.index(b) for b in got[np.argsort(arr, kind="stable")]]
    assert ranks == sorted(ranks)


def test_band_of_a_dataarray_keeps_dims_and_coords():
    one = cvframe.datasets.slides_confusion()
    perfect = cvframe.from_confusion([[5, 0, 0], [0, 5, 0], [0, 0, 5]], ["A", "B", "C"])
    ds = xr.concat([one, perfect], dim="model").assign_coords(model=["slides", "perfect"])
    k = ds.cv.kappa()
    band = multiclass.kappa_band(k)
    assert isinstance(band, xr.DataArray) and band.dims == k.dims
    assert band.sel(model="slides").item() == "Moderate"
    assert band.sel(model="perfect").item() == "Very good"
    assert band.attrs["method"] == "kappa_band"


@pytest.mark.parametrize(
    ("value", "exc"), [(1.5, ValueError), ([0.1, -2.0], ValueError), ("high", TypeError)]
)
def test_bad_kappa_values_name_the_argument(value, exc):
    with pytest.raises(exc, match="kappa_value"):
        multiclass.kappa_band(value)


def test_out_of_range_kappa_in_a_data_array_is_refused_with_the_values():
    with pytest.raises(ValueError, match=r"2 value\(s\) outside \[-1, 1\]: \[-2.0, 1.5\]"):
        kappa.kappa_band(xr.DataArray([0.1, 1.5, -2.0, float("nan")], dims="model"))


def test_the_kappa_family_is_one_module_reached_from_multiclass():
    for name in ("kappa", "kappa_expected", "kappa_band", "KAPPA_BANDS", "confusion"):
        assert getattr(multiclass, name) is getattr(kappa, name)
        assert name in multiclass.__all__ and name in kappa.__all__


def test_report_shows_the_band_next_to_kappa():
    ds = cvframe.datasets.slides_confusion()
    text = ds.cv.report(plots=False)
    # the class-average table gives kappa's value with its Landis-Koch band beside it
    row = next(line.split() for line in text.splitlines() if line.split()[:1] == ["kappa"])
    assert row[1:] == ["0.4915", "(Moderate)"]
    data = json.loads(ds.cv.report(plots=False, format="json"))
    assert "Moderate" in json.dumps(data)


# --- "mean ± sd" over folds: summary(ddof=0) ------------------------------------------------


def _folds_with_kappas():
    """Three 2-class folds whose kappas are 0, 1, 0 (the slides' cohen_kappa_score line)."""
    zero = [[1, 1], [0, 0]]  # p_o = 1/2 = p_e
    one = [[1, 0], [0, 1]]
    return cvframe.from_confusion([zero, one, zero], ["n", "y"], pos_label="y")


def test_slides_mean_pm_sd_is_the_population_sd():
    ds = _folds_with_kappas()
    k = ds.cv.kappa(None, zero_division=0.0)
    assert k.values.tolist() == [0.0, 1.0, 0.0]
    pop = ds.cv.summary(k, dim="fold", ddof=0)
    sample = ds.cv.summary(k, dim="fold")
    assert float(pop["mean"]) == pytest.approx(1 / 3)
    assert float(pop["std"]) == pytest.approx(math.sqrt(Fraction(2, 9)), rel=1e-14)
    assert round(float(pop["std"]), 4) == 0.4714  # "33.33% (+/- 47.14%)"
    assert round(float(sample["std"]), 3) == 0.577
    assert pop.attrs["ddof"] == 0 and sample.attrs["ddof"] == 1
    # sem and the interval always use the sample sd
    for v in ("sem", "ci_low", "ci_high"):
        assert float(pop[v]) == float(sample[v])


@pytest.mark.parametrize(
    ("folds", "mean", "sd"),
    [  # the slides' four lines: per-fold scores, "mean (+/- sd)"
        ([0.5, 1.0, 0.5], 0.6667, 0.2357),
        ([0.25, 1.0, 0.25], 0.5, 0.3536),
        ([1 / 3, 1.0, 1 / 3], 0.5556, 0.3143),
        ([0.0, 1.0, 0.0], 0.3333, 0.4714),
    ],
)
def test_slides_lines_against_numpy(folds, mean, sd):
    x = xr.DataArray(folds, dims="fold")
    s = cvframe.datasets.table1().cv.summary(x, dim="fold", ddof=0)
    assert round(float(s["mean"]), 4) == mean and round(float(s["std"]), 4) == sd
    assert float(s["std"]) == pytest.approx(np.std(folds, ddof=0), rel=1e-14)


@pytest.mark.parametrize("ddof", [2, -1, 0.5, True, "0"])
def test_bad_ddof_names_the_argument(ddof):
    with pytest.raises((ValueError, TypeError), match="ddof"):
        cvframe.datasets.table1().cv.summary(
            xr.DataArray([0.1, 0.2], dims="fold"), "fold", ddof=ddof
        )


def test_ddof0_with_one_value_has_an_sd_of_zero():
    x = xr.DataArray([0.4], dims="repeat")
    with pytest.warns(cvframe.UndefinedMetricWarning, match="sem"):
        s = cvframe.datasets.table1().cv.summary(x, ddof=0)
    assert float(s["std"]) == 0.0 and np.isnan(float(s["sem"]))


def test_default_stays_the_sample_sd():
    one = cvframe.datasets.table1()
    ds = xr.concat([one, one.assign(tp=one.tp * 0 + 4, fn=one.fn * 0)], dim="repeat")
    s = ds.cv.summary()
    v = ds.cv.f_tp_fp().values.ravel()
    assert float(s["std"].item()) == pytest.approx(np.std(v, ddof=1))
    assert s.attrs["ddof"] == 1


def test_kappa_avg_is_the_one_fold_mean(monkeypatch):
    calls = []
    real = kappa.fold_mean

    def spy(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(kappa, "fold_mean", spy)
    ds = cvframe.datasets.slides_confusion()
    per_fold = multiclass.kappa(ds, None, zero_division=0.0)
    avg = multiclass.kappa(ds, "avg", zero_division=0.0)
    assert len(calls) == 1
    assert avg.item() == pytest.approx(per_fold.mean("fold").item(), rel=1e-15)
