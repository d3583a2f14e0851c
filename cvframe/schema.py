"""The counts cube: names of its dimensions and variables, and :func:`validate`.

A counts cube is an :class:`xarray.Dataset` with integer variables ``tp``, ``fp``, ``fn``,
``tn`` over ``(..., fold, class)`` — the one-vs-all outcome of every class on every fold's
test set — plus optional ``confusion`` over ``(..., fold, true, pred)``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .errors import CountsError, few

__all__ = [
    "CLASS", "COUNTS", "FOLD", "PRED", "REPEAT", "SUBSET", "TRIAL", "TRUE", "CONFUSION",
    "TASKS", "validate", "is_lazy",
]

FOLD = "fold"
CLASS = "class"
REPEAT = "repeat"
TRIAL = "trial"
TRUE = "true"
PRED = "pred"
SUBSET = "subset"
CONFUSION = "confusion"
COUNTS = ("tp", "fp", "fn", "tn")
TASKS = ("binary", "multiclass", "multilabel")


def is_lazy(obj: Any) -> bool:
    """True when ``obj`` (a DataArray or Dataset) holds dask arrays."""
    if isinstance(obj, xr.Dataset):
        return any(is_lazy(v) for v in obj.data_vars.values())
    return getattr(obj, "chunks", None) is not None


def check_structure(ds: Any, need_fold: bool = True) -> None:
    """Cheap checks every accessor method runs: a Dataset with the four counts over fold × class.

    Values are not read (so dask-backed cubes stay lazy); :func:`validate` reads them.
    ``need_fold=False`` accepts a cube whose folds were already pooled (per-cell metrics).
    """
    if not isinstance(ds, xr.Dataset):
        raise TypeError(
            f"ds must be an xarray.Dataset of counts, got {type(ds).__name__}; build one with "
            "cvframe.from_predictions, from_counts or from_confusion."
        )
    missing = [v for v in COUNTS if v not in ds.data_vars]
    if missing:
        raise CountsError(
            f"ds is missing count variable(s) {missing}; a counts cube needs all of "
            f"{list(COUNTS)} (missing counts are never assumed to be 0)."
        )
    for v in COUNTS:
        dims = ds[v].dims
        for d in (FOLD, CLASS) if need_fold else (CLASS,):
            if d not in dims:
                raise CountsError(
                    f"ds[{v!r}] has no {d!r} dimension (dims {dims}); every count variable is "
                    f"over (..., {FOLD!r}, {CLASS!r}). Rename yours with ds.rename(...)."
                )
    dims0 = set(ds["tp"].dims)
    for v in COUNTS[1:]:
        if set(ds[v].dims) != dims0:
            raise CountsError(
                f"ds[{v!r}] has dims {ds[v].dims} but ds['tp'] has {ds['tp'].dims}; all four "
                "counts must share the same dimensions."
            )
    for d in (FOLD, CLASS) if need_fold else (CLASS,):
        if ds.sizes[d] == 0:
            raise CountsError(f"ds has zero {d!r} entries; a counts cube needs at least one.")
        if d in ds.indexes:
            idx = ds.indexes[d]
            if idx.has_duplicates:
                dup = idx[idx.duplicated()].unique()
                raise CountsError(
                    f"coordinate {d!r} has duplicated labels {few(dup)}; each {d} must appear "
                    "once (sum duplicated rows first, or give them distinct labels)."
                )


def validate(ds: xr.Dataset) -> xr.Dataset:
    """Check that ``ds`` is a well-formed counts cube and return it unchanged.

    Checks, each with a message naming the variable, the places and the values:

    - the four count variables ``tp``, ``fp``, ``fn``, ``tn`` exist over ``fold`` and ``class``
      with the same dims, and the ``fold``/``class`` labels are unique;
    - counts are integers (or integral floats for weighted cubes), finite and ``>= 0``;
    - every class of a fold sees the same number of test samples ``tp + fp + fn + tn``;
    - single-label tasks (``task`` attr "binary" or "multiclass" with all classes present):
      ``sum(fp) == sum(fn)`` over classes of a fold;
    - ``confusion``, when present, implies exactly the four counts.

    Parameters
    ----------
    ds : xarray.Dataset
        The counts cube.

    Returns
    -------
    xarray.Dataset
        ``ds`` itself, so ``validate`` can be chained.

    Raises
    ------
    CountsError
        Naming the first problem found (and every offending place for it).

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.datasets.table1()
    >>> cvframe.validate(ds) is ds
    True
    >>> bad = ds.copy()
    >>> bad["fp"] = -bad["fp"]
    >>> cvframe.validate(bad)
    Traceback (most recent call last):
    ...
    cvframe.errors.CountsError: fp has 3 negative values at fold=[1, 2, 3]...
    """
    check_structure(ds)
    weighted = ds.attrs.get("weighted") == "yes"
    for v in COUNTS:
        _check_values(ds[v], v, weighted)
    counts = {v: ds[v].astype("float64") if weighted else ds[v] for v in COUNTS}
    n = counts["tp"] + counts["fp"] + counts["fn"] + counts["tn"]
    n_max, n_min = n.max(CLASS), n.min(CLASS)
    bad = np.asarray(n_max != n_min) if not weighted else np.asarray(~np.isclose(n_max, n_min))
    if bad.any():
        raise CountsError(
            "tp + fp + fn + tn differs across classes of one fold at "
            f"{_where(n_max != n_min)}: every class of a fold counts the same test samples "
            "(rebuild the cube from predictions, or fix the counts of the listed folds)."
        )
    if ds.attrs.get("task") in ("multiclass",) and not weighted:
        dfp, dfn = counts["fp"].sum(CLASS), counts["fn"].sum(CLASS)
        if bool((dfp != dfn).any()):
            raise CountsError(
                f"sum of fp over classes differs from sum of fn at {_where(dfp != dfn)}; in "
                "single-label multiclass data every error is one fp and one fn. Set "
                "ds.attrs['task'] = 'multilabel' if samples can carry several labels."
            )
    if CONFUSION in ds.data_vars:
        _check_confusion(ds, weighted)
    return ds


def _check_values(da: xr.DataArray, name: str, weighted: bool) -> None:
    kind = da.dtype.kind
    if kind not in "iuf":
        raise CountsError(
            f"{name} has dtype {da.dtype}; counts must be integers (int64). Convert with "
            f"ds[{name!r}] = ds[{name!r}].astype('int64') if the values are whole numbers."
        )
    values = da.values
    if kind == "f":
        finite = np.isfinite(values)
        if not finite.all():
            raise CountsError(
                f"{name} has {int((~finite).sum())} NaN or infinite values at "
                f"{_where(~np.isfinite(da))}; counts must be finite non-negative integers."
            )
        if not weighted and not (values == np.round(values)).all():
            frac = values[values != np.round(values)]
            raise CountsError(
                f"{name} has fractional values {few(frac)} at "
                f"{_where(da != np.round(da))}; counts must be whole numbers "
                "(weighted cubes are built with from_predictions(sample_weight=...))."
            )
    if (values < 0).any():
        neg = da < 0
        raise CountsError(
            f"{name} has {int(neg.sum())} negative values at {_where(neg)}; counts must be "
            "non-negative integers."
        )


def _check_confusion(ds: xr.Dataset, weighted: bool) -> None:
    conf = ds[CONFUSION]
    for d in (TRUE, PRED):
        if d not in conf.dims:
            raise CountsError(
                f"confusion has dims {conf.dims}; it must be over (..., {FOLD!r}, {TRUE!r}, "
                f"{PRED!r})."
            )
    _check_values(conf, CONFUSION, weighted)
    labels = pd.Index(ds.indexes[TRUE]) if TRUE in ds.indexes else pd.RangeIndex(conf.sizes[TRUE])
    classes = list(ds[CLASS].values)
    pos = labels.get_indexer(classes)
    if (pos < 0).any():
        raise CountsError(
            f"class labels {few(np.asarray(classes, dtype=object)[pos < 0])} are not among "
            f"confusion's 'true' labels {few(labels)}; rebuild the cube with from_confusion."
        )
    conf = conf.transpose(..., TRUE, PRED)
    arr = conf.values
    diag = np.diagonal(arr, axis1=-2, axis2=-1)
    implied = {"tp": diag, "fp": arr.sum(axis=-2) - diag, "fn": arr.sum(axis=-1) - diag}
    other = [d for d in conf.dims if d not in (TRUE, PRED)]
    for v, exp in implied.items():
        have = ds[v].transpose(*other, CLASS).values
        diff = have != exp[..., pos]
        if diff.any():
            mask = xr.DataArray(diff, dims=(*other, CLASS),
                                coords={d: ds[d] for d in (*other, CLASS) if d in ds.coords})
            raise CountsError(
                f"{v} disagrees with what confusion implies at {_where(mask)}; rebuild the "
                "cube with cvframe.from_confusion or drop the confusion variable."
            )


def _where(mask: Any, show: int = 5) -> str:
    """Describe where a boolean DataArray is True, as "fold=[1, 3], class=['a']"."""
    if not isinstance(mask, xr.DataArray):
        return ""
    mask = mask.load() if hasattr(mask, "load") else mask
    idx = np.argwhere(np.asarray(mask))
    parts = []
    for axis, dim in enumerate(mask.dims):
        coord = mask[dim].values if dim in mask.coords else np.arange(mask.sizes[dim])
        vals = list(dict.fromkeys(coord[i] for i in idx[:, axis]))
        parts.append(f"{dim}={few(vals, show)}")
    return ", ".join(parts)
