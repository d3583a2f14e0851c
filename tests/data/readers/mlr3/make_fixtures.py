"""Make the mlr3 fixtures: predictions in mlr3's documented CSV layout, from a real computation.

R with mlr3 is not installable on the machine that made these files, so the predictions come
from scikit-learn (the same learners and resampling an mlr3 script would run) and are written in
the layout that this R code produces (see docs/readers_mlr3.md):

    rr = resample(task, lrn("classif.log_reg", predict_type = "prob"), rsmp("cv", folds = 5))
    preds = rbindlist(lapply(seq_len(rr$iters), function(i)
      cbind(iteration = i, as.data.table(rr$predictions()[[i]]))))
    fwrite(preds, "resample_binary.csv")

Columns: ``iteration``, ``row_ids`` (1-based), ``truth``, ``response``, ``prob.<class>`` in the
task's class order (the positive class first, as mlr3 orders a binary task's levels).
``expected.json`` holds the numbers computed independently with scikit-learn on the same
predictions: per-iteration scores, their mean (mlr3's ``aggregate`` default,
``average = "macro"``) and the score of the pooled predictions (``average = "micro"``).

Run: ``python tests/data/readers/mlr3/make_fixtures.py`` (deterministic).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_iris, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import KFold, RepeatedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

HERE = Path(__file__).parent


def resample(est, X, y, splits, classes):
    """mlr3-style per-iteration predictions (iteration and row_ids 1-based)."""
    parts = []
    for it, (train, test) in enumerate(splits, start=1):
        model = est.fit(X[train], y[train])
        proba = model.predict_proba(X[test])
        part = pd.DataFrame(
            {
                "iteration": it,
                "row_ids": test + 1,
                "truth": y[test],
                "response": model.predict(X[test]),
            }
        )
        for c in classes:  # mlr3 writes prob.<class> in the task's class order
            part[f"prob.{c}"] = np.round(proba[:, list(model.classes_).index(c)], 6)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def scores(df, positive, by=("iteration",)):
    per = {}
    for key, g in df.groupby(list(by), sort=True):
        per[str(key[0] if len(key) == 1 else key)] = {
            "acc": accuracy_score(g.truth, g.response),
            "fbeta": f1_score(g.truth, g.response, pos_label=positive, zero_division=0),
        }
    return per


def main() -> None:
    expected = {}
    # 1. one binary task, 5-fold CV, positive = "malignant" (set in R: task$positive = ...)
    data = load_breast_cancer()
    X, y = data.data, np.where(data.target == 0, "malignant", "benign")
    learner = make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=2000))
    splits = list(KFold(5, shuffle=True, random_state=1).split(X))
    df = resample(learner, X, y, splits, ["malignant", "benign"])
    df.to_csv(HERE / "resample_binary.csv", index=False)
    per = scores(df, "malignant")
    expected["resample_binary"] = {
        "positive": "malignant",
        "per_iteration": per,
        "macro": {m: float(np.mean([v[m] for v in per.values()])) for m in ("acc", "fbeta")},
        "micro": {
            "acc": accuracy_score(df.truth, df.response),
            "fbeta": f1_score(df.truth, df.response, pos_label="malignant"),
        },
    }

    # 2. benchmark: two tasks x two learners, 3-fold CV, classes "pos"/"neg" (positive first)
    tasks = {
        "breast_cancer": (X, np.where(data.target == 0, "pos", "neg")),
        "synthetic": (lambda a: (a[0], np.where(a[1] == 1, "pos", "neg")))(
            make_classification(120, 6, n_informative=3, weights=[0.7], random_state=3)
        ),
    }
    learners = {
        "classif.log_reg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "classif.rpart": DecisionTreeClassifier(max_depth=3, random_state=0),
    }
    parts = []
    for task_id, (Xt, yt) in tasks.items():
        sp = list(KFold(3, shuffle=True, random_state=2).split(Xt))  # same splits per task
        for learner_id, est in learners.items():
            p = resample(est, Xt, yt, sp, ["pos", "neg"])
            p.insert(0, "learner_id", learner_id)
            p.insert(0, "task_id", task_id)
            parts.append(p)
    bm = pd.concat(parts, ignore_index=True)
    bm.to_csv(HERE / "benchmark.csv", index=False)
    expected["benchmark"] = {}
    for (task_id, learner_id), g in bm.groupby(["task_id", "learner_id"], sort=True):
        per = scores(g, "pos")
        expected["benchmark"][f"{task_id}/{learner_id}"] = {
            "macro_fbeta": float(np.mean([v["fbeta"] for v in per.values()])),
            "micro_fbeta": f1_score(g.truth, g.response, pos_label="pos"),
        }

    # 3. multiclass, repeated CV (2 repeats x 3 folds: iterations 1..6)
    iris = load_iris()
    Xi, yi = iris.data, iris.target_names[iris.target]
    sp = list(RepeatedKFold(n_splits=3, n_repeats=2, random_state=4).split(Xi))
    rep = resample(
        DecisionTreeClassifier(max_depth=2, random_state=0), Xi, yi, sp, list(iris.target_names)
    )
    rep.to_csv(HERE / "repeated_multiclass.csv", index=False)
    expected["repeated_multiclass"] = {
        "folds": 3,
        "macro_acc": float(
            np.mean([accuracy_score(g.truth, g.response) for _, g in rep.groupby("iteration")])
        ),
        "micro_acc": accuracy_score(rep.truth, rep.response),
        "per_iteration_macro_f1": [
            f1_score(g.truth, g.response, average="macro") for _, g in rep.groupby("iteration")
        ],
    }
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
