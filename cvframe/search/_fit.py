"""How a :class:`~cvframe.search.PooledSearchCV` scores its candidates once they are fitted:
the predictions frame and counts cube of the test (and training) sets over ``param``, every
scoring's pooled and per-fold values, and ``cv_results_`` from them. ``search`` is the
estimator (its ``beta``, ``zero_division``, ``error_score``, ``return_train_score`` and
resolved scorings)."""

from __future__ import annotations

import warnings
from typing import Any, cast

import numpy as np
import pandas as pd
import xarray as xr

from .. import measure
from .._core import checks as _checks
from ..build.predictions import frame_cube
from ..schema import FOLD, REPEAT
from . import _frame
from ._frame import PARAM, Scoring

__all__ = ["evaluate", "metric", "scores", "subset_cube"]


def evaluate(
    search: Any,
    all_params: list[dict[str, Any]],
    all_out: list[list[dict[str, Any]]],
    design: _frame.Design,
) -> dict[str, Any]:
    """Scores of every candidate (NaN, or ``error_score``, for those with a failed fit),
    its cube and frame; the training scores with ``return_train_score``."""
    good = [i for i, row in enumerate(all_out) if not any("error" in o for o in row)]
    n, k = len(all_params), len(design.splits)
    fit_t = np.array([[o["fit_time"] for o in row] for row in all_out])
    score_t = np.array([[o["score_time"] for o in row] for row in all_out])
    if not good:  # every candidate failed: fit() raises with the failures
        nan = np.full(n, np.nan)
        failed = _frame.cv_results(all_params, fit_t, score_t, np.full((n, k), np.nan), nan)
        return {"results": failed, "cube": None, "frame": None}
    kept = [all_params[i] for i in good]
    built, scored = {}, {}
    fill = np.nan if isinstance(search.error_score, str) else float(search.error_score)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for subset in ("test", "train") if search.return_train_score else ("test",):
            built[subset] = subset_cube(search, kept, [all_out[i] for i in good], design, subset)
            for key, scoring in search._scorings.items():
                pooled, per_fold = scores(search, *built[subset], design, scoring)
                full_pooled, full_per = np.full(n, fill), np.full((n, per_fold.shape[1]), fill)
                full_pooled[good], full_per[good] = pooled, per_fold
                scored[subset, key] = (full_per, full_pooled)
    _frame.rewarn(caught)
    results: dict[str, Any] = {}
    for key in search._scorings:
        train = scored.get(("train", key))
        part = _frame.cv_results(all_params, fit_t, score_t, *scored["test", key], train, key)
        results.update(part)
    frame, cube = built["test"]
    return {"results": results, "cube": cube, "frame": frame}


def subset_cube(
    search: Any,
    params: list[dict[str, Any]],
    outs: list[list[dict[str, Any]]],
    design: _frame.Design,
    subset: str,
) -> tuple[pd.DataFrame, xr.Dataset]:
    """The predictions frame of ``subset`` and its counts cube over ``param``."""
    frame = _frame.predictions(_frame.param_labels(params), outs, design, subset)
    labels = None if design.task == "binary" else design.universe
    beta = _checks.beta(search.beta) if design.task == "multilabel" else 1.0
    cube = frame_cube(frame, labels=labels, pos_label=design.pos, dims=[PARAM], beta=beta)
    return frame, cube.assign_coords(_frame.param_coords(params))


def scores(
    search: Any, frame: pd.DataFrame, cube: xr.Dataset, design: _frame.Design, scoring: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Pooled score (mean over repeats) and per-fold scores (param x split) of the frame
    by one scoring."""
    if isinstance(scoring, Scoring) and scoring.entry.kind == "score":
        average = scoring.average  # one ranking of the merged folds, and per fold
        if scoring.entry.probabilities and design.task != "binary" and average is None:
            average = "multiclass"  # the score of the whole probability vector
        labels = None if design.task == "binary" else design.universe
        kw = {"average": average, "labels": labels, "pos_label": design.pos}
        pooled: Any = []
        per = []
        for name in frame[PARAM].cat.categories:
            part = frame[frame[PARAM] == name].drop(columns=PARAM)
            merged, fold = (
                _frame.finish(
                    measure.frame(part, scoring.metric, how, "nan", **kw), "scoring", False
                )
                for how in ("merge", "fold")
            )
            pooled.append(scoring.sign * float(merged.mean(REPEAT)))
            per.append(scoring.sign * fold.transpose(REPEAT, FOLD).values.ravel())
        per_fold = np.array(per)
    else:
        pooled = metric(search, cube, scoring).mean(REPEAT).values
        k = len(design.splits) // design.n_rep
        folds = [metric(search, cube.isel({FOLD: [i]}), scoring) for i in range(k)]
        per_da = xr.concat(folds, dim=FOLD).transpose(PARAM, REPEAT, FOLD)
        per_fold = per_da.values.reshape(cube.sizes[PARAM], -1)
    return np.asarray(pooled, dtype=float), per_fold


def metric(search: Any, ds: xr.Dataset, scoring: Any) -> xr.DataArray:
    """A scoring's value of a cube over its folds: dims (param, repeat)."""
    zd, b = search.zero_division, _checks.beta(search.beta)
    if callable(scoring):
        out = scoring(ds)
        if not isinstance(out, xr.DataArray):
            raise TypeError(
                f"scoring returned {type(out).__name__}; a callable scoring must return "
                "an xarray.DataArray over param (and repeat)."
            )
        return _frame.finish(out, "scoring")
    s = cast(Scoring, scoring)
    out = measure.cube(ds, s.metric, "tp_fp", s.average, beta=b, zero_division=zd)
    return _frame.finish(s.sign * out, "scoring")
