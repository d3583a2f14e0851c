"""One-vs-all report of two classifiers under repeated stratified 10-fold cross-validation.

The digits data (10 classes) are cross-validated 3 x 10-fold (stratified) with a scaled
logistic regression and Gaussian naive Bayes. The two counts cubes are stacked along a
``model`` dim, and every aggregation is computed by name on the joint cube:

- per-class F by each fold aggregation (F_tp,fp, F_avg, F_pr,re), mean over repeats;
- macro (both definitions), micro and weighted averages, and Cohen's kappa, each with the
  mean across repeats and a 95% Student-t interval (``ds.cv.summary``).

Run:  python examples/ova_report.py   (about 5-10 s)
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import xarray as xr
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits  # installed with scikit-learn

import cvframe

REPEATS, FOLDS, SEED = 3, 10, 0
ZD = 0.0  # explicit zero_division: the report states its policy and stays silent


def cube_of(model, X, y) -> xr.Dataset:
    """Repeated stratified k-fold predictions of one model, as a counts cube."""
    frame = cvframe.cross_validate(
        model,
        X,
        y,
        cv=FOLDS,
        repeats=REPEATS,
        stratified=True,
        random_state=SEED,
        scores=False,
        n_jobs=1,
    )
    return frame.cv.counts()


def fmt(s: xr.Dataset) -> pd.Series:
    """'mean [ci_low, ci_high]' per model."""
    return pd.Series(
        {
            m: f"{s['mean'].sel(model=m).item():.4f} "
            f"[{s['ci_low'].sel(model=m).item():.4f}, "
            f"{s['ci_high'].sel(model=m).item():.4f}]"
            for m in s.model.values
        }
    )


def main() -> None:
    start = time.perf_counter()
    X, y = load_digits(return_X_y=True)
    models = {
        "LogisticRegression": make_pipeline(
            StandardScaler(), LogisticRegression(C=0.1, max_iter=500)
        ),
        "GaussianNB": GaussianNB(),
    }
    # The fits are tiny: one BLAS/OpenMP thread each avoids oversubscribing a busy machine
    # (multithreaded BLAS made this script 20x slower on 2 shared cores).
    with threadpool_limits(limits=1):
        cubes = [cube_of(m, X, y) for m in models.values()]
    ds = xr.concat(cubes, dim="model", join="exact").assign_coords(model=list(models))
    cvframe.validate(ds)

    print(
        f"OVA report: digits ({len(y)} samples, {ds.sizes['class']} classes), "
        f"{REPEATS} x {FOLDS}-fold stratified CV, models {list(models)}"
    )
    print(f"splitter: {ds.attrs.get('splitter', '?')}; zero_division={ZD}")
    print()

    # per-class F by each fold aggregation, mean over repeats
    methods = ds.cv.f_methods(zero_division=ZD)[["f_tp_fp", "f_avg", "f_pr_re"]]
    per_class = methods.mean("repeat").to_array("method").to_series().unstack(["model", "method"])
    per_class = per_class[[(m, k) for m in models for k in ("f_tp_fp", "f_avg", "f_pr_re")]]
    print(f"per-class F by fold aggregation (mean over {REPEATS} repeats)")
    print(per_class.round(4).to_string())
    print()

    # class averages: each a DataArray over (model, repeat), summarised across repeats
    results = {
        "macro F (tp_fp, mean of class F)": ds.cv.macro("f", zero_division=ZD),
        "macro F (tp_fp, F of macro P, R)": ds.cv.macro(
            "f", definition="f_of_means", zero_division=ZD
        ),
        "macro F (avg over folds)": ds.cv.macro("f", "avg", zero_division=ZD),
        "macro F (pr_re)": ds.cv.macro("f", "pr_re", zero_division=ZD),
        "macro precision (tp_fp)": ds.cv.macro("precision", zero_division=ZD),
        "macro recall (tp_fp)": ds.cv.macro("recall", zero_division=ZD),
        "micro F (tp_fp) = accuracy": ds.cv.micro("f", zero_division=ZD),
        "weighted F (tp_fp)": ds.cv.weighted("f", zero_division=ZD),
        "weighted F (avg over folds)": ds.cv.weighted("f", "avg", zero_division=ZD),
        "kappa (pooled confusion)": ds.cv.kappa(zero_division=ZD),
        "kappa (avg over folds)": ds.cv.kappa("avg", zero_division=ZD),
    }
    summaries = {name: ds.cv.summary(res) for name, res in results.items()}
    table = pd.DataFrame({name: fmt(s) for name, s in summaries.items()}).T
    print(
        f"class averages: mean over repeats [95% spread across the {REPEATS} repeats' "
        "partitions: ci_low, ci_high; not an interval for the metric, see cvframe.interval]"
    )
    print(table.to_string())
    print()

    std = pd.DataFrame({name: s["std"].to_series() for name, s in summaries.items()}).T
    print("std across repeats (ddof=1)")
    print(std.map(lambda v: f"{v:.4f}").to_string())
    print()

    # the apples-to-apples point, in one line per model
    for m in models:
        one = methods.sel(model=m).mean("class")
        spread = float(one.to_array().max("variable").max() - one.to_array().min("variable").min())
        print(
            f"{m}: class-mean F ranges over {spread:.4f} across fold aggregations and "
            f"repeats; the recommended f_tp_fp macro F is "
            f"{summaries['macro F (tp_fp, mean of class F)']['mean'].sel(model=m).item():.4f}"
        )
    acc = ds.cv.accuracy(how="pooled", zero_division=ZD).mean("repeat")
    assert np.allclose(acc.values, results["micro F (tp_fp) = accuracy"].mean("repeat").values)
    print(f"\ndone in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
