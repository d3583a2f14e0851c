"""Checks against baselines: every design finding of ``anomalies`` on a case built to have it.

1. Dummy baselines on the same folds (``cross_validate(..., baselines=True)``): logistic
   regression beats them, a majority-class model does not (CV301, error).
2. A fully grown tree on noisy labels fits its training sets far better than its test folds
   (``return_train=True``: CV302, warning).
3. Unshuffled ``KFold(3)`` on iris, which is sorted by class: each training set lacks a class
   (CV202, error).
4. Rows present twice: test rows equal to a training row (CV401, warning).

Run: ``python examples/baselines.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_iris, make_classification
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import cvframe

COLS = ["severity", "code", "kind", "fold", "class"]


def show(title: str, found: pd.DataFrame, kind: str) -> None:
    rows = found[found["kind"] == kind]
    print(f"\n== {title}: {len(rows)} {kind} finding(s)")
    if len(rows):
        print(rows[[c for c in ["model", *COLS] if c in rows.columns]].to_string(index=False))
        print("  detail:", rows["detail"].iloc[0])
        print("  why:   ", rows["explanation"].iloc[0])


def main() -> None:
    X, y = load_breast_cancer(return_X_y=True)
    lr = make_pipeline(StandardScaler(), LogisticRegression())

    models = {"lr": lr, "majority": DummyClassifier(strategy="most_frequent")}
    frame = cvframe.cross_validate(models, X, y, cv=10, random_state=0, baselines=True)
    found = frame.cv.counts().cv.anomalies(frame=frame)
    show("1. dummy baselines", found, "not_better_than_baseline")
    flagged = set(found.loc[found["kind"] == "not_better_than_baseline", "model"])
    print("logistic regression beats the baselines:", "lr" not in flagged)

    Xn, yn = make_classification(n_samples=300, flip_y=0.3, random_state=0)
    tree = DecisionTreeClassifier(random_state=0)
    frame = cvframe.cross_validate(tree, Xn, yn, cv=5, return_train=True)
    show("2. overfitting", frame.cv.counts().cv.anomalies(), "train_test_gap")

    Xi, yi = load_iris(return_X_y=True)
    frame = cvframe.cross_validate(LogisticRegression(max_iter=500), Xi, yi, cv=KFold(3))
    show("3. unstratified folds", frame.cv.counts().cv.anomalies(), "class_missing_from_training")

    X2, y2 = np.vstack([X, X[:100]]), np.concatenate([y, y[:100]])
    frame = cvframe.cross_validate(lr, X2, y2, cv=5, random_state=0)
    show("4. twinning", frame.cv.counts().cv.anomalies(frame=frame), "train_duplicate")


if __name__ == "__main__":
    main()
