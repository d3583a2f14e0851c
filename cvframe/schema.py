"""The counts cube: names of its dimensions and variables, how it is read, and :func:`validate`.

A counts cube is an :class:`xarray.Dataset` with integer variables ``tp``, ``fp``, ``fn``,
``tn`` over ``(..., fold, class)`` — the one-vs-all outcome of every class on every fold's
test set — plus optional ``confusion`` over ``(..., fold, true, pred)``. Weighted cubes
(``attrs["weighted"] == "yes"``) hold float sums of sample weights instead.

**Not-a-fold cells.** A cell (fold × class × other dims) whose four counts are all 0 (no test
samples, e.g. a repeat padded to another repeat's folds) or all NaN (the padding
``xr.concat``/``xr.merge`` make for cubes with different folds) is not a fold: every
fold-averaged aggregation leaves it out of its mean and pooled sums treat it as 0. A cell
where some counts are NaN and others are not is an error. :func:`read_counts` is the one
place this rule is read.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ._core import checks as _checks
from ._core.counts_check import (
    checked_sum,
    checked_values,
    guard,
    is_lazy,
    numeric,
    where_text,
)
from .errors import CountsError, few

__all__ = [
    "CLASS",
    "FRAME_DIMS",
    "COUNTS",
    "FOLD",
    "PRED",
    "REPEAT",
    "SUBSET",
    "TRIAL",
    "TRUE",
    "CONFUSION",
    "DUPLICATE",
    "TASKS",
    "Counts",
    "check_structure",
    "is_binary",
    "is_lazy",
    "provenance",
    "read_counts",
    "validate",
    "where_text",
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
#: The predictions-frame column that marks a test row equal to a row of its training set
#: (written by ``cross_validate``, read by ``anomalies``).
DUPLICATE = "train_duplicate"
#: Columns of a predictions frame that become dimensions of the cube (and of score results)
#: when present: several models, parameter candidates, data sets, train/test subsets.
FRAME_DIMS = ("model", "param", "dataset", "subset")
TASKS = ("binary", "multiclass", "multilabel")
#: Relative tolerance of the sums of weighted (float) cubes, as a share of a fold's total.
WEIGHT_RTOL = 1e-9


def is_binary(ds: xr.Dataset) -> bool:
    """True for a binary cube: ``task="binary"`` and a ``class`` dim holding the positive only."""
    return ds.attrs.get("task") == "binary" and ds.sizes.get(CLASS) == 1


def provenance(
    da: xr.DataArray, method: str, dims: Sequence[Hashable] = (), **extra: Any
) -> xr.DataArray:
    """Attach the attrs that say how a number was computed (netCDF-safe types only).

    ``method`` and the reduced ``dims`` (``reduced_dims="fold,class"``) first, then every
    ``extra`` that is not None: ``zero_division`` is written as "warn", "0.0", "1.0" or
    "nan", booleans as "yes"/"no". The DataArray is renamed ``method`` and returned.
    """
    attrs: dict[str, Any] = {"method": method}
    if dims:
        attrs["reduced_dims"] = ",".join(map(str, dims))
    for key, value in extra.items():
        if value is None:
            continue
        if key == "zero_division":
            value = _checks.zero_division_attr(value)
        elif isinstance(value, (bool, np.bool_)):
            value = "yes" if value else "no"
        attrs[key] = value
    da.attrs = attrs
    da.name = method
    return da


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


# --- reading the counts ----------------------------------------------------------------------


class Counts:
    """The four counts of a cube as every aggregation reads them (see :func:`read_counts`).

    Attributes ``tp``, ``fp``, ``fn``, ``tn`` (int64, or float64 for weighted and NaN-padded
    cubes, NaN replaced by 0; each computed on first use) and ``is_fold`` (bool, False where
    the cell is not a fold). ``padded`` is True when some cell is not a fold, False when none
    is, and None for a lazy cube (not computed).
    """

    __slots__ = ("_data", "_is_fold", "_padded")

    def __init__(
        self, tp: Any, fp: Any, fn: Any, tn: Any, is_fold: xr.DataArray | None = None
    ) -> None:
        self._data: dict[str, Any] = dict(zip(COUNTS, (tp, fp, fn, tn), strict=False))
        self._is_fold = is_fold
        self._padded: bool | None = None

    def __getitem__(self, name: str) -> xr.DataArray:
        value = self._data[name]
        if callable(value):  # a pooled sum, computed when first read
            value = self._data[name] = value()
        return value

    tp = property(lambda self: self["tp"])
    fp = property(lambda self: self["fp"])
    fn = property(lambda self: self["fn"])
    tn = property(lambda self: self["tn"])

    def as_dict(self) -> dict[str, xr.DataArray]:
        return {v: self[v] for v in COUNTS}

    @property
    def is_fold(self) -> xr.DataArray:
        if self._is_fold is None:
            if all(self[v].dtype.kind == "i" for v in COUNTS):
                self._is_fold = (self.tp | self.fp | self.fn | self.tn) != 0
            else:
                self._is_fold = (self.tp != 0) | (self.fp != 0) | (self.fn != 0) | (self.tn != 0)
        return self._is_fold

    @property
    def padded(self) -> bool | None:
        if self._padded is None and not is_lazy(self.tp):
            self._padded = not bool(self.is_fold.all())
        return self._padded

    @property
    def n(self) -> xr.DataArray:
        """Test size of every cell, float64 (never overflows)."""
        tp, fp, fn, tn = (self[v].astype("float64") for v in COUNTS)
        return tp + fp + fn + tn

    def sum(self, dims: Sequence[Hashable]) -> Counts:
        """Pooled counts along ``dims`` (overflow-checked); a pooled cell is a fold if any was."""
        dims = tuple(dims)
        thunks: list[Any] = [lambda v=v: checked_sum(self[v], dims, v) for v in COUNTS]
        out = Counts(*thunks)
        if self._is_fold is not None:
            out._is_fold = self._is_fold.any(dims)
        return out

    def sum_classes(self) -> Counts:
        """Counts summed over ``class`` within each fold (micro averaging)."""
        out = self.sum((CLASS,))
        out._is_fold = self.is_fold.any(CLASS)
        return out

    def with_negative_class(self, label: Any) -> Counts:
        """Add the negative class of a binary cube: its tp is the positive's tn, its fp the fn."""

        def both(a: str, b: str) -> xr.DataArray:
            neg = self[b].assign_coords({CLASS: [label]}) if CLASS in self[b].coords else self[b]
            return xr.concat(
                [self[a], neg], dim=CLASS, coords="minimal", compat="override", join="override"
            )

        fold = self._is_fold
        if fold is not None:
            fold = xr.concat([fold, fold], dim=CLASS, join="override")
        return Counts(both("tp", "tn"), both("fp", "fn"), both("fn", "fp"), both("tn", "tp"), fold)


