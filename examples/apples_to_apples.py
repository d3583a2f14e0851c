"""The same four folds, five F-measures: the paper's Tables 1 and 2 with cvframe.

Run: python examples/apples_to_apples.py
"""

import numpy as np
import pandas as pd

import cvframe

# Table 1 of Forman & Scholz (2010), typed as a tidy table of per-fold counts.
table1 = pd.DataFrame(
    {
        "fold": [1, 2, 3, 4],
        "class": ["pos"] * 4,
        "tp": [3, 4, 4, 3],
        "fp": [0, 1, 13, 5],
        "fn": [0, 0, 0, 1],
        "tn": [373, 371, 359, 367],
    }
)
ds = cvframe.from_counts(table1)

print("per fold:")
print(
    pd.DataFrame(
        {
            "precision": ds.cv.precision().values.ravel(),
            "recall": ds.cv.recall().values.ravel(),
            "F": ds.cv.f().values.ravel(),
        },
        index=ds.fold.values,
    ).round(3)
)

print("\nfive aggregations of the same folds:")
methods = ds.cv.f_methods(zero_division=0.0)
print(methods.to_array("method").squeeze().to_series().round(3))

# Table 2: one fold predicts no positives, so its precision is undefined.
t2 = cvframe.datasets.table2()
print("\nTable 2, fold validity V:", t2.cv.valid().values.ravel().tolist())
print(t2.cv.f_methods(zero_division=0.0).to_array("method").squeeze().to_series().round(3))

# The same from per-sample predictions: pooled F equals F of all folds' predictions together.
rng = np.random.default_rng(0)
y = (rng.random(1000) < 0.05).astype(int)
y_pred = np.where(rng.random(1000) < 0.8, y, 1 - y)
fold = np.arange(1000) % 10
cube = cvframe.from_predictions(y, y_pred, fold)
print(
    f"\nsimulated 10-fold CV, 5% positives: F_tp,fp = {cube.cv.f_tp_fp().item():.3f}, "
    f"F_avg = {cube.cv.f_avg(zero_division=0).item():.3f}"
)
