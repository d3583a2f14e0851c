"""Compare models honestly: paired tests on the same folds, and a search tuned on pooled F.

Run:  python examples/compare_models.py [OUT_DIR]

1. Three scikit-learn classifiers on the breast cancer data, fit on the same repeated
   stratified 10-fold splits; F_tp,fp per model; ``cvframe.compare`` of each against the
   best (the corrected repeated k-fold t-test on per-fold F, and the paired bootstrap of
   F_tp,fp on the predictions); the differences plot (``differences.png``).
2. Rare positives (3 or 4 per test fold): ``GridSearchCV(scoring="f1")`` ranks by the mean
   of per-fold F and picks one class weighting; ``PooledSearchCV`` ranks by the F of the
   pooled out-of-fold predictions and picks the other.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pandas as pd
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import cvframe
from cvframe.comparison import compare
from cvframe.search import PooledSearchCV


def three_models(out: Path) -> None:
    X, y = load_breast_cancer(return_X_y=True)
    models = {
        "lr": make_pipeline(StandardScaler(), LogisticRegression()),
        "nb": GaussianNB(),
        "tree": DecisionTreeClassifier(max_depth=3, random_state=0),
    }
    frame = cvframe.cross_validate(models, X, y, cv=10, repeats=3, random_state=0, progress=False)
    ds = frame.cv.counts()
    f = ds.cv.f_tp_fp().mean("repeat").squeeze(drop=True).to_series()
    print("F_tp,fp per model (mean over 3 repeats):")
    print(f.round(4).to_string())
    best = f.idxmax()
    cols = ["mean", "low", "high", "p_value"]
    for res in (
        compare(ds, "f", baseline=best),
        compare(frame, "f_tp_fp", baseline=best, test="bootstrap", random_state=0),
    ):
        print(f"\n{res.attrs['test']} on {res.attrs['metric']} (model - {best}):")
        print(res[cols].squeeze(drop=True).to_dataframe()[cols].round(4).to_string())
    ax = cvframe.plot.differences(compare(ds, "f", baseline=best))
    ax.figure.savefig(out / "differences.png", dpi=100, bbox_inches="tight")
    print(f"\nwrote {out / 'differences.png'}")


def pooled_vs_mean() -> None:
    X, y = make_classification(
        n_samples=150, n_features=6, n_informative=3, weights=[0.9], flip_y=0.05, random_state=7
    )
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    grid = {"class_weight": [None, "balanced"]}
    lr = LogisticRegression(C=3.0, max_iter=1000)
    gs = GridSearchCV(lr, grid, scoring="f1", cv=cv).fit(X, y)
    ps = PooledSearchCV(lr, grid, cv=cv, zero_division=0.0).fit(X, y)
    print(f"\n{int(y.sum())} positives among {len(y)} samples, 5 folds")
    print(f"GridSearchCV (mean of per-fold F) picks   {gs.best_params_}")
    print(f"PooledSearchCV (F of pooled folds) picks  {ps.best_params_}")
    cols = ["mean_test_score", "rank_mean_test_score", "pooled_test_score", "rank_test_score"]
    table = pd.DataFrame(ps.cv_results_)[cols].set_index(ps.cube_.param.to_index())
    print(table.round(3).to_string())


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0] if argv else ".")
    out.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        three_models(out)
        pooled_vs_mean()


if __name__ == "__main__":
    main()
