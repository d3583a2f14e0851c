"""What a search builds and reports: the predictions frame (one row per candidate and tested
sample), the ``param`` coordinates of its cube, its scores as (param, repeat[, fold]), its
metric warnings as one, and ``cv_results_`` in scikit-learn's format."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import xarray as xr

from .. import _labels
from ..errors import UndefinedMetricWarning, user_stacklevel
from ..runner import align_scores, param_label
from ..schema import CLASS, FOLD, REPEAT

#: Name of the candidate dimension of ``cube_`` and of the column of ``predictions_``.
PARAM = "param"


def short(value: Any) -> str:
    if hasattr(value, "get_params") and not isinstance(value, type):
        return f"{type(value).__name__}()"
    if callable(value):
        return getattr(value, "__name__", type(value).__name__)
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def param_labels(all_params: Sequence[Mapping[str, Any]]) -> list[str]:
    """One unique label per candidate, as :func:`cvframe.runner.param_label` writes them."""
    labels = [param_label(p) for p in all_params]
    seen: dict[str, int] = {}
    out = []
    for lab in labels:
        seen[lab] = seen.get(lab, 0) + 1
        out.append(lab if labels.count(lab) == 1 else f"{lab} #{seen[lab]}")
    return out


def param_coords(all_params: Sequence[Mapping[str, Any]]) -> dict[str, tuple[str, np.ndarray]]:
    """``param_<name>`` coordinates: numbers stay numbers, anything else its readable text."""
    coords = {}
    for key in dict.fromkeys(k for p in all_params for k in p):
        values = [p.get(key) for p in all_params]
        if all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in values):
            arr = np.array(values, dtype=float)
        else:
            arr = np.array([short(p[key]) if key in p else "" for p in all_params], dtype=object)
        coords[f"param_{key}"] = (PARAM, arr)
    return coords


class Design(NamedTuple):
    """What every candidate of one search shares: the splits and the labels."""

    splits: list[tuple[np.ndarray, np.ndarray]]
    n_rep: int
    y: np.ndarray
    universe: list[Hashable]
    pos: Hashable | None
    task: str
    method: str | None


def predictions(names: list[str], all_out: list[list[dict[str, Any]]], d: Design) -> pd.DataFrame:
    """The out-of-fold predictions of every candidate, one row per (candidate, tested sample)."""
    splits, y, universe, pos, method = d.splits, d.y, d.universe, d.pos, d.method
    k = len(splits) // d.n_rep
    sizes = np.array([te.size for _, te in splits])
    test = np.concatenate([te for _, te in splits])
    rep = np.repeat(np.arange(len(splits)) // k, sizes)
    fold = np.repeat(np.arange(len(splits)) % k, sizes)
    n_c = len(names)
    cols: dict[str, Any] = {
        PARAM: pd.Categorical.from_codes(np.repeat(np.arange(n_c), test.size), categories=names),
        REPEAT: np.tile(rep, n_c),
        FOLD: np.tile(fold, n_c),
        "sample": np.tile(test, n_c).astype(np.int64),
        "y_true": np.tile(y[test], n_c),
        "y_pred": np.concatenate([o["test"][0] for row in all_out for o in row]),
    }
    if method is not None:
        wanted = [pos] if pos is not None else universe
        fits = [o for row in all_out for o in row]
        s = np.concatenate(
            [align_scores(o["test"][1], o["classes"], wanted, method)[0] for o in fits]
        )
        score_cols = ["score"] if pos is not None else [f"score_{c}" for c in universe]
        cols.update({c: s[:, j] for j, c in enumerate(score_cols)})
    frame = pd.DataFrame(cols)
    frame.attrs.update(task=d.task, scores=method or "none")
    if pos is not None:
        _labels.write_pos_label(frame, pos)
    else:
        frame.attrs["labels"] = list(universe)
    return frame


def finish(out: xr.DataArray, name: str, param: bool = True) -> xr.DataArray:
    """A scoring result as (param, repeat): a length-1 ``class`` dim is dropped."""
    if CLASS in out.dims:
        if out.sizes[CLASS] != 1:
            raise ValueError(
                f"{name} returned a value per class ({out.sizes[CLASS]} classes); pass "
                "average='macro', 'micro' or 'weighted' (or reduce class in the callable)."
            )
        out = out.isel({CLASS: 0}, drop=True)
    if REPEAT not in out.dims:
        out = out.expand_dims(REPEAT)
    extra = [d for d in out.dims if d not in (PARAM, REPEAT, FOLD)]
    if extra or (param and PARAM not in out.dims):
        raise ValueError(
            f"{name} returned dims {tuple(out.dims)}; it must reduce every dim but "
            f"'{PARAM}' and '{REPEAT}' (and '{FOLD}' for per-fold values)."
        )
    return out.transpose(*[d for d in (PARAM, REPEAT, FOLD) if d in out.dims])


def rewarn(caught: list[warnings.WarningMessage]) -> None:
    """The metric warnings of one fit as one UndefinedMetricWarning; others pass through."""
    inner = [w for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    for w in caught:
        if not issubclass(w.category, UndefinedMetricWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if inner:
        more = (
            f" ({len(inner) - 1} more such warnings of the pooled and per-fold scores combined)"
            if len(inner) > 1
            else ""
        )
        warnings.warn(
            f"PooledSearchCV: {inner[0].message}{more}",
            UndefinedMetricWarning,
            stacklevel=user_stacklevel(),
        )


def masked(values: list[Any], present: list[bool]) -> np.ma.MaskedArray:
    try:
        arr = np.array([v if p else 0 for v, p in zip(values, present, strict=True)])
        if arr.dtype.kind not in "biufU" or arr.ndim != 1:
            raise ValueError
    except (ValueError, TypeError):
        arr = np.empty(len(values), dtype=object)
        arr[:] = values
    return np.ma.MaskedArray(arr, mask=[not p for p in present])


def rank(scores: np.ndarray) -> np.ndarray:
    """1 for the highest score, ties share the lowest rank, NaN ranks last (as scikit-learn)."""
    from scipy.stats import rankdata

    s = np.asarray(scores, dtype=float)
    if np.isnan(s).all():
        return np.ones(len(s), dtype=np.int32)
    s = np.where(np.isnan(s), np.nanmin(s) - 1, s)
    return rankdata(-s, method="min").astype(np.int32)


def cv_results(
    all_params: list[dict[str, Any]],
    fit_t: np.ndarray,
    score_t: np.ndarray,
    per_fold: np.ndarray,
    pooled: np.ndarray,
) -> dict[str, Any]:
    results: dict[str, Any] = {
        "mean_fit_time": fit_t.mean(axis=1),
        "std_fit_time": fit_t.std(axis=1),
        "mean_score_time": score_t.mean(axis=1),
        "std_score_time": score_t.std(axis=1),
    }
    for key in dict.fromkeys(k for p in all_params for k in p):
        results[f"param_{key}"] = masked(
            [p.get(key) for p in all_params], [key in p for p in all_params]
        )
    results["params"] = list(all_params)
    for i in range(per_fold.shape[1]):
        results[f"split{i}_test_score"] = per_fold[:, i]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        results["mean_test_score"] = per_fold.mean(axis=1)
        results["std_test_score"] = per_fold.std(axis=1)
    results["rank_mean_test_score"] = rank(results["mean_test_score"])
    results["pooled_test_score"] = np.asarray(pooled, dtype=float)
    results["rank_test_score"] = rank(pooled)
    return results
