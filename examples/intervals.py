"""How sure is the number? An interval for every number, with its method and estimand.

Run:  python examples/intervals.py

1. Two classifiers, 2 x 5-fold cross-validation on scikit-learn's breast-cancer data: F_tp,fp
   (posterior of the pooled counts), F_avg (corrected t), AUC_merge (DeLong) and AUC_avg
   (corrected t), one row per model and number.
2. The paper's Table 1 (15 positives in 4 folds): F_tp,fp is pinned to about +-0.16 while
   F_avg's interval spans [0, 1].
3. The coverage of the default F_tp,fp interval on the simulation model, 1000 runs per cell.
"""

from __future__ import annotations

import warnings

import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import cvframe

NUMBERS = (("F_tp,fp", "f"), ("F_avg", "f_avg"), ("AUC_merge", "auc"), ("AUC_avg", "auc_avg"))


def table(data, numbers=NUMBERS) -> pd.DataFrame:
    """One row per (number, model): estimate, interval, method, training variability."""
    rows = []
    for label, metric in numbers:
        iv = cvframe.interval(data, metric)
        for model in iv["model"].values if "model" in iv.dims else [None]:
            one = iv.sel(model=model) if model is not None else iv
            rows.append(
                {
                    "number": label,
                    "model": model,
                    "estimate": float(one["estimate"].squeeze()),
                    "lower": float(one["lower"].squeeze()),
                    "upper": float(one["upper"].squeeze()),
                    "method": iv.attrs["method"],
                    "training_variability": iv.attrs["training_variability"],
                }
            )
    return pd.DataFrame(rows)


def main() -> None:
    pd.set_option("display.width", 120)
    X, y = load_breast_cancer(return_X_y=True)
    models = {
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "naive_bayes": GaussianNB(),
    }
    df = cvframe.cross_validate(models, X, y, cv=5, repeats=2, random_state=0)
    print("2 x 5-fold CV, breast cancer (positive class 1, benign: 357 of 569): 95% intervals")
    print(table(df).round(3).to_string(index=False))

    print("\nwhat each interval estimates:")
    for label, metric in NUMBERS:
        print(f"  {label:9} {cvframe.interval(df, metric).attrs['estimand']}")

    ds = cvframe.datasets.table1()
    print("\nForman & Scholz Table 1 (15 positives, 4 folds):")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        print(table(ds, NUMBERS[:2]).drop(columns="model").round(3).to_string(index=False))

    cov = cvframe.coverage_study(prevalence=(0.01, 0.05, 0.2), f=(0.6, 0.8), trials=1000)
    print("\ncoverage of the default F_tp,fp interval (n=1000, k=10, 1000 runs per cell):")
    print((100 * cov.pivot_table(index="prevalence", columns="f", values="coverage")).round(1))


if __name__ == "__main__":
    main()
