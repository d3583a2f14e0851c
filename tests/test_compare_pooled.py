"""The paired tests of a pooled metric: the per-sample delta method (frame), the fold jackknife
(cube) and DeLong's paired test (AUC_merge), each against an independent oracle (a formula
written here, scikit-learn on the folds left out, R's pROC), seeded defaults, bad inputs, and
their type I error measured on a small simulation."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import stats
from sklearn.metrics import f1_score, roc_auc_score

import cvframe
from cvframe.comparison import compare


def _frame(n=300, repeats=1, folds=5, seed=0, prevalence=0.3, accs=(0.8, 0.9), classes=2):
    """Two models' paired predictions and scores on the same folds (one row per model and
    sample, a ``sample`` id pairing a sample's rows across repeats)."""
    rng = np.random.default_rng(seed)
    if classes == 2:
        y = (rng.random(n) < prevalence).astype(int)
    else:
        y = rng.integers(0, classes, n)
    parts = []
    for r in range(repeats):
        fold = rng.permutation(np.arange(n) % folds)
        common = rng.random(n)
        for name, acc in zip(("a", "b"), accs, strict=True):
            u = np.where(rng.random(n) < 0.5, common, rng.random(n))
            pred = np.where(u < acc, y, (y + 1 + rng.integers(0, classes - 1, n)) % classes)
            part = pd.DataFrame(
                {"model": name, "repeat": r, "fold": fold, "sample": np.arange(n),
                 "y_true": y, "y_pred": pred}
            )  # fmt: skip
            if classes == 2:
                part["score"] = y * (1.0 + acc) + rng.normal(0, 1, n) + 0.5 * common
            parts.append(part)
    return pd.concat(parts, ignore_index=True)


# --- paired_delta: the delta method on per-sample outcomes ---------------------------------------


def _influence_f(y, pred):
    """Per-sample influence of the pooled F of one model: F = a/b with a = 2 tp and
    b = 2 tp + fp + fn summed over samples, so d F = (a_s - F b_s) / B."""
    tp, fp, fn = (y & pred), (~y & pred), (y & ~pred)
    a, b = 2.0 * tp, 2.0 * tp + fp + fn
    f = a.sum() / b.sum()
    return (a - f * b) / b.sum(), f


def test_paired_delta_of_binary_f_is_the_ratio_estimators_variance():
    df = _frame(seed=1)
    res = compare(df, "f_tp_fp", baseline="a")
    assert res.attrs["test"] == "paired_delta" and res.attrs["chosen_by"] == "auto"
    y = df[df.model == "a"].y_true.to_numpy() == 1
    phi, f = {}, {}
    for m in ("a", "b"):
        pred = df[df.model == m].y_pred.to_numpy() == 1
        phi[m], f[m] = _influence_f(y, pred)
        assert f[m] == pytest.approx(f1_score(y, pred))
    d = phi["b"] - phi["a"]
    var = sum(
        g.size / (g.size - 1) * ((g - g.mean()) ** 2).sum() for g in (d[y], d[~y])
    )  # stratified by the true class
    assert res["mean"].item() == pytest.approx(f["b"] - f["a"], abs=1e-12)
    assert res["se"].item() == pytest.approx(np.sqrt(var), rel=1e-6)
    z = (f["b"] - f["a"]) / np.sqrt(var)
    assert res["p_value"].item() == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-5)
    q = stats.norm.ppf(0.975)
    assert res["low"].item() == pytest.approx(f["b"] - f["a"] - q * np.sqrt(var), rel=1e-6)


