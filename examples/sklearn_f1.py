"""scikit-learn's cross-validated F1 is F_avg; cvframe keeps the folds and shows all methods.

Run:  python examples/sklearn_f1.py

1. The LogisticRegression and StratifiedKFold a scikit-learn user writes, on the breast
   cancer data shipped with scikit-learn: ``cross_val_score(scoring="f1").mean()`` is exactly
   cvframe's F_avg, and ``f1_score(y, cross_val_predict(...))`` is exactly F_tp,fp.
2. The same with rare positives (20 malignant among 377): the five aggregations of
   Forman & Scholz (2010) now disagree, and F_avg is the biased one.
3. Leave-one-out: every test fold holds one sample, so per-fold F is 1, 0 or undefined and
   its average (F_avg) is meaningless, while F_tp,fp pools the same predictions honestly.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import LeaveOneOut, StratifiedKFold, cross_val_predict, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import cvframe


def methods_table(ds) -> str:
    """The five fold aggregations side by side, one line each."""
    res = ds.cv.f_methods(zero_division=0.0)
    return "\n".join(f"  {name:<14} {res[name].item():.4f}" for name in res.data_vars)


def main() -> None:
    X, y = load_breast_cancer(return_X_y=True)
    y = 1 - y  # positive class = malignant (scikit-learn codes benign as 1)
    model = make_pipeline(StandardScaler(), LogisticRegression())
    cv = StratifiedKFold(n_splits=10, shuffle=True, random_state=0)

    # 1. What scikit-learn reports, and the same run kept whole by cvframe.
    sk_f1 = cross_val_score(model, X, y, cv=cv, scoring="f1").mean()
    sk_pooled = f1_score(y, cross_val_predict(model, X, y, cv=cv))
    frame = cvframe.cross_validate(model, X, y, cv=cv)
    ds = frame.cv.counts()
    print("1. breast cancer, 10-fold stratified CV, LogisticRegression")
    print(f"  cross_val_score(scoring='f1').mean()   {sk_f1:.12f}")
    print(f"  cvframe F_avg                          {ds.cv.f_avg().item():.12f}")
    print(f"  f1_score(y, cross_val_predict(...))    {sk_pooled:.12f}")
    print(f"  cvframe F_tp,fp                        {ds.cv.f_tp_fp().item():.12f}")
    assert abs(ds.cv.f_avg().item() - sk_f1) < 1e-12
    assert abs(ds.cv.f_tp_fp().item() - sk_pooled) < 1e-12
    print(methods_table(ds))

    # 2. Rare positives: keep 20 malignant cases.
    rng = np.random.default_rng(0)
    pos = rng.choice(np.flatnonzero(y == 1), size=20, replace=False)
    keep = np.sort(np.r_[np.flatnonzero(y == 0), pos])
    Xr, yr = X[keep], y[keep]
    ds_rare = cvframe.cross_validate(model, Xr, yr, cv=cv).cv.counts()
    print(f"\n2. rare positives ({yr.sum()} of {len(yr)}), same model and splitter")
    print(methods_table(ds_rare))
    print("  per-fold F:", np.round(ds_rare.cv.f(zero_division=0.0).values.ravel(), 2))
    print("  F_avg is what cross_val_score reports; F_tp,fp is the unbiased estimate.")

    # 3. Leave-one-out on the rare-positive data: per-fold F cannot be averaged.
    loo = cvframe.cross_validate(model, Xr, yr, cv=LeaveOneOut(), scores=False)
    ds_loo = loo.cv.counts()
    per_fold = ds_loo.cv.f(zero_division=0.0).values.ravel()
    n_undef = int((~ds_loo.cv.valid()).sum())
    print(f"\n3. leave-one-out ({ds_loo.sizes['fold']} folds of one sample)")
    print(
        f"  per-fold F values seen: {sorted({float(v) for v in per_fold})}; "
        f"{n_undef} folds have undefined precision or recall"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cvframe.UndefinedMetricWarning)
        f_avg = ds_loo.cv.f_avg().item()
    print(f"  F_avg   {f_avg:.4f}  (almost every fold is a negative sample: F counted as 0)")
    print(
        f"  F_tp,fp {ds_loo.cv.f_tp_fp().item():.4f}  "
        f"= f1_score over all predictions {f1_score(yr, loo.sort_values('sample')['y_pred']):.4f}"
    )


if __name__ == "__main__":
    main()