def read_counts(ds: xr.Dataset, need_fold: bool = True) -> Counts:
    """The counts of ``ds`` as every aggregation reads them: the one not-a-fold rule.

    Integer counts of any width come back as int64 (so sums and products are computed in
    64 bits); float counts as float64 with all-NaN padding cells set to 0. ``is_fold`` is
    False where all four counts are 0 or all four were NaN. Every value is checked on the
    way in (one pass over each variable), so no aggregation, interval, test or table ever
    computes from a negative, fractional (unless ``attrs["weighted"] == "yes"``), NaN or
    infinite count; a ``confusion`` variable is checked the same way.

    Raises
    ------
    CountsError
        Naming the variable, the places and the values: negative counts, fractional counts
        of an unweighted cube, infinite counts, cells where some counts are NaN and others
        are not, unsigned counts above int64, and non-numeric dtypes. On a dask-backed cube
        the value checks run when the result is computed.

    Examples
    --------
    >>> import xarray as xr, cvframe
    >>> a = cvframe.datasets.table1()
    >>> b = xr.concat([a, a.isel(fold=[0, 1])], dim="repeat", join="outer")  # NaN-padded
    >>> c = read_counts(b)
    >>> c.is_fold.values.ravel().tolist()
    [True, True, True, True, True, True, False, False]
    >>> a["fp"] = a.fp - 1
    >>> read_counts(a)
    Traceback (most recent call last):
    ...
    cvframe.errors.CountsError: fp has 1 negative value at fold=[0], class=[1] (got [-1])...
    """
    c = _read_counts(ds, need_fold)
    if CONFUSION in ds.data_vars:
        _confusion_values(ds, confusion_dims(ds))  # lazy: checked where confusion is read
    return c


def _read_counts(ds: xr.Dataset, need_fold: bool) -> Counts:
    """:func:`read_counts` without the ``confusion`` variable."""
    check_structure(ds, need_fold=need_fold)
    whole = ds.attrs.get("weighted") != "yes"
    raw = {v: numeric(ds[v], v) for v in COUNTS}
    floats = [v for v in COUNTS if raw[v].dtype.kind == "f"]
    out = dict(raw)
    padding = None  # cells whose four counts are all NaN
    if floats:
        lazy = any(is_lazy(raw[v]) for v in floats)
        nan = {v: raw[v].isnull() for v in floats}
        if lazy or any(bool(m.any()) for m in nan.values()):
            all_nan = (
                nan[floats[0]] if len(floats) == len(COUNTS) else xr.zeros_like(nan[floats[0]])
            )
            for v in floats[1:]:
                all_nan = all_nan & nan[v]
            for v in floats:
                partial = nan[v] & ~all_nan
                msg = (
                    f"{v} has NaN or infinite values at {{where}} where other counts of the "
                    "cell are numbers; a cell has either all four counts NaN (padding from "
                    "xr.concat: not a fold) or none. Fill the missing counts, or drop the "
                    "cells; count variables over different folds or classes, put in one "
                    "Dataset, are aligned with NaN: align them first (xr.align(..., "
                    "join='exact'))."
                )
                out[v] = guard(raw[v], partial, msg).fillna(0)  # padding: now all 0, not folds
            padding = all_nan if len(floats) == len(COUNTS) else None
    for v in COUNTS:
        out[v] = checked_values(out[v], v, whole=whole, weighted=not whole)
    if not any(is_lazy(out[v]) for v in COUNTS):
        check_totals(out, padding, weighted=not whole)
        if _single_label_whole(ds):
            check_errors(out, weighted=not whole)
    return Counts(*(out[v] for v in COUNTS))


