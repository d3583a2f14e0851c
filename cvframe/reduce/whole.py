r"""Fold aggregations of metrics with one value over every class (``over_classes`` rows of
:data:`cvframe.formulas.METRIC_SPECS`: Matthews correlation, balanced accuracy).

Such a metric reads the one-vs-all counts of every class of a fold at once: a single-label
cube's classes partition the samples, so the confusion margins are
:math:`t_k = TP_k + FN_k` (true), :math:`p_k = TP_k + FP_k` (predicted), the correct samples
:math:`\sum_k TP_k` and the fold size :math:`n = TP_k + FP_k + FN_k + TN_k`. A binary cube
gains its negative class first (:func:`cvframe.formulas.both_classes`). Pooled (``"tp_fp"``):
the counts summed over the folds, then the metric; ``"avg"``: the metric per fold, then the
one fold mean (:func:`cvframe.reduce.fold_mean`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from .. import formulas
from ..errors import CountsError, few
from ..schema import CLASS, COUNTS, Counts, is_binary, is_lazy
from ._engine import UNDEFINED, Undefined, fold_mean

__all__ = ["aggregate_whole"]


def _values(c: Counts, metric: str, binary: bool, fill: float) -> tuple[Any, Any]:
    """The metric and its undefined mask per cell of ``c`` without ``class``."""
    spec = formulas.METRIC_SPECS[metric]

    def core(tp: Any, fp: Any, fn: Any, tn: Any) -> tuple[np.ndarray, np.ndarray]:
        counts = [np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn)]
        if binary:
            counts = list(formulas.both_classes(*counts))
        num, den = spec.num_den(counts[0], counts[1], counts[2], counts[3], 1.0)
        return formulas.safe_divide(num, den, fill), np.asarray(den == 0)

    return xr.apply_ufunc(
        core,
        *(c[v] for v in COUNTS),
        input_core_dims=[[CLASS]] * 4,
        output_core_dims=[[], []],
        dask="parallelized",
        output_dtypes=[float, bool],
        keep_attrs=False,
    )


def _check_partition(ds: xr.Dataset, c: Counts, metric: str, binary: bool) -> None:
    """The classes must partition every fold's samples (single-label, all classes)."""
    if ds.attrs.get("task") == "multilabel":
        raise ValueError(
            f"metric={metric!r} is one number over exclusive classes; the labels of a "
            "multilabel cube are not exclusive. Compare the labels with a per-label metric "
            "(metric='f', 'recall', ... with average='macro') or a multilabel one "
            "('f_samples', 'subset_accuracy', 'hamming_loss')."
        )
    if binary or is_lazy(c.tp):
        return
    support = (c.tp + c.fn).sum(CLASS)
    n = (c.tp + c.fp + c.fn + c.tn).max(CLASS)
    short = (support != n) & c.is_fold.any(CLASS)
    if bool(short.any()):
        raise CountsError(
            f"metric={metric!r} needs every class of the data in the cube: in "
            f"{int(short.sum())} fold(s) the classes' supports sum to less than the fold size "
            f"(e.g. {few(support.where(short, drop=True).values.ravel().tolist())} of "
            f"{few(n.where(short, drop=True).values.ravel().tolist())}), so some samples belong "
            "to classes the cube leaves out. Build the cube over all labels "
            "(frame.cv.counts() without labels=)."
        )


def aggregate_whole(
    ds: xr.Dataset,
    c: Counts,
    metric: str,
    fold_method: str | None,
    dims: tuple[str, ...],
    fill: float,
    skip: bool,
) -> tuple[xr.DataArray, list[Undefined]]:
    """``metric`` (an ``over_classes`` spec) of counts ``c`` aggregated over ``dims``:
    the values (without ``class``) and the undefined cases for the caller's one warning."""
    binary = is_binary(ds)
    _check_partition(ds, c, metric, binary)
    per_fold, pooled = UNDEFINED[metric]
    if fold_method == "tp_fp":
        value, undefined = _values(c.sum(dims), metric, binary, fill)
        return value, [(undefined, pooled, f"set to {fill}", None)]
    value, undefined = _values(c, metric, binary, fill)
    real = c.is_fold.any(CLASS)
    if fold_method is None:
        return value, [(undefined & real, per_fold, f"set to {fill}", real)]
    keep = real & ~undefined if skip else real
    mean, none = fold_mean(value, keep, dims, fill)
    action = "those folds are skipped" if skip else f"counted as {fill} in the fold mean"
    what = f"the fold mean (no {'valid ' if skip else ''}folds to average)"
    return mean, [(undefined & real, per_fold, action, real), (none, what, f"set to {fill}", None)]