def test_paired_delta_is_close_to_the_exact_leave_one_out_jackknife():
    """Its variance is the linearisation of the jackknife's: the two agree within a few %."""
    df = _frame(n=400, seed=2, classes=3)
    res = compare(df, "f_tp_fp", baseline="a")  # macro F over 3 classes
    parts = {m: p for m, p in df.groupby("model")}
    y = parts["a"].y_true.to_numpy()
    preds = {m: p.y_pred.to_numpy() for m, p in parts.items()}
    keep = np.ones(len(y), bool)
    loo = np.empty(len(y))
    for i in range(len(y)):
        keep[i] = False
        fb = f1_score(y[keep], preds["b"][keep], average="macro")
        loo[i] = fb - f1_score(y[keep], preds["a"][keep], average="macro")
        keep[i] = True
    jack = sum(
        (g.size - 1) / g.size * ((g - g.mean()) ** 2).sum() for g in (loo[y == c] for c in range(3))
    )
    assert res["se"].item() == pytest.approx(np.sqrt(jack), rel=0.03)


def test_paired_delta_pairs_a_sample_across_repeats():
    df = _frame(n=200, repeats=3, seed=3)
    res = compare(df, "f_tp_fp", baseline="a")
    for r in range(3):
        part = {m: df[(df.model == m) & (df.repeat == r)] for m in ("a", "b")}
        want = f1_score(part["b"].y_true, part["b"].y_pred) - f1_score(
            part["a"].y_true, part["a"].y_pred
        )
        assert res["difference"].sel(repeat=r).item() == pytest.approx(want, abs=1e-12)
    # the same samples in every repeat: three copies of one run are as sure as the run itself
    one = df[df.repeat == 0]
    copies = pd.concat([one.assign(repeat=r) for r in range(3)], ignore_index=True)
    single, tripled = compare(one, "f_tp_fp", baseline="a"), compare(copies, baseline="a")
    assert tripled["se"].item() == pytest.approx(single["se"].item(), rel=1e-9)


def test_pooled_accuracy_with_repeats_is_the_paired_mean_of_per_sample_outcomes():
    df = _frame(n=200, repeats=2, seed=4, classes=3)
    res = compare(df, "accuracy_pooled", baseline="a")
    assert res.attrs["test"] == "paired_delta"
    c = {
        m: (p.y_true == p.y_pred).to_numpy().reshape(2, -1).mean(0) for m, p in df.groupby("model")
    }
    d = (c["b"] - c["a"]) / 200
    y = df[df.model == "a"].y_true.to_numpy()[:200]
    var = sum(
        g.size / (g.size - 1) * ((g - g.mean()) ** 2).sum() for g in (d[y == k] for k in range(3))
    )
    assert res["se"].item() == pytest.approx(np.sqrt(var), rel=1e-9)


# --- fold_jackknife: the cube's pooled test ----------------------------------------------------


def test_fold_jackknife_is_the_jackknife_of_scikit_learns_f_on_the_folds_left_out():
    df = _frame(n=250, folds=5, seed=5)
    ds = df.cv.counts()
    res = compare(ds, baseline="a")
    assert res.attrs["test"] == "fold_jackknife" and res.attrs["chosen_by"] == "auto"
    left = []
    for j in range(5):
        part = {m: p[p.fold != j] for m, p in df.groupby("model")}
        left.append(f1_score(part["b"].y_true, part["b"].y_pred) - f1_score(
            part["a"].y_true, part["a"].y_pred))  # fmt: skip
    left = np.array(left)
    var = 4 / 5 * ((left - left.mean()) ** 2).sum()
    full = {m: f1_score(p.y_true, p.y_pred) for m, p in df.groupby("model")}
    assert res["mean"].item() == pytest.approx(full["b"] - full["a"], abs=1e-12)
    assert res["se"].item() == pytest.approx(np.sqrt(var), rel=1e-12)
    assert res["df"].item() == 4
    t = (full["b"] - full["a"]) / np.sqrt(var)
    assert res["p_value"].item() == pytest.approx(2 * stats.t.sf(abs(t), 4), rel=1e-9)