def _single_label_whole(ds: xr.Dataset) -> bool:
    """A single-label multiclass cube over its whole class universe (its confusion matrix's):
    every error is one fp and one fn. A cube of some classes only (``ds.sel(class=...)``)
    is not checked."""
    if ds.attrs.get("task") != "multiclass" or CONFUSION not in ds.data_vars:
        return False
    return TRUE in ds.sizes and ds.sizes[TRUE] == ds.sizes[CLASS]


def check_errors(counts: dict[str, xr.DataArray], weighted: bool) -> None:
    """Single-label multiclass: ``sum(fp) == sum(fn)`` over the classes of every fold
    (weighted: to a relative 1e-9 of the fold's total), else a CountsError naming the folds."""
    fp, fn = counts["fp"], counts["fn"]
    dfp = np.asarray(fp.sum(CLASS).values, dtype=np.float64)
    dfn = np.asarray(fn.transpose(*fp.dims).sum(CLASS).values, dtype=np.float64)
    n = sum(np.asarray(counts[v].transpose(*fp.dims).values, np.float64) for v in COUNTS)
    scale = np.asarray(n).max(axis=fp.dims.index(CLASS)) if weighted else 0.0
    bad = np.abs(dfp - dfn) > (WEIGHT_RTOL * scale if weighted else 0.5)
    if bad.any():
        keep = [d for d in fp.dims if d != CLASS]
        mask = xr.DataArray(bad, dims=keep, coords={d: fp[d] for d in keep if d in fp.coords})
        raise CountsError(
            f"sum of fp over classes differs from sum of fn at {where_text(mask)}; in "
            "single-label multiclass data every error is one fp and one fn"
            f"{' (weighted: the same sample weight)' if weighted else ''}. Set "
            "ds.attrs['task'] = 'multilabel' if samples can carry several labels."
        )


def check_totals(
    counts: dict[str, xr.DataArray], padding: xr.DataArray | None, weighted: bool
) -> None:
    """Every class of a fold counts the same test samples: ``tp + fp + fn + tn`` is equal
    across ``class`` (weighted: to a relative 1e-9), padding cells (``padding``) aside.

    Summed in float64 (never overflows); unweighted counts below 2**50 are compared exactly.
    """
    tp = counts["tp"]
    dims = tp.dims
    if tp.sizes[CLASS] < 2:
        return
    axis = dims.index(CLASS)
    n = sum(np.asarray(counts[v].transpose(*dims).values, dtype=np.float64) for v in COUNTS)
    assert isinstance(n, np.ndarray)
    if padding is not None:
        pad = np.asarray(padding.transpose(*dims).values)
        hi = np.where(pad, -np.inf, n).max(axis=axis)
        lo = np.where(pad, np.inf, n).min(axis=axis)
    else:
        hi, lo = n.max(axis=axis), n.min(axis=axis)
    rtol = WEIGHT_RTOL if weighted else 4 * np.finfo(np.float64).eps
    bad = (hi - lo) > rtol * np.abs(hi)
    if np.isfinite(hi).any() and bad.any():
        keep = [d for d in dims if d != CLASS]
        mask = xr.DataArray(bad, dims=keep, coords={d: tp[d] for d in keep if d in tp.coords})
        what = (
            "the total weight tp + fp + fn + tn (a sum of sample weights) differs across "
            "classes of one fold by more than 1e-9 of the fold's total"
            if weighted
            else "tp + fp + fn + tn differs across classes of one fold"
        )
        raise CountsError(
            f"{what} at {where_text(mask)}: every class of a fold counts the same test samples "
            "(rebuild the cube from predictions, or fix the counts of the listed folds)."
        )


