"""Catalogue of unusual inputs to the tidy frames, the diagnostics and the plots: one row per
case; each asserts the exact number or the error type and that the message names the
argument."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

import cvframe  # noqa: E402
from cvframe import plot, tidy  # noqa: E402
from cvframe.diagnostics import anomalies  # noqa: E402


def _weighted(ds):
    """A cube of sums of sample weights: fractional counts are allowed only when it says so."""
    return ds.assign_attrs(weighted="yes")


def _table1_float_with(var, fold, value):
    ds = cvframe.datasets.table1().astype(float)
    ds[var][fold, 0] = value
    return ds


def _study(stratified):
    return xr.Dataset(
        {"rel_bias": (("stratified",), [0.1, -0.2])}, coords={"stratified": stratified}
    )


ERRORS = [
    # (id, call, error type, message must contain)
    (
        "anomalies tolerance<0",
        lambda: anomalies(cvframe.datasets.table1(), tolerance=-1),
        ValueError,
        "tolerance=-1",
    ),
    (
        "anomalies tolerance inf",
        lambda: anomalies(cvframe.datasets.table1(), tolerance=float("inf")),
        ValueError,
        "tolerance=inf",
    ),
    (
        "anomalies alpha=1",
        lambda: anomalies(cvframe.datasets.table1(), alpha=1),
        ValueError,
        "alpha=1",
    ),
    (
        "anomalies alpha bool",
        lambda: anomalies(cvframe.datasets.table1(), alpha=True),
        ValueError,
        "alpha=True",
    ),
    (
        "anomalies of a DataFrame",
        lambda: anomalies(pd.DataFrame({"tp": [1]})),
        TypeError,
        "ds must be an xarray.Dataset",
    ),
    (
        "anomalies partial NaN",
        lambda: anomalies(_table1_float_with("tp", 1, np.nan)),
        cvframe.CountsError,
        "tp",
    ),
    (
        "fold_table partial NaN",
        lambda: tidy.fold_table(_table1_float_with("tn", 3, np.nan)),
        cvframe.CountsError,
        "tn",
    ),
    (
        "fold_table missing tn",
        lambda: tidy.fold_table(cvframe.datasets.table1().drop_vars("tn")),
        cvframe.CountsError,
        "tn",
    ),
    (
        "methods_table bad zero_division",
        lambda: tidy.methods_table(cvframe.datasets.table1(), zero_division="zero"),
        ValueError,
        "zero_division=",
    ),
    (
        "fold_table bad beta",
        lambda: tidy.fold_table(cvframe.datasets.table1(), beta=-1),
        ValueError,
        "beta=-1",
    ),
    (
        "confusion_table bad normalize",
        lambda: tidy.confusion_table(cvframe.datasets.slides_confusion(), normalize="rows"),
        ValueError,
        "normalize=",
    ),
    (
        "bias_table stratified 'maybe'",
        lambda: tidy.bias_table(_study(["maybe", "no"])),
        ValueError,
        "study['stratified']",
    ),
    (
        "bias_table stratified 2",
        lambda: tidy.bias_table(_study([2, 0])),
        ValueError,
        "study['stratified']",
    ),
    (
        "bias_table y",
        lambda: tidy.bias_table(_study([True, False]), y="bias"),
        ValueError,
        "y='bias'",
    ),
    (
        "bias_table not a study",
        lambda: tidy.bias_table(pd.DataFrame()),
        ValueError,
        "study must be a bias_study Dataset",
    ),
    ("plot.bias x", lambda: plot.bias(_study([True, False]), x="k"), ValueError, "x='k'"),
    (
        "plot.confusion normalize",
        lambda: plot.confusion(cvframe.datasets.table1(), normalize=1),
        ValueError,
        "normalize=",
    ),
]


@pytest.mark.parametrize("call, error, match", [r[1:] for r in ERRORS], ids=[r[0] for r in ERRORS])
def test_bad_input_is_an_error_naming_the_argument(call, error, match):
    with pytest.raises(error) as info:
        call()
    assert match in str(info.value)


def _concat(a, b):
    return xr.concat([a, b], dim=pd.Index(["a", "b"], name="model"), join="outer")


def _zero_fold_repeats():
    """Two repeats of table1; repeat 1 has no samples in fold 3 (zero padding)."""
    a = cvframe.datasets.table1()
    b = a.copy(deep=True)
    for v in ("tp", "fp", "fn", "tn"):
        b[v][3, 0] = 0
    return xr.concat([a, b], dim=pd.Index([0, 1], name="repeat"))


VALUES = [
    # (id, computed value, expected value)
    (
        "table1 pooled precision",
        lambda: (
            tidy.fold_aggregates(cvframe.datasets.table1())
            .query("line == 'pooled' and metric == 'precision'")["value"]
            .item()
        ),
        14 / 33,
    ),
    (
        "NaN padding: model b F_avg over its 2 folds",
        lambda: (
            tidy.methods_table(
                _concat(cvframe.datasets.table1(), cvframe.datasets.table2().isel(fold=[0, 2]))
            )
            .query("model == 'b'")["f_avg"]
            .item()
        ),
        (2 / 3 + 1) / 2,
    ),
    (
        "NaN padding: fold_table rows",
        lambda: len(
            tidy.fold_table(
                _concat(cvframe.datasets.table1(), cvframe.datasets.table2().isel(fold=[0, 2]))
            )
        ),
        6,
    ),
    (
        "zero padding: mean of folds precision over 3 folds in repeat 1",
        lambda: (
            tidy.fold_aggregates(_zero_fold_repeats(), zero_division=0.0)
            .query("line == 'mean of folds' and metric == 'precision'")["value"]
            .item()
        ),
        (np.mean([1, 0.8, 4 / 17, 3 / 8]) + np.mean([1, 0.8, 4 / 17])) / 2,
    ),
    (
        "zero padding: no empty_fold finding",
        lambda: int((anomalies(_zero_fold_repeats(), tolerance=1)["kind"] == "empty_fold").sum()),
        0,
    ),
    (
        "a fold empty everywhere is reported once",
        lambda: int(
            (
                anomalies(
                    cvframe.from_counts(
                        {
                            "tp": np.array([5, 0]),
                            "fp": np.array([1, 0]),
                            "fn": np.array([1, 0]),
                            "tn": np.array([9, 0]),
                        },
                        task="binary",
                        pos_label=1,
                    ),
                    tolerance=1,
                )["kind"]
                == "empty_fold"
            ).sum()
        ),
        1,
    ),
    (
        "NaN padding: anomalies of model b alone",
        lambda: len(
            anomalies(_concat(cvframe.datasets.table1(), cvframe.datasets.table2())).query(
                "model == 'b'"
            )
        ),
        len(anomalies(cvframe.datasets.table2())),
    ),
    (
        "weighted float counts: fold_table precision",
        lambda: tidy.fold_table(_weighted(cvframe.datasets.table1().astype(float) * 0.5))[
            "precision"
        ].iloc[1],
        0.8,
    ),
    (
        "bias_table bytes stratified",
        lambda: tidy.bias_table(_study([b"yes", b"no"]))["stratified"].tolist(),
        ["stratified", "unstratified"],
    ),
    (
        "bias_table numpy bools",
        lambda: tidy.bias_table(_study(np.array([False, True])))["stratified"].tolist(),
        ["unstratified", "stratified"],
    ),
    (
        "confusion_table normalize true, class never true -> NaN row",
        lambda: int(
            np.isnan(
                tidy.confusion_table(
                    cvframe.from_confusion([[3, 1, 0], [1, 2, 0], [0, 0, 0]]), normalize="true"
                )["value"]
            ).sum()
        ),
        3,
    ),
    (
        "over_repeats single repeat sd is NaN",
        lambda: bool(
            np.isnan(
                tidy.over_repeats(
                    pd.DataFrame({"repeat": [0], "class": [1], "f": [0.5]}), ["class"], ["f"]
                )["f_sd"].item()
            )
        ),
        True,
    ),
]


@pytest.mark.parametrize("compute, expected", [r[1:] for r in VALUES], ids=[r[0] for r in VALUES])
def test_unusual_input_gives_the_exact_value(compute, expected):
    got = compute()
    if isinstance(expected, float):
        assert got == pytest.approx(expected, abs=1e-12)
    else:
        assert got == expected