def test_fold_jackknife_over_repeats_keeps_the_part_common_to_all_of_them():
    ds = _frame(n=300, repeats=4, seed=6).cv.counts()
    res = compare(ds, "f_tp_fp", baseline="a")
    a, b = (ds.sel(model=m) for m in ("a", "b"))
    d_r, v_r = [], []
    for r in range(4):
        fa, fb = (x.isel(repeat=r).isel({"class": 0}) for x in (a, b))

        def f(x, drop=None):
            keep = [j for j in range(5) if j != drop]
            tp, fp, fn = (float(x[k].isel(fold=keep).sum()) for k in ("tp", "fp", "fn"))
            return 2 * tp / (2 * tp + fp + fn)

        d_r.append(f(fb) - f(fa))
        loo = np.array([f(fb, j) - f(fa, j) for j in range(5)])
        v_r.append(4 / 5 * ((loo - loo.mean()) ** 2).sum())
    d_r, v_r = np.array(d_r), np.array(v_r)
    between = 0.75 * d_r.var(ddof=1)
    var = max(v_r.mean() - between, v_r.mean() / 4)
    df_ = np.clip(var**2 / (v_r.mean() ** 2 / 16 + between**2 / 3), 4, 16)
    assert res["mean"].item() == pytest.approx(d_r.mean(), abs=1e-12)
    assert res["se"].item() == pytest.approx(np.sqrt(var), rel=1e-10)
    assert res["df"].item() == pytest.approx(df_, rel=1e-10)


def test_the_cube_and_the_frame_measure_the_same_pooled_difference():
    df = _frame(n=300, repeats=2, seed=7, classes=4)
    for average in ("macro", "micro", "weighted"):
        on_frame = compare(df, "f_tp_fp", baseline="a", average=average)
        on_cube = compare(df.cv.counts(), "f_tp_fp", baseline="a", average=average)
        assert on_frame.attrs["test"] == "paired_delta"
        assert on_cube.attrs["test"] == "fold_jackknife"
        want = df.cv.counts().cv.macro("f") if average == "macro" else None
        if want is not None:
            diff = (want.sel(model="b") - want.sel(model="a")).mean("repeat")
            assert on_cube["mean"].item() == pytest.approx(float(diff), abs=1e-12)
        assert on_frame["mean"].item() == pytest.approx(on_cube["mean"].item(), abs=1e-12)
        # per-sample pairing is sharper than fold pairing
        assert on_frame["se"].item() < 2 * on_cube["se"].item()


def test_per_class_pooled_comparisons_are_holm_adjusted():
    df = _frame(n=300, seed=8, classes=3)
    for data in (df, df.cv.counts()):
        res = compare(data, "f_tp_fp", baseline="a", average=None)
        assert res.sizes["class"] == 3 and "p_value_raw" in res
        one = compare(data, "f_tp_fp", baseline="a", pos_label=1) if data is df else None
        if one is not None:
            assert one["mean"].item() == pytest.approx(res["mean"].sel({"class": 1}).item())


# --- DeLong: equal to pROC -----------------------------------------------------------------------

R_SCRIPT = """
suppressMessages(library(pROC))
d <- read.csv(commandArgs(trailingOnly=TRUE)[1])
r1 <- roc(d$y, d$b, direction="<", levels=c(0, 1), quiet=TRUE)
r2 <- roc(d$y, d$a, direction="<", levels=c(0, 1), quiet=TRUE)
t <- roc.test(r1, r2, paired=TRUE, method="delong")
cat(sprintf("%.17g %.17g %.17g %.17g\\n", t$statistic, t$p.value, auc(r1), auc(r2)))
"""


def _has_proc() -> bool:
    if shutil.which("Rscript") is None:
        return False
    out = subprocess.run(["Rscript", "-e", "library(pROC)"], capture_output=True)
    return out.returncode == 0