def _confusion_values(ds: xr.Dataset, conf: xr.DataArray) -> xr.DataArray:
    """``conf`` checked like the four counts; all-NaN matrices (padding) stay NaN."""
    conf = numeric(conf, CONFUSION)
    if conf.dtype.kind == "f":
        nan = conf.isnull()
        if is_lazy(conf) or bool(nan.any()):
            partial = nan.any((TRUE, PRED)) & ~nan.all((TRUE, PRED))
            msg = (
                "confusion has NaN or infinite values at {where} in a matrix that is not all "
                "NaN (padding); fill the matrix."
            )
            conf = guard(conf, partial, msg)
    weighted = ds.attrs.get("weighted") == "yes"
    return checked_values(conf, CONFUSION, whole=not weighted, weighted=weighted, nan_ok=True)


# --- validate --------------------------------------------------------------------------------


def validate(ds: xr.Dataset) -> xr.Dataset:
    """Check that ``ds`` is a well-formed counts cube and return it unchanged.

    Checks, each with a message naming the variable, the places and the values:

    - the four count variables ``tp``, ``fp``, ``fn``, ``tn`` exist over ``fold`` and ``class``
      with the same dims, and the ``fold``/``class`` labels are unique;
    - counts are integers (or integral floats; any non-negative float for weighted cubes),
      finite and ``>= 0``; a cell whose four counts are all NaN is padding (not a fold, as
      ``xr.concat`` of cubes with different folds makes it) and is accepted;
    - every class of a fold sees the same number of test samples ``tp + fp + fn + tn``
      (weighted cubes: the same total weight, to a relative tolerance of 1e-9);
    - single-label multiclass (``task="multiclass"``): ``sum(fp) == sum(fn)`` over classes of
      a fold;
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
    c = read_counts(ds)  # values checked: numeric, finite, >= 0, whole unless weighted
    if is_lazy(c.tp):  # read_counts checks the totals of an eager cube
        padding = None
        if all(ds[v].dtype.kind == "f" for v in COUNTS):
            padding = ds.tp.isnull() & ds.fp.isnull() & ds.fn.isnull() & ds.tn.isnull()
        check_totals({v: c[v].compute() for v in COUNTS}, padding, weighted)
    n_max = c.n.max(CLASS)
    if ds.attrs.get("task") == "multiclass":
        dfp, dfn = c.fp.sum(CLASS), c.fn.sum(CLASS)
        diff = abs(dfp - dfn) > (WEIGHT_RTOL * n_max if weighted else 0)
        if bool(diff.any()):
            raise CountsError(
                f"sum of fp over classes differs from sum of fn at {where_text(diff)}; in "
                "single-label multiclass data every error is one fp and one fn"
                f"{' (weighted: the same sample weight)' if weighted else ''}. Set "
                "ds.attrs['task'] = 'multilabel' if samples can carry several labels."
            )
    if CONFUSION in ds.data_vars:
        _check_confusion(ds, c, weighted)
    return ds


def confusion_dims(ds: xr.Dataset) -> xr.DataArray:
    """The ``confusion`` variable of ``ds``, checked to be over ``(..., true, pred)`` only."""
    conf = ds[CONFUSION]
    for d in (TRUE, PRED):
        if d not in conf.dims:
            raise CountsError(
                f"confusion has dims {conf.dims}; it must be over (..., {FOLD!r}, {TRUE!r}, "
                f"{PRED!r})."
            )
    if CLASS in conf.dims:
        raise CountsError(
            f"confusion has dims {conf.dims}, including {CLASS!r}; it must be over (..., "
            f"{FOLD!r}, {TRUE!r}, {PRED!r}) (an operation broadcast it against tp, fp, fn, tn: "
            "apply it to those, or rebuild the cube)."
        )
    return conf


def confusion_of(ds: xr.Dataset) -> xr.DataArray:
    """The ``confusion`` variable of ``ds`` as every reader of it reads it.

    Over ``(..., true, pred)``, with the values of the four counts and of the matrices
    checked as :func:`read_counts` checks them (all-NaN padding matrices stay NaN; a dask
    array is checked when computed).
    """
    conf = confusion_dims(ds)
    if all(v in ds.data_vars for v in COUNTS):
        _read_counts(ds, need_fold=False)
    return _confusion_values(ds, conf)


def _check_confusion(ds: xr.Dataset, c: Counts, weighted: bool) -> None:
    conf = _confusion_values(ds, confusion_dims(ds)).fillna(0)
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
    scale = arr.sum(axis=(-2, -1))[..., None] if weighted else 0
    for v, exp in implied.items():
        have = c[v].transpose(*other, CLASS).values
        diff = abs(have - exp[..., pos]) > WEIGHT_RTOL * scale
        if diff.any():
            mask = xr.DataArray(
                diff,
                dims=(*other, CLASS),
                coords={d: ds[d] for d in (*other, CLASS) if d in ds.coords},
            )
            raise CountsError(
                f"{v} disagrees with what confusion implies at {where_text(mask)}; rebuild the "
                "cube with cvframe.from_confusion or drop the confusion variable."
            )
