"""Class averaging (macro/micro/weighted), kappa and confusion: worked examples, scikit-learn
oracles on random CV outcomes, hypothesis invariants, dask parity and bad inputs."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import (
    accuracy_score,
    cohen_kappa_score,
    confusion_matrix,
    f1_score,
    precision_recall_fscore_support,
)

import cvframe
from cvframe import UndefinedMetricWarning, multiclass, reduce
from cvframe.datasets import basili_confusion, slides_confusion

METRICS = ("precision", "recall", "f", "accuracy")
PRF = ("precision", "recall", "f")
FOLD_METHODS = ("tp_fp", "avg", "pr_re", None)


# --- random single-label CV outcomes -----------------------------------------------------------


def random_cv(
    seed: int,
    n_classes: int = 4,
    n_folds: int = 4,
    n_repeats: int = 2,
    extra_labels: int = 1,
    min_size: int = 1,
    max_size: int = 25,
):
    """Predictions of a fake classifier under repeated CV.

    Each fold sees a random subset of the classes (so classes are absent from some folds),
    and ``extra_labels`` labels are never used at all (named in ``labels`` only).
    """
    rng = np.random.default_rng(seed)
    k = n_classes + extra_labels
    yt, yp, fold, rep = [], [], [], []
    for r in range(n_repeats):
        for i in range(n_folds):
            m = int(rng.integers(min_size, max_size + 1))
            present = rng.choice(n_classes, size=int(rng.integers(1, n_classes + 1)), replace=False)
            t = rng.choice(present, m)
            right = rng.random(m) < rng.uniform(0.1, 0.95)
            p = np.where(right, t, rng.integers(0, n_classes, m))
            yt.append(t), yp.append(p), fold.append(np.full(m, i)), rep.append(np.full(m, r))
    yt, yp, fold, rep = map(np.concatenate, (yt, yp, fold, rep))
    labels = list(range(k))
    ds = cvframe.from_predictions(yt, yp, fold, repeat=rep, labels=labels)
    return ds, yt, yp, fold, rep, labels


seeds = st.integers(0, 2**32 - 1)
shapes = st.fixed_dictionaries(
    {
        "n_classes": st.integers(2, 6),
        "n_folds": st.integers(1, 5),
        "n_repeats": st.integers(1, 3),
        "extra_labels": st.integers(0, 2),
    }
)


# --- the slides' worked example, to full precision ---------------------------------------------

TP, FP, FN = (88, 40, 12), (32, 20, 8), (12, 20, 28)
SUPPORT = (100, 60, 40)


def _fr(values):
    return [Fraction(v) for v in values]


P_EXACT = [Fraction(t, t + f) for t, f in zip(TP, FP, strict=False)]  # 88/120, 40/60, 12/20
R_EXACT = [Fraction(t, t + f) for t, f in zip(TP, FN, strict=False)]  # 88/100, 40/60, 12/40
F_EXACT = [Fraction(2 * t, 2 * t + f + n) for t, f, n in zip(TP, FP, FN, strict=False)]
EXACT = {"precision": P_EXACT, "recall": R_EXACT, "f": F_EXACT}


def _mean(xs):
    return sum(xs, Fraction(0)) / len(xs)


def _wmean(xs):
    return sum((x * s for x, s in zip(xs, SUPPORT, strict=False)), Fraction(0)) / sum(SUPPORT)


def test_slides_exact_fractions_hold_the_stated_rounded_values():
    # the slides' rounded constants follow from the exact fractions (checks the oracle itself)
    assert P_EXACT[0] == Fraction(88, 120) and R_EXACT[2] == Fraction(12, 40)
    stated = {"precision": ("0.67", "0.69"), "recall": ("0.62", "0.70"), "f": ("0.62", "0.68")}
    for m, (mac, wei) in stated.items():
        assert f"{float(_mean(EXACT[m])):.2f}" == mac
        assert f"{float(_wmean(EXACT[m])):.2f}" == wei


@pytest.mark.parametrize("metric", PRF)
def test_slides_macro_weighted_micro_exact(metric):
    ds = slides_confusion()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mac = multiclass.macro(ds, metric).item()
        wei = multiclass.weighted(ds, metric).item()
        mic = multiclass.micro(ds, metric).item()
    assert mac == pytest.approx(float(_mean(EXACT[metric])), abs=1e-15)
    assert wei == pytest.approx(float(_wmean(EXACT[metric])), abs=1e-15)
    assert mic == pytest.approx(float(Fraction(140, 200)), abs=1e-15)
    stated = {"precision": ("0.67", "0.69"), "recall": ("0.62", "0.70"), "f": ("0.62", "0.68")}
    assert (f"{mac:.2f}", f"{wei:.2f}", f"{mic:.2f}") == (*stated[metric], "0.70")


def test_slides_macro_f_of_means_exact():
    p, r = _mean(P_EXACT), _mean(R_EXACT)
    expected = 2 * p * r / (p + r)
    got = multiclass.macro(slides_confusion(), "f", definition="f_of_means").item()
    assert got == pytest.approx(float(expected), abs=1e-15)
    assert got != pytest.approx(float(_mean(F_EXACT)), abs=1e-3)  # the two macro-F differ


def test_slides_kappa_exact():
    n, agree = 200, 88 + 40 + 12
    rows, cols = (100, 60, 40), (120, 60, 20)
    p_o = Fraction(agree, n)
    p_e = Fraction(sum(a * b for a, b in zip(rows, cols, strict=False)), n * n)
    expected = (p_o - p_e) / (1 - p_e)
    assert expected == Fraction(58, 118)
    got = slides_confusion().cv.kappa().item()
    assert got == pytest.approx(float(expected), abs=1e-15)
    assert f"{got:.3f}" == "0.492"


def test_slides_per_class_accuracy_is_one_vs_all():
    ds = slides_confusion()
    tn = (68, 120, 152)
    acc = [Fraction(t + n, 200) for t, n in zip(TP, tn, strict=False)]
    assert multiclass.macro(ds, "accuracy").item() == pytest.approx(float(_mean(acc)))
    assert multiclass.weighted(ds, "accuracy").item() == pytest.approx(float(_wmean(acc)))


def test_basili_accuracy_0_8333():
    ds = basili_confusion()
    acc = Fraction(38 + 43 + 44, 150)
    assert f"{float(acc):.4f}" == "0.8333"
    assert multiclass.micro(ds, "f").item() == pytest.approx(float(acc), abs=1e-15)
    assert multiclass.weighted(ds, "recall").item() == pytest.approx(float(acc), abs=1e-15)
    assert reduce.accuracy(ds, how="pooled").item() == pytest.approx(float(acc), abs=1e-15)


# --- scikit-learn oracles on random CV outcomes ------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(seeds, shapes)
def test_pooled_averages_equal_sklearn_on_pooled_predictions(seed, shape):
    ds, yt, yp, fold, rep, labels = random_cv(seed, **shape)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = {
            (kind, m): fn(ds, m, zero_division=0)
            for kind, fn in (
                ("macro", multiclass.macro),
                ("micro", multiclass.micro),
                ("weighted", multiclass.weighted),
            )
            for m in PRF
        }
    for r in np.unique(rep):
        sel = rep == r
        for kind in ("macro", "micro", "weighted"):
            p, rc, f, _ = precision_recall_fscore_support(
                yt[sel], yp[sel], average=kind, labels=labels, zero_division=0
            )
            for m, want in zip(PRF, (p, rc, f), strict=False):
                assert got[kind, m].sel(repeat=r).item() == pytest.approx(want, abs=1e-12), (
                    kind,
                    m,
                    r,
                )


@settings(max_examples=40, deadline=None)
@given(seeds, shapes)
def test_avg_macro_f_equals_mean_of_sklearn_per_fold_macro_f1(seed, shape):
    ds, yt, yp, fold, rep, labels = random_cv(seed, **shape)
    got = multiclass.macro(ds, "f", fold_method="avg", zero_division=0)
    per_fold = multiclass.macro(ds, "f", fold_method=None, zero_division=0)
    for r in np.unique(rep):
        scores = []
        for i in np.unique(fold):
            sel = (rep == r) & (fold == i)
            s = f1_score(yt[sel], yp[sel], average="macro", labels=labels, zero_division=0)
            assert per_fold.sel(repeat=r, fold=i).item() == pytest.approx(s, abs=1e-12)
            scores.append(s)
        assert got.sel(repeat=r).item() == pytest.approx(np.mean(scores), abs=1e-12)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
@settings(max_examples=40, deadline=None)
@given(seeds, shapes)
def test_kappa_equals_sklearn_pooled_and_per_fold(seed, shape):
    ds, yt, yp, fold, rep, labels = random_cv(seed, **shape)
    pooled = multiclass.kappa(ds, zero_division=0)
    per_fold = multiclass.kappa(ds, None, zero_division=0)
    avg = multiclass.kappa(ds, "avg", zero_division=0)
    for r in np.unique(rep):
        sel = rep == r
        want = cohen_kappa_score(yt[sel], yp[sel], labels=labels, replace_undefined_by=0.0)
        assert pooled.sel(repeat=r).item() == pytest.approx(want, abs=1e-12)
        ks = [
            cohen_kappa_score(
                yt[sel & (fold == i)],
                yp[sel & (fold == i)],
                labels=labels,
                replace_undefined_by=0.0,
            )
            for i in np.unique(fold)
        ]
        np.testing.assert_allclose(per_fold.sel(repeat=r).values, ks, atol=1e-12)
        assert avg.sel(repeat=r).item() == pytest.approx(np.mean(ks), abs=1e-12)


@pytest.mark.parametrize("fold_method", ["tp_fp", "avg", "pr_re"])
def test_macro_f_is_class_mean_of_per_class_f_method(fold_method):
    ds = random_cv(7, n_classes=5, n_folds=6, n_repeats=3)[0]
    core = {"tp_fp": reduce.f_tp_fp, "avg": reduce.f_avg, "pr_re": reduce.f_pr_re}[fold_method]
    want = core(ds, zero_division=0.0).mean("class")
    got = multiclass.macro(ds, "f", fold_method=fold_method, zero_division=0.0)
    xr.testing.assert_allclose(got.drop_attrs(), want.drop_attrs().rename(got.name))


def test_weighted_is_support_weighted_mean_of_per_class_values():
    ds = random_cv(3, n_classes=4, n_folds=5, n_repeats=2)[0]
    per_class = reduce.f_avg(ds, zero_division=0.0)
    s = (ds.tp + ds.fn).sum("fold")
    want = (per_class * s).sum("class") / s.sum("class")
    got = multiclass.weighted(ds, "f", "avg", zero_division=0.0)
    np.testing.assert_allclose(got.values, want.values, rtol=1e-12)


@pytest.mark.parametrize("fold_method", ["tp_fp", "avg", "pr_re", None])
def test_f_of_means_composes_with_fold_method(fold_method):
    ds = random_cv(11, n_classes=3, n_folds=4, n_repeats=2, extra_labels=0)[0]
    fm = {"pr_re": "avg"}.get(fold_method, fold_method)
    p = multiclass.macro(ds, "precision", fm, zero_division=0.0)
    r = multiclass.macro(ds, "recall", fm, zero_division=0.0)
    want = 2 * p * r / (p + r)
    got = multiclass.macro(ds, "f", fold_method, "f_of_means", zero_division=0.0)
    np.testing.assert_allclose(got.values, want.fillna(0).values, rtol=1e-12)


@pytest.mark.parametrize("metric", METRICS)
def test_micro_avg_is_mean_of_per_fold_micro(metric):
    ds = random_cv(5, n_classes=4, n_folds=5, n_repeats=2)[0]
    per_fold = multiclass.micro(ds, metric, None, zero_division=0.0)
    got = multiclass.micro(ds, metric, "avg", zero_division=0.0)
    np.testing.assert_allclose(got.values, per_fold.mean("fold").values, rtol=1e-12)
    assert per_fold.dims == ("repeat", "fold")


def test_micro_pr_re_is_f_of_fold_means_of_micro_precision_and_recall():
    ds = random_cv(9, n_classes=3, n_folds=5, n_repeats=2)[0]
    p = multiclass.micro(ds, "precision", "avg", zero_division=0.0)
    r = multiclass.micro(ds, "recall", "avg", zero_division=0.0)
    got = multiclass.micro(ds, "f", "pr_re", zero_division=0.0)
    np.testing.assert_allclose(got.values, (2 * p * r / (p + r)).values, rtol=1e-12)


def test_beta_reaches_the_per_class_f():
    ds = random_cv(13, n_classes=3, n_folds=3, n_repeats=1, extra_labels=0)[0]
    _, yt, yp = random_cv(13, n_classes=3, n_folds=3, n_repeats=1, extra_labels=0)[:3]
    want = precision_recall_fscore_support(
        yt, yp, beta=2.0, average="macro", labels=[0, 1, 2], zero_division=0
    )[2]
    assert multiclass.macro(ds, "f", beta=2, zero_division=0).item() == pytest.approx(want)
    assert multiclass.macro(ds, "f", beta=2).attrs["beta"] == 2.0


def test_confusion_sums_folds_like_sklearn():
    ds, yt, yp, fold, rep, labels = random_cv(21, n_classes=4, n_folds=3, n_repeats=2)
    pooled = multiclass.confusion(ds)
    assert pooled.dims == ("repeat", "true", "pred") and pooled.dtype == np.int64
    for r in (0, 1):
        np.testing.assert_array_equal(
            pooled.sel(repeat=r).values, confusion_matrix(yt[rep == r], yp[rep == r], labels=labels)
        )
    kept = ds.cv.confusion(dim=None)
    assert kept.dims == ds.confusion.dims
    np.testing.assert_array_equal(kept.values, ds.confusion.values)
    everything = ds.cv.confusion(dim=["repeat", "fold"])
    np.testing.assert_array_equal(everything.values, confusion_matrix(yt, yp, labels=labels))


# --- absent classes and the undefined policy ---------------------------------------------------


def _absent_class_cube():
    # class 2 named in labels but never seen; class 1 absent from fold 1
    yt = np.array([0, 1, 1, 0, 0, 0])
    yp = np.array([0, 1, 0, 0, 1, 0])
    fold = np.array([0, 0, 0, 1, 1, 1])
    return cvframe.from_predictions(yt, yp, fold, labels=[0, 1, 2]), yt, yp


@pytest.mark.parametrize("func", [multiclass.macro, multiclass.weighted])
@pytest.mark.parametrize("fold_method", FOLD_METHODS)
def test_absent_classes_kept_and_warned_once(func, fold_method):
    ds, yt, yp = _absent_class_cube()
    assert ds.sizes["class"] == 3
    with pytest.warns(UndefinedMetricWarning) as rec:
        out = func(ds, "f", fold_method)
    assert len(rec) == 1
    assert "zero_division" in str(rec[0].message)
    assert np.isfinite(out.values).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        silent = func(ds, "f", fold_method, zero_division=0.0)
    xr.testing.assert_equal(out.drop_attrs(), silent.drop_attrs())


def test_absent_class_counts_as_zero_like_sklearn():
    ds, yt, yp = _absent_class_cube()
    with pytest.warns(
        UndefinedMetricWarning,
        match=r"recall \(no positives of the class\) "
        r"is undefined in 1 of 3 cells",
    ):
        got = multiclass.macro(ds, "recall")
    want = precision_recall_fscore_support(
        yt, yp, average="macro", labels=[0, 1, 2], zero_division=0
    )[1]
    assert got.item() == pytest.approx(want)


def test_nan_policy_propagates_to_macro_and_is_silent():
    ds, _, _ = _absent_class_cube()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(multiclass.macro(ds, "recall", zero_division=np.nan).item())
        assert multiclass.macro(ds, "recall", zero_division=1.0).item() == pytest.approx(
            (3 / 4 + 1 / 2 + 1) / 3
        )  # class 2 never seen: recall 1.0
        # zero-support classes weigh 0 in the weighted average, even when NaN
        assert np.isfinite(multiclass.weighted(ds, "recall", zero_division=np.nan).item())


def _no_support_cube():
    # multilabel cube in which no class has a positive: every support is 0
    return cvframe.from_counts(
        {
            "tp": [[0, 0], [0, 0]],
            "fp": [[1, 0], [2, 1]],
            "fn": [[0, 0], [0, 0]],
            "tn": [[3, 4], [2, 3]],
        },
        task="multilabel",
    )


@pytest.mark.parametrize("fold_method", ["tp_fp", None])
def test_weighted_all_supports_zero_follows_policy_with_one_warning(fold_method):
    ds = _no_support_cube()
    with pytest.warns(UndefinedMetricWarning, match="every class has support 0") as rec:
        out = multiclass.weighted(ds, "precision", fold_method)
    assert len(rec) == 1
    assert (out.values == 0).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(
            multiclass.weighted(ds, "precision", fold_method, zero_division=np.nan).values
        ).all()
        assert (multiclass.weighted(ds, "recall", fold_method, zero_division=1.0).values == 1).all()


def test_kappa_undefined_when_chance_agreement_is_one():
    # one fold where every sample is class 0 and predicted 0: p_o = p_e = 1
    ds = cvframe.from_confusion([[[5, 0], [0, 0]], [[3, 1], [2, 4]]], [0, 1])
    with pytest.warns(
        UndefinedMetricWarning,
        match=r"kappa \(p_e = 1 or no samples\) is "
        r"undefined in 1 of 2 cells",
    ) as rec:
        per_fold = multiclass.kappa(ds, None)
    assert len(rec) == 1 and per_fold.values[0] == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(multiclass.kappa(ds, None, zero_division=np.nan).values[0])
        pooled = multiclass.kappa(ds)  # pooled matrix is fine: no warning
    assert pooled.item() == pytest.approx(
        cohen_kappa_score(
            [0] * 5 + [0] * 3 + [0] + [1] * 2 + [1] * 4, [0] * 5 + [0] * 3 + [1] + [0] * 2 + [1] * 4
        )
    )


# --- invariants (hypothesis) -------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(seeds, shapes)
def test_micro_equals_accuracy_and_weighted_recall(seed, shape):
    ds, yt, yp, fold, rep, labels = random_cv(seed, **shape)
    acc = reduce.accuracy(ds, how="pooled", zero_division=0)
    for m in PRF:
        np.testing.assert_allclose(
            multiclass.micro(ds, m, zero_division=0).values, acc.values, rtol=1e-12
        )
    np.testing.assert_allclose(
        multiclass.weighted(ds, "recall", zero_division=0).values, acc.values, rtol=1e-12
    )
    for r in np.unique(rep):
        assert acc.sel(repeat=r).item() == pytest.approx(accuracy_score(yt[rep == r], yp[rep == r]))


def test_micro_over_a_label_subset_differs_from_accuracy():
    ds = slides_confusion().sel({"class": ["A", "B"]})
    p = Fraction(128, 180)
    r = Fraction(128, 160)
    assert multiclass.micro(ds, "precision").item() == pytest.approx(float(p))
    assert multiclass.micro(ds, "recall").item() == pytest.approx(float(r))
    got = multiclass.micro(ds, "f").item()
    assert got == pytest.approx(float(2 * p * r / (p + r)))
    assert abs(got - 0.7) > 0.05
    yt = np.repeat([0, 0, 0, 1, 1, 1, 2, 2, 2], [88, 10, 2, 14, 40, 6, 18, 10, 12])
    yp = np.repeat([0, 1, 2, 0, 1, 2, 0, 1, 2], [88, 10, 2, 14, 40, 6, 18, 10, 12])
    assert got == pytest.approx(f1_score(yt, yp, labels=[0, 1], average="micro"))


@settings(max_examples=8, deadline=None)
@given(seeds, shapes, st.randoms(use_true_random=False))
def test_class_and_fold_order_do_not_matter(seed, shape, rnd):
    ds = random_cv(seed, **shape)[0]
    cls = list(range(ds.sizes["class"]))
    folds = list(range(ds.sizes["fold"]))
    rnd.shuffle(cls), rnd.shuffle(folds)
    perm = ds.isel({"class": cls, "true": cls, "pred": cls, "fold": folds})
    for fm in FOLD_METHODS:
        for m in METRICS if fm != "pr_re" else ("f",):
            for fn in (multiclass.macro, multiclass.micro, multiclass.weighted):
                a = fn(ds, m, fm, zero_division=0.0)
                b = fn(perm, m, fm, zero_division=0.0)
                if fm is None:
                    b = b.sel(fold=a.fold)
                np.testing.assert_allclose(a.values, b.values, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(
        multiclass.kappa(ds, zero_division=0.0).values,
        multiclass.kappa(perm, zero_division=0.0).values,
        rtol=1e-12,
    )


@settings(max_examples=6, deadline=None)
@given(seeds, seeds)
def test_model_dim_gives_per_model_results(seed_a, seed_b):
    a = random_cv(seed_a, n_classes=3, n_folds=3, n_repeats=2, extra_labels=0, min_size=3)[0]
    b = random_cv(seed_b, n_classes=3, n_folds=3, n_repeats=2, extra_labels=0, min_size=3)[0]
    both = xr.concat([a, b], dim="model", join="exact").assign_coords(model=["lr", "nb"])
    calls = [
        (fn, m, fm)
        for fn in (multiclass.macro, multiclass.micro, multiclass.weighted)
        for m in METRICS
        for fm in ("tp_fp", None)
    ]
    calls += [
        (fn, "f", fm) for fn in (multiclass.macro, multiclass.weighted) for fm in ("avg", "pr_re")
    ]
    for fn, m, fm in calls:
        joint = fn(both, m, fm, zero_division=0.0)
        assert joint.dims[0] == "model"
        for name, alone in (("lr", a), ("nb", b)):
            xr.testing.assert_identical(
                joint.sel(model=name, drop=True), fn(alone, m, fm, zero_division=0.0)
            )
    for name, alone in (("lr", a), ("nb", b)):
        xr.testing.assert_identical(
            multiclass.kappa(both, zero_division=0.0).sel(model=name, drop=True),
            multiclass.kappa(alone, zero_division=0.0),
        )


def test_symmetry_of_kappa_and_micro_f_in_truth_and_prediction():
    ds = slides_confusion()
    swapped = cvframe.from_confusion(ds.confusion.values[0].T, ["A", "B", "C"])
    assert swapped.cv.kappa().item() == pytest.approx(ds.cv.kappa().item())
    assert swapped.cv.macro("f").item() == pytest.approx(ds.cv.macro("f").item())
    assert swapped.cv.macro("precision").item() == pytest.approx(ds.cv.macro("recall").item())
    assert swapped.cv.macro("precision").item() != pytest.approx(ds.cv.macro("precision").item())


def test_every_reduction_keeps_other_dims_with_coordinates():
    a = random_cv(1, n_classes=3, n_folds=4, n_repeats=3, min_size=2)[0]
    ds = xr.concat([a, a], dim="model").assign_coords(model=["x", "y"])
    for fn in (multiclass.macro, multiclass.micro, multiclass.weighted):
        out = fn(ds, zero_division=0.0)
        assert set(out.dims) == {"model", "repeat"}
        assert list(out.model.values) == ["x", "y"] and list(out.repeat.values) == [0, 1, 2]
        kept = fn(ds, fold_method=None, zero_division=0.0)
        assert set(kept.dims) == {"model", "repeat", "fold"}
        over_repeats = fn(ds, dim=["repeat", "fold"], zero_division=0.0)
        assert over_repeats.dims == ("model",)
    assert set(multiclass.kappa(ds, zero_division=0.0).dims) == {"model", "repeat"}
    assert set(multiclass.confusion(ds).dims) == {"model", "repeat", "true", "pred"}


def test_bounds():
    ds = random_cv(17, n_classes=5, n_folds=5, n_repeats=3)[0]
    for fm in FOLD_METHODS:
        for m in METRICS if fm != "pr_re" else ("f",):
            for fn in (multiclass.macro, multiclass.micro, multiclass.weighted):
                v = fn(ds, m, fm, zero_division=0.0).values
                assert ((v >= 0) & (v <= 1)).all()
    k = multiclass.kappa(ds, None, zero_division=0.0).values
    assert np.isfinite(k).all() and (k <= 1).all()


def test_count_scaling_leaves_ratios_unchanged():
    ds = random_cv(19, n_classes=3, n_folds=3, n_repeats=2)[0]
    scaled = ds.copy()
    for v in ("tp", "fp", "fn", "tn", "confusion"):
        scaled[v] = ds[v] * 7
    for fn in (multiclass.macro, multiclass.micro, multiclass.weighted):
        for fm in FOLD_METHODS:
            np.testing.assert_allclose(
                fn(ds, "f", fm, zero_division=0.0).values,
                fn(scaled, "f", fm, zero_division=0.0).values,
            )
    np.testing.assert_allclose(
        multiclass.kappa(ds, zero_division=0.0).values,
        multiclass.kappa(scaled, zero_division=0.0).values,
    )


# --- dask ----------------------------------------------------------------------------------------


def test_dask_backed_cube_gives_the_same_numbers_lazily():
    ds = random_cv(23, n_classes=4, n_folds=5, n_repeats=2)[0]
    lazy = ds.chunk({"fold": 1})
    for fn in (multiclass.macro, multiclass.micro, multiclass.weighted):
        for fm in FOLD_METHODS:
            for m in METRICS if fm != "pr_re" else ("f",):
                out = fn(lazy, m, fm, zero_division=0.0)
                assert out.chunks is not None
                eager = fn(ds, m, fm, zero_division=0.0)
                computed = out.compute()
                assert computed.dtype == eager.dtype
                xr.testing.assert_allclose(computed, eager, rtol=1e-12)
    macro_fom = multiclass.macro(lazy, "f", "avg", "f_of_means", zero_division=0.0)
    xr.testing.assert_allclose(
        macro_fom.compute(), multiclass.macro(ds, "f", "avg", "f_of_means", zero_division=0.0)
    )
    for fm in ("tp_fp", "avg", None):
        k = multiclass.kappa(lazy, fm, zero_division=0.0)
        assert k.chunks is not None
        xr.testing.assert_allclose(k.compute(), multiclass.kappa(ds, fm, zero_division=0.0))


# --- provenance and persistence ------------------------------------------------------------------


def test_provenance_attrs_are_netcdf_safe_and_survive_a_round_trip(tmp_path):
    ds = random_cv(29, n_classes=3, n_folds=3, n_repeats=2)[0]
    results = {
        "macro": multiclass.macro(ds, "f", "avg", "f_of_means", zero_division=0.0),
        "micro": multiclass.micro(ds, "precision", None),
        "weighted": multiclass.weighted(ds, "recall", zero_division=np.nan),
        "kappa": multiclass.kappa(ds, "avg", zero_division=0.0),
    }
    m = results["macro"].attrs
    assert m == {
        "method": "macro",
        "reduced_dims": "fold,class",
        "metric": "f",
        "fold_method": "avg",
        "definition": "f_of_means",
        "zero_division": "0.0",
        "beta": 1.0,
    }
    assert results["micro"].attrs["fold_method"] == "none"
    assert results["micro"].attrs["reduced_dims"] == "class"
    assert "beta" not in results["weighted"].attrs
    assert results["weighted"].attrs["zero_division"] == "nan"
    for name, da in results.items():
        for value in da.attrs.values():
            assert type(value) in (str, int, float)
        path = tmp_path / f"{name}.nc"
        da.to_netcdf(path)
        with xr.open_dataarray(path) as back:
            xr.testing.assert_identical(back.load(), da)
            assert back.dtype == da.dtype


# --- accessors -----------------------------------------------------------------------------------


def test_accessor_parity():
    ds = random_cv(31, n_classes=3, n_folds=3, n_repeats=2)[0]
    pairs = [
        (
            ds.cv.macro("recall", "avg", zero_division=0.0),
            multiclass.macro(ds, "recall", "avg", zero_division=0.0),
        ),
        (
            ds.cv.macro("f", "tp_fp", "f_of_means", 2.0, zero_division=0.0),
            multiclass.macro(ds, "f", "tp_fp", "f_of_means", 2.0, zero_division=0.0),
        ),
        (
            ds.cv.micro("f", None, zero_division=0.0),
            multiclass.micro(ds, "f", None, zero_division=0.0),
        ),
        (
            ds.cv.weighted("precision", dim=["repeat", "fold"], zero_division=0.0),
            multiclass.weighted(ds, "precision", dim=["repeat", "fold"], zero_division=0.0),
        ),
        (ds.cv.kappa("avg", zero_division=0.0), multiclass.kappa(ds, "avg", zero_division=0.0)),
        (ds.cv.confusion(None), multiclass.confusion(ds, None)),
    ]
    for a, b in pairs:
        xr.testing.assert_identical(a, b)
    from cvframe._core.docs import accessor_doc

    for name in ("macro", "micro", "weighted", "kappa", "confusion", "summary"):
        assert getattr(cvframe.accessors.CVDatasetAccessor, name).__doc__ == accessor_doc(
            getattr(multiclass, name)
        )  # the function's doc without ``ds``


def test_accessor_sees_updated_counts():
    ds = slides_confusion()
    before = ds.cv.micro("precision").item()
    # one sample of class 0 in fold 0 now predicted as class 1: a tp of class 0 becomes a fn,
    # a tn of class 1 a fp (the same test samples; every error one fp and one fn)
    one = xr.zeros_like(ds["tp"])
    one[0, 0] = 1
    ds["tp"], ds["fn"] = ds["tp"] - one, ds["fn"] + one
    ds["fp"], ds["tn"] = ds["fp"] + one.roll({"class": 1}), ds["tn"] - one.roll({"class": 1})
    assert ds.cv.micro("precision").item() != before


# --- bad inputs ----------------------------------------------------------------------------------


@pytest.mark.parametrize("func", [multiclass.macro, multiclass.micro, multiclass.weighted])
def test_unknown_metric_and_fold_method_list_the_valid_ones(func):
    ds = slides_confusion()
    with pytest.raises(
        ValueError,
        match=r"metric='f1' is not valid; expected one of "
        r"\['precision', 'recall', 'f', 'accuracy', 'specificity', 'jaccard'\]",
    ):
        func(ds, "f1")
    with pytest.raises(
        ValueError,
        match=r"fold_method='pooled' is not valid; expected one of "
        r"\['tp_fp', 'avg', 'pr_re', None\]",
    ):
        func(ds, "f", "pooled")


@pytest.mark.parametrize("func", [multiclass.macro, multiclass.micro, multiclass.weighted])
@pytest.mark.parametrize("metric", ["precision", "recall", "accuracy"])
def test_pr_re_is_for_f_only(func, metric):
    with pytest.raises(
        ValueError,
        match=rf"fold_method='pr_re' is defined for metric='f' only"
        rf".*not for metric='{metric}'",
    ):
        func(slides_confusion(), metric, "pr_re")


def test_bad_definition():
    ds = slides_confusion()
    with pytest.raises(
        ValueError,
        match=r"definition='harmonic' is not valid; expected one of "
        r"\['mean', 'f_of_means'\]",
    ):
        multiclass.macro(ds, "f", definition="harmonic")
    with pytest.raises(
        ValueError,
        match=r"definition='f_of_means'.*applies to metric='f' only"
        r", not metric='recall'",
    ):
        multiclass.macro(ds, "recall", definition="f_of_means")
    with pytest.raises(TypeError, match="definition"):
        multiclass.micro(ds, "f", definition="f_of_means")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="definition"):
        ds.cv.weighted("f", definition="mean")  # type: ignore[call-arg]


def test_bad_dim_beta_and_zero_division():
    ds = slides_confusion()
    with pytest.raises(ValueError, match=r"(?i)dimension\(s\) 'folds' do not exist"):
        multiclass.macro(ds, dim="folds")
    with pytest.raises(ValueError, match="includes 'class'.*keep classes"):
        multiclass.micro(ds, dim="class")
    with pytest.raises(ValueError, match=r"beta=-1 must be a finite number >= 0"):
        multiclass.weighted(ds, beta=-1)
    with pytest.raises(ValueError, match=r"zero_division='skip' is not valid"):
        multiclass.macro(ds, zero_division="skip")
    with pytest.raises(
        ValueError,
        match=r"fold_method='pr_re' is not valid; expected one of "
        r"\['tp_fp', 'avg', None\]",
    ):
        multiclass.kappa(ds, "pr_re")
    with pytest.raises(ValueError, match=r"dim='true' includes \['true'\]"):
        multiclass.confusion(ds, "true")
    with pytest.raises(ValueError, match=r"(?i)dimension\(s\) 'repeat' do not exist"):
        multiclass.kappa(ds, dim="repeat")
    with pytest.raises(TypeError, match="ds must be an xarray.Dataset"):
        multiclass.macro(ds.tp)


def _multilabel_cube():
    y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]])
    p = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0], [0, 0, 1]])
    return cvframe.from_predictions(y, p, [0, 0, 1, 1])


def test_kappa_and_confusion_without_confusion_variable():
    ml = _multilabel_cube()
    assert "confusion" not in ml
    with pytest.raises(
        cvframe.CountsError,
        match=r"no 'confusion' variable \(task='multilabel'"
        r"\).*single-label",
    ):
        multiclass.kappa(ml)
    with pytest.raises(cvframe.CountsError, match="no 'confusion' variable"):
        ml.cv.confusion()
    # class averages still work on multilabel cubes (one-vs-all counts)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert 0 <= ml.cv.macro(zero_division=0.0).item() <= 1


def test_missing_count_variable_is_an_error():
    with pytest.raises(cvframe.CountsError, match=r"missing count variable\(s\) \['tn'\]"):
        multiclass.weighted(slides_confusion().drop_vars("tn"))


def test_large_counts_do_not_overflow():
    big = np.array([[3, 1, 1], [1, 2, 1], [2, 1, 4]], dtype=np.int64) * (2**32 + 7)
    ds = cvframe.from_confusion(big, ["a", "b", "c"])
    n = int(big.sum())
    rows, cols = big.sum(1), big.sum(0)
    chance = sum(int(r) * int(c) for r, c in zip(rows, cols, strict=False))
    want = Fraction(n * int(np.trace(big)) - chance, n * n - chance)
    assert ds.cv.kappa().item() == pytest.approx(float(want), rel=1e-12)
    assert ds.cv.weighted("recall").item() == pytest.approx(
        float(Fraction(int(np.trace(big)), n)), rel=1e-12
    )


def test_the_oracle_catches_a_wrong_metric():
    # test the tests: precision computed from swapped fp/fn must disagree with scikit-learn
    ds, yt, yp, fold, rep, labels = random_cv(37, n_classes=4, n_folds=3, n_repeats=1)
    wrong = ds.rename({"fp": "fn", "fn": "fp"})
    want = precision_recall_fscore_support(yt, yp, average="macro", labels=labels, zero_division=0)[
        0
    ]
    assert multiclass.macro(ds, "precision", zero_division=0).item() == pytest.approx(want)
    assert multiclass.macro(wrong, "precision", zero_division=0).item() != pytest.approx(want)
