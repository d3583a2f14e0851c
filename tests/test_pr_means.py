"""The five means of precision and recall (``pr_mean``): exact fractions, F and the ordering.

Oracles: exact ``fractions.Fraction`` arithmetic on the counts (the Basili & Filice example
cube, the paper's tables), the F aggregations the harmonic mean must reproduce, scikit-learn's
micro/macro precision and recall, and the mean inequalities under hypothesis.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import cvframe
from cvframe import multiclass
from cvframe.errors import UndefinedMetricWarning

BASILI = [[38, 12, 0], [5, 43, 2], [6, 0, 44]]


def _pr_exact(conf):
    """Per-class precision and recall of a confusion matrix, as Fractions."""
    k = len(conf)
    cols = [sum(conf[j][i] for j in range(k)) for i in range(k)]
    rows = [sum(conf[i]) for i in range(k)]
    p = [Fraction(conf[i][i], cols[i]) for i in range(k)]
    r = [Fraction(conf[i][i], rows[i]) for i in range(k)]
    return p, r, rows


def _means(p, r):
    return {
        "min": min(p, r),
        "max": max(p, r),
        "arithmetic": (p + r) / 2,
        "geometric": math.sqrt(p * r),
        "harmonic": 2 * p * r / (p + r) if p + r else Fraction(0),
    }


def _close(value, exact):
    return value == pytest.approx(float(exact), rel=1e-14, abs=1e-15)


# --- the Basili & Filice example ---------------------------------------------------------


def test_micro_break_even_point_of_the_basili_example_is_exact():
    ds = cvframe.datasets.basili_confusion()
    mu_p = Fraction(38 + 43 + 44, 38 + 43 + 44 + 11 + 12 + 2)  # the slides' muPrecision
    mu_r = Fraction(125, 150)
    mu_bep = (mu_p + mu_r) / 2
    assert mu_bep == Fraction(5, 6)
    got = ds.cv.pr_mean("arithmetic", average="micro")
    assert got.item() == float(mu_bep)  # 125/150 in floating point, to the last bit
    assert got.attrs["kind"] == "arithmetic" and got.attrs["average"] == "micro"
    assert _close(ds.cv.pr_mean("harmonic", average="micro").item(), mu_p)  # mu F1


@pytest.mark.parametrize("kind", multiclass.PR_KINDS)
def test_per_class_and_macro_means_of_the_basili_example(kind):
    ds = cvframe.datasets.basili_confusion()
    p, r, rows = _pr_exact(BASILI)
    assert p[0] == Fraction(38, 49) and r[0] == Fraction(38, 50) and p[1] == Fraction(43, 55)
    per_class = ds.cv.pr_mean(kind).values
    for c in range(3):
        assert _close(per_class[c], _means(p[c], r[c])[kind])
    mp, mr = sum(p) / 3, sum(r) / 3  # the slides' MPrecision, MRecall (as means)
    assert _close(ds.cv.pr_mean(kind, average="macro").item(), _means(mp, mr)[kind])
    wp = sum(pc * n for pc, n in zip(p, rows, strict=True)) / sum(rows)
    wr = sum(rc * n for rc, n in zip(r, rows, strict=True)) / sum(rows)
    assert _close(ds.cv.pr_mean(kind, average="weighted").item(), _means(wp, wr)[kind])


def test_macro_harmonic_is_the_slides_mf1_not_sklearns_macro_f():
    ds = cvframe.datasets.basili_confusion()
    got = ds.cv.pr_mean("harmonic", average="macro").item()
    assert got == pytest.approx(ds.cv.macro("f", definition="f_of_means").item(), rel=1e-14)
    assert got != pytest.approx(ds.cv.macro("f").item(), rel=1e-6)


def test_against_sklearn_micro_and_macro_precision_recall():
    from sklearn.metrics import precision_score, recall_score

    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 300)
    yp = np.where(rng.random(300) < 0.6, y, rng.integers(0, 3, 300))
    fold = np.arange(300) % 4
    ds = cvframe.from_predictions(y, yp, fold)
    for avg in ("micro", "macro", "weighted"):
        p = precision_score(y, yp, average=avg)
        r = recall_score(y, yp, average=avg)
        got = ds.cv.pr_mean("arithmetic", average=avg).item()
        assert got == pytest.approx((p + r) / 2, rel=1e-12)
        got = ds.cv.pr_mean("geometric", average=avg).item()
        assert got == pytest.approx(math.sqrt(p * r), rel=1e-12)


# --- the harmonic mean is F, under every fold aggregation -----------------------------------


@pytest.mark.parametrize(
    ("fold_method", "f_name"), [("tp_fp", "f_tp_fp"), ("avg", "f_avg"), ("pr_re", "f_pr_re")]
)
@pytest.mark.parametrize("zd", [0.0, 1.0])
@pytest.mark.parametrize("table", ["table1", "table2"])
def test_harmonic_equals_the_f_aggregations(fold_method, f_name, zd, table):
    ds = cvframe.datasets.load(table)
    got = ds.cv.pr_mean("harmonic", fold_method, zero_division=zd)
    want = getattr(ds.cv, f_name)(zero_division=zd)
    np.testing.assert_allclose(got.values, want.values, rtol=1e-14)
    b = ds.cv.pr_mean("harmonic", fold_method, beta=2.0, zero_division=zd)
    np.testing.assert_allclose(
        b.values, getattr(ds.cv, f_name)(beta=2.0, zero_division=zd).values, rtol=1e-14
    )


def test_table2_fold_means_exact():
    # Table 2: per-fold precision 1, undefined (-> 0), 1, 1; recall 2/4, 0, 4/4, 4/4.
    ds = cvframe.datasets.table2()
    pbar, rbar = Fraction(3, 4), Fraction(5, 8)
    got = ds.cv.pr_mean("arithmetic", "pr_re", zero_division=0.0).item()
    assert _close(got, (pbar + rbar) / 2)
    per_fold = [_means(Fraction(p), Fraction(r)) for p, r in [(1, "1/2"), (0, 0), (1, 1), (1, 1)]]
    for kind in multiclass.PR_KINDS:
        got = ds.cv.pr_mean(kind, "avg", zero_division=0.0).item()
        want = sum(Fraction(m[kind]) if kind != "geometric" else m[kind] for m in per_fold) / 4
        assert got == pytest.approx(float(want), rel=1e-14), kind
    pooled = ds.cv.pr_mean("min", "tp_fp").item()  # P = 10/10, R = 10/16
    assert _close(pooled, Fraction(10, 16))


def test_fold_method_none_keeps_folds_and_other_dims():
    one = cvframe.datasets.table1()
    ds = xr.concat([one, one], dim="repeat")
    per_fold = ds.cv.pr_mean("geometric", None)
    assert set(per_fold.dims) == {"repeat", "fold", "class"}
    np.testing.assert_allclose(
        per_fold.values, np.sqrt(ds.cv.precision().values * ds.cv.recall().values), rtol=1e-14
    )
    pooled = ds.cv.pr_mean("geometric", average="macro")
    assert pooled.dims == ("repeat",)


def test_binary_averages_run_over_both_classes():
    ds = cvframe.datasets.table1()
    acc = ds.cv.accuracy(how="pooled").item()
    for kind in multiclass.PR_KINDS:
        assert ds.cv.pr_mean(kind, average="micro").item() == pytest.approx(acc, rel=1e-14)


def test_dask_backed_cube_stays_lazy_and_agrees():
    pytest.importorskip("dask")
    one = cvframe.datasets.table1()
    ds = xr.concat([one, one, one], dim="repeat")
    lazy = ds.chunk({"repeat": 1})
    for fm in ("tp_fp", "avg", "pr_re"):
        got = lazy.cv.pr_mean("geometric", fm, average="macro", zero_division=0.0)
        assert got.chunks is not None
        np.testing.assert_allclose(
            got.compute().values,
            ds.cv.pr_mean("geometric", fm, average="macro", zero_division=0.0).values,
        )


# --- undefined cells: one warning per call ----------------------------------------------------


def test_one_warning_per_call_and_policy_values():
    ds = cvframe.datasets.table2()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        ds.cv.pr_mean("arithmetic", "avg")
    hits = [w for w in rec if issubclass(w.category, UndefinedMetricWarning)]
    assert len(hits) == 1 and "precision" in str(hits[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nan = ds.cv.pr_mean("arithmetic", "avg", zero_division=np.nan)
    assert np.isnan(nan.item())
    one = ds.cv.pr_mean("arithmetic", "avg", zero_division=1.0).item()
    assert _close(one, (Fraction(4, 4) + Fraction(5, 8)) / 2)


def test_padding_cells_are_not_folds():
    one = cvframe.datasets.table1()
    short = one.isel(fold=slice(0, 3))
    ds = xr.concat([one, short], dim="repeat", join="outer")  # repeat 1 is NaN-padded at fold 3
    got = ds.cv.pr_mean("arithmetic", "avg", zero_division=0.0)
    want = short.cv.pr_mean("arithmetic", "avg", zero_division=0.0)
    assert got.isel(repeat=1).item() == pytest.approx(want.item(), rel=1e-14)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the padding cell is not an undefined fold
        for avg in (None, "macro", "weighted", "micro"):
            ds.cv.pr_mean("harmonic", "avg", avg)


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"kind": "median"}, ValueError, "kind"),
        ({"fold_method": "mean"}, ValueError, "fold_method"),
        ({"average": "samples"}, ValueError, "average"),
        ({"beta": -1.0}, ValueError, "beta"),
        ({"dim": "class"}, ValueError, "dim"),
        ({"zero_division": 2}, ValueError, "zero_division"),
    ],
)
def test_bad_arguments_name_themselves(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        cvframe.datasets.table1().cv.pr_mean(**kwargs)


# --- the ordering of the means (hypothesis) --------------------------------------------------

counts = st.integers(0, 40)


@settings(max_examples=30)
@given(
    st.lists(st.tuples(counts, counts, counts, counts), min_size=2, max_size=5),
    st.sampled_from(["tp_fp", "avg", "pr_re", None]),
    st.sampled_from([None, "micro"]),
)
def test_min_harmonic_geometric_arithmetic_max(rows, fold_method, average):
    arr = np.array(rows, dtype=np.int64)
    arr[:, 3] += 1  # every fold holds a sample
    ds = cvframe.from_counts(
        {"tp": arr[:, 0], "fp": arr[:, 1], "fn": arr[:, 2], "tn": arr[:, 3]},
        task="binary",
        pos_label=1,
    )
    vals = {
        k: ds.cv.pr_mean(k, fold_method, average, zero_division=0.0).values
        for k in multiclass.PR_KINDS
    }
    tol = 1e-12  # the chain holds in every cell, so also for the means over folds
    assert np.all(vals["min"] <= vals["harmonic"] + tol)
    assert np.all(vals["harmonic"] <= vals["geometric"] + tol)
    assert np.all(vals["geometric"] <= vals["arithmetic"] + tol)
    assert np.all(vals["arithmetic"] <= vals["max"] + tol)