@pytest.mark.skipif(not _has_proc(), reason="needs Rscript with pROC (apt: r-cran-proc)")
@pytest.mark.parametrize("seed, ties", [(0, False), (1, True), (2, True)])
def test_delong_equals_proc_roc_test(tmp_path, seed, ties):
    df = _frame(n=150, seed=seed)
    if ties:  # tied scores within and across the classes
        df["score"] = df["score"].round(0 if seed == 2 else 1)
    res = compare(df, "auc_merge", baseline="a")
    assert res.attrs["test"] == "delong"
    wide = pd.DataFrame(
        {"y": df[df.model == "a"].y_true.to_numpy(),
         **{m: df[df.model == m].score.to_numpy() for m in ("a", "b")}}
    )  # fmt: skip
    path = tmp_path / "scores.csv"
    wide.to_csv(path, index=False)
    script = tmp_path / "test.R"
    script.write_text(R_SCRIPT)
    out = subprocess.run(["Rscript", str(script), str(path)], capture_output=True, text=True)
    z, p, auc_b, auc_a = map(float, out.stdout.split())
    assert res["statistic"].item() == pytest.approx(z, abs=1e-9)
    assert res["p_value"].item() == pytest.approx(p, abs=1e-9)
    assert res["mean"].item() == pytest.approx(auc_b - auc_a, abs=1e-12)


def test_delong_against_its_formula_written_here():
    """Without R: DeLong (1988) from the placements, written with loops."""
    df = _frame(n=60, seed=4)
    df["score"] = df["score"].round(1)
    res = compare(df, "auc_merge", baseline="a")
    y = df[df.model == "a"].y_true.to_numpy() == 1
    s = {m: df[df.model == m].score.to_numpy() for m in ("a", "b")}
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)

    def psi(x, z):
        return 1.0 if x > z else 0.5 if x == z else 0.0

    v10 = {
        m: np.array([np.mean([psi(v[i], v[j]) for j in neg]) for i in pos]) for m, v in s.items()
    }
    v01 = {
        m: np.array([np.mean([psi(v[i], v[j]) for i in pos]) for j in neg]) for m, v in s.items()
    }
    d10, d01 = v10["b"] - v10["a"], v01["b"] - v01["a"]
    var = d10.var(ddof=1) / len(pos) + d01.var(ddof=1) / len(neg)
    auc = {m: roc_auc_score(y, v) for m, v in s.items()}
    assert res["mean"].item() == pytest.approx(auc["b"] - auc["a"], abs=1e-12)
    assert res["se"].item() == pytest.approx(np.sqrt(var), rel=1e-10)


def test_delong_paired_arrays_covariance_matrix():
    from cvframe.scores.ranking import delong_arrays, delong_paired_arrays

    rng = np.random.default_rng(3)
    y = rng.random(80) < 0.4
    s = rng.normal(size=(3, 80)) + y
    s[1] = np.round(s[1], 1)
    auc, cov = delong_paired_arrays(s, y)
    a1, v1 = delong_arrays(s, y)
    np.testing.assert_allclose(auc, a1, rtol=1e-12)
    np.testing.assert_allclose(np.diag(cov), v1, rtol=1e-10)
    assert np.allclose(cov, cov.T)
    with pytest.raises(ValueError, match="one row per model"):
        delong_paired_arrays(s[0], y)


# --- seeds, determinism and bad inputs -----------------------------------------------------------


def test_the_same_call_gives_the_same_p_value():
    df = _frame(seed=9)
    first = compare(df)
    assert first.attrs["test"] == "paired_delta"
    xr.testing.assert_identical(first, compare(df))
    boot = compare(df, test="bootstrap", n_resamples=200)
    assert boot.attrs["random_state"] == 0  # the fixed default seed
    xr.testing.assert_identical(boot, compare(df, test="bootstrap", n_resamples=200))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"random_state": "seed"}, TypeError, "random_state='seed'"),
        ({"random_state": 1.5}, TypeError, "random_state=1.5"),
        ({"random_state": -3}, ValueError, "random_state=-3"),
        ({"level": 1.5}, ValueError, "level=1.5"),
        ({"level": 0}, ValueError, "level=0"),
    ],
)
def test_bad_arguments_name_themselves(kwargs, error, match):
    with pytest.raises(error, match=match):
        compare(_frame(n=100), **kwargs)


def test_models_on_different_folds_are_refused_by_the_pooled_tests():
    df = _frame(n=120, seed=10)
    moved = df.copy()
    is_b = moved.model == "b"
    moved.loc[is_b, "fold"] = np.random.default_rng(1).permutation(moved.loc[is_b, "fold"])
    with pytest.raises(ValueError, match="unpaired design"):
        compare(moved, "f_tp_fp")
    with pytest.raises(ValueError, match="unpaired design"):
        compare(moved.cv.counts(), "f_tp_fp")


