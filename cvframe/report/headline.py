"""The report's first screen: each headline number with its interval, method and estimand
(:func:`headline_table`), and the sd across repeats labelled as what it is (:data:`SPREAD_NOTE`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import measure, metrics, repeats
from ..intervals import interval
from ..schema import CLASS, REPEAT, SUBSET
from ._common import binary

__all__ = ["SPREAD_NOTE", "auc_interval", "headline_table"]

#: How the report labels the spread across repeats.
SPREAD_NOTE = (
    "sd across repeats: how much the number moves with the partition of this data (the "
    "repeats re-use the same samples), not an interval for the metric"
)

#: The headline metric of the counts (its pooled variant, macro over the classes of a
#: multiclass cube) and of the scores (the merged folds).
HEADLINE = "f"
HEADLINE_SCORES = "auc"
#: Columns of :func:`headline_table` after the user dims.
COLUMNS = (
    "metric",
    "value",
    "value_ci_low",
    "value_ci_high",
    "interval",
    "coverage",
    "coverage_se",
    "sd_repeats",
    "repeats",
)


def _frame(da: xr.DataArray, name: str) -> pd.DataFrame:
    """A DataArray without ``class`` (binary: the positive class) as a frame by its dims."""
    if CLASS in da.dims:
        da = da.isel({CLASS: 0}, drop=True)
    da = da.drop_vars([c for c in da.coords if c not in da.dims])
    if not da.dims:
        return pd.DataFrame({name: [float(da)]})
    return da.rename(name).to_dataframe().reset_index()


def _join(left: pd.DataFrame, right: pd.DataFrame) -> pd.DataFrame:
    """``left`` with ``right``'s columns, on their shared user dims (all rows of ``left``)."""
    on = [c for c in left.columns if c in right.columns and c not in COLUMNS]
    if not on:
        return left.assign(**{c: right[c].iloc[0] for c in right.columns}) if len(right) else left
    return left.merge(right, on=on, how="left")


