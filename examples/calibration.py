"""Brier score vs AUC_merge: two classifiers that rank equally well, one of them miscalibrated.

Forman & Scholz (2010, §2.4): AUC_merge sorts the scores of all folds together, so it
"assumes that the classifier should produce well-calibrated probability estimates"; a
researcher who wants to measure calibration "will use Brier score or such". This script
makes the point on scikit-learn's bundled breast-cancer data (569 samples, 4 stratified
folds):

- ``calibrated``: a logistic regression's ``predict_proba``;
- ``miscalibrated``: the same fold models, but each fold's probabilities pass through a
  monotone map of their own (a shift and a stretch of the log-odds, as fold models fitted
  with different regularisation or class weights would give). Inside a fold the ranking is
  unchanged, so every per-fold AUC, and AUC_avg, are exactly those of the calibrated model.

AUC_merge drops for the miscalibrated model, and the Brier score and its calibration term
(per fold, averaged) show why. Run it::

    python examples/calibration.py
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import cvframe  # noqa: F401  (registers the df.cv accessor)

# per fold: (shift, stretch) of the log-odds of the miscalibrated model
DISTORTION = [(-3.0, 0.4), (-0.5, 1.0), (1.5, 2.5), (3.0, 0.6)]


def predictions() -> pd.DataFrame:
    """Both models' test-fold probabilities, stacked with a ``model`` column."""
    X, y = load_breast_cancer(return_X_y=True)
    folds = StratifiedKFold(n_splits=4, shuffle=True, random_state=0)
    parts = []
    for fold, (train, test) in enumerate(folds.split(X, y)):
        model = make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=1000))
        p = model.fit(X[train], y[train]).predict_proba(X[test])[:, 1]
        logit = np.log(np.clip(p, 1e-12, 1)) - np.log(np.clip(1 - p, 1e-12, 1))
        shift, stretch = DISTORTION[fold]
        distorted = 1 / (1 + np.exp(-(stretch * logit + shift)))
        for name, score in (("calibrated", p), ("miscalibrated", distorted)):
            parts.append(
                pd.DataFrame({"model": name, "fold": fold, "y_true": y[test], "score": score})
            )
    return pd.concat(parts, ignore_index=True)


def main() -> None:
    df = predictions()
    auc = df.cv.auc_methods().sel({"class": 1})
    brier = {m: df.cv.brier(m).sel({"class": 1}) for m in ("avg", "merge")}
    parts = df.cv.brier_decomposition("avg", bins=10).sel({"class": 1})  # per fold, averaged
    log_loss = df.cv.log_loss("merge").sel({"class": 1})
    table = pd.DataFrame(
        {
            "AUC_avg": auc.auc_avg.to_series(),
            "AUC_merge": auc.auc_merge.to_series(),
            "Brier_avg": brier["avg"].to_series(),
            "Brier_merge": brier["merge"].to_series(),
            "calibration_avg": parts.calibration.to_series(),
            "refinement_avg": parts.refinement.to_series(),
            "log_loss_merge": log_loss.to_series(),
        }
    )
    print(table.round(4).to_string())
    per_fold = df.cv.auc(method="fold").sel({"class": 1})
    same = bool(np.allclose(per_fold.sel(model="calibrated"), per_fold.sel(model="miscalibrated")))
    print()
    print(f"per-fold AUC identical for both models: {same}")
    print("AUC_avg is the same for both; AUC_merge and the Brier score are not:")
    print("AUC_merge mixes the miscalibration between folds into ranking, the Brier score")
    print("(and its calibration term) measures calibration itself.")


if __name__ == "__main__":
    main()