def test_a_pooled_test_of_a_cube_without_a_model_dim_names_the_dim():
    ds = _frame(n=100).cv.counts().sel(model="a", drop=True)
    with pytest.raises(ValueError, match="dim='model' is not a dimension of the cube"):
        compare(ds, "f_tp_fp")
    with pytest.raises(ValueError, match="dim='model' is not a dimension of the cube"):
        compare(ds, "f_tp_fp", test="fold_jackknife")


def test_without_sample_ids_a_repeated_frame_falls_back_to_the_fold_jackknife():
    df = _frame(n=100, repeats=2).drop(columns="sample")
    res = compare(df, "f_tp_fp", baseline="a")
    assert res.attrs["test"] == "fold_jackknife" and "no 'sample' column" in res.attrs["reason"]


# --- the measured type I error (one small cell; the full grid: docs/error_rates.md) ------------


def _band(studies: int) -> tuple[float, float]:
    """Rates a test holding its level within 3.5-6.5 % gives with probability 0.999."""
    lo = stats.binom.ppf(0.0005, studies, 0.035) / studies
    hi = stats.binom.isf(0.0005, studies, 0.065) / studies
    return lo, hi


def test_type_i_error_of_the_pooled_tests_on_one_cell():
    res = cvframe.power_study(0.0, prevalence=0.05, k=10, repeats=1, studies=400)
    lo, hi = _band(400)
    for test in ("paired_delta", "fold_jackknife"):
        rate = res.set_index("test").loc[test, "rejected"]
        assert lo <= rate <= hi, (test, rate)
    auc = cvframe.power_study(0.0, metric="auc", prevalence=0.2, k=10, repeats=1, studies=400)
    assert lo <= auc["rejected"].item() <= hi


def test_power_study_says_what_it_assumes_and_checks_its_arguments():
    res = cvframe.power_study((0.0, 0.05), prevalence=0.2, k=5, repeats=1, studies=50)
    assert "latent normal" in res.attrs["assumes"]
    assert set(res["kind"]) == {"type I error", "power", "rejection rate"}
    row = res[(res.test == "paired_delta") & (res.delta == 0.05)].iloc[0]
    assert row["truth_a"] - row["truth_b"] == pytest.approx(0.05)
    assert row["precision_a"] > row["recall_a"]  # model a is the cautious one
    for kw, match in (
        ({"balance": (1.25,)}, "balance="),
        ({"rho": 1.0}, "rho=1.0"),
        ({"stability": 1.5}, "stability=1.5"),
        ({"metric": "brier"}, "metric='brier'"),
        ({"f": 0.99, "delta": 0.05}, "model a"),
        ({"level": 2}, "level=2"),
    ):
        with pytest.raises(ValueError, match=match):
            cvframe.power_study(**{"delta": 0.0, "studies": 10, "prevalence": 0.2, **kw})


def test_plan_reports_the_power_the_simulator_measures():
    p = cvframe.plan({"pos": 100, "neg": 900}, k=5, trials=500, delta=0.1, power=0.8)
    pw = p.power
    assert pw["test"] == "paired_delta" and 0 <= pw["power"] <= 1
    again = cvframe.power_study(**{k: v for k, v in pw["call"].items()})
    row = again[again["test"] == "paired_delta"].iloc[0]
    assert row["rejected"] == pytest.approx(pw["power"])
    assert "n for 80% power" in str(p)
    for kw, match in (
        ({"delta": 0}, "delta=0"),
        ({"delta": 1.0}, "delta=1.0"),
        ({"delta": 0.1, "power": 1.0}, "power=1.0"),
        ({"power": 0}, "power=0"),
    ):
        with pytest.raises(ValueError, match=match):
            cvframe.plan({"pos": 100, "neg": 900}, trials=100, **kw)  # fmt: skip
