"""Intervals over per-fold values and from nested cross-validation.

:func:`corrected_t`: the mean of per-fold values and Nadeau & Bengio's corrected t interval
over the folds of (repeated) CV, with the correction of
:func:`~cvframe.intervals.shared.corrected_moments` (the one ``compare(test="corrected_t")``
uses); :func:`nested`: the interval of Bates,
Hastie & Tibshirani (2024) from the estimates ``cvframe.cross_validate(..., nested=R)``
records in ``attrs["nested_cv"]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from .. import metrics
from .._core import labels as _labels
from .._core.quantiles import t_quantile, z_quantile
from ..errors import few
from ..schema import CLASS, FOLD, FRAME_DIMS, REPEAT, read_counts
from .shared import corrected_moments


def _one(ds: xr.Dataset, v: xr.DataArray) -> tuple[xr.Dataset, xr.DataArray, str]:
    """A dim to hand to :func:`moments` (it reads the fold sizes of the first entry of it)."""
    for d in ("model", *FRAME_DIMS):
        if d in v.dims and d in ds.dims:
            return ds, v, d
    return ds.expand_dims("_one"), v.expand_dims("_one"), "_one"


def corrected_t(
    ds: xr.Dataset, v: xr.DataArray, name: str, level: float, bounds: tuple[float, float]
) -> tuple[xr.DataArray, xr.DataArray, xr.DataArray, dict[str, Any]]:
    """Mean of the per-fold values ``v`` and its Nadeau-Bengio corrected t interval, clipped
    to the metric's range ``bounds``."""
    real = read_counts(ds).is_fold
    real = real if CLASS in v.dims else real.any(CLASS)
    bad = v.isnull() & real
    if bool(bad.any()):
        raise ValueError(
            f"method='corrected_t' needs {name} on every fold, but it is undefined on "
            f"{int(bad.sum())} fold(s) ({few(np.argwhere(bad.values).tolist())}): pass "
            "zero_division=0.0 (the fold-average convention), use stratified folds, or use "
            "the pooled metric (fold_method=None)."
        )
    obs = v.notnull().sum([d for d in (REPEAT, FOLD) if d in v.dims])
    if int(obs.min()) < 2:
        raise ValueError(
            f"method='corrected_t' needs at least two folds (got {int(obs.min())}): a single "
            "fold has no spread to estimate; run k-fold cross-validation, or use the pooled "
            "metric's interval (fold_method=None)."
        )
    cube, vals, dim = _one(ds, v)
    mean, se, df, info = corrected_moments(vals, cube, dim, "corrected_t")
    if dim == "_one":
        mean, se, df = (x.squeeze("_one", drop=True) for x in (mean, se, df))
    q = t_quantile(level, df)
    info = {k: info[k] for k in ("n_test", "n_train", "test_train_ratio", "n_folds_used")}
    low, high = bounds
    info["bounds"] = f"mean +- t * se, clipped to [{low:g}, {high:g}] (the metric's range)"
    return mean, (mean - q * se).clip(low, high), (mean + q * se).clip(low, high), info


def _one_name(name: Any) -> Any:
    """A metric name as the registry resolves it (``"error_rate"`` -> ``"error"``)."""
    try:
        return metrics.resolve(name).metric
    except ValueError:
        return name


def nested(data: Any, metric: str, level: float) -> tuple[xr.Dataset, dict[str, Any]]:
    """Nested CV's ``estimate - bias +- z se`` per model from ``data.attrs["nested_cv"]``."""
    table = getattr(data, "attrs", {}).get("nested_cv")
    if not table:
        raise ValueError(
            "method='nested' reads the nested cross-validation estimates in "
            "data.attrs['nested_cv'], which this data does not have: run "
            "cvframe.cross_validate(..., nested=...) and pass its result."
        )
    names = list(table)
    asked = [table[m].get("metric") for m in names]
    if any(_one_name(a) != _one_name(metric) for a in asked):
        raise ValueError(
            f"metric={metric!r}, but the nested cross-validation estimated "
            f"{few(sorted(set(map(str, asked))))}; pass metric= that metric."
        )
    rows = [table[m] for m in names]
    est, bias, se = (np.array([float(r[k]) for r in rows]) for k in ("estimate", "bias", "se"))
    centre, half = est - bias, z_quantile(level) * se
    try:  # a metric of the registry has its range; the runner's error rate is a share
        low, top = metrics.get(metric).bounds
    except ValueError:
        low, top = 0.0, 1.0
    lower, upper = np.clip(centre - half, low, top), np.clip(centre + half, low, top)
    data = {k: ("model", v) for k, v in (("estimate", est), ("lower", lower), ("upper", upper))}
    out = xr.Dataset(data, coords={"model": _labels.coord(names)})
    has_model = "model" in getattr(data, "dims", ()) or "model" in getattr(data, "columns", ())
    if len(names) == 1 and not has_model:
        out = out.isel(model=0, drop=True)
    fits = sum(int(r.get("fits", 0)) for r in rows)
    info = {
        "fits": fits,
        "n_train": int(rows[0].get("n_train", 0)),
        "repeats": int(rows[0].get("repeats", 0)),
        "centre": "estimate - bias (the interval is centred on the bias-corrected value)",
        "bounds": f"estimate - bias +- z * se, clipped to [{low:g}, {top:g}]",
    }
    return out, info
