"""Why do two numbers of the same folds disagree? Three questions users ask, answered.

Run:  python examples/reconcile.py

1. mlr reports a mean misclassification error of 0.0397, the pooled error is 0.04: ten folds
   of unequal size (the mean of fold errors weighs every fold the same).
2. GridSearchCV's best score is 0.667 but the model is right 99 times in 100: folds of 50, 49
   and 1 samples, averaged without weights.
3. scikit-learn's cross_val_score F1 vs f1_score on cross_val_predict: F_avg vs F_tp,fp.

Each answer names both numbers' aggregations and splits the gap into parts that add up to it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict, cross_val_score

import cvframe


def show(title: str, r) -> None:
    print(f"== {title}")
    print(r.text)
    print(r.parts[["part", "value"]].to_string(index=False, float_format=lambda x: f"{x:+.6f}"))
    print(f"sum of parts {r.parts['value'].sum():+.6f} = gap {r.gap:+.6f}\n")


def main() -> None:
    sizes, errors = [104] * 9 + [64], [4, 4, 4, 4, 4, 4, 4, 5, 5, 2]
    rows = []
    for i, (s, e) in enumerate(zip(sizes, errors, strict=True)):
        y = np.tile([0, 1], s)[:s]
        pred = y.copy()
        pred[:e] = 1 - pred[:e]
        rows.append(pd.DataFrame({"fold": i, "y_true": y, "y_pred": pred}))
    mlr = pd.concat(rows, ignore_index=True)
    show("mlr: mmce 0.0397 vs pooled 0.04", cvframe.reconcile("0.0397", "0.04", mlr, "mmce"))

    gs = pd.DataFrame(
        {"fold": [0] * 50 + [1] * 49 + [2], "y_true": [1, 0] * 50, "y_pred": [1, 0] * 49 + [1, 1]}
    )
    show("GridSearchCV: 0.667 vs 0.99", cvframe.reconcile("0.667", "0.99", gs, "accuracy"))

    X, y = make_classification(n_samples=300, weights=[0.9], flip_y=0.05, random_state=0)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    clf = LogisticRegression(max_iter=1000)
    a = cross_val_score(clf, X, y, cv=cv, scoring="f1").mean()
    pred = cross_val_predict(clf, X, y, cv=cv)
    b = f1_score(y, pred)
    fold = np.empty(len(y), dtype=int)
    for i, (_, test) in enumerate(cv.split(X, y)):
        fold[test] = i
    preds = pd.DataFrame({"fold": fold, "y_true": y, "y_pred": pred})
    r = cvframe.reconcile(f"{a:.4f}", f"{b:.4f}", preds, metric="f1")
    show("cross_val_score F1 vs f1_score(cross_val_predict)", r)


if __name__ == "__main__":
    main()
