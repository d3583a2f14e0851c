"""Counts are checked wherever they are read: a cube with a negative, fractional, NaN,
infinite or overflowing count is refused by every aggregation, interval, test, finding and
table, with the error naming the variable, the place and the value (not only by validate)."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

import cvframe  # noqa: E402
from cvframe import bootstrap, diagnostics, reduce, repeats, tidy  # noqa: E402
from cvframe.errors import CountsError  # noqa: E402


def _study() -> object:
    """Two models, three repeats of 4 folds, 3 classes: every surface applies."""
    rng = np.random.default_rng(0)
    n = 60
    y = np.arange(n) % 3
    frames = []
    for model in ("a", "b"):
        for r in range(3):
            pred = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
            fold = rng.permutation(np.arange(n) % 4)
            frames.append(
                pd.DataFrame(
                    {"y_true": y, "y_pred": pred, "fold": fold, "repeat": r, "model": model}
                )
            )
    return pd.concat(frames, ignore_index=True).cv.counts()


CUBE = _study()


def _bad(kind: str):
    ds = CUBE.copy(deep=True)
    if kind == "negative":
        ds["fp"][0, 1, 2, 0] = -3
    elif kind == "fractional":
        ds["tp"] = ds["tp"].astype("float64")
        ds["tp"][0, 1, 2, 0] = 2.5
    elif kind == "nan":
        ds["fn"] = ds["fn"].astype("float64")
        ds["fn"][0, 1, 2, 0] = np.nan
    elif kind == "infinite":
        ds["tn"] = ds["tn"].astype("float64")
        ds["tn"][0, 1, 2, 0] = np.inf
    elif kind == "uint64 overflow":
        ds["tn"] = ds["tn"].astype("uint64")
        ds["tn"][0, 1, 2, 0] = np.uint64(2**63 + 5)
    elif kind == "totals":
        ds["tp"][0, 1, 2, 0] += 1  # one class of the fold counts a sample the others do not
    elif kind == "negative confusion":
        ds["confusion"][0, 1, 2, 0, 1] = -1
    return ds


BAD = {
    "negative": r"fp has 1 negative value at model=\['a'\], repeat=\[1\], fold=\[2\], "
    r"class=\[0\] \(got \[-3\]\); counts must be non-negative",
    "fractional": r"tp has 1 fractional value at .*fold=\[2\].* \(got \[2.5\]\); counts must "
    r"be whole numbers",
    "nan": r"fn has NaN or infinite values at .*fold=\[2\], class=\[0\] where other counts",
    "infinite": r"tn has 1 NaN or infinite value at .*fold=\[2\].*\(got \[inf\]\)",
    "uint64 overflow": r"tn has values above 2\*\*63 - 1",
    "totals": r"tp \+ fp \+ fn \+ tn differs across classes of one fold at model=\['a'\], "
    r"repeat=\[1\], fold=\[2\]",
    "negative confusion": r"confusion has 1 negative value at model=\['a'\], repeat=\[1\], "
    r"fold=\[2\], true=\[0\], pred=\[1\]",
}

CALLS = {
    "f_avg": lambda d: reduce.f_avg(d),
    "f_tp_fp": lambda d: reduce.f_tp_fp(d),
    "pooled": lambda d: reduce.pooled(d),
    "aggregate mcc": lambda d: reduce.aggregate(d, "mcc", "avg"),
    "macro": lambda d: d.cv.macro("f", "avg"),
    "micro": lambda d: d.cv.micro(),
    "weighted": lambda d: d.cv.weighted(),
    "pr_mean": lambda d: d.cv.pr_mean(),
    "kappa": lambda d: d.cv.kappa(),
    "confusion": lambda d: d.cv.confusion(),
    "summary": lambda d: d.cv.summary(),
    "interval posterior": lambda d: cvframe.interval(d, "f", average="macro"),
    "interval bootstrap": lambda d: cvframe.interval(d, "accuracy", method="bootstrap"),
    "interval corrected t": lambda d: cvframe.interval(d, "accuracy_avg"),
    "compare": lambda d: cvframe.compare(d, "accuracy_avg"),
    "variance_components": lambda d: repeats.variance_components(d),
    "fold_composition": lambda d: repeats.fold_composition(d),
    "anomalies": lambda d: diagnostics.anomalies(d),
    "fold_table": lambda d: tidy.fold_table(d),
    "metric_table": lambda d: tidy.metric_table(d),
    "confusion_table": lambda d: tidy.confusion_table(d),
    "no_information_rate": lambda d: bootstrap.no_information_rate(d),
    "expected_cost": lambda d: d.cv.expected_cost(),
    "explain": lambda d: cvframe.explain(0.5, d, "accuracy"),
}


@pytest.mark.parametrize("kind", list(BAD))
@pytest.mark.parametrize("call", list(CALLS))
def test_every_reader_refuses_a_bad_count(call, kind):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(CountsError, match=BAD[kind]):
            CALLS[call](_bad(kind))


def test_the_issue_example_is_refused_not_a_wrong_f():
    """fp = -3 in one fold of Table 1 gave a pooled F of 0.622 (true 0.583) and one fold F = 2."""
    ds = cvframe.datasets.table1()
    ds["fp"][0, 0] = -3
    for call in (
        lambda: cvframe.interval(ds, "f"),
        lambda: ds.cv.f_avg(),
        lambda: cvframe.interval(ds, "f", method="bootstrap"),
    ):
        with pytest.raises(CountsError, match=r"fp has 1 negative value at fold=\[0\]"):
            call()


def test_integral_floats_unsigned_and_weighted_fractions_are_accepted():
    ds = cvframe.datasets.table1()
    want = ds.cv.f_avg().item()
    assert ds.astype("float64").cv.f_avg().item() == want
    assert ds.astype("uint32").cv.f_avg().item() == want
    half = (ds.astype("float64") * 0.5).assign_attrs(weighted="yes")
    assert half.cv.f_avg().item() == pytest.approx(want)


def test_a_weighted_cube_still_refuses_negative_weights():
    ds = (cvframe.datasets.table1().astype("float64") * 0.5).assign_attrs(weighted="yes")
    ds["tn"][1, 0] = -0.5
    with pytest.raises(CountsError, match="tn has 1 negative value.*sums of non-negative"):
        ds.cv.f_tp_fp()


def test_nan_padding_is_still_not_a_fold():
    a = cvframe.datasets.table1()
    padded = cvframe.datasets.table1().isel(fold=[0, 1])
    both = xr.concat([a, padded], dim="repeat", join="outer")
    assert np.isfinite(both.cv.f_avg().values).all()


def test_models_with_different_classes_pad_whole_classes_and_are_accepted():
    """xr.concat of two models with different class sets: the missing class is all NaN."""
    three = CUBE.isel(model=0, repeat=0, drop=True).drop_vars("confusion")
    two = three.isel({"class": [0, 1]})
    two = two.assign(tn=two.tn, fp=two.fp)  # a 2-class model's counts are its own
    both = xr.concat([three, two], dim="model", join="outer")
    assert np.isnan(both.tp.values).any()
    assert np.isfinite(reduce.f_avg(both, zero_division=0.0).values[0]).all()


def test_a_dask_cube_stays_lazy_and_raises_when_computed():
    ds = _bad("negative").chunk({"fold": 1})
    lazy = reduce.f_avg(ds, zero_division=0.0)
    assert cvframe.schema.is_lazy(lazy)
    with pytest.raises(CountsError, match="fp has 1 negative value at one block"):
        lazy.compute()
    good = CUBE.chunk({"fold": 1})
    np.testing.assert_array_equal(
        reduce.f_avg(good, zero_division=0.0).values, reduce.f_avg(CUBE, zero_division=0.0).values
    )


# --- beyond the values: what every reader also checks ----------------------------------------


def test_single_label_errors_are_one_fp_and_one_fn_everywhere():
    ds = cvframe.datasets.slides_confusion()
    bad = ds.assign(fp=ds.fp + 1, tn=ds.tn - 1)  # the totals still agree across classes
    for call in (lambda d: d.cv.micro(), lambda d: reduce.f_avg(d), lambda d: tidy.fold_table(d)):
        with pytest.raises(CountsError, match="sum of fp over classes differs from sum of fn"):
            call(bad)
    subset = ds.sel({"class": ["A", "B"]})  # some classes only: not every error is among them
    assert np.isfinite(subset.cv.micro().values).all()


def test_count_variables_over_different_folds_say_how_to_align_them():
    t = cvframe.datasets.table1()
    mixed = xr.Dataset(
        {"tp": t.tp, "fp": t.fp.assign_coords(fold=[5, 6, 7, 8]), "fn": t.fn, "tn": t.tn}
    )
    with pytest.raises(CountsError, match=r"join='exact'"):
        mixed.cv.f_avg()


def test_from_counts_drops_no_key_of_a_mapping():
    counts = {"tp": [3, 4], "fp": [1, 0], "fn": [0, 1], "tn": [5, 4]}
    with pytest.raises(CountsError, match=r"the mapping has key\(s\) \['support'\]"):
        cvframe.from_counts({**counts, "support": [3, 5]})
    assert cvframe.from_counts({**counts, "class": ["spam"]}).sizes["class"] == 1


@pytest.mark.parametrize("arg", ["y_true", "fold"])
def test_a_list_mixing_strings_and_numbers_is_refused_not_coerced(arg):
    given = {"y_true": ["a", "b", "a", "b"], "y_pred": ["a", "a", "b", "b"], "fold": [0, 0, 1, 1]}
    given[arg] = ["a", 1, "a", 1] if arg == "y_true" else ["x", 0, "x", 0]
    with pytest.raises(CountsError, match=rf"{arg} mixes string labels .* with non-string"):
        cvframe.from_predictions(given["y_true"], given["y_pred"], given["fold"], pos_label="a")
