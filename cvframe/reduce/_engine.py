"""The fold-aggregation engine: argument checks, one warning per call, fold and class means.

:func:`aggregate_counts` runs :mod:`cvframe._core.kernel` through ``xarray.apply_ufunc``;
:func:`fold_mean` and :func:`class_mean` are the one mean over folds and over classes;
:func:`warn` emits a call's one warning, worded by :data:`cvframe.formulas.METRIC_SPECS`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import xarray as xr

from .. import formulas, metrics
from .._core import checks as _checks
from .._core import kernel as _kernel
from .._core.docs import FRAGMENTS, doc, register
from .._core.types import Dims
from ..errors import warn_undefined
from ..schema import CLASS, COUNTS, Counts, check_structure, is_lazy, where_text

#: The five fold aggregations of F, in the paper's order (its variants in the registry).
F_METHODS = tuple(metrics.spelled("f", v) for v in metrics.REGISTRY["f"].variants)
#: Metrics :func:`aggregate` knows (the names of :data:`cvframe.formulas.METRIC_SPECS`).
METRICS = tuple(formulas.METRIC_SPECS)
#: Fold aggregations (``None`` keeps the fold dim).
FOLD_METHODS = ("tp_fp", "avg", "pr_re", None)

#: The one wording of every undefined cell: per fold (or per cell) and after pooling.
UNDEFINED = {name: spec.warning for name, spec in formulas.METRIC_SPECS.items()}

# The References section of the paper, for every docstring that cites only it (or it first).
register({"references": "References\n----------\n" + FRAGMENTS["reference"]})

#: An undefined case of a call: (mask, what, action, cells counted or None for all); the
#: mask and the cells counted may be functions that build them (called only to warn).
Undefined = tuple[Any, str, str, Any]


# --- argument checks ---------------------------------------------------------------------


def fold_dims(ds: xr.Dataset, dim: Dims) -> tuple[str, ...]:
    """``dim`` checked against the counts of ``ds`` (never ``class``: that is class averaging)."""
    check_structure(ds)
    dims = _checks.dims(ds["tp"], dim)
    if CLASS in dims:
        raise ValueError(
            f"dim={dim!r} includes 'class'; fold aggregations keep classes. Average over "
            "classes with ds.cv.macro(), ds.cv.micro() or ds.cv.weighted()."
        )
    return dims


def check_metric(metric: Any, fold_method: Any, valid: Sequence[str] = METRICS) -> tuple[Any, Any]:
    """``metric`` and ``fold_method`` checked (``"pr_re"`` exists for F only)."""
    metric = _checks.choice("metric", metric, valid)
    fold_method = _checks.choice("fold_method", fold_method, FOLD_METHODS)
    if fold_method == "pr_re" and metric != "f":
        raise ValueError(
            f"fold_method='pr_re' is defined for metric='f' only (F of the fold means of "
            f"precision and recall), not for metric={metric!r}; use fold_method='avg' for the "
            f"mean over folds of {metric}, or 'tp_fp' to pool the counts."
        )
    return metric, fold_method


# --- one warning per call ----------------------------------------------------------------


def warn(items: Sequence[Undefined], zero_division: Any) -> None:
    """Emit one UndefinedMetricWarning for every undefined case of a call (under "warn").

    Cases with the same wording are named once (the first one's action is kept). A lazy
    cube is not computed for the count, so it emits nothing.
    """
    if not (isinstance(zero_division, str) and zero_division == "warn"):
        return
    found, seen = [], set()
    for mask, what, action, counted in items:
        if what in seen:
            continue
        seen.add(what)
        mask = mask() if callable(mask) else mask  # masks are built only when warning
        if mask is None:
            continue
        counted = counted() if callable(counted) else counted
        if is_lazy(mask) or (counted is not None and is_lazy(counted)):
            return
        n_bad = int(mask.sum())
        if n_bad:
            total = int(mask.size if counted is None else counted.sum())
            found.append((mask, what, action, n_bad, total))
    if not found:
        return
    mask, what, action, n_bad, total = found[0]
    for m2, w2, a2, n2, t2 in found[1:]:
        action += f"; {w2} is undefined in {n2} of {t2} cells ({where_text(m2)}), {a2}"
    warn_undefined(what, n_bad, total, where_text(mask), action=action)


# --- the engine ---------------------------------------------------------------------------


class FoldValues:
    """Per-cell values and undefined masks of one set of counts, each computed once.

    Plain xarray arithmetic: it builds the masks a warning describes (only when a call
    warns) and pools counts exactly where float64 sums would not be exact; the values of
    every aggregation come from :mod:`cvframe._core.kernel`.
    """

    def __init__(self, c: Counts, b: float, fill: float) -> None:
        self.c, self.b, self.fill = c, b, fill
        self._floats: dict[str, xr.DataArray] = {}
        self._values: dict[str, xr.DataArray] = {}
        self._undefined: dict[tuple[str, bool], xr.DataArray] = {}

    def _f64(self, name: str) -> xr.DataArray:
        if name not in self._floats:
            self._floats[name] = formulas.as_float(self.c[name])
        return self._floats[name]

    def value(self, metric: str) -> xr.DataArray:
        if metric not in self._values:
            counts = (self._f64(v) for v in COUNTS)
            self._values[metric] = formulas.metric(metric, *counts, beta=self.b, fill=self.fill)
        return self._values[metric]

    def undefined(self, metric: str, pooled: bool = False) -> xr.DataArray:
        key = (metric, pooled)
        if key not in self._undefined:
            tp, fp, fn, tn = (self._f64(v) for v in COUNTS)
            self._undefined[key] = formulas.METRIC_SPECS[metric].undefined(tp, fp, fn, tn, pooled)
        return self._undefined[key]


@doc
def fold_mean(
    values: xr.DataArray, c: Counts | xr.DataArray, dims: tuple[str, ...], fill: float = 0.0
) -> tuple[xr.DataArray, xr.DataArray | None]:
    r"""Mean of per-fold ``values`` along ``dims`` over the real folds: the one fold mean.

    .. math:: \bar x = \frac{1}{k}\sum_{i \in \text{folds}} x^{(i)}

    where :math:`k` counts the cells that are folds: for counts ``c``, a cell whose counts
    are all 0 or all NaN is not a fold; ``c`` may also be the boolean mask of the real folds
    itself (e.g. the non-empty confusion matrices kappa averages). ``values`` may have lost
    ``class`` (a class average of per-fold values): a cell is then a fold when it is one for
    some class.

    Parameters
    ----------
    values : xarray.DataArray
        Per-fold values over the dims of ``c`` (``class`` optional).
    c : cvframe.schema.Counts or xarray.DataArray
        The counts the values come from (:func:`read_counts`), or the boolean mask of the
        cells that are folds.
    dims : tuple of str
        The fold dims to average over.
    fill : float, default 0
        The mean where no cell is a fold.

    Returns
    -------
    tuple
        The mean, and the mask of cells without any fold (None when every cell is a fold).

    <<references>>

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.datasets.table1()
    >>> c = cvframe.schema.read_counts(ds)
    >>> mean, none = fold_mean(ds.cv.f(), c, ("fold",))
    >>> round(mean.item(), 3), none is None
    (0.692, True)
    """
    if not isinstance(c, xr.DataArray) and c.padded is False:
        return values.mean(dims, skipna=False), None
    real = c if isinstance(c, xr.DataArray) else c.is_fold
    extra = [d for d in real.dims if d not in values.dims]
    keep = real.any(extra) if extra else real
    count = keep.sum(dims)
    total = values.where(keep, 0.0).sum(dims, skipna=False)
    return formulas.safe_divide(total, count, fill), count == 0


def class_mean(
    values: xr.DataArray, weights: xr.DataArray | None = None, fill: float = 0.0
) -> tuple[xr.DataArray, Undefined]:
    r"""Mean of ``values`` over ``class``, weighted by ``weights`` (e.g. class support).

    .. math:: \frac1C \sum_c x_c \quad\text{or}\quad \frac{\sum_c w_c\,x_c}{\sum_c w_c}

    A class of weight 0 weighs 0 whatever its value (NaN included); where every weight is
    0 the mean is ``fill``. Without weights NaN propagates.

    Returns
    -------
    tuple
        The mean, and the undefined case of the weighted mean (its mask None without
        ``weights``) for the call's one :func:`warn`.

    Examples
    --------
    >>> x = xr.DataArray([0.5, 1.0, float("nan")], dims="class")
    >>> mean, none = class_mean(x, xr.DataArray([1.0, 3.0, 0.0], dims="class"))
    >>> mean.item(), class_mean(x)[0].item()
    (0.875, nan)
    """
    what = "the weighted average (every class has support 0)"
    if weights is None:
        return values.mean(CLASS, skipna=False), (None, what, "", None)
    total = weights.sum(CLASS)
    num = (values.where(weights > 0, 0.0) * weights).sum(CLASS, skipna=False)
    return formulas.safe_divide(num, total, fill), (total == 0, what, f"set to {fill}", None)


def _kernel_values(
    c: Counts, metric: str, want: tuple[str, ...], dims: tuple[str, ...], b: float, fill: float
) -> dict[str, xr.DataArray]:
    """The kernel's ``want`` aggregations of ``metric`` over ``dims`` (moved last by
    ``apply_ufunc``, block by block on dask); inexact float64 pools are pooled exactly."""
    arrays = [c[v] for v in COUNTS]
    lazy = any(is_lazy(a) for a in arrays)
    nd = len(dims)
    inexact: list[bool] = []

    def core(*counts: Any) -> Any:
        lead = counts[0].shape[: counts[0].ndim - nd]
        k = math.prod(counts[0].shape[counts[0].ndim - nd :])
        flat = [x.reshape(*lead, k) for x in counts]
        tp, fp, fn, tn = flat
        out, exact = _kernel.fold_aggregates(tp, fp, fn, tn, metric, want, beta=b, fill=fill)
        if not exact and "tp_fp" in want:
            if lazy:  # no labels inside a block: pool this block exactly here
                out["tp_fp"] = _kernel.pooled_exact(flat, metric, b, fill, dims)
            else:
                inexact.append(True)
        return tuple(out[name] for name in want) if len(want) > 1 else out[want[0]]

    res = xr.apply_ufunc(
        core,
        *arrays,
        input_core_dims=[list(dims)] * len(arrays),
        output_core_dims=[[] for _ in want],
        dask="parallelized",
        output_dtypes=[float] * len(want),
        dask_gufunc_kwargs={"allow_rechunk": True},
        keep_attrs=False,
    )
    res = res if isinstance(res, tuple) else (res,)
    out = dict(zip(want, res, strict=True))
    if inexact:  # labels known: the exact pooled path names where a sum overflows
        out["tp_fp"] = FoldValues(c.sum(dims), b, fill).value(metric)
    return out


class _Masks:
    """The undefined masks of one call, built on first use (only a warning needs them)."""

    def __init__(self, c: Counts, metric: str, dims: tuple[str, ...], b: float, fill: float):
        self.c, self.metric, self.dims = c, metric, dims
        self.folds = FoldValues(c, b, fill)
        self.pooled_values = lambda: FoldValues(c.sum(dims), b, fill)

    def pooled(self) -> xr.DataArray:
        return self.pooled_values().undefined(self.metric, pooled=True)

    def cell(self) -> xr.DataArray:
        return self.folds.undefined(self.metric)

    def real(self) -> xr.DataArray:
        return self.c.is_fold

    def bad(self) -> xr.DataArray:
        return self.folds.undefined(self.metric) & self.c.is_fold

    def none(self, skip: bool) -> xr.DataArray:
        keep = self.c.is_fold & ~self.folds.undefined(self.metric) if skip else self.c.is_fold
        return keep.sum(self.dims) == 0


def _actions(metric: str, fold_method: str, skip: bool, fill: float) -> str:
    if skip:
        return "those folds are skipped"
    if fold_method == "pr_re":
        return f"precision and recall there count as {fill} in the fold means"
    if metric == "f":
        return f"F there is 0 (or {fill} where TP = FP = FN = 0) in the fold mean"
    return f"counted as {fill} in the fold mean"


def _none_item(masks: _Masks, skip: bool, fill: float) -> Undefined:
    kind = "no valid folds" if skip else "no folds"
    return (lambda: masks.none(skip), f"the fold mean ({kind} to average)", f"set to {fill}", None)


def aggregate_counts(
    c: Counts,
    metric: str,
    fold_method: str | None,
    dims: tuple[str, ...],
    *,
    beta: float = 1.0,
    fill: float = 0.0,
    skip: bool = False,
) -> tuple[xr.DataArray, list[Undefined]]:
    """The engine: ``metric`` of counts ``c`` aggregated over ``dims`` by ``fold_method``.

    Arguments are already checked (:func:`aggregate` is the checked entry point). Returns
    the values and the undefined cases met, for the caller's one :func:`warn` (their masks
    are built only if it warns). The numbers come from :mod:`cvframe._core.kernel`.
    """
    masks = _Masks(c, metric, dims, beta, fill)
    if fold_method is None:
        action = (
            f"F there is 0, or {fill} where TP = FP = FN = 0" if metric == "f" else f"set to {fill}"
        )
        val = xr.apply_ufunc(
            _kernel.cell_values,
            *(c[v] for v in COUNTS),
            kwargs={"metric": metric, "beta": beta, "fill": fill},
            dask="parallelized",
            output_dtypes=[float],
            keep_attrs=False,
        )
        return val, [(masks.cell, UNDEFINED[metric][0], action, None)]
    if fold_method == "tp_fp":
        val = _kernel_values(c, metric, ("tp_fp",), dims, beta, fill)["tp_fp"]
        return val, [(masks.pooled, UNDEFINED[metric][1], f"set to {fill}", None)]
    name = fold_method + ("_skip" if skip else "")
    val = _kernel_values(c, metric, (name,), dims, beta, fill)[name]
    action = _actions(metric, fold_method, skip, fill)
    items: list[Undefined] = [(masks.bad, UNDEFINED[metric][0], action, masks.real)]
    return val, [*items, _none_item(masks, skip, fill)]


def f_methods_counts(
    c: Counts, dims: tuple[str, ...], *, beta: float = 1.0, fill: float = 0.0
) -> tuple[dict[str, xr.DataArray], list[Undefined]]:
    """The five F aggregations of counts ``c`` over ``dims`` (:data:`F_METHODS`), in one pass.

    Arguments are already checked; returns the values by name and the undefined cases met,
    for the caller's one :func:`warn`.
    """
    want = tuple(name[2:] for name in F_METHODS)  # one kernel pass for all five
    values = _kernel_values(c, "f", want, dims, beta, fill)
    masks = _Masks(c, "f", dims, beta, fill)
    action = "f_avg and f_pr_re count them as 0; the _skip methods skip those folds"
    items = [
        (masks.bad, UNDEFINED["f"][0], action, masks.real),
        (masks.pooled, UNDEFINED["f"][1], f"set to {fill}", None),
        _none_item(masks, False, fill),
        _none_item(masks, True, fill),
    ]
    return {name: values[agg] for name, agg in zip(F_METHODS, want, strict=True)}, items