def _interval_rows(res: xr.Dataset | str, value: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """``value`` with the interval's ends and method (or why there is none, ``res`` a
    string); the method -> estimand legend."""
    out = value.copy()
    if isinstance(res, str):
        out["value_ci_low"] = out["value_ci_high"] = np.nan
        out["coverage"] = out["coverage_se"] = np.nan
        out["interval"] = res
        return out, {}
    ends = _frame(res["lower"], "value_ci_low")
    ends = _join(ends, _frame(res["upper"], "value_ci_high"))
    for name in ("coverage", "coverage_se"):  # the certificate at this design
        ends = (
            _join(ends, _frame(res[name], name)) if name in res else ends.assign(**{name: np.nan})
        )
    est = _frame(res["estimate"], "value")
    if "value" in est.columns:  # the interval's own estimate is the number shown
        out = _join(out.drop(columns="value"), est)
    out = _join(out, ends)
    method = str(res.attrs.get("method", "interval"))
    level = res.attrs.get("level")
    label = f"{float(level):.0%} {method}" if level is not None else method
    out["interval"] = label
    legend = {label: str(res.attrs.get("estimand", ""))}
    if res.attrs.get("reference"):
        legend[label] += f" ({res.attrs['reference']})"
    if res.attrs.get("coverage_design"):
        legend[f"{label} coverage"] = (
            f"the share of data sets whose interval held the truth, "
            f"{res.attrs['coverage_design']}; coverage_se: its Monte-Carlo standard error"
        )
    return out, legend


def _spread(val: xr.DataArray, ds: xr.Dataset) -> pd.DataFrame:
    """The mean over repeats and its sd across repeats (NaN with one repeat), by user dims."""
    if val.sizes.get(REPEAT, 0) >= 2:
        s = repeats.summary(ds, val, dim=REPEAT)
        mean, sd, n = s["mean"], s["std"], int(s["n"])
    else:
        mean = val.isel({REPEAT: 0}, drop=True) if REPEAT in val.dims else val
        sd, n = xr.full_like(mean, np.nan, dtype="float64"), 1
    out = _join(_frame(mean.astype("float64"), "value"), _frame(sd, "sd_repeats"))
    out["repeats"] = n
    return out


def _attempt(data: Any, metric: str, **kw: Any) -> Any:
    """The interval of :func:`cvframe.interval` with its coverage certificate at this design
    (``certify=True``; without it where the certificate cannot be simulated), or the reason
    there is none (a string)."""
    try:
        return interval(data, metric, certify=True, **kw)
    except (ValueError, TypeError):
        pass
    try:
        return interval(data, metric, **kw)
    except (ValueError, TypeError) as err:  # a design the method refuses: say why
        return f"no interval: {err}"


def auc_interval(scores: pd.DataFrame, kw: dict[str, Any], *, level: float, binary: bool) -> Any:
    """The interval of AUC_merge (macro over classes for multiclass) of the predictions
    frame read with ``kw``, or why there is none (a string)."""
    return _attempt(scores, HEADLINE_SCORES, level=level, average=None if binary else "macro", **kw)


def headline_table(
    ds: xr.Dataset,
    *,
    beta: float,
    zero_division: Any,
    level: float,
    auc_merge: xr.DataArray | None = None,
    auc_interval: Any = None,
) -> tuple[pd.DataFrame, dict[str, str]]:
    """The headline numbers with their intervals, and the legend (interval -> estimand).

    One row per model (and other user dims) and metric: F_tp,fp of the positive class
    (binary) or macro F_tp,fp (multiclass), and, when the report has scores, AUC_merge
    (``auc_merge``: the report's AUC_merge per class and repeat, macro over classes for
    multiclass) with ``auc_interval`` (:func:`auc_interval`). Columns: the user dims,
    ``metric``, ``value`` (the interval's estimate; without an interval the mean over
    repeats), ``value_ci_low``, ``value_ci_high`` (the interval of :func:`cvframe.interval`
    at ``level``), ``interval`` (its level and method, or why there is none), ``coverage``
    and ``coverage_se`` (its certificate, ``interval(..., certify=True)``: the coverage
    simulated at this data's own design and its Monte-Carlo standard error; NaN where it
    cannot be simulated), ``sd_repeats`` (sd across repeats, NaN with one) and ``repeats``;
    the legend says how each certificate was simulated.
    """
    if SUBSET in ds.dims:
        ds = ds.sel({SUBSET: "test"}, drop=True)
    average = None if binary(ds) else "macro"
    pooled = metrics.REGISTRY[HEADLINE].pooled
    val = measure.cube(ds, HEADLINE, pooled, average, beta=beta, zero_division=zero_division)
    metric = " ".join(filter(None, [average, metrics.display(HEADLINE, pooled)]))
    kw = {"beta": beta, "zero_division": zero_division, "level": level, "average": average}
    res = _attempt(ds, HEADLINE, **kw)
    rows, legend = _interval_rows(res, _spread(val, ds))
    rows.insert(0, "metric", metric)
    parts = [rows]
    if auc_merge is not None:
        auc = _auc_rows(auc_merge, auc_interval, ds)
        parts.append(auc[0])
        legend.update(auc[1])
    table = pd.concat(parts, ignore_index=True)
    by = [c for c in table.columns if c not in COLUMNS]
    return table[[*by, *COLUMNS]], legend


def _auc_rows(
    merged: xr.DataArray, res: Any, ds: xr.Dataset
) -> tuple[pd.DataFrame, dict[str, str]]:
    """The AUC_merge row(s) of the headline table with their interval (or why none)."""
    if CLASS in merged.dims and merged.sizes[CLASS] > 1:
        merged = merged.mean(CLASS)
    rows, legend = _interval_rows("no interval" if res is None else res, _spread(merged, ds))
    rows.insert(0, "metric", metrics.display(HEADLINE_SCORES, "merge"))
    return rows, legend
