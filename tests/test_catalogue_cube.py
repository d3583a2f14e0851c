"""Catalogue of unusual inputs to the cube operations (reduce, multiclass, repeats, validate).

Each row asserts an exact number (against scikit-learn, a per-repeat computation or a
formula) or the error type and that the message names the argument or variable.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
import xarray as xr
from sklearn.metrics import (
    accuracy_score,
    cohen_kappa_score,
    f1_score,
    precision_recall_fscore_support,
    precision_score,
)

import cvframe
from cvframe import CountsError, UndefinedMetricWarning, datasets, multiclass, reduce, schema

ZD = {"zero_division": 0.0}


# --- cubes ----------------------------------------------------------------------------------


def _perfect(k: int, n_per_fold: int = 6, n_classes: int = 3) -> xr.Dataset:
    y = np.tile(np.arange(n_classes), k * n_per_fold // n_classes + 1)[: k * n_per_fold]
    return cvframe.from_predictions(
        y, y, np.repeat(np.arange(k), n_per_fold), labels=list(range(n_classes))
    )


def _random(seed: int, k: int, n_classes: int = 3, n: int = 120) -> xr.Dataset:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    yp = np.where(rng.random(n) < 0.6, y, rng.integers(0, n_classes, n))
    return cvframe.from_predictions(y, yp, np.arange(n) % k, labels=list(range(n_classes)))


def _uneven(a: xr.Dataset, b: xr.Dataset, pad: str) -> xr.Dataset:
    """Two repeats with different folds: NaN padding (xr.concat) or zero padding."""
    both = xr.concat([a, b], dim="repeat", join="outer").assign_coords(repeat=[0, 1])
    if pad == "zero":
        for v in [*schema.COUNTS, "confusion"]:
            both[v] = both[v].fillna(0).astype("int64")
    both.attrs = dict(a.attrs)
    return both


# --- not-a-fold cells: uneven repeats ------------------------------------------------------------


@pytest.mark.parametrize("pad", ["nan", "zero"])
def test_perfect_classifier_over_uneven_repeats_scores_one(pad):
    ds = _uneven(_perfect(5), _perfect(10), pad)
    assert ds.sizes["fold"] == 10
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(ds.cv.f_avg(**ZD).mean("class").values, [1.0, 1.0])
        for name, v in ds.cv.f_methods(**ZD).data_vars.items():
            np.testing.assert_array_equal(v.values, np.ones((2, 3)), err_msg=name)
        np.testing.assert_array_equal(ds.cv.accuracy(how="avg", **ZD).values, [1.0, 1.0])
        np.testing.assert_array_equal(ds.cv.kappa("avg", **ZD).values, [1.0, 1.0])
        for fn in (multiclass.macro, multiclass.micro, multiclass.weighted):
            for fm in ("avg", "pr_re"):
                np.testing.assert_array_equal(fn(ds, "f", fm, **ZD).values, [1.0, 1.0])


AVERAGED = [
    ("f_avg", lambda d: reduce.f_avg(d, **ZD)),
    ("f_pr_re", lambda d: reduce.f_pr_re(d, **ZD)),
    ("f_avg_skip", lambda d: reduce.f_avg(d, skip_undefined=True, **ZD)),
    ("f_pr_re_skip", lambda d: reduce.f_pr_re(d, skip_undefined=True, **ZD)),
    ("f_tp_fp", lambda d: reduce.f_tp_fp(d, **ZD)),
    ("precision avg", lambda d: reduce.aggregate(d, "precision", "avg", **ZD)),
    ("specificity avg", lambda d: reduce.aggregate(d, "specificity", "avg", **ZD)),
    ("accuracy avg", lambda d: reduce.accuracy(d, how="avg", **ZD)),
    ("accuracy pooled", lambda d: reduce.accuracy(d, how="pooled", **ZD)),
    ("kappa avg", lambda d: multiclass.kappa(d, "avg", **ZD)),
    ("kappa pooled", lambda d: multiclass.kappa(d, **ZD)),
    *[
        (f"{fn.__name__} {m} {fm}", lambda d, fn=fn, m=m, fm=fm: fn(d, m, fm, **ZD))
        for fn in (multiclass.macro, multiclass.micro, multiclass.weighted)
        for m in ("precision", "recall", "f", "accuracy")
        for fm in ("tp_fp", "avg")
    ],
    *[
        (f"{fn.__name__} f pr_re", lambda d, fn=fn: fn(d, "f", "pr_re", **ZD))
        for fn in (multiclass.macro, multiclass.micro, multiclass.weighted)
    ],
    ("macro f_of_means avg", lambda d: multiclass.macro(d, "f", "avg", "f_of_means", **ZD)),
]


@pytest.mark.parametrize("pad", ["nan", "zero"])
@pytest.mark.parametrize("name, func", AVERAGED, ids=[a for a, _ in AVERAGED])
def test_uneven_repeats_equal_each_repeat_alone(pad, name, func):
    a, b = _random(1, 5), _random(2, 10)
    both = _uneven(a, b, pad)
    got = func(both)
    for r, alone in ((0, a), (1, b)):
        np.testing.assert_allclose(
            got.sel(repeat=r).values,
            func(alone).values,
            rtol=1e-12,
            atol=1e-15,
            err_msg=f"{name} repeat {r}",
        )


def test_uneven_repeats_f_avg_matches_sklearn_per_fold_mean():
    rng = np.random.default_rng(3)
    parts, want = [], []
    for _r, k in ((0, 5), (1, 10)):
        y = (rng.random(200) < 0.3).astype(int)
        yp = np.where(rng.random(200) < 0.8, y, 1 - y)
        fold = np.arange(200) % k
        parts.append(cvframe.from_predictions(y, yp, fold))
        want.append(np.mean([f1_score(y[fold == i], yp[fold == i]) for i in range(k)]))
    ds = _uneven(*parts, "nan")
    np.testing.assert_allclose(ds.cv.f_avg(**ZD).values[:, 0], want, rtol=1e-12)


def test_padding_is_not_counted_as_undefined():
    ds = _uneven(_perfect(5), _perfect(10), "nan")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: padding is not an undefined fold
        ds.cv.f_avg()
        ds.cv.macro("f", "avg")
        ds.cv.accuracy(how="avg")


def test_validate_accepts_nan_padding_and_rejects_partial_nan():
    ds = _uneven(_random(1, 5), _random(2, 10), "nan")
    assert cvframe.validate(ds) is ds
    bad = ds.copy(deep=True)
    bad["fp"][0, 0, 0] = np.nan
    with pytest.raises(
        CountsError,
        match=r"fp has NaN or infinite values at repeat=\[0\], "
        r"fold=\[0\], class=\[0\]",
    ):
        cvframe.validate(bad)
    with pytest.raises(CountsError, match="fp has NaN"):
        bad.cv.f_avg()


def test_dask_padded_cube_stays_lazy_and_matches():
    ds = _uneven(_random(1, 5), _random(2, 10), "nan")
    lazy = ds.chunk({"fold": 3})
    for func in (
        lambda d: reduce.f_avg(d, **ZD),
        lambda d: reduce.f_tp_fp(d, **ZD),
        lambda d: multiclass.macro(d, "f", "avg", **ZD),
        lambda d: reduce.accuracy(d, how="avg", **ZD),
    ):
        out = func(lazy)
        assert out.chunks is not None
        xr.testing.assert_allclose(out.compute(), func(ds))


def test_dask_partial_nan_raises_at_compute():
    ds = _random(1, 5).astype("float64")
    ds["tn"][0, 0] = np.nan
    out = ds.chunk({"fold": 1}).cv.f_avg(**ZD)
    with pytest.raises(CountsError, match="tn has NaN"):
        out.compute()


# --- binary cubes: class averages over both classes -----------------------------------------------


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("average", ["macro", "micro", "weighted"])
def test_binary_class_averages_equal_sklearn(seed, average):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 200))
    y = (rng.random(n) < rng.uniform(0.1, 0.5)).astype(int)
    yp = np.where(rng.random(n) < 0.7, y, 1 - y)
    ds = cvframe.from_predictions(y, yp, rng.integers(0, 5, n))
    assert ds.attrs["task"] == "binary" and ds.sizes["class"] == 1
    want = precision_recall_fscore_support(y, yp, average=average, labels=[0, 1], zero_division=0)
    fn = getattr(multiclass, average)
    for metric, w in zip(("precision", "recall", "f"), want[:3], strict=False):
        assert fn(ds, metric, **ZD).item() == pytest.approx(w, abs=1e-12), metric


@pytest.mark.parametrize(
    "y, yp, want",
    [
        ([0, 1], [1, 1], 0.25),  # positive precision 1/2, negative undefined (0)
        ([0, 1], [0, 1], 1.0),
        ([1, 0], [0, 0], 0.25),  # positive undefined (0), negative 1/2
    ],
)
def test_binary_macro_precision_averages_both_classes(y, yp, want):
    ds = cvframe.from_predictions(y, yp, [0, 0])
    assert precision_score(y, yp, average="macro", zero_division=0) == want
    assert ds.cv.macro("precision", **ZD).item() == pytest.approx(want)


def test_binary_micro_f_equals_accuracy():
    ds = datasets.table1()
    acc = Fraction(int((ds.tp + ds.tn).sum()), int((ds.tp + ds.fp + ds.fn + ds.tn).sum()))
    assert ds.cv.micro("f").item() == pytest.approx(float(acc), abs=1e-15)
    assert ds.cv.accuracy(how="pooled").item() == pytest.approx(float(acc), abs=1e-15)
    assert ds.cv.micro("f").item() != pytest.approx(ds.cv.f_tp_fp().item())


def test_binary_per_class_results_keep_one_class():
    ds = datasets.table1()
    assert ds.cv.f_tp_fp().sizes["class"] == 1  # fold aggregations are unchanged
    assert ds.cv.macro("f", None, **ZD).dims == ("fold",)


def test_multiclass_cube_of_two_labels_is_not_expanded():
    ds = cvframe.from_predictions(
        ["a", "b", "b", "a"], ["a", "b", "a", "a"], [0, 0, 1, 1], labels=["a", "b"]
    )
    want = precision_recall_fscore_support(
        ["a", "b", "b", "a"], ["a", "b", "a", "a"], average="macro"
    )[2]
    assert ds.cv.macro("f").item() == pytest.approx(want)


# --- weighted (float) counts --------------------------------------------------------------------


def _weighted_cube(y, yp, fold, w):
    k = int(fold.max()) + 1
    tp = np.array([w[(fold == i) & (y == 1) & (yp == 1)].sum() for i in range(k)])
    fp = np.array([w[(fold == i) & (y == 0) & (yp == 1)].sum() for i in range(k)])
    fn = np.array([w[(fold == i) & (y == 1) & (yp == 0)].sum() for i in range(k)])
    tn = np.array([w[(fold == i) & (y == 0) & (yp == 0)].sum() for i in range(k)])
    return xr.Dataset(
        {
            v: (("fold", "class"), a[:, None])
            for v, a in zip(schema.COUNTS, (tp, fp, fn, tn), strict=False)
        },
        coords={"fold": np.arange(k), "class": [1]},
        attrs={"task": "binary", "weighted": "yes"},
    )


def test_weighted_counts_match_sklearn_sample_weight():
    rng = np.random.default_rng(5)
    y = (rng.random(150) < 0.3).astype(int)
    yp = np.where(rng.random(150) < 0.75, y, 1 - y)
    fold = np.arange(150) % 5
    w = rng.uniform(0.1, 3.0, 150)
    ds = cvframe.validate(_weighted_cube(y, yp, fold, w))
    assert ds.cv.f_tp_fp().item() == pytest.approx(f1_score(y, yp, sample_weight=w), rel=1e-12)
    per_fold = [f1_score(y[fold == i], yp[fold == i], sample_weight=w[fold == i]) for i in range(5)]
    assert ds.cv.f_avg().item() == pytest.approx(np.mean(per_fold), rel=1e-12)
    assert ds.cv.micro("f").item() == pytest.approx(
        accuracy_score(y, yp, sample_weight=w), rel=1e-12
    )


def test_validate_weighted_uses_a_relative_tolerance_and_speaks_of_weights():
    ds = xr.Dataset(
        {
            "tp": (("fold", "class"), [[0.1, 0.1]]),
            "fp": (("fold", "class"), [[0.7, 0.2]]),
            "fn": (("fold", "class"), [[0.3, 0.3]]),
            "tn": (("fold", "class"), [[0.2, 0.7]]),
        },
        attrs={"task": "multilabel", "weighted": "yes"},
    )
    assert (0.1 + 0.7 + 0.3 + 0.2) != (0.1 + 0.2 + 0.3 + 0.7)  # rounding differs ...
    assert cvframe.validate(ds) is ds  # ... and is accepted
    ds["tn"][0, 1] = 0.71
    with pytest.raises(CountsError, match=r"total weight .*sample weights.* fold=\[0\]"):
        cvframe.validate(ds)
    ds["tn"][0, 1] = -0.1
    with pytest.raises(CountsError, match="tn has 1 negative.*sample weights"):
        cvframe.validate(ds)


# --- overflow -----------------------------------------------------------------------------------


def _huge(value: int, k: int = 3, dtype: str = "int64") -> xr.Dataset:
    full = np.full((k, 1), value, dtype=dtype)
    zero = np.zeros((k, 1), dtype=dtype)
    return xr.Dataset(
        {
            "tp": (("fold", "class"), full),
            "fp": (("fold", "class"), zero),
            "fn": (("fold", "class"), zero),
            "tn": (("fold", "class"), zero),
        },
        coords={"fold": np.arange(k), "class": [1]},
        attrs={"task": "binary"},
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda d: d.cv.pooled(),
        lambda d: d.cv.f_tp_fp(),
        lambda d: d.cv.f_methods(),
        lambda d: d.cv.accuracy(how="pooled"),
        lambda d: d.cv.micro("f"),
    ],
)
def test_pooled_sums_that_overflow_int64_raise(call):
    ds = _huge(2**62)
    assert ds.cv.f_avg().item() == 1.0  # per fold: fine
    with pytest.raises(CountsError, match="sum of tp over fold overflows int64"):
        call(ds)


def test_lazy_overflow_raises_at_compute():
    out = _huge(2**62).chunk({"fold": 1}).cv.f_tp_fp()
    with pytest.raises(CountsError, match="overflows int64"):
        out.compute()


def test_int32_counts_near_2_31_compute_in_64_bits():
    v = 2**31 - 5
    ds = _huge(v, k=4, dtype="int32")
    ds["fp"] = ds["tp"].copy()
    assert ds.cv.pooled().tp.dtype == np.int64
    assert int(ds.cv.pooled().tp.item()) == 4 * v
    assert ds.cv.precision().values.tolist() == [[0.5]] * 4
    assert ds.cv.f_tp_fp().item() == pytest.approx(2 / 3, abs=1e-15)
    big = _huge(2**32 + 3, k=4)
    assert int(big.cv.pooled().tp.item()) == 4 * (2**32 + 3)


# --- one warning wording per undefined cell -------------------------------------------------


def test_f_avg_and_macro_avg_warn_with_the_same_text():
    ds = datasets.table2().assign_attrs(task="multilabel")  # one class: macro = f_avg
    with pytest.warns(UndefinedMetricWarning) as a:
        ds.cv.f_avg()
    with pytest.warns(UndefinedMetricWarning) as b:
        ds.cv.macro("f", "avg")
    assert len(a) == len(b) == 1
    assert str(a[0].message) == str(b[0].message)
    assert "precision or recall is undefined in 1 of 4 cells (fold=[1], class=[1])" in str(
        a[0].message
    )


def test_per_cell_recall_and_macro_recall_share_their_wording():
    ds = datasets.slides_confusion().assign_attrs(task="multilabel")
    ds = xr.concat([ds, xr.zeros_like(ds).assign_coords(fold=[1])], dim="fold")
    ds["tn"][1] = 5
    with pytest.warns(UndefinedMetricWarning, match=r"recall \(no positives of the class\)"):
        ds.cv.recall()
    with pytest.warns(UndefinedMetricWarning, match=r"recall \(no positives of the class\)"):
        ds.cv.macro("recall", None)


# --- kappa and summary edge cases -----------------------------------------------------------------


def test_kappa_avg_skips_padding_and_matches_sklearn():
    rng = np.random.default_rng(9)
    parts, want = [], []
    for k in (2, 4):
        y = rng.integers(0, 3, 80)
        yp = np.where(rng.random(80) < 0.6, y, rng.integers(0, 3, 80))
        fold = np.arange(80) % k
        parts.append(cvframe.from_predictions(y, yp, fold, labels=[0, 1, 2]))
        want.append(np.mean([cohen_kappa_score(y[fold == i], yp[fold == i]) for i in range(k)]))
    for pad in ("nan", "zero"):
        ds = _uneven(*parts, pad)
        np.testing.assert_allclose(ds.cv.kappa("avg", **ZD).values, want, rtol=1e-12)


def test_summary_of_one_repeat_warns_once():
    ds = xr.concat([datasets.slides_confusion()], dim="repeat")
    with pytest.warns(UndefinedMetricWarning, match="dim='repeat' has length 1") as rec:
        s = ds.cv.summary(ds.cv.micro())
    assert len(rec) == 1 and s["mean"].item() == pytest.approx(0.7)
    assert np.isnan(s["std"].item()) and np.isnan(s["ci_low"].item())


# --- bad arguments and bad counts: error type and the argument it names ---------------------------


def _nan_partial():
    ds = datasets.table1().astype("float64")
    ds["fn"][1, 0] = np.nan
    return ds


def _inf():
    ds = datasets.table1().astype("float64")
    ds["tp"][0, 0] = np.inf
    return ds


ERRORS = [
    ("dim=0", lambda: reduce.f_tp_fp(datasets.table1(), dim=0), TypeError, r"dim=0"),
    (
        "dim=0 macro",
        lambda: multiclass.macro(datasets.slides_confusion(), dim=0),
        TypeError,
        r"dim=0",
    ),
    (
        "unknown dim",
        lambda: reduce.f_avg(datasets.table1(), dim="folds"),
        ValueError,
        r"dim='folds'",
    ),
    (
        "dim=class",
        lambda: reduce.aggregate(datasets.table1(), dim="class"),
        ValueError,
        r"dim='class'",
    ),
    (
        "unknown metric",
        lambda: reduce.aggregate(datasets.table1(), "f1"),
        ValueError,
        r"metric='f1' is not valid; expected one of \['precision', 'recall', 'f', 'accuracy', ",
    ),
    (
        "unknown fold_method",
        lambda: reduce.aggregate(datasets.table1(), "f", "pool"),
        ValueError,
        r"fold_method='pool' is not valid; expected one of \['tp_fp', 'avg', "
        r"'pr_re', None\]",
    ),
    (
        "pr_re for precision",
        lambda: reduce.aggregate(datasets.table1(), "precision", "pr_re"),
        ValueError,
        r"fold_method='pr_re' is defined for metric='f' only",
    ),
    (
        "unknown definition",
        lambda: multiclass.macro(datasets.slides_confusion(), definition="median"),
        ValueError,
        r"definition='median' is not valid; expected one of \['mean', 'f_of_means'\]",
    ),
    ("negative beta", lambda: reduce.aggregate(datasets.table1(), beta=-1), ValueError, r"beta=-1"),
    (
        "string beta",
        lambda: multiclass.micro(datasets.slides_confusion(), beta="2"),
        TypeError,
        r"beta='2'",
    ),
    (
        "bad zero_division",
        lambda: reduce.aggregate(datasets.table1(), zero_division="skip"),
        ValueError,
        r"zero_division='skip' is not valid",
    ),
    (
        "skip_undefined not bool",
        lambda: reduce.f_avg(datasets.table1(), skip_undefined="yes"),
        TypeError,
        r"skip_undefined='yes'",
    ),
    (
        "unknown how",
        lambda: reduce.accuracy(datasets.table1(), how="mean"),
        ValueError,
        r"how='mean' is not valid",
    ),
    (
        "kappa pr_re",
        lambda: multiclass.kappa(datasets.slides_confusion(), "pr_re"),
        ValueError,
        r"fold_method='pr_re' is not valid",
    ),
    ("summary ci", lambda: datasets.table1().cv.summary(ci=2), ValueError, r"ci=2"),
    (
        "summary dim list",
        lambda: repeats_cube().cv.summary(dim=["repeat"]),
        TypeError,
        r"dim=\['repeat'\]",
    ),
    ("not a Dataset", lambda: reduce.f_avg(datasets.table1().tp), TypeError, r"ds must be"),
    (
        "missing tn",
        lambda: multiclass.macro(datasets.slides_confusion().drop_vars("tn")),
        CountsError,
        r"missing count variable\(s\) \['tn'\]",
    ),
    (
        "partial NaN",
        lambda: reduce.f_pr_re(_nan_partial()),
        CountsError,
        r"fn has NaN or infinite values at fold=\[1\], class=\[1\]",
    ),
    ("partial NaN pooled", lambda: reduce.pooled(_nan_partial()), CountsError, r"fn has NaN"),
    ("infinite count", lambda: reduce.f_tp_fp(_inf()), CountsError, r"tp has 1 NaN or infinite"),
    (
        "string counts",
        lambda: reduce.f_avg(datasets.table1().astype(str)),
        CountsError,
        r"tp has dtype",
    ),
    (
        "overflow",
        lambda: reduce.pooled(_huge(2**62)),
        CountsError,
        r"sum of tp over fold overflows int64",
    ),
    (
        "uint64 above int64",
        lambda: reduce.f_avg(_huge(0, dtype="uint64").assign(tp=lambda d: d.tp + np.uint64(2**63))),
        CountsError,
        r"tp has values above 2\*\*63",
    ),
]


def repeats_cube():
    return xr.concat([datasets.slides_confusion()] * 2, dim="repeat")


@pytest.mark.parametrize("name, call, exc, match", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_input_is_an_error_naming_it(name, call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_explicit_policy_is_silent_on_every_path():
    ds = _uneven(_random(4, 3), _random(5, 6), "nan")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _, func in AVERAGED:
            func(ds)
        for m in reduce.METRICS:
            reduce.aggregate(ds, m, None, **ZD)
