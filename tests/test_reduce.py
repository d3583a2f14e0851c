"""reduce: the five F aggregations and per-fold metrics: paper tables, sklearn oracle, policy."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
import xarray as xr
from sklearn.metrics import f1_score, fbeta_score, precision_score, recall_score

import cvframe
from cvframe import UndefinedMetricWarning, datasets, formulas, reduce


def _f(tp, fp, fn):
    return Fraction(2 * tp, 2 * tp + fp + fn) if (tp + fp + fn) else Fraction(0)


def _pr(p, r):
    return 2 * p * r / (p + r) if (p + r) else Fraction(0)


def _paper_methods(tp, fp, fn):
    """The five methods of Forman & Scholz §2.3 in exact rational arithmetic."""
    k = len(tp)
    prec = [Fraction(t, t + f) if t + f else Fraction(0) for t, f in zip(tp, fp, strict=False)]
    rec = [Fraction(t, t + n) if t + n else Fraction(0) for t, n in zip(tp, fn, strict=False)]
    fs = [_f(t, f, n) for t, f, n in zip(tp, fp, fn, strict=False)]
    v = [(t + f > 0) and (t + n > 0) for t, f, n in zip(tp, fp, fn, strict=False)]
    kv = sum(v)
    return {
        "f_tp_fp": _f(sum(tp), sum(fp), sum(fn)),
        "f_avg": sum(fs) / k,
        "f_pr_re": _pr(sum(prec) / k, sum(rec) / k),
        "f_avg_skip": sum(x for x, ok in zip(fs, v, strict=False) if ok) / kv,
        "f_pr_re_skip": _pr(
            sum(x for x, ok in zip(prec, v, strict=False) if ok) / kv,
            sum(x for x, ok in zip(rec, v, strict=False) if ok) / kv,
        ),
    }


@pytest.mark.parametrize(
    "name, rounded",
    [
        ("table1", {"f_tp_fp": 0.583, "f_avg": 0.692, "f_pr_re": 0.734}),
        (
            "table2",
            {
                "f_tp_fp": 0.769,
                "f_avg": 0.667,
                "f_pr_re": 0.682,
                "f_avg_skip": 0.889,
                "f_pr_re_skip": 0.909,
            },
        ),
    ],
)
def test_paper_tables_all_five_methods(name, rounded):
    ds = datasets.load(name)
    tp, fp, fn = (ds[v].values.ravel().tolist() for v in ("tp", "fp", "fn"))
    exact = _paper_methods(tp, fp, fn)
    got = ds.cv.f_methods(zero_division=0.0)
    for method, value in exact.items():
        assert got[method].item() == pytest.approx(float(value), abs=1e-12), method
    for method, value in rounded.items():  # and the numbers printed in the paper
        assert round(got[method].item(), 3) == value
    # the individual functions agree with f_methods
    assert ds.cv.f_tp_fp().item() == got.f_tp_fp.item()
    assert ds.cv.f_avg(zero_division=0).item() == got.f_avg.item()
    assert ds.cv.f_pr_re(zero_division=0, skip_undefined=True).item() == got.f_pr_re_skip.item()


def test_table1_worked_numbers():
    # The paper's own arithmetic: 2*14/(2*14+19+1) and 2*0.60*0.94/(0.60+0.94) rounded.
    ds = datasets.table1()
    assert ds.cv.f_tp_fp().item() == pytest.approx(28 / 48, abs=1e-15)
    assert ds.cv.precision().mean().item() == pytest.approx(0.6025, abs=1e-3)
    assert ds.cv.recall().mean().item() == pytest.approx(0.9375)


def _random_binary(rng, n=300, k=5, p=0.2):
    y = (rng.random(n) < p).astype(int)
    yp = np.where(rng.random(n) < 0.7, y, 1 - y)
    fold = rng.integers(0, k, n)
    return y, yp, fold


@pytest.mark.parametrize("seed", range(15))
def test_oracle_binary_per_fold_and_pooled(seed):
    rng = np.random.default_rng(seed)
    y, yp, fold = _random_binary(
        rng,
        n=int(rng.integers(20, 400)),
        k=int(rng.integers(2, 9)),
        p=float(rng.uniform(0.02, 0.6)),
    )
    ds = cvframe.from_predictions(y, yp, fold)
    folds = ds.fold.values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for zd in (0.0, 1.0):
            prec = ds.cv.precision(zero_division=zd).values[:, 0]
            rec = ds.cv.recall(zero_division=zd).values[:, 0]
            f = ds.cv.f(zero_division=zd).values[:, 0]
            f2 = ds.cv.f(beta=2.0, zero_division=zd).values[:, 0]
            for i, fo in enumerate(folds):
                m = fold == fo
                assert prec[i] == pytest.approx(precision_score(y[m], yp[m], zero_division=zd))
                assert rec[i] == pytest.approx(recall_score(y[m], yp[m], zero_division=zd))
                assert f[i] == pytest.approx(f1_score(y[m], yp[m], zero_division=zd))
                assert f2[i] == pytest.approx(fbeta_score(y[m], yp[m], beta=2.0, zero_division=zd))
    assert ds.cv.f_tp_fp(zero_division=0).item() == pytest.approx(
        f1_score(y, yp, zero_division=0), abs=1e-12
    )
    per_fold = [f1_score(y[fold == fo], yp[fold == fo], zero_division=0) for fo in folds]
    assert ds.cv.f_avg(zero_division=0).item() == pytest.approx(np.mean(per_fold), abs=1e-12)


def test_f_beta_is_not_symmetric_but_f1_is():
    ds = datasets.table1()
    swapped = ds.rename({"fp": "fn", "fn": "fp"})
    assert swapped.cv.f_tp_fp().item() == pytest.approx(ds.cv.f_tp_fp().item())
    assert swapped.cv.f_tp_fp(beta=2).item() != pytest.approx(ds.cv.f_tp_fp(beta=2).item())
    assert swapped.cv.precision().values.tolist() == ds.cv.recall().values.tolist()


def test_accuracy_pooled_vs_avg_with_unequal_folds():
    ds = cvframe.from_predictions([1, 1, 0, 0, 1, 0], [1, 0, 0, 0, 1, 1], fold=[0, 0, 0, 0, 1, 1])
    assert ds.cv.accuracy(how="pooled").item() == pytest.approx(4 / 6)
    assert ds.cv.accuracy(how="avg").item() == pytest.approx((3 / 4 + 1 / 2) / 2)
    assert ds.cv.accuracy(how="pooled").attrs["method"] == "accuracy_pooled"
    assert ds.cv.error_rate(how="pooled").item() == pytest.approx(2 / 6)
    assert ds.cv.accuracy().dims == ("fold", "class")


def test_multiclass_accuracy_counts_each_sample_once():
    ds = datasets.basili_confusion()
    assert ds.cv.accuracy().dims == ("fold",)
    assert ds.cv.accuracy(how="pooled").item() == pytest.approx(125 / 150, abs=1e-15)
    assert round(ds.cv.accuracy(how="pooled").item(), 4) == 0.8333


def test_specificity_and_valid():
    ds = datasets.table1()
    np.testing.assert_allclose(
        ds.cv.specificity().values.ravel(), [373 / 373, 371 / 372, 359 / 372, 367 / 372]
    )
    assert ds.cv.valid().dtype == bool


# --- undefined policy ---------------------------------------------------------------------------


def test_warn_once_per_call_with_counts():
    ds = datasets.table2()
    with pytest.warns(
        UndefinedMetricWarning,
        match=r"precision \(no predicted positives\) "
        r"is undefined in 1 of 4 cells \(fold=\[1\]",
    ) as rec:
        ds.cv.precision()
    assert len(rec) == 1
    with pytest.warns(UndefinedMetricWarning, match="1 of 4 cells") as rec:
        ds.cv.f_methods()
    assert len(rec) == 1
    with pytest.warns(UndefinedMetricWarning, match="skipped"):
        ds.cv.f_avg(skip_undefined=True)


@pytest.mark.parametrize("zd", [0.0, 1.0, np.nan])
def test_explicit_policy_is_silent(zd):
    ds = datasets.table2()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds.cv.precision(zero_division=zd)
        ds.cv.f_methods(zero_division=zd)
        ds.cv.f_avg(zero_division=zd, skip_undefined=True)
        ds.cv.f_pr_re(zero_division=zd)


def test_zero_division_values():
    ds = datasets.table2()
    assert ds.cv.precision(zero_division=1.0).values[1, 0] == 1.0
    assert np.isnan(ds.cv.precision(zero_division=np.nan).values[1, 0])
    # F is 0 whenever TP = 0 < FP + FN, whatever the policy (scikit-learn >= 1.3)
    assert ds.cv.f(zero_division=np.nan).values[1, 0] == 0.0
    assert ds.cv.f(zero_division=1.0).values[1, 0] == 0.0
    # nan precision propagates into F_pr,re; skipping removes the fold
    assert np.isnan(ds.cv.f_pr_re(zero_division=np.nan).item())
    assert ds.cv.f_pr_re(zero_division=np.nan, skip_undefined=True).item() == pytest.approx(
        _pr_float([1, 1, 1], [0.5, 1, 1])
    )


def _pr_float(p, r):
    p, r = np.mean(p), np.mean(r)
    return 2 * p * r / (p + r)


def test_all_zero_cell_follows_policy():
    ds = cvframe.from_counts({"tp": [0, 2], "fp": [0, 1], "fn": [0, 1], "tn": [10, 6]})
    assert ds.cv.f(zero_division=1.0).values[0, 0] == 1.0
    assert np.isnan(ds.cv.f(zero_division=np.nan).values[0, 0])
    with pytest.warns(UndefinedMetricWarning):
        assert ds.cv.f().values[0, 0] == 0.0


def test_skip_with_no_valid_fold_gives_policy_value():
    ds = cvframe.from_counts({"tp": [0, 0], "fp": [0, 0], "fn": [3, 2], "tn": [10, 6]})
    assert ds.cv.f_avg(skip_undefined=True, zero_division=0.0).item() == 0.0
    assert np.isnan(ds.cv.f_avg(skip_undefined=True, zero_division=np.nan).item())


def test_empty_fold_warns_and_leaves_pooled_unchanged():
    base = datasets.table1()
    empty = xr.zeros_like(base.isel(fold=[0])).assign_coords(fold=[99])
    more = xr.concat([base, empty], dim="fold")
    more.attrs = base.attrs
    assert more.cv.f_tp_fp().item() == base.cv.f_tp_fp().item()
    with pytest.warns(UndefinedMetricWarning, match="empty fold"):
        more.cv.accuracy()
    assert more.cv.accuracy(how="pooled").item() == base.cv.accuracy(how="pooled").item()


def test_one_fold_pooled_equals_averaged():
    ds = datasets.table1().isel(fold=[2])
    m = ds.cv.f_methods(zero_division=0)
    assert len({round(v.item(), 14) for v in m.data_vars.values()}) == 1


# --- dims and provenance --------------------------------------------------------------------------


def _with_dims(rng):
    tp = rng.integers(0, 20, (2, 3, 4, 2))
    fp = rng.integers(0, 20, tp.shape)
    fn = rng.integers(0, 20, tp.shape)
    n = 100
    ds = xr.Dataset(
        {
            k: (("model", "repeat", "fold", "class"), v)
            for k, v in {"tp": tp, "fp": fp, "fn": fn, "tn": n - tp - fp - fn}.items()
        },
        coords={
            "model": ["lr", "nb"],
            "repeat": [0, 1, 2],
            "fold": [0, 1, 2, 3],
            "class": ["a", "b"],
        },
        attrs={"task": "multilabel"},
    )
    return ds


def test_every_reduction_keeps_other_dims_with_coords():
    ds = _with_dims(np.random.default_rng(1))
    for name in ("f_tp_fp", "f_avg", "f_pr_re"):
        out = getattr(ds.cv, name)(zero_division=0)
        assert set(out.dims) == {"model", "repeat", "class"}
        assert out.model.values.tolist() == ["lr", "nb"]
        assert out.attrs["reduced_dims"] == "fold"
    both = ds.cv.f_tp_fp(dim=("repeat", "fold"))
    assert set(both.dims) == {"model", "class"}
    # reducing over repeat and fold pools everything: equals pooling by hand
    manual = ds[["tp", "fp", "fn"]].sum(("repeat", "fold"))
    np.testing.assert_allclose(both, formulas.f_beta(manual.tp, manual.fp, manual.fn))
    assert set(ds.cv.f_methods(zero_division=0).dims) == {"model", "repeat", "class"}
    assert set(ds.cv.pooled().dims) == {"model", "repeat", "class"}


def test_model_concat_equals_each_model_alone():
    ds = _with_dims(np.random.default_rng(2))
    joint = ds.cv.f_methods(zero_division=0)
    for m in ds.model.values:
        alone = ds.sel(model=m).cv.f_methods(zero_division=0)
        xr.testing.assert_allclose(joint.sel(model=m), alone)


def test_provenance_attrs():
    out = datasets.table2().cv.f_avg(beta=2, skip_undefined=True, zero_division=0)
    assert out.attrs == {
        "method": "f_avg_skip",
        "reduced_dims": "fold",
        "zero_division": "0.0",
        "skip_undefined": "yes",
        "beta": 2.0,
    }
    assert out.name == "f_avg_skip"
    assert datasets.table1().cv.f_tp_fp().attrs["zero_division"] == "warn"


def test_accessor_has_no_state():
    ds = datasets.table1()
    before = ds.cv.f_tp_fp().item()
    ds["fp"] = ds["fp"] * 0
    assert ds.cv.f_tp_fp().item() != before
    assert ds.cv.f_tp_fp().item() == pytest.approx(2 * 14 / (2 * 14 + 1))


def test_warnings_point_at_the_callers_line():
    ds = datasets.table2()
    for call in (
        lambda: ds.cv.precision(),
        lambda: cvframe.reduce.precision(ds),
        lambda: ds.cv.f_methods(),
        lambda: ds.cv.f_avg(skip_undefined=True),
    ):
        with pytest.warns(UndefinedMetricWarning) as rec:
            call()
        assert rec[0].filename == __file__


def test_class_mean_weights_and_fill():
    x = xr.DataArray([0.5, 1.0, np.nan], dims="class")
    mean, none = reduce.class_mean(x, xr.DataArray([1.0, 3.0, 0.0], dims="class"), fill=0.0)
    assert mean.item() == 0.875 and not none[0].item()  # a class of weight 0 is left out
    empty, none = reduce.class_mean(x, xr.DataArray([0.0, 0.0, 0.0], dims="class"), fill=1.0)
    assert empty.item() == 1.0 and none[0].item()
    assert np.isnan(reduce.class_mean(x)[0].item())  # unweighted: NaN propagates


def test_fold_mean_over_a_mask_of_real_folds():
    values = xr.DataArray([[0.5, 9.0], [1.0, 9.0]], dims=("repeat", "fold"))
    real = xr.DataArray([[True, False], [False, False]], dims=("repeat", "fold"))
    mean, none = reduce.fold_mean(values, real, ("fold",), fill=-1.0)
    assert mean.values.tolist() == [0.5, -1.0]
    assert none.values.tolist() == [False, True]
