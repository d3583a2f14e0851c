"""summary(): mean, std, sem and Student-t intervals across repeats of a repeated CV."""

from __future__ import annotations

import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import cvframe
from cvframe import multiclass, reduce
from cvframe.datasets import slides_confusion

ROOT = Path(__file__).resolve().parents[1]
STATS = ("mean", "std", "sem", "ci_low", "ci_high", "n")


def repeated_cube(
    seed: int, n_repeats: int = 5, n_folds: int = 4, n_classes: int = 3, models: int = 0
) -> xr.Dataset:
    rng = np.random.default_rng(seed)
    n = n_repeats * n_folds * 20
    yt = rng.integers(0, n_classes, n)
    yp = np.where(rng.random(n) < 0.7, yt, rng.integers(0, n_classes, n))
    fold = np.tile(np.repeat(np.arange(n_folds), 20), n_repeats)
    rep = np.repeat(np.arange(n_repeats), n_folds * 20)
    ds = cvframe.from_predictions(yt, yp, fold, repeat=rep, labels=list(range(n_classes)))
    if models:
        others = [
            repeated_cube(seed + i + 1, n_repeats, n_folds, n_classes) for i in range(models - 1)
        ]
        ds = xr.concat([ds, *others], dim="model").assign_coords(
            model=[f"m{i}" for i in range(models)]
        )
    return ds


def _oracle(values: np.ndarray, ci: float) -> dict[str, float]:
    """Independent computation with numpy and scipy.stats.t.interval."""
    n = len(values)
    mean = float(np.mean(values))
    sem = float(stats.sem(values))
    low, high = stats.t.interval(ci, n - 1, loc=mean, scale=sem)
    return {
        "mean": mean,
        "std": float(np.std(values, ddof=1)),
        "sem": sem,
        "ci_low": low,
        "ci_high": high,
        "n": n,
    }


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 8), st.floats(0.5, 0.999))
def test_summary_matches_scipy(seed, n_repeats, level):
    ds = repeated_cube(seed, n_repeats=n_repeats)
    res = multiclass.macro(ds, zero_division=0.0)
    s = multiclass.summary(ds, res, level=level)
    want = _oracle(res.values, level)
    for k in STATS:
        assert s[k].item() == pytest.approx(want[k], rel=1e-10, abs=1e-12), k
    assert s["n"].dtype == np.int64
    assert s["ci_low"].item() <= s["mean"].item() <= s["ci_high"].item()


def test_default_result_is_f_tp_fp_per_class():
    ds = repeated_cube(1)
    s = ds.cv.summary()
    f = reduce.f_tp_fp(ds)
    assert s["mean"].dims == ("class",)
    np.testing.assert_allclose(s["mean"].values, f.mean("repeat").values)
    np.testing.assert_allclose(s["std"].values, f.std("repeat", ddof=1).values)
    assert s.attrs["result_method"] == "f_tp_fp" and s.attrs["reduced_dims"] == "repeat"


def test_wider_confidence_gives_wider_interval():
    ds = repeated_cube(2)
    narrow = multiclass.summary(ds, ds.cv.micro(), level=0.8)
    wide = multiclass.summary(ds, ds.cv.micro(), level=0.99)
    assert (wide.ci_high - wide.ci_low).item() > (narrow.ci_high - narrow.ci_low).item() > 0


def test_dataset_result_is_stacked_along_method():
    ds = repeated_cube(3)
    methods = reduce.f_methods(ds, zero_division=0.0)
    s = ds.cv.summary(methods)
    assert list(s.variable.values) == list(methods.data_vars)
    assert set(s["mean"].dims) == {"variable", "class"}
    for name in methods.data_vars:
        one = ds.cv.summary(methods[name])
        for k in ("mean", "std", "sem", "ci_low", "ci_high"):
            np.testing.assert_allclose(s[k].sel(variable=name).values, one[k].values)
    assert s.attrs["result_method"] == "f_methods"


