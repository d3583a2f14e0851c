"""Coverage measured, not assumed: the default intervals cover the truth at the nominal level
on the paper's simulation model, by an independent simulation written here in plain numpy,
and coverage_study agrees with it within Monte-Carlo error."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import stats

import cvframe
from cvframe.intervals import delong

N, K, TRIALS = 1000, 10, 4000
CELLS = [(p, f) for p in (0.02, 0.05, 0.2) for f in (0.6, 0.8)]


def _stratified_cube(prevalence, f, trials, rng):
    """Forman & Scholz's model drawn directly: P positives dealt evenly to K folds, a fixed
    classifier with TP ~ Bin(P_i, f), FP ~ Bin(N_i, P(1-f)/N) per fold."""
    pos = int(math.floor(N * prevalence + 0.5))
    neg = N - pos
    p_i = pos // K + (np.arange(K) < pos % K)
    n_i = N // K + (np.arange(K) < N % K) - p_i
    tp = rng.binomial(p_i, f, size=(trials, K))
    fp = rng.binomial(n_i, pos * (1 - f) / neg, size=(trials, K))
    data = {
        name: (("trial", "fold", "class"), v[..., None])
        for name, v in (("tp", tp), ("fp", fp), ("fn", p_i - tp), ("tn", n_i - fp))
    }
    return xr.Dataset(data, coords={"class": [1]}, attrs={"task": "binary"})


def _coverage(lo, hi, truth):
    hit = (np.asarray(lo) <= truth) & (truth <= np.asarray(hi))
    return float(hit.mean())


def test_f_tp_fp_interval_covers_at_nominal_level_and_coverage_study_agrees():
    rng = np.random.default_rng(20100)
    study = cvframe.coverage_study(trials=TRIALS, random_state=7)
    assert set(study["method"]) == {"posterior"}
    for prevalence, f in CELLS:
        ds = _stratified_cube(prevalence, f, TRIALS, rng)
        iv = cvframe.interval(ds, "f")
        c = _coverage(iv.lower, iv.upper, f)
        se = math.sqrt(c * (1 - c) / TRIALS)
        assert 0.93 <= c <= 0.975, (prevalence, f, c)
        row = study[(study.prevalence == prevalence) & (study.f == f)].iloc[0]
        assert row["coverage_se"] == pytest.approx(
            math.sqrt(row["coverage"] * (1 - row["coverage"]) / TRIALS)
        )
        # two independent estimates of one coverage: within 3 combined standard errors
        assert abs(row["coverage"] - c) <= 3 * math.hypot(se, row["coverage_se"]), (
            prevalence,
            f,
            c,
            row["coverage"],
        )


def _binormal(prevalence, auc, trials, rng):
    pos = int(math.floor(N * prevalence + 0.5))
    y = np.zeros(N, dtype=bool)
    y[:pos] = True
    s = rng.standard_normal((trials, N)) + y * math.sqrt(2) * stats.norm.ppf(auc)
    return s, y


@pytest.mark.slow(reason="2500 binormal data sets of 1000 scores, twice: about 3 s")
@pytest.mark.parametrize("prevalence", [0.05, 0.2])
def test_auc_merge_interval_covers_on_binormal_scores(prevalence):
    trials, auc = 2500, 0.8
    rng = np.random.default_rng(1988)
    s, y = _binormal(prevalence, auc, trials, rng)
    _, lo, hi = delong(s, y)
    c = _coverage(lo, hi, auc)
    se = math.sqrt(c * (1 - c) / trials)
    assert 0.93 <= c <= 0.975, c
    study = cvframe.coverage_study(metric="auc", prevalence=prevalence, auc=auc, trials=trials)
    row = study.iloc[0]
    assert row["method"] == "delong"
    assert abs(row["coverage"] - c) <= 3 * math.hypot(se, row["coverage_se"])


def _multiclass(probs, n, trials, rng):
    """One-pass confusion matrices drawn from the population confusion ``probs``."""
    c = probs.shape[0]
    conf = rng.multinomial(n, probs.ravel(), size=trials).reshape(trials, 1, c, c)
    tp = np.einsum("tfcc->tfc", conf)
    cells = {"tp": tp, "fn": conf.sum(3) - tp, "fp": conf.sum(2) - tp}
    cells["tn"] = n - cells["tp"] - cells["fn"] - cells["fp"]
    dims = ("trial", "fold", "class")
    ds = xr.Dataset({k: (dims, v) for k, v in cells.items()}, attrs={"task": "multiclass"})
    ds["confusion"] = (("trial", "fold", "true", "pred"), conf)
    return ds


@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_class_averaged_f_posterior_covers_with_the_confusion_matrix(average):
    rng = np.random.default_rng(3)
    prior, acc = np.array([0.8, 0.15, 0.05]), 0.8
    probs = np.full((3, 3), (1 - acc) / 2) + np.eye(3) * (acc - (1 - acc) / 2)
    probs *= prior[:, None]
    ds = _multiclass(probs, 1000, 600, rng)
    iv = cvframe.interval(ds, "f", average=average, n_boot=1000)
    tp = np.diag(probs)
    f = 2 * tp / (probs.sum(0) + probs.sum(1))  # 2TP / (2TP + FP + FN)
    support = probs.sum(1)
    truth = f.mean() if average == "macro" else (f * support).sum()
    c = _coverage(iv.lower, iv.upper, truth)
    assert 0.93 <= c <= 0.975, c  # 600 trials: standard error about 0.009
    assert "confusion matrix" in iv.attrs["approximation"]


def test_frame_auc_interval_is_the_array_one():
    rng = np.random.default_rng(5)
    s, y = _binormal(0.2, 0.8, 1, rng)
    df = pd.DataFrame({"fold": np.arange(N) % K, "y_true": y.astype(int), "score": s[0]})
    iv = cvframe.interval(df, "auc")
    est, lo, hi = delong(s[0], y)
    assert (iv.estimate.item(), iv.lower.item(), iv.upper.item()) == pytest.approx(
        (float(est), float(lo), float(hi))
    )


def test_coverage_study_table():
    res = cvframe.coverage_study(
        ("auto", "bootstrap"), prevalence=(0.05, 0.1), f=0.7, k=(5, 10), trials=100
    )
    assert len(res) == 2 * 2 * 2
    assert list(res.columns[:8]) == [
        "metric",
        "method",
        "n",
        "k",
        "stratified",
        "prevalence",
        "f",
        "positives",
    ]
    assert set(res["method"]) == {"posterior", "bootstrap"}
    assert (res["trials"] == 100).all() and (res["truth"] == 0.7).all()
    assert res["coverage"].between(0, 1).all() and (res["mean_width"] > 0).all()
    again = cvframe.coverage_study("auto", prevalence=0.1, f=0.7, k=10, trials=100)
    same = res[(res.method == "posterior") & (res.prevalence == 0.1) & (res.k == 10)]
    pd.testing.assert_frame_equal(same.reset_index(drop=True), again)  # seeded per cell


def test_coverage_study_f_avg_uses_the_corrected_t():
    res = cvframe.coverage_study(metric="f_avg", prevalence=0.2, f=0.8, trials=200)
    assert res["method"].tolist() == ["corrected_t"]


def test_coverage_study_is_exported():
    from cvframe.simulation import coverage_study

    assert coverage_study is cvframe.coverage_study


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"methods": ("nested",)}, "methods"),
        ({"metric": "kappa"}, "metric='kappa'"),
        ({"metric": "auc", "methods": ("posterior",)}, "delong"),
        ({"prevalence": 0.0001}, "prevalence"),
        ({"f": 0.01, "prevalence": 0.6}, "too low"),
        ({"trials": 0}, "trials"),
        ({"prevalence": (0.1, 0.1)}, "repeats"),
    ],
)
def test_coverage_study_refuses(kwargs, match):
    with pytest.raises(ValueError, match=match):
        cvframe.coverage_study(**{"trials": 10, **kwargs})


def test_any_count_metric_with_an_interval_has_its_formula_as_the_truth():
    """Precision = recall = f: the expected cells of the data set are TP = P f, FN = FP =
    P (1 - f), TN = N - P (1 - f); accuracy's truth is (TP + TN) / n."""
    res = cvframe.coverage_study(metric="accuracy", prevalence=0.1, f=0.8, trials=200)
    pos, n = 100, 1000
    assert res["truth"].item() == pytest.approx(1 - 2 * pos * (1 - 0.8) / n)
    assert res["method"].item() == "posterior" and 0.85 < res["coverage"].item() <= 1.0
    assert cvframe.coverage_study(metric="recall_avg", prevalence=0.2, trials=50)[
        "truth"
    ].tolist() == [0.6, 0.8]
    assert set(cvframe.simulation.coverage.COUNT_METRICS) >= {"f", "f_tp_fp", "f_avg", "jaccard"}
