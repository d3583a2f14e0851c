"""Multilabel cross-validation: scikit-learn's multilabel metrics, pooled and fold-averaged.

Run:  python examples/multilabel.py [OUTDIR]

1. A k-nearest-neighbours classifier on scikit-learn's ``make_multilabel_classification``
   (5 labels), 5-fold CV with one small fold (70, 70, 70, 70 and 20 samples): cvframe's
   samples-averaged F, Jaccard, subset accuracy and Hamming loss, pooled over the folds and
   averaged over them (they differ because the small fold weighs as much as a full one in
   the average).
2. Each equals scikit-learn: pooled = the metric of ``cross_val_predict``'s output, avg = the
   mean of the per-fold metric (what ``cross_validate(scoring=...)`` reports).
3. The per-label confusion tables (present/absent), drawn into OUTDIR when given.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
from sklearn import metrics
from sklearn.datasets import make_multilabel_classification
from sklearn.model_selection import PredefinedSplit
from sklearn.neighbors import KNeighborsClassifier

import cvframe

SKLEARN = {
    "f_samples": lambda t, p: metrics.f1_score(t, p, average="samples", zero_division=0),
    "jaccard_samples": lambda t, p: metrics.jaccard_score(t, p, average="samples", zero_division=0),
    "jaccard_macro": lambda t, p: metrics.jaccard_score(t, p, average="macro", zero_division=0),
    "subset_accuracy": metrics.accuracy_score,
    "hamming_loss": metrics.hamming_loss,
}


def main(outdir: pathlib.Path | None) -> None:
    X, Y = make_multilabel_classification(n_samples=300, n_features=12, n_classes=5, random_state=1)
    # five folds of 70, 70, 70, 70 and 20 samples
    test_fold = np.r_[np.repeat(np.arange(4), 70), np.full(20, 4)]
    test_fold = np.random.default_rng(0).permutation(test_fold)
    pred = cvframe.cross_validate(KNeighborsClassifier(), X, Y, cv=PredefinedSplit(test_fold))
    ds = pred.cv.counts()

    pooled = ds.cv.multilabel_metrics("tp_fp", zero_division=0.0).squeeze("repeat")
    averaged = ds.cv.multilabel_metrics("avg", zero_division=0.0).squeeze("repeat")
    Yt = pred.filter(like="y_true_").to_numpy()
    Yp = pred.filter(like="y_pred_").to_numpy()
    fold = pred["fold"].to_numpy()

    print("1-2. 5-fold CV (fold sizes 70, 70, 70, 70, 20), KNeighborsClassifier, 5 labels")
    print(f"  {'metric':<16} {'pooled':>8} {'sklearn':>8}   {'avg':>8} {'sklearn':>8}")
    for name, score in SKLEARN.items():
        sk_pooled = score(Yt, Yp)
        sk_avg = np.mean([score(Yt[fold == k], Yp[fold == k]) for k in np.unique(fold)])
        assert np.isclose(pooled[name], sk_pooled) and np.isclose(averaged[name], sk_avg)
        print(
            f"  {name:<16} {pooled[name].item():8.4f} {sk_pooled:8.4f}   "
            f"{averaged[name].item():8.4f} {sk_avg:8.4f}"
        )
    print("  every cvframe number equals scikit-learn's (pooled: on the out-of-fold predictions)")

    table = cvframe.tidy.confusion_table(ds)
    print("3. label 0, summed over the folds (rows true, columns predicted):")
    print(table[table["label"] == 0].pivot(index="true", columns="pred", values="value"))
    if outdir is not None:
        outdir.mkdir(parents=True, exist_ok=True)
        grid = ds.cv.plot.confusion(normalize="true")
        grid.figure.savefig(outdir / "multilabel_confusion.png", dpi=80)


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else None)
