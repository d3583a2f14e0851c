"""Every cvframe plot, written as PNG files: ``python examples/plots.py [OUT_DIR]``.

The images go to OUT_DIR, else to ``$CVFRAME_GALLERY``, else to a new temporary directory
(printed). Uses the paper's Table 2 cube, a repeated 5-fold CV of two scikit-learn
classifiers on the wine data (three classes, a ``model`` dim), a small bias study and the
Figure 9 risk curve. Figures are saved as they are laid out (no ``bbox_inches="tight"``):
the plots keep every label inside the figure.
"""

from __future__ import annotations

import os
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.datasets import load_wine  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

import cvframe  # noqa: E402
from cvframe import tidy  # noqa: E402


def save(obj, path: str) -> None:
    obj.figure.savefig(path)
    plt.close(obj.figure)
    print("wrote", path)


def main(out: str | None = None) -> None:
    out = out or os.environ.get("CVFRAME_GALLERY") or tempfile.mkdtemp(prefix="cvframe-plots-")
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
    save(wine.cv.plot.methods(hue="model"), f"{out}/wine_methods_by_model.png")
    save(wine.cv.plot.confusion(normalize="true"), f"{out}/wine_confusion.png")
    # one panel per class, one colour per model, AUCs in the legends
    save(frame.cv.plot.roc(), f"{out}/wine_roc.png")
    # one model, one repeat, one class: every fold's AUC in the legend
    one = frame.query("model == 'tree' and repeat == 0")
    save(one.cv.plot.roc(classes=[1]), f"{out}/wine_roc_tree_class1.png")
    save(one.cv.plot.score_rates(classes=[1]), f"{out}/wine_score_rates.png")
    # the tidy frame filtered with pandas, then plotted
    table = tidy.fold_table(wine).query("`class` != 0")
    save(cvframe.plot.folds(table, col="model"), f"{out}/wine_folds_filtered.png")

    study = cvframe.bias_study(
        prevalence=(0.01, 0.02, 0.03, 0.04, 0.05), f=0.8, trials=2000, seed=1
    )
    save(cvframe.plot.bias(study), f"{out}/bias.png")
    save(cvframe.plot.bias(study, y="rel_std"), f"{out}/rel_std.png")
    save(cvframe.plot.fold_risk(), f"{out}/fold_risk.png")
    fig, axes = plt.subplots(1, 2, figsize=(9, 4), layout="constrained")
    cvframe.plot.f_surface("pr", ax=axes[0])
    cvframe.plot.f_surface("roc", prevalence=0.01, ax=axes[1])
    save(axes[0], f"{out}/f_surface.png")


if __name__ == "__main__":
    main(*sys.argv[1:2])