def test_other_dims_are_kept_and_other_reduction_dims_work():
    ds = repeated_cube(4, models=2)
    s = ds.cv.summary(ds.cv.macro(zero_division=0.0))
    assert s["mean"].dims == ("model",) and list(s.model.values) == ["m0", "m1"]
    per_fold = ds.cv.macro(fold_method=None, zero_division=0.0)
    over_folds = ds.cv.summary(per_fold, dim="fold")
    assert set(over_folds["mean"].dims) == {"model", "repeat"}
    assert over_folds["n"].item() == ds.sizes["fold"]
    # per-model summary equals summarising that model alone
    alone = ds.sel(model="m1", drop=True)
    xr.testing.assert_allclose(
        s.sel(model="m1", drop=True), alone.cv.summary(alone.cv.macro(zero_division=0.0))
    )


def test_nan_values_propagate():
    ds = repeated_cube(5)
    res = ds.cv.micro()
    res[1] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = multiclass.summary(ds, res)
    assert np.isnan(s["mean"].item()) and s["n"].item() == ds.sizes["repeat"]


def test_dask_result_stays_lazy_and_matches():
    ds = repeated_cube(6)
    lazy = ds.chunk({"fold": 1})
    s = lazy.cv.summary(lazy.cv.macro(zero_division=0.0))
    assert s["mean"].chunks is not None
    xr.testing.assert_allclose(s.compute(), ds.cv.summary(ds.cv.macro(zero_division=0.0)))


def test_summary_round_trips_through_netcdf(tmp_path):
    ds = repeated_cube(7)
    s = ds.cv.summary(reduce.f_methods(ds, zero_division=0.0))
    for value in s.attrs.values():
        assert type(value) in (str, int, float)
    s.to_netcdf(tmp_path / "s.nc")
    back = cvframe.open_dataset(tmp_path / "s.nc")
    xr.testing.assert_identical(back, s)
    for v in s.variables:
        assert back[v].dtype == s[v].dtype, v


def test_accessor_parity():
    ds = repeated_cube(8)
    res = ds.cv.weighted("recall")
    xr.testing.assert_identical(
        ds.cv.summary(res, "repeat", 0.9), multiclass.summary(ds, res, "repeat", 0.9)
    )


# --- bad inputs ----------------------------------------------------------------------------------


def test_summary_over_absent_dim():
    ds = slides_confusion()
    with pytest.raises(ValueError, match=r"(?i)dimension\(s\) 'repeat' do not exist"):
        ds.cv.summary()
    ds = repeated_cube(9)
    with pytest.raises(ValueError, match=r"(?i)dimension\(s\) 'repeats' do not exist"):
        ds.cv.summary(dim="repeats")


def test_summary_over_length_one_dim_gives_nan_spread_with_one_warning():
    ds = repeated_cube(10, n_repeats=1)
    with pytest.warns(
        cvframe.UndefinedMetricWarning, match=r"dim='repeat' has length 1.*at least 2 values"
    ) as rec:
        s = ds.cv.summary()
    assert sum(issubclass(w.category, cvframe.UndefinedMetricWarning) for w in rec) == 1
    np.testing.assert_allclose(s["mean"].values, reduce.f_tp_fp(ds).isel(repeat=0).values)
    for k in ("std", "sem", "ci_low", "ci_high"):
        assert np.isnan(s[k].values).all(), k
    assert s["n"].item() == 1
    one_fold = ds.cv.macro(fold_method=None, zero_division=0.0).isel(fold=[0])
    with pytest.warns(cvframe.UndefinedMetricWarning, match="dim='fold' has length 1"):
        assert np.isnan(ds.cv.summary(one_fold, dim="fold")["std"].item())


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.1, float("nan"), True])
def test_summary_level_outside_unit_interval(level):
    error = TypeError if level is True else ValueError
    with pytest.raises(error, match=r"level=.* must be"):
        multiclass.summary(repeated_cube(11), level=level)


