"""Two HTML reports: a binary classifier, and two multiclass classifiers compared.

- ``report_binary.html``: logistic regression on breast cancer, 3 x stratified 5-fold CV,
  with its scores (the AUC table and the per-fold ROC curves).
- ``report_multiclass.html``: logistic regression and a decision tree on a 600-image subset
  of digits (10 classes), the same 3 x 5 folds for both: the summary says which model is
  better, the class averages carry their 95% interval across repeats, the ROC curves are
  one panel per class with the models as colours.

Also writes each report's plots as PNG (drawn once, by
:func:`cvframe.report.html_with_figures`).

Run:  python examples/report.py OUT_DIR   (about 10-20 s)
"""

from __future__ import annotations

import os
import sys

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_digits  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

import cvframe  # noqa: E402
from cvframe.report import html_with_figures  # noqa: E402

REPEATS, FOLDS, SEED = 3, 5, 0


def predictions(model, X, y, name: str | None = None) -> pd.DataFrame:
    """The predictions frame (with scores) of repeated stratified k-fold CV."""
    frame = cvframe.cross_validate(
        model, X, y, cv=FOLDS, repeats=REPEATS, random_state=SEED, scores="auto"
    )
    return frame.assign(model=name) if name else frame


def write(out: str, stem: str, ds, scores, title: str) -> list[str]:
    """The report page and its plots, each plot drawn once."""
    page, figs = html_with_figures({stem: ds}, scores={stem: scores}, title=title)
    paths = [os.path.join(out, f"report_{stem}.html")]
    with open(paths[0], "w", encoding="utf-8") as fh:
        fh.write(page)
    for cube, fig in figs:
        paths.append(os.path.join(out, f"{cube}_{fig.name}.png"))
        with open(paths[-1], "wb") as fh:
            fh.write(fig.png)
    return paths


def main(out: str) -> list[str]:
    os.makedirs(out, exist_ok=True)
    X, y = load_breast_cancer(return_X_y=True)
    logistic = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    binary = predictions(logistic, X, y)
    written = write(out, "binary", binary.cv.counts(), binary, "breast cancer: logistic regression")

    X, y = load_digits(return_X_y=True)
    X, y = X[:600], y[:600]
    both = pd.concat(
        [
            predictions(logistic, X, y, "logistic"),
            predictions(
                DecisionTreeClassifier(max_depth=8, min_samples_leaf=5, random_state=SEED),
                X,
                y,
                "tree",
            ),
        ],
        ignore_index=True,
    )
    written += write(
        out, "multiclass", both.cv.counts(), both, "digits (600 images): logistic vs tree"
    )
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python examples/report.py OUT_DIR")
    for path in main(sys.argv[1]):
        print(path)
