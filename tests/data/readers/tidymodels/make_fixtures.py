"""Make the tidymodels fixtures: ``collect_predictions()`` output in its documented layout.

R with tidymodels is not installable on the machine that made these files, so the predictions
come from scikit-learn (the same models and resamples a tidymodels script would run) and are
written in the layout that this R code produces (see docs/readers_tidymodels.md):

    folds = vfold_cv(df, v = 5)                        # or vfold_cv(df, v = 5, repeats = 2)
    res = fit_resamples(wf, folds, control = control_resamples(save_pred = TRUE))
    write.csv(collect_predictions(res), "vfold_binary.csv", row.names = FALSE)

Columns: ``id`` ("Fold01"; with repeats ``id`` "Repeat1" and ``id2`` "Fold01"),
``.pred_<level>`` per level in the factor's level order (the first level is yardstick's
default event), ``.row`` (1-based), ``.pred_class``, the outcome column (named by the user:
``Class`` and ``Species`` here) and ``.config``. ``expected.json`` holds what
``collect_metrics()`` reports, computed independently with scikit-learn on the same
predictions: per config, the mean over resamples of the per-resample ``f_meas`` / ``accuracy``
and ``std_err`` = sd / sqrt(n).

Run: ``python tests/data/readers/tidymodels/make_fixtures.py`` (deterministic).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import KFold, RepeatedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

HERE = Path(__file__).parent


def predictions(est, X, y, resamples, levels, outcome, config):
    parts = []
    for ids, (train, test) in resamples:
        model = est.fit(X[train], y[train])
        proba = model.predict_proba(X[test])
        part = pd.DataFrame(ids, index=range(len(test)))
        for lev in levels:
            part[f".pred_{lev}"] = np.round(proba[:, list(model.classes_).index(lev)], 6)
        part[".row"] = test + 1
        part[".pred_class"] = model.predict(X[test])
        part[outcome] = y[test]
        part[".config"] = config
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def collect_metrics(df, outcome, resample_cols, metric):
    out = {}
    for config, g in df.groupby(".config", sort=True):
        est = np.array(
            [metric(r[outcome], r[".pred_class"]) for _, r in g.groupby(resample_cols, sort=True)]
        )
        out[config] = {
            "mean": float(est.mean()),
            "n": len(est),
            "std_err": float(est.std(ddof=1) / np.sqrt(len(est))),
        }
    return out


def main() -> None:
    expected = {}
    # 1. binary, vfold_cv(v = 5); levels benign < malignant (R's default alphabetical order):
    #    the event (first level) is "benign" unless event_level = "second".
    data = load_breast_cancer()
    X, y = data.data, np.where(data.target == 0, "malignant", "benign")
    wf = make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=2000))
    res = [
        ({"id": f"Fold{i:02d}"}, s)
        for i, s in enumerate(KFold(5, shuffle=True, random_state=7).split(X), start=1)
    ]
    df = predictions(wf, X, y, res, ["benign", "malignant"], "Class", "Preprocessor1_Model1")
    df.to_csv(HERE / "vfold_binary.csv", index=False)
    expected["vfold_binary"] = {
        "f_meas_first": collect_metrics(
            df, "Class", ["id"], lambda t, p: f1_score(t, p, pos_label="benign")
        ),
        "f_meas_second": collect_metrics(
            df, "Class", ["id"], lambda t, p: f1_score(t, p, pos_label="malignant")
        ),
        "accuracy": collect_metrics(df, "Class", ["id"], accuracy_score),
    }

    # 2. multiclass, vfold_cv(v = 5, repeats = 2), a grid of two cost values (two configs)
    iris = load_iris()
    Xi, yi = iris.data, iris.target_names[iris.target]
    splits = list(RepeatedKFold(n_splits=5, n_repeats=2, random_state=8).split(Xi))
    res = [
        ({"id": f"Repeat{i // 5 + 1}", "id2": f"Fold{i % 5 + 1:02d}"}, s)
        for i, s in enumerate(splits)
    ]
    parts = [
        predictions(
            make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=2000)),
            Xi,
            yi,
            res,
            list(iris.target_names),
            "Species",
            f"Preprocessor1_Model{m}",
        )
        for m, c in ((1, 0.01), (2, 1.0))
    ]
    rep = pd.concat(parts, ignore_index=True)
    rep.to_csv(HERE / "repeated_multiclass.csv", index=False)
    expected["repeated_multiclass"] = {
        "f_meas_macro": collect_metrics(
            rep, "Species", ["id", "id2"], lambda t, p: f1_score(t, p, average="macro")
        ),
        "accuracy": collect_metrics(rep, "Species", ["id", "id2"], accuracy_score),
    }
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