def test_summary_takes_its_former_ci_for_one_release_with_a_future_warning():
    ds = repeated_cube(11)
    with pytest.warns(FutureWarning, match="level"):
        old = multiclass.summary(ds, ci=0.8)
    xr.testing.assert_identical(old, multiclass.summary(ds, level=0.8))
    assert old.attrs["level"] == 0.8
    with pytest.warns(FutureWarning, match="level"), pytest.raises(ValueError, match="ci=2"):
        multiclass.summary(ds, ci=2)


def test_summary_bad_result_and_dim_types():
    ds = repeated_cube(12)
    with pytest.raises(TypeError, match="result must be an xarray DataArray or Dataset"):
        ds.cv.summary(result=[0.5, 0.6])
    with pytest.raises(TypeError, match="must be one dimension name"):
        ds.cv.summary(dim=["repeat", "fold"])
    stacked = reduce.f_methods(ds).to_array("variable").to_dataset(name="x")
    with pytest.raises(ValueError, match="already has a 'variable' dim"):
        ds.cv.summary(stacked)


# --- the OVA report example ----------------------------------------------------------------------


def test_ova_report_example_runs():  # about 7 s: not marked slow
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "ova_report.py")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    elapsed = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for needle in (
        "per-class F",
        "f_tp_fp",
        "f_avg",
        "f_pr_re",
        "macro",
        "micro",
        "weighted",
        "kappa",
        "ci_low",
        "ci_high",
        "LogisticRegression",
        "GaussianNB",
    ):
        assert needle in out, needle
    assert elapsed < 120


# --- the docs' runnable examples -----------------------------------------------------------------


@pytest.mark.parametrize("page", ["multiclass.md", "repeated_cv.md"])
def test_doc_page_examples_run(page):
    import doctest
    import re

    text = (ROOT / "docs" / page).read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if ">>>" in b]
    assert blocks, f"{page} has no runnable example"
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, page, page, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failures: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the page itself records the warnings it shows
        runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)


# --- the spread across repeats is not an interval for the metric --------------------------


def test_summary_says_its_t_interval_is_the_spread_across_partitions():
    ds = repeated_cube(0)
    s = ds.cv.summary()
    assert "not an interval for the metric" in s.attrs["spread"]
    assert "cvframe.interval" in s.attrs["spread"]


def test_summary_shows_a_given_interval_with_its_method_and_estimand():
    ds = repeated_cube(1, models=2)
    iv = xr.Dataset(
        {
            "estimate": xr.DataArray([[0.5, 0.6, 0.7]] * 2, dims=("model", "class")),
            "lower": xr.DataArray([[0.4, 0.5, 0.6]] * 2, dims=("model", "class")),
            "upper": xr.DataArray([[0.6, 0.7, 0.8]] * 2, dims=("model", "class")),
        },
        coords={"model": ["m0", "m1"], "class": [0, 1, 2]},
        attrs={
            "method": "posterior",
            "level": 0.95,
            "estimand": "F of these models",
            "training_variability": False,
            "reference": "Goutte & Gaussier 2005",
        },
    )
    s = ds.cv.summary(interval=iv)
    xr.testing.assert_equal(s["lower"], iv["lower"])
    assert s.attrs["interval_method"] == "posterior"
    assert s.attrs["interval_estimand"] == "F of these models"
    assert s.attrs["interval_training_variability"] == "no"  # netCDF-safe
    assert set(s["mean"].dims) == {"model", "class"}
    with pytest.raises(ValueError, match="cvframe.interval returns"):
        ds.cv.summary(interval=iv["lower"])
    with pytest.raises(ValueError, match=r"dims \['repeat'\]"):
        ds.cv.summary(interval=iv.expand_dims(repeat=[0]))


def test_summary_takes_the_interval_of_cvframe_interval():
    interval = pytest.importorskip("cvframe.intervals").interval
    ds = repeated_cube(2)
    iv = interval(ds, "f", zero_division=0.0)
    s = ds.cv.summary(ds.cv.f_tp_fp(zero_division=0.0), interval=iv)
    assert float((s["lower"] <= s["upper"]).all())
    assert s.attrs["interval_method"] == iv.attrs["method"]
