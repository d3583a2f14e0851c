"""reconcile: two reported numbers of the same folds, their recipes, and the gap in parts.

The three questions users ask are rebuilt as data: mlr's mean fold error over unequal folds vs
the pooled error; GridSearchCV's unweighted best score over folds of 50/49/1 samples vs the
pooled accuracy; cross_val_score's mean F1 vs f1_score on cross_val_predict (scikit-learn is
the oracle of both numbers).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cvframe
from cvframe.explanation import Reconciliation, reconcile


def _frame(sizes, errors, pos_share=0.5, seed=0):
    """A binary predictions frame: fold i has sizes[i] rows, errors[i] of them wrong."""
    rng = np.random.default_rng(seed)
    parts = []
    for i, (s, e) in enumerate(zip(sizes, errors, strict=True)):
        y = (rng.random(s) < pos_share).astype(int)
        pred = y.copy()
        wrong = rng.choice(s, e, replace=False)
        pred[wrong] = 1 - pred[wrong]
        parts.append(pd.DataFrame({"fold": i, "y_true": y, "y_pred": pred}))
    return pd.DataFrame(pd.concat(parts, ignore_index=True))


def _sums_to_gap(r: Reconciliation) -> None:
    assert math.fsum(r.parts["value"]) == pytest.approx(r.gap, abs=1e-12)
    assert r.gap == pytest.approx(r.values[1] - r.values[0], abs=1e-15)


def test_mlr_mean_fold_error_vs_pooled_error():
    sizes, errors = [104] * 9 + [64], [4] * 7 + [5, 5] + [2]
    df = _frame(sizes, errors)
    fold_err = [e / s for s, e in zip(sizes, errors, strict=True)]
    assert round(np.mean(fold_err), 4) == 0.0397 and sum(errors) / sum(sizes) == 0.04
    r = reconcile("0.0397", "0.04", df, metric="mmce")
    assert r.metric == "error" and all(r.matched)
    assert r.names == ("fold-averaged error", "pooled error")
    _sums_to_gap(r)
    parts = dict(zip(r.parts["part"], r.parts["value"], strict=True))
    # pooled error is the fold-size-weighted mean of fold errors: all of the gap is weighting
    assert parts["fold-size weighting"] == pytest.approx(0.04 - np.mean(fold_err), abs=1e-12)
    assert abs(parts["the rest (pooling the counts vs averaging per-fold values)"]) < 1e-12
    assert "fold-size weighting" in r.text and "mmce" in r.text


def test_gridsearch_best_score_over_50_49_1_vs_pooled():
    df = _frame([50, 49, 1], [0, 0, 1])
    r = reconcile("0.667", "0.99", df, metric="accuracy")
    assert r.names == ("fold-averaged accuracy", "pooled accuracy") and all(r.matched)
    assert r.computed[0] == pytest.approx(2 / 3) and r.computed[1] == pytest.approx(0.99)
    _sums_to_gap(r)
    weighting = r.parts.set_index("part")["value"]["fold-size weighting"]
    assert weighting == pytest.approx(0.99 - 2 / 3, abs=1e-12)
    # scikit-learn's scorer names work as metric=
    assert reconcile("0.667", "0.99", df, metric="balanced_accuracy").metric == (
        "balanced_accuracy"
    )


@pytest.mark.slow(reason="imports and fits scikit-learn: about 1 s warm, 5 s on a cold import")
def test_cross_val_score_mean_f1_vs_f1_of_cross_val_predict():
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict, cross_val_score

    X, y = make_classification(
        n_samples=230, weights=[0.85], flip_y=0.1, class_sep=0.6, random_state=3
    )
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    model = LogisticRegression(max_iter=500)
    a = cross_val_score(model, X, y, cv=cv, scoring="f1").mean()
    pred = cross_val_predict(model, X, y, cv=cv)
    b = f1_score(y, pred)
    fold = np.empty(len(y), dtype=int)
    for i, (_, test) in enumerate(cv.split(X, y)):
        fold[test] = i
    df = pd.DataFrame({"fold": fold, "y_true": y, "y_pred": pred})
    r = reconcile(f"{a:.4f}", f"{b:.4f}", df, metric="f1")
    assert r.names == ("F_avg", "F_tp,fp") and all(r.matched)
    assert r.computed == pytest.approx((a, b), abs=1e-12)
    _sums_to_gap(r)
    assert "cross_val_score" in r.text and "cross_val_predict" in r.text


def test_auc_merge_vs_avg_names_the_calibration_shift():
    rng = np.random.default_rng(1)
    rows = []
    for i, shift in enumerate([0.0, 1.5, -1.5, 0.5]):
        y = rng.random(60) < 0.4
        s = rng.normal(size=60) + 1.2 * y + shift
        rows.append(pd.DataFrame({"fold": i, "y_true": y.astype(int), "score": s}))
    df = pd.concat(rows, ignore_index=True)
    m = cvframe.scores.auc_methods(df)
    avg, merge = float(m.auc_avg.item()), float(m.auc_merge.item())
    r = reconcile(repr(avg), repr(merge), df, metric="roc_auc")
    assert r.names == ("AUC_avg", "AUC_merge")
    _sums_to_gap(r)
    parts = r.parts.set_index("part")["value"]
    shift = parts["fold-to-fold calibration shift (AUC_merge vs AUC_avg)"]
    assert shift < 0  # shifted folds: merging ranks them against each other
    # the shift is exactly the effect of the cross-fold pairs
    assert shift + parts.drop(
        "fold-to-fold calibration shift (AUC_merge vs AUC_avg)"
    ).sum() == pytest.approx(merge - avg, abs=1e-12)


def test_order_reversed():
    ds = cvframe.datasets.table2()
    fwd = reconcile("0.667", "0.769", ds)
    back = reconcile("0.769", "0.667", ds)
    assert back.names == fwd.names[::-1]
    np.testing.assert_allclose(
        sorted(back.parts["value"][:-1]), sorted(-fwd.parts["value"][:-1]), atol=1e-12
    )
    _sums_to_gap(back)


def test_repeats_mean_vs_all_folds_pooled():
    # two repeats of unequal folds: the mean over repeats vs the pooled number of all repeats
    df = pd.concat(
        [
            _frame([30, 20], [3, 1], seed=1).assign(repeat=0),
            _frame([25, 15], [1, 2]).assign(repeat=1),
        ]
    )
    ds2 = df.cv.counts()
    avg = ds2.cv.accuracy(how="avg").mean("repeat").item()
    pooled_all = cvframe.reduce.accuracy(ds2, "pooled", ("repeat", "fold")).item()
    r = reconcile(repr(avg), repr(pooled_all), df, metric="accuracy")
    assert r.recipes[0].repeats == "mean" and r.recipes[1].repeats == "all"
    assert "repeat handling" in set(r.parts["part"]) or r.computed[0] == r.computed[1]
    _sums_to_gap(r)


def test_no_match_is_said_and_bad_inputs():
    ds = cvframe.datasets.table2()
    r = reconcile("0.5", "0.769", ds)
    assert r.matched == (False, True) and "matches no recipe" in r.text
    _sums_to_gap(r)
    with pytest.raises(ValueError, match="metric"):
        reconcile("0.5", "0.6", ds, metric="nope")
    with pytest.raises(ValueError, match="needs the predictions frame"):
        reconcile("0.5", "0.6", ds, metric="auc")
    with pytest.raises(ValueError, match="neither in"):
        reconcile("150", "0.6", ds)
    assert cvframe.reconcile is reconcile


@pytest.mark.parametrize("trial", range(4))
def test_equal_weight_recipes_are_the_five_f_methods(trial):
    # folds with undefined precision or recall: every plain recipe is the cube method's number
    ds = cvframe.simulate(n=200, prevalence=0.03, f=0.6, k=10, trials=4, seed=7, stratified=False)
    one = ds.isel(trial=trial, drop=True)
    m = one.cv.f_methods(zero_division=0.0)
    r = reconcile(repr(m["f_avg"].item()), repr(m["f_tp_fp"].item()), one)
    cands = r.candidates.set_index("name")["value"]
    names = {"f_tp_fp": "F_tp,fp", "f_avg": "F_avg", "f_pr_re": "F_pr,re"}
    names.update(f_avg_skip="F_avg,skip", f_pr_re_skip="F_pr,re,skip")
    for var, name in names.items():
        if name in cands:
            assert cands[name] == pytest.approx(m[var].item(), abs=1e-12), name
    _sums_to_gap(r)


@settings(max_examples=8)
@given(
    seed=st.integers(0, 10_000),
    a=st.floats(0, 1),
    b=st.floats(0, 1),
    digits=st.integers(2, 5),
    metric=st.sampled_from(["f", "accuracy", "precision", "recall", "balanced_accuracy"]),
)
def test_parts_always_add_up_to_the_gap_and_flip_with_the_order(seed, a, b, digits, metric):
    ds = cvframe.simulate(n=150, prevalence=0.1, f=0.7, k=7, trials=1, seed=seed, stratified=False)
    ds = ds.isel(trial=0, drop=True)
    ta, tb = f"{a:.{digits}f}", f"{b:.{digits}f}"
    fwd, back = reconcile(ta, tb, ds, metric=metric), reconcile(tb, ta, ds, metric=metric)
    _sums_to_gap(fwd)
    _sums_to_gap(back)
    assert fwd.gap == pytest.approx(-back.gap, abs=1e-15)
    assert set(fwd.parts["part"]) == set(back.parts["part"])
