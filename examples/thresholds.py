"""Choose a decision threshold on pooled out-of-fold scores, and see what else it could be.

A rare-positive problem (8 % positives). The script

- tunes the threshold of a logistic regression with ``PooledThresholdClassifierCV``: the
  cut-off that maximises F of the pooled out-of-fold predictions (F_tp,fp), next to the one
  the mean of the folds' F curves would choose (scikit-learn's ``TunedThresholdClassifierCV``
  rule) and the choice of every fold, with their spread;
- does the slides' procedure with the precision-recall break-even point: pick the threshold
  where precision = recall on the pooled validation folds, apply it to a held-out test set;
- saves the per-fold and merged precision-recall curves (``plot.pr_curve``) and F against
  the threshold, pooled and fold by fold.

Run it::

    python examples/thresholds.py [output directory]
"""

from __future__ import annotations

import pathlib
import sys
import warnings

import numpy as np
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score, precision_score, recall_score
from sklearn.model_selection import StratifiedKFold, train_test_split

import cvframe


def main(out_dir: pathlib.Path) -> None:
    X, y = make_classification(
        n_samples=1500,
        n_features=8,
        n_informative=4,
        weights=[0.92],
        flip_y=0.01,
        random_state=4,
    )
    X_dev, X_test, y_dev, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    cv = StratifiedKFold(10, shuffle=True, random_state=0)
    clf = cvframe.PooledThresholdClassifierCV(LogisticRegression(), scoring="f1", cv=cv)
    clf.fit(X_dev, y_dev)
    print(f"positives: {y_dev.sum()} of {len(y_dev)} development samples, 10 folds")
    print(
        f"pooled choice (max F_tp,fp):         threshold {clf.best_threshold_:.3f}, "
        f"F_tp,fp {clf.best_score_:.3f}"
    )
    print(
        f"fold-averaged choice (max mean F):   threshold {clf.fold_averaged_threshold_:.3f}, "
        f"F_avg {clf.fold_averaged_score_:.3f}"
    )
    spread = clf.threshold_spread_
    print(
        f"each fold's own choice: mean {spread['mean']:.3f}, sd {spread['std']:.3f}, "
        f"range {spread['min']:.3f} to {spread['max']:.3f}"
    )
    test_f = f1_score(y_test, clf.predict(X_test))
    fixed = f1_score(y_test, clf.estimator_.predict(X_test))
    print(f"test F at the pooled threshold: {test_f:.3f}  (at 0.5: {fixed:.3f})")
    print()

    # the slides' procedure: the BEP threshold of the pooled validation folds, then the test
    df = clf.cv_predictions_
    bep = df.cv.break_even_point("merge", return_threshold=True)
    t = bep.threshold.item()
    exact = "exactly" if bep.exact.item() == 1 else "between two cut-offs"
    print(
        f"break-even point on the pooled validation folds: {bep.break_even_point.item():.3f} "
        f"at threshold {t:.3f} (P = R {exact})"
    )
    pred = (clf.predict_proba(X_test)[:, 1] >= t).astype(int)
    p, r = precision_score(y_test, pred), recall_score(y_test, pred)
    print(f"applied to the test set: precision {p:.3f}, recall {r:.3f}")

    out_dir.mkdir(parents=True, exist_ok=True)
    g = df.cv.plot.pr_curve()
    g.figure.savefig(out_dir / "pr_curve.png", dpi=80)

    import matplotlib.pyplot as plt

    curves = df.cv.metric_at_thresholds("f", clf.cv_results_.threshold.to_numpy(), method="fold")
    fig, ax = plt.subplots(figsize=(5.5, 3.5), layout="constrained")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _, fold in curves.groupby("fold"):
            ax.plot(fold.threshold, fold.f, color="0.7", linewidth=0.8)
    res = clf.cv_results_
    ax.plot(
        res.threshold, res.fold_averaged, color="tab:orange", linewidth=2, label="mean of folds' F"
    )
    ax.plot(res.threshold, res.pooled, color="black", linewidth=2, label="F_tp,fp (pooled)")
    ax.axvline(clf.best_threshold_, color="black", linestyle=":")
    ax.axvline(clf.fold_averaged_threshold_, color="tab:orange", linestyle=":")
    ax.set(xlabel="threshold on P(positive)", ylabel="F1", ylim=(0, 1))
    ax.legend(loc="upper right", fontsize=8)
    fig.savefig(out_dir / "f_by_threshold.png", dpi=80)
    print()
    print(f"saved pr_curve.png and f_by_threshold.png in {out_dir}")
    _ = np


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path("."))
