"""Reliability diagrams per fold and pooled: is the pooled curve the whole story?

Two classifiers on the same 5 folds: a logistic regression (close to calibrated) and a
Gaussian naive Bayes (over-confident: its probabilities crowd 0 and 1). The script

- prints each model's pooled reliability curve (``df.cv.calibration_curve``, equal to
  scikit-learn's ``calibration_curve`` on the merged out-of-fold predictions) and, per bin,
  the range of the folds' observed fractions of positives;
- prints the Brier score per fold and merged;
- saves the reliability diagrams (``plot.calibration``): each fold thin, the pooled curve
  bold, the band across folds; one figure per model and one comparing both.

Run it::

    python examples/calibration_curve.py [output directory]
"""

from __future__ import annotations

import pathlib
import sys

from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

import cvframe


def main(out_dir: pathlib.Path) -> None:
    X, y = make_classification(
        n_samples=2000, n_features=12, n_informative=4, n_redundant=6, random_state=2
    )
    models = {"logistic": LogisticRegression(max_iter=1000), "naive Bayes": GaussianNB()}
    df = cvframe.cross_validate(models, X, y, cv=5, random_state=0)
    cc = df.cv.calibration_curve(bins=5)
    for name in models:
        part = cc[cc.model == name]
        merged = part[part.kind == "merged"].set_index("bin")
        folds = part[part.kind == "fold"].groupby("bin").prob_true
        print(f"{name}: pooled reliability curve (5 bins)")
        print(
            f"{'bin':>4s}{'n':>6s}{'predicted':>11s}{'observed':>10s}{'folds: min':>12s}{'max':>7s}"
        )
        for b, row in merged.iterrows():
            print(
                f"{b:4d}{row['count']:6d}{row.prob_pred:11.3f}{row.prob_true:10.3f}"
                f"{folds.min()[b]:12.3f}{folds.max()[b]:7.3f}"
            )
        brier = df[df.model == name].cv.brier(method="fold").values.ravel()
        merged_brier = df[df.model == name].cv.brier(method="merge").item()
        print(f"Brier per fold {' '.join(f'{v:.3f}' for v in brier)}; merged {merged_brier:.3f}")
        print()

    out_dir.mkdir(parents=True, exist_ok=True)
    for name, file in (
        ("logistic", "calibration_logistic.png"),
        ("naive Bayes", "calibration_nb.png"),
    ):
        g = df[df.model == name].cv.plot.calibration(bins=10)
        g.figure.savefig(out_dir / file, dpi=80)
    g = df.cv.plot.calibration(bins=10, hue="model")
    g.figure.savefig(out_dir / "calibration_models.png", dpi=80)
    print(
        f"saved calibration_logistic.png, calibration_nb.png, calibration_models.png in {out_dir}"
    )


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path("."))
