"""The precision-recall curve per fold and merged against scikit-learn, and the threshold of
the break-even point (precision = recall on the pooled predictions)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import precision_recall_curve

import cvframe
from cvframe import scores


def _frame(seed: int, n: int = 120, folds: int = 4, repeats: int = 1, ties: bool = True):
    rng = np.random.default_rng(seed)
    parts = []
    for r in range(repeats):
        y = (rng.random(n) < 0.3).astype(int)
        s = rng.normal(0, 1, n) + 1.2 * y
        if ties:
            s = np.round(s, 1)  # many tied scores, also across the classes
        parts.append(
            pd.DataFrame(
                {
                    "repeat": r,
                    "fold": rng.permutation(np.arange(n) % folds),
                    "y_true": y,
                    "score": s,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def _sk(y, s):
    p, r, t = precision_recall_curve(y, s, drop_intermediate=False)
    # scikit-learn: increasing thresholds, then the point (R, P) = (0, 1) without one
    return np.r_[np.inf, t[::-1]], p[::-1], r[::-1]


def _check(curve, y, s):
    t, p, r = _sk(y, s)
    np.testing.assert_array_equal(curve["threshold"].to_numpy(), t)
    np.testing.assert_allclose(curve["precision"].to_numpy(), p, rtol=0, atol=1e-15)
    np.testing.assert_allclose(curve["recall"].to_numpy(), r, rtol=0, atol=1e-15)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", [True, False])
def test_pr_curve_equals_sklearn_per_fold_and_merged(seed, ties):
    df = _frame(seed, repeats=2, ties=ties)
    pr = scores.pr_curve(df)
    for (rep, f), part in df.groupby(["repeat", "fold"]):
        curve = pr[(pr.kind == "fold") & (pr.repeat == rep) & (pr.fold == f)]
        _check(curve, part.y_true, part.score)
    for rep, part in df.groupby("repeat"):
        curve = pr[(pr.kind == "merged") & (pr.repeat == rep)]
        _check(curve, part.y_true, part.score)
    # method picks the kinds; the accessor is the function
    assert set(scores.pr_curve(df, "fold").kind) == {"fold"}
    assert set(scores.pr_curve(df, "merge").kind) == {"merged"}
    pd.testing.assert_frame_equal(df.cv.pr_curve(), pr)


def test_pr_curve_one_vs_all_per_class():
    rng = np.random.default_rng(3)
    n = 90
    y = rng.choice(["a", "b", "c"], n)
    df = pd.DataFrame({"fold": np.arange(n) % 3, "y_true": y})
    for c in "abc":
        df[f"score_{c}"] = np.round(rng.random(n) + (y == c), 2)
    pr = scores.pr_curve(df)
    for c in "abc":
        curve = pr[(pr.kind == "merged") & (pr["class"] == c)]
        _check(curve, df.y_true == c, df[f"score_{c}"])


def test_pr_curve_fold_without_positives():
    df = pd.DataFrame(
        {
            "fold": [0, 0, 0, 1, 1, 1],
            "y_true": [1, 0, 1, 0, 0, 0],
            "score": [0.9, 0.2, 0.6, 0.5, 0.4, 0.1],
        }
    )
    with pytest.warns(cvframe.UndefinedMetricWarning, match=r"1 of 3 curves.*fold=1"):
        pr = scores.pr_curve(df)
    assert set(pr.dropna(subset=["fold"]).fold) == {0}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kept = scores.pr_curve(df, undefined="nan")
    fold1 = kept[kept.fold == 1]
    assert fold1.recall.iloc[1:].isna().all() and (fold1.precision.iloc[1:] == 0).all()


def test_pr_curve_bad_method():
    with pytest.raises(ValueError, match="method"):
        scores.pr_curve(_frame(0), method="avg")


# --- the break-even point's threshold -------------------------------------------------------


def _p_r(y, s, t):
    pred = s >= t
    tp = np.sum(pred & (y == 1))
    return tp / max(pred.sum(), 1), tp / np.sum(y == 1)


@pytest.mark.parametrize("seed", range(6))
def test_bep_threshold_gives_precision_equal_recall_on_pooled_predictions(seed):
    df = _frame(seed, ties=seed % 2 == 0)
    ds = scores.break_even_point(df, "merge", return_threshold=True)
    t, above, exact = (float(ds[v].item()) for v in ("threshold", "threshold_above", "exact"))
    y, s = df.y_true.to_numpy(), df.score.to_numpy()
    p, r = _p_r(y, s, t)
    if exact:  # k = n_+ at a cut-off: P = R there, and equals the BEP
        assert p == r
        assert ds.break_even_point.item() == pytest.approx(p)
        assert np.sum(s >= t) == np.sum(y == 1)
    else:  # they never meet: P >= R just above, P < R at the threshold
        assert p < r
        pa, ra = _p_r(y, s, above) if np.isfinite(above) else (1.0, 0.0)
        assert pa >= ra
        assert not np.any((s > t) & (s < above))  # adjacent cut-offs
        assert min(p, pa) - 1e-12 <= ds.break_even_point.item() <= max(p, pa) + 1e-12
    # the value is the one break_even_point always gave
    assert ds.break_even_point.item() == scores.break_even_point(df, "merge").item()


def test_bep_threshold_without_ties_is_exact_and_per_fold():
    df = _frame(1, ties=False)
    ds = scores.break_even_point(df, "fold", return_threshold=True)
    assert (ds.exact == 1).all()
    for f, part in df.groupby("fold"):
        t = ds.threshold.sel(fold=f).item()
        p, r = _p_r(part.y_true.to_numpy(), part.score.to_numpy(), t)
        assert p == r == pytest.approx(ds.break_even_point.sel(fold=f).item())


def test_bep_threshold_picked_on_validation_folds_applies_to_a_test_set():
    # the slides' procedure: choose on the pooled validation folds, apply unchanged
    df = _frame(7, n=400, ties=False)
    thr = scores.break_even_point(df, "merge", return_threshold=True).threshold.item()
    rng = np.random.default_rng(8)
    y = (rng.random(400) < 0.3).astype(int)
    s = rng.normal(0, 1, 400) + 1.2 * y
    p, r = _p_r(y, s, thr)
    assert abs(p - r) < 0.15  # close on new data from the same source


def test_bep_threshold_refuses_avg_and_averages():
    df = _frame(0)
    with pytest.raises(ValueError, match="method"):
        scores.break_even_point(df, "avg", return_threshold=True)
    with pytest.raises(ValueError, match="average"):
        scores.break_even_point(df, "merge", average="macro", return_threshold=True)
    ds = df.cv.break_even_point("merge", return_threshold=True)
    assert set(ds.data_vars) == {"break_even_point", "threshold", "threshold_above", "exact"}
