"""Cost-sensitive ROC analysis of a cross-validated classifier.

A loan-default style problem: 10 % positives (defaulters), and lending to a defaulter (a false
negative of the "default" class) costs five times as much as refusing a good customer (a
false positive). The script cross-validates a logistic regression, then

- prints the iso-cost slope, cost ratio x N/P;
- finds the threshold of least expected cost per fold and on the pooled scores;
- compares the expected cost of the default 0.5 decisions with the cost-optimal threshold;
- saves the plot of the ROC curve, its convex hull, the iso-cost line and the optimal
  point, and the F surface of Figure 1 at the data's prevalence.

Run it::

    python examples/cost_roc.py [output directory]
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression

import cvframe
from cvframe import scores

COST_FP, COST_FN = 1.0, 5.0


def main(out_dir: pathlib.Path) -> None:
    X, y = make_classification(
        n_samples=2000, n_features=8, n_informative=4, weights=[0.9], flip_y=0.02, random_state=1
    )
    df = cvframe.cross_validate(LogisticRegression(max_iter=1000), X, y, cv=5, random_state=0)
    prevalence = float(np.mean(y))
    slope = scores.iso_cost_slope(COST_FP, COST_FN, prevalence)
    print(f"prevalence {prevalence:.3f}, c_FP = {COST_FP:g}, c_FN = {COST_FN:g}")
    print(f"iso-cost slope m = c_FP/c_FN * N/P = {slope:.3f}")
    print()

    per_fold = df.cv.optimal_operating_point(COST_FP, COST_FN, method="fold")
    merged = df.cv.optimal_operating_point(COST_FP, COST_FN, method="merge")
    print("optimal operating point per fold (predict default when P(default) >= threshold)")
    print(f"{'fold':>6s}{'threshold':>11s}{'FPR':>8s}{'TPR':>8s}{'expected cost':>15s}")
    for f in per_fold.fold.values:
        row = per_fold.sel(fold=f).squeeze()
        print(
            f"{f:6d}{row.threshold.item():11.3f}{row.fpr.item():8.3f}{row.tpr.item():8.3f}"
            f"{row.expected_cost.item():15.4f}"
        )
    m = merged.squeeze()
    print(
        f"{'merged':>6s}{m.threshold.item():11.3f}{m.fpr.item():8.3f}{m.tpr.item():8.3f}"
        f"{m.expected_cost.item():15.4f}"
    )
    print()

    cost = [[0.0, COST_FP], [COST_FN, 0.0]]  # rows: true [0, 1]; columns: predicted [0, 1]
    at_half = df.cv.counts().cv.expected_cost(cost, how="avg").item()
    tuned = per_fold.expected_cost.mean("fold").item()
    print(f"expected cost of the 0.5 decisions (mean over folds):   {at_half:.4f}")
    print(f"expected cost at each fold's optimal threshold (mean):  {tuned:.4f}")
    print("(the fold optimum is chosen on the test fold itself: an optimistic bound)")

    out_dir.mkdir(parents=True, exist_ok=True)
    g = df.cv.plot.cost_roc(COST_FP, COST_FN, method="fold")
    g.figure.savefig(out_dir / "cost_roc_folds.png", dpi=80)
    g = df.cv.plot.cost_roc(COST_FP, COST_FN, method="merge")
    g.figure.savefig(out_dir / "cost_roc_merged.png", dpi=80)
    ax = cvframe.plot.f_surface("roc", prevalence=prevalence)
    ax.figure.savefig(out_dir / "f_surface.png", dpi=80)
    print()
    print(f"saved cost_roc_folds.png, cost_roc_merged.png and f_surface.png in {out_dir}")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path("."))
