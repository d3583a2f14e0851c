"""Every cvframe plot, written as PNG files: ``python examples/plots.py [OUT_DIR]``.

Uses the paper's Table 1/2 cubes, a repeated 5-fold CV of two scikit-learn classifiers on the
wine data (multiclass, a ``model`` dim), a small bias study and the Figure 9 risk curve.
"""

from __future__ import annotations

import os
import sys

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
from sklearn.datasets import load_wine  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

import cvframe  # noqa: E402


def save(obj, path: str) -> None:
    obj.figure.savefig(path, dpi=90, bbox_inches="tight")
    print("wrote", path)


def main(out: str = "plots") -> None:
    os.makedirs(out, exist_ok=True)
    table2 = cvframe.datasets.table2()
    save(table2.cv.plot.folds(), f"{out}/table2_folds.png")
    save(table2.cv.plot.methods(), f"{out}/table2_methods.png")

    X, y = load_wine(return_X_y=True)
    frames = [
        cvframe.cross_validate(est, X, y, cv=5, repeats=3, random_state=0, progress=False).assign(
            model=name
        )
        for name, est in [
            ("naive_bayes", GaussianNB()),
            ("tree", DecisionTreeClassifier(max_depth=3, random_state=0)),
        ]
    ]
    frame = pd.concat(frames, ignore_index=True)
    wine = frame.cv.counts()
    save(wine.cv.plot.folds(), f"{out}/wine_folds.png")
    save(wine.cv.plot.methods(), f"{out}/wine_methods.png")
    save(wine.cv.plot.confusion(normalize="true"), f"{out}/wine_confusion.png")
    save(frame.cv.plot.roc(), f"{out}/wine_roc.png")

    binary = (
        frame[frame.model == "naive_bayes"]
        .assign(
            y_true=lambda d: (d.y_true == 0).astype(int),
            y_pred=lambda d: (d.y_pred == 0).astype(int),
            score=lambda d: d.score_0,
        )
        .query("repeat == 0")
    )
    save(binary.cv.plot.score_rates(by=None), f"{out}/wine_score_rates.png")

    study = cvframe.bias_study(
        prevalence=(0.01, 0.02, 0.03, 0.04, 0.05), f=0.8, trials=2000, seed=1
    )
    save(cvframe.plot.bias(study), f"{out}/bias.png")
    save(cvframe.plot.bias(study, y="rel_std"), f"{out}/rel_std.png")
    save(cvframe.plot.fold_risk(), f"{out}/fold_risk.png")


if __name__ == "__main__":
    main(*sys.argv[1:])
