"""Per-fold metrics and fold aggregations of a counts cube: one engine, many names.

One function, :func:`aggregate`, does every fold aggregation: *pooled* (``"tp_fp"``: sum the
counts along ``dim``, then apply the formula), *averaged* (``"avg"``: apply the formula per
fold, then take the mean over the folds) and F of averaged precision and recall
(``"pr_re"``). The five F-measure aggregations of Forman & Scholz (2010, §2.3) are named uses
of it, and so are :func:`cvframe.multiclass.macro`, ``micro`` and ``weighted``:

==================  ==========================================================
``f_tp_fp``         pooled F: sum TP, FP, FN over folds, then F (recommended)
``f_avg``           averaged F: mean of per-fold F
``f_pr_re``         F of the averaged precision and the averaged recall
``f_avg_skip``      ``f_avg`` over the folds where precision and recall are defined
``f_pr_re_skip``    ``f_pr_re`` over the folds where precision and recall are defined
==================  ==========================================================

The counts are read once, by :func:`cvframe.schema.read_counts`: a cell whose counts are all
0 or all NaN is not a fold, so every average divides by the number of real folds. Every
undefined cell is described by one wording (``UNDEFINED``), whatever the path that met it,
and a call emits one warning.

The numbers come from one kernel (:mod:`cvframe._kernel`, the core-and-wrapper split of
flox and xskillscore): numpy arrays with the fold axis last go in, and per-fold precision,
recall, F and V are computed once and every fold aggregation accumulated in the same pass
(compiled with numba when it is installed, the ``fast`` extra; a numpy fallback gives the
same numbers bit for bit). This module is the labelled layer around it: dims, coordinates,
attrs, the ``zero_division`` policy and the warning. It runs the kernel through
``xarray.apply_ufunc``, block by block on dask, so a dask-backed cube stays lazy.

(Over 400 lines because every public function carries its full numpydoc — formula, Notes,
References and a doctest — next to the one engine they are named uses of.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import xarray as xr

from . import _checks, _kernel, formulas
from ._docs import doc
from ._types import CellMetric, Dims, FoldMethod, How, ZeroDivision
from .errors import warn_undefined
from .schema import (
    CLASS,
    CONFUSION,
    COUNTS,
    Counts,
    check_structure,
    is_lazy,
    provenance,
    read_counts,
    where_text,
)

__all__ = [
    "F_METHODS",
    "FOLD_METHODS",
    "METRICS",
    "FoldValues",
    "UNDEFINED",
    "accuracy",
    "aggregate",
    "aggregate_counts",
    "error_rate",
    "f",
    "f_avg",
    "f_methods",
    "f_pr_re",
    "f_tp_fp",
    "fold_dims",
    "fold_mean",
    "pooled",
    "precision",
    "read_counts",
    "recall",
    "specificity",
    "valid",
    "warn",
]

#: The five fold aggregations of F, in the paper's order.
F_METHODS = ("f_tp_fp", "f_avg", "f_pr_re", "f_avg_skip", "f_pr_re_skip")
#: Metrics :func:`aggregate` knows.
METRICS = ("precision", "recall", "f", "accuracy", "specificity")
#: Fold aggregations (``None`` keeps the fold dim).
FOLD_METHODS = ("tp_fp", "avg", "pr_re", None)

#: The one wording of every undefined cell: per fold (or per cell) and after pooling.
UNDEFINED = {
    "precision": ("precision (no predicted positives)",) * 2,
    "recall": ("recall (no positives of the class)",) * 2,
    "specificity": ("specificity (no negatives of the class)",) * 2,
    "accuracy": ("accuracy (empty fold)", "accuracy (no tested samples)"),
    "f": ("precision or recall", "F (TP = FP = FN = 0 after pooling)"),
}

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
    every aggregation come from :mod:`cvframe._kernel`.
    """

    def __init__(self, c: Counts, b: float, fill: float) -> None:
        self.c, self.b, self.fill = c, b, fill
        self._floats: dict[str, xr.DataArray] = {}
        self._values: dict[str, xr.DataArray] = {}
        self._undefined: dict[str, xr.DataArray] = {}

    def _f64(self, name: str) -> xr.DataArray:
        if name not in self._floats:
            self._floats[name] = formulas.as_float(self.c[name])
        return self._floats[name]

    def value(self, metric: str) -> xr.DataArray:
        if metric not in self._values:
            tp, fp, fn, tn = (lambda v=v: self._f64(v) for v in COUNTS)
            fill = self.fill
            self._values[metric] = {
                "precision": lambda: formulas.precision(tp(), fp(), fill),
                "recall": lambda: formulas.recall(tp(), fn(), fill),
                "specificity": lambda: formulas.specificity(tn(), fp(), fill),
                "accuracy": lambda: formulas.accuracy(tp() + tn(), tp() + fp() + fn() + tn(), fill),
                "f": lambda: formulas.f_beta(tp(), fp(), fn(), self.b, fill),
            }[metric]()
        return self._values[metric]

    def undefined(self, metric: str, pooled: bool = False) -> xr.DataArray:
        key = metric + ("_pooled" if pooled and metric == "f" else "")
        if key not in self._undefined:
            tp, fp, fn, tn = (lambda v=v: self._f64(v) for v in COUNTS)
            self._undefined[key] = {
                "precision": lambda: tp() + fp() == 0,
                "recall": lambda: tp() + fn() == 0,
                "specificity": lambda: tn() + fp() == 0,
                "accuracy": lambda: tp() + fp() + fn() + tn() == 0,
                "f": lambda: ~formulas.valid(tp(), fp(), fn()),
                "f_pooled": lambda: tp() + fp() + fn() == 0,
            }[key]()
        return self._undefined[key]


def _fold_mean(
    x: xr.DataArray, keep: xr.DataArray | None, dims: tuple[str, ...], fill: float
) -> tuple[xr.DataArray, xr.DataArray | None]:
    """Mean along ``dims`` over the ``keep`` cells (all when None); ``fill`` where none is."""
    if keep is None:
        return x.mean(dims, skipna=False), None
    total = x.where(keep, 0.0).sum(dims, skipna=False)
    count = keep.sum(dims)
    return formulas.safe_divide(total, count, fill), count == 0


@doc
def fold_mean(
    values: xr.DataArray, c: Counts, dims: tuple[str, ...], fill: float = 0.0
) -> tuple[xr.DataArray, xr.DataArray | None]:
    r"""Mean of per-fold ``values`` along ``dims`` over the real folds of the counts ``c``.

    .. math:: \bar x = \frac{1}{k}\sum_{i \in \text{folds}} x^{(i)}

    where :math:`k` counts the cells of ``c`` that are folds (a cell whose counts are all 0
    or all NaN is not a fold). ``values`` may have lost ``class`` (a class average of
    per-fold values): a cell is then a fold when it is one for some class.

    Parameters
    ----------
    values : xarray.DataArray
        Per-fold values over the dims of ``c`` (``class`` optional).
    c : cvframe.schema.Counts
        The counts the values come from (:func:`read_counts`).
    dims : tuple of str
        The fold dims to average over.
    fill : float, default 0
        The mean where no cell is a fold.

    Returns
    -------
    tuple
        The mean, and the mask of cells without any fold (None when every cell is a fold).

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.datasets.table1()
    >>> c = read_counts(ds)
    >>> mean, none = fold_mean(ds.cv.f(), c, ("fold",))
    >>> round(mean.item(), 3), none is None
    (0.692, True)
    """
    if c.padded is False:
        return _fold_mean(values, None, dims, fill)
    real = c.is_fold
    if CLASS in real.dims and CLASS not in values.dims:
        real = real.any(CLASS)
    return _fold_mean(values, real, dims, fill)


def _kernel_values(
    c: Counts, metric: str, want: tuple[str, ...], dims: tuple[str, ...], b: float, fill: float
) -> dict[str, xr.DataArray]:
    """The kernel's ``want`` aggregations of ``metric`` over ``dims``, as DataArrays.

    A thin labelled layer over :func:`cvframe._kernel.fold_aggregates`: ``apply_ufunc``
    moves ``dims`` last (numpy arrays in, numpy arrays out; block by block on dask, so a lazy
    cube stays lazy). Pooled sums that may not be exact in float64 (huge or negative counts)
    are pooled exactly instead, and raise on int64 overflow as ``pooled`` does.
    """
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
    return (
        lambda: masks.none(skip),
        f"the fold mean ({kind} to average)",
        f"set to {fill}",
        None,
    )


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
    are built only if it warns). The numbers come from :mod:`cvframe._kernel`.
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


def _method(metric: str, fold_method: str | None, skip: bool) -> str:
    if fold_method is None:
        return metric
    name = f"{metric}_{fold_method}"
    return name + "_skip" if skip else name


@doc
def aggregate(
    ds: xr.Dataset,
    metric: CellMetric = "f",
    fold_method: FoldMethod = "tp_fp",
    dim: Dims = "fold",
    *,
    beta: float = 1.0,
    skip_undefined: bool = False,
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""One metric of every class, aggregated over folds: the engine of every fold aggregation.

    - ``fold_method="tp_fp"``: sum the counts over ``dim``, then the metric once;
    - ``"avg"``: the metric per fold, then its mean over the real folds;
    - ``"pr_re"`` (``metric="f"`` only): F of the fold means of precision and recall;
    - ``None``: the per-fold values (``dim`` is kept).

    ``f_tp_fp``, ``f_avg``, ``f_pr_re`` are ``aggregate(ds, "f", ...)``;
    ``multiclass.macro`` is its class mean.

    Parameters
    ----------
    <<ds>>
    metric : {"precision", "recall", "f", "accuracy", "specificity"}, default "f"
        The per-class one-vs-all metric.
    fold_method : {"tp_fp", "avg", "pr_re", None}, default "tp_fp"
    <<dim>>
    <<beta>>
    skip_undefined : bool, default False
        ``"avg"``/``"pr_re"`` only: average over the folds where the metric is defined
        (for F, where precision and recall are: the paper's tilde methods).
    <<zero_division>>

    Returns
    -------
    xarray.DataArray
        float64 without ``dim`` (``None`` keeps it); ``class`` and every other dim are kept.

    Notes
    -----
    A cell whose four counts are all 0 or all NaN is not a fold: averages leave it out (they
    divide by the number of real folds) and pooled sums count it as 0.

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.datasets.table1()
    >>> round(cvframe.reduce.aggregate(ds, "precision", "avg").item(), 4)
    0.6025
    >>> cvframe.reduce.aggregate(ds, "f", "avg").item() == ds.cv.f_avg().item()
    True
    """
    metric, fold_method = check_metric(metric, fold_method)
    b = _checks.beta(beta)
    skip = _checks.flag("skip_undefined", skip_undefined)
    fill = _checks.zero_division(zero_division)
    dims = fold_dims(ds, dim)
    red = () if fold_method is None else dims
    c = read_counts(ds, need_fold=fold_method is not None)
    val, items = aggregate_counts(
        c,
        metric,
        fold_method,
        red,
        beta=b,
        fill=fill,
        skip=skip and fold_method in ("avg", "pr_re"),
    )
    warn(items, zero_division)
    if metric == "f" and fold_method is not None:
        return _f_provenance(val, _method("f", fold_method, skip), dims, zero_division, b, skip)
    return provenance(
        val,
        _method(metric, fold_method, skip),
        red,
        metric=metric,
        zero_division=zero_division,
        beta=b if metric == "f" else None,
        skip_undefined=skip if fold_method in ("avg", "pr_re") else None,
    )


def _f_provenance(
    val: xr.DataArray,
    name: str,
    dims: tuple[str, ...],
    zero_division: Any,
    b: float,
    skip: bool | None,
) -> xr.DataArray:
    return provenance(
        val,
        name,
        dims,
        zero_division=zero_division,
        skip_undefined=skip if name != "f_tp_fp" else None,
        beta=b,
    )


# --- per cell ---------------------------------------------------------------------------


def _cell(ds: xr.Dataset, metric: str, zero_division: Any, beta: float = 1.0) -> xr.DataArray:
    b = _checks.beta(beta)
    fill = _checks.zero_division(zero_division)
    val, items = aggregate_counts(
        read_counts(ds, need_fold=False), metric, None, (), beta=b, fill=fill
    )
    warn(items, zero_division)
    return provenance(val, metric, zero_division=zero_division, beta=b if metric == "f" else None)


@doc
def precision(ds: xr.Dataset, *, zero_division: ZeroDivision = "warn") -> xr.DataArray:
    r"""Precision of every cell (fold, class, ...): :math:`Pr = TP/(TP+FP)`.

    Parameters
    ----------
    <<ds>>
    <<zero_division>>

    Returns
    -------
    xarray.DataArray
        float64 over the dims of the counts (nothing is reduced).

    Notes
    -----
    Undefined when the classifier predicts no positives (:math:`TP + FP = 0`).

    See Also
    --------
    sklearn.metrics.precision_score

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> cvframe.datasets.table1().cv.precision().round(3).values.ravel()
    array([1.   , 0.8  , 0.235, 0.375])
    """
    return _cell(ds, "precision", zero_division)


@doc
def recall(ds: xr.Dataset, *, zero_division: ZeroDivision = "warn") -> xr.DataArray:
    r"""Recall (true-positive rate) of every cell: :math:`Re = TP/(TP+FN)`.

    Parameters
    ----------
    <<ds>>
    <<zero_division>>

    Returns
    -------
    xarray.DataArray
        float64 over the dims of the counts.

    Notes
    -----
    Undefined when the fold holds no positives of the class (:math:`TP + FN = 0`).

    See Also
    --------
    sklearn.metrics.recall_score

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> cvframe.datasets.table1().cv.recall().values.ravel()
    array([1.  , 1.  , 1.  , 0.75])
    """
    return _cell(ds, "recall", zero_division)


@doc
def f(ds: xr.Dataset, *, beta: float = 1.0, zero_division: ZeroDivision = "warn") -> xr.DataArray:
    r"""F-measure of every cell, from its counts.

    .. math:: F_\beta = \frac{(1+\beta^2)\,TP}{(1+\beta^2)\,TP + \beta^2 FN + FP}

    Parameters
    ----------
    <<ds>>
    <<beta>>
    <<zero_division>>

    Returns
    -------
    xarray.DataArray
        float64 over the dims of the counts.

    Notes
    -----
    As in scikit-learn >= 1.3, F is 0 whenever :math:`TP = 0 < FP + FN` (so a fold with
    undefined precision or recall, :math:`V^{(i)} = 0`, scores 0 as in the paper) and
    ``zero_division`` applies only where :math:`TP = FP = FN = 0`. The warning counts the
    cells with :math:`V^{(i)} = 0`.

    See Also
    --------
    sklearn.metrics.fbeta_score

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> cvframe.datasets.table1().cv.f().round(3).values.ravel()
    array([1.   , 0.889, 0.381, 0.5  ])
    """
    return _cell(ds, "f", zero_division, beta)


@doc
def specificity(ds: xr.Dataset, *, zero_division: ZeroDivision = "warn") -> xr.DataArray:
    r"""Specificity (true-negative rate) of every cell: :math:`TN/(TN+FP)`.

    Parameters
    ----------
    <<ds>>
    <<zero_division>>

    Returns
    -------
    xarray.DataArray
        float64 over the dims of the counts.

    Notes
    -----
    Undefined when the fold holds no negatives of the class (:math:`TN + FP = 0`).

    Examples
    --------
    >>> import cvframe
    >>> cvframe.datasets.table2().cv.specificity().values.ravel()
    array([1., 1., 1., 1.])
    """
    return _cell(ds, "specificity", zero_division)


@doc
def valid(ds: xr.Dataset) -> xr.DataArray:
    r"""The paper's validity mask :math:`V^{(i)}`: precision and recall both defined.

    :math:`V = (TP + FP > 0) \wedge (TP + FN > 0)`.

    Parameters
    ----------
    <<ds>>

    Returns
    -------
    xarray.DataArray
        bool over the dims of the counts.

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> cvframe.datasets.table2().cv.valid().values.ravel()
    array([ True, False,  True,  True])
    """
    c = read_counts(ds, need_fold=False)
    return provenance(formulas.valid(c.tp, c.fp, c.fn), "valid")


def _correct_and_n(c: Counts, task: Any) -> tuple[xr.DataArray, xr.DataArray, xr.DataArray]:
    """Correct predictions, test size and the real-fold mask of every fold.

    Single-label multiclass cubes (``task="multiclass"``) count a sample once: correct is
    :math:`\\sum_c TP_c` and the class dim is dropped. Binary and multilabel cubes count
    one-vs-all decisions per class: correct is :math:`TP + TN` and ``class`` is kept.
    """
    if task == "multiclass":
        correct = formulas.as_float(c.tp).sum(CLASS)
        return correct, c.n.isel({CLASS: 0}, drop=True), c.is_fold.any(CLASS)
    return formulas.as_float(c.tp) + c.tn, c.n, c.is_fold


@doc
def accuracy(
    ds: xr.Dataset, how: How = None, dim: Dims = "fold", *, zero_division: ZeroDivision = "warn"
) -> xr.DataArray:
    r"""Accuracy per fold, pooled over folds, or averaged over folds.

    - ``how=None``: per fold, :math:`\text{correct}^{(i)} / n^{(i)}`;
    - ``how="pooled"``: :math:`\sum_i \text{correct}^{(i)} / \sum_i n^{(i)}`, which equals
      the fold-size-weighted mean of fold accuracies;
    - ``how="avg"``: the unweighted mean of fold accuracies over the folds that hold test
      samples (differs from pooled when fold sizes differ).

    For single-label multiclass cubes (``task="multiclass"``) correct is
    :math:`\sum_c TP_c` and the ``class`` dim is dropped; for binary and multilabel cubes it is
    the one-vs-all :math:`TP + TN` of each class, and ``class`` is kept.

    Parameters
    ----------
    <<ds>>
    how : {None, "pooled", "avg"}, default None
    <<dim>>
        Only used when ``how`` is given.
    <<zero_division>>
        Accuracy is undefined for an empty fold.

    Returns
    -------
    xarray.DataArray
        float64; ``attrs["method"]`` says which accuracy it is.

    Notes
    -----
    An empty fold (no test samples, e.g. a repeat padded to another repeat's folds) is not a
    fold: ``how="avg"`` leaves it out of the mean.

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> float(cvframe.datasets.basili_confusion().cv.accuracy(how="pooled").round(4))
    0.8333
    """
    how = _checks.choice("how", how, [None, "pooled", "avg"])
    fill = _checks.zero_division(zero_division)
    if how is None:
        c = read_counts(ds, need_fold=False)
        correct, n, _ = _correct_and_n(c, ds.attrs.get("task"))
        warn([(n == 0, UNDEFINED["accuracy"][0], f"set to {fill}", None)], zero_division)
        return provenance(
            formulas.accuracy(correct, n, fill), "accuracy", zero_division=zero_division
        )
    dims = fold_dims(ds, dim)
    c = read_counts(ds)
    if how == "pooled":
        p = c.sum(dims)
        correct, n, _ = _correct_and_n(p, ds.attrs.get("task"))
        warn([(n == 0, UNDEFINED["accuracy"][1], f"set to {fill}", None)], zero_division)
        return provenance(
            formulas.accuracy(correct, n, fill),
            "accuracy_pooled",
            dims,
            zero_division=zero_division,
        )
    correct, n, real = _correct_and_n(c, ds.attrs.get("task"))
    keep = None if c.padded is False else real
    val, none = _fold_mean(formulas.accuracy(correct, n, fill), keep, dims, fill)
    if none is not None:
        warn([(none, "the fold mean (no folds to average)", f"set to {fill}", None)], zero_division)
    return provenance(val, "accuracy_avg", dims, zero_division=zero_division)


@doc
def error_rate(
    ds: xr.Dataset, how: How = None, dim: Dims = "fold", *, zero_division: ZeroDivision = "warn"
) -> xr.DataArray:
    r"""Error rate :math:`1 - \text{accuracy}`, per fold, pooled or averaged (see ``accuracy``).

    Parameters
    ----------
    <<ds>>
    how : {None, "pooled", "avg"}, default None
    <<dim>>
    <<zero_division>>

    Returns
    -------
    xarray.DataArray
        float64.

    Examples
    --------
    >>> import cvframe
    >>> float(cvframe.datasets.basili_confusion().cv.error_rate(how="pooled").round(4))
    0.1667
    """
    acc = accuracy(ds, how, dim, zero_division=zero_division)
    attrs = dict(acc.attrs)
    out = 1.0 - acc
    attrs["method"] = attrs["method"].replace("accuracy", "error_rate")
    out.attrs = attrs
    out.name = attrs["method"]
    return out


# --- fold aggregation: the named uses ------------------------------------------------------


@doc
def pooled(ds: xr.Dataset, dim: Dims = "fold") -> xr.Dataset:
    r"""The counts summed along ``dim``: :math:`TP = \sum_i TP^{(i)}` and likewise.

    ``confusion``, when present, is summed too. Integer counts stay int64; a sum that would
    overflow int64 is an error (never a wrapped-around count). NaN padding counts as 0.

    Parameters
    ----------
    <<ds>>
    <<dim>>

    Returns
    -------
    xarray.Dataset
        A counts cube without ``dim``; per-cell metrics (``.cv.precision()``, ...) apply.

    Examples
    --------
    >>> import cvframe
    >>> p = cvframe.datasets.table1().cv.pooled()
    >>> int(p.tp.item()), int(p.fp.item()), int(p.fn.item())
    (14, 19, 1)
    """
    dims = fold_dims(ds, dim)
    p = read_counts(ds).sum(dims)
    out = xr.Dataset({v: p[v] for v in COUNTS})
    if CONFUSION in ds.data_vars:
        conf = ds[CONFUSION]
        conf = conf.fillna(0) if conf.dtype.kind == "f" else conf
        out[CONFUSION] = conf.sum([d for d in dims if d in conf.dims], skipna=False)
    for v in out.data_vars.values():
        v.attrs = {}
    out.attrs = dict(ds.attrs, reduced_dims=",".join(map(str, dims)))
    return out


@doc
def f_tp_fp(
    ds: xr.Dataset, dim: Dims = "fold", *, beta: float = 1.0, zero_division: ZeroDivision = "warn"
) -> xr.DataArray:
    r"""F_tp,fp: pool the counts over folds, then compute F once (the recommended method).

    .. math::
        TP = \sum_i TP^{(i)},\quad FP = \sum_i FP^{(i)},\quad FN = \sum_i FN^{(i)},\qquad
        F_{tp,fp} = \frac{(1+\beta^2)\,TP}{(1+\beta^2)\,TP + \beta^2 FN + FP}

    Parameters
    ----------
    <<ds>>
    <<dim>>
    <<beta>>
    <<zero_division>>
        Applies only where the pooled :math:`TP = FP = FN = 0`.

    Returns
    -------
    xarray.DataArray
        float64 without ``dim``; attrs record the method and policy.

    Notes
    -----
    Forman & Scholz (2010, §4) show by simulation that this is the only one of the five
    aggregations that is essentially unbiased; it equals F on the concatenated predictions
    of all folds (``sklearn.metrics.f1_score(y, cross_val_predict(...))``).
    ``aggregate(ds, "f", "tp_fp", dim)``.

    See Also
    --------
    f_avg, f_pr_re, f_methods, aggregate

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> round(cvframe.datasets.table1().cv.f_tp_fp().item(), 3)
    0.583
    """
    return aggregate(ds, "f", "tp_fp", dim, beta=beta, zero_division=zero_division)


@doc
def f_avg(
    ds: xr.Dataset,
    dim: Dims = "fold",
    *,
    beta: float = 1.0,
    skip_undefined: bool = False,
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""F_avg: the mean of the per-fold F-measures (scikit-learn's ``cross_val_score``).

    .. math::
        F_{avg} = \frac{1}{k}\sum_{i=1}^k F^{(i)}, \qquad
        \tilde F_{avg} = \frac{1}{\sum_i V^{(i)}}\sum_{i: V^{(i)}=1} F^{(i)}
        \quad (\texttt{skip\_undefined=True})

    Parameters
    ----------
    <<ds>>
    <<dim>>
    <<beta>>
    <<skip_undefined>>
    <<zero_division>>

    Returns
    -------
    xarray.DataArray
        float64 without ``dim``.

    Notes
    -----
    A fold with undefined precision or recall scores :math:`F^{(i)} = 0` (the limit of
    Equation 2). Biased downwards, most under class imbalance; ``skip_undefined=True``
    is biased upwards (Forman & Scholz 2010, §4.3). With ``skip_undefined=True`` and no
    valid fold the result is the ``zero_division`` value. :math:`k` counts the real folds:
    a cell with no test samples (all counts 0, or all NaN padding) is not a fold.
    ``aggregate(ds, "f", "avg", dim)``.

    See Also
    --------
    f_tp_fp : the recommended aggregation.
    sklearn.model_selection.cross_val_score : ``scoring="f1"`` computes this.

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> round(cvframe.datasets.table1().cv.f_avg().item(), 3)
    0.692
    >>> round(cvframe.datasets.table2().cv.f_avg(skip_undefined=True, zero_division=0).item(), 3)
    0.889
    """
    return aggregate(
        ds, "f", "avg", dim, beta=beta, skip_undefined=skip_undefined, zero_division=zero_division
    )


@doc
def f_pr_re(
    ds: xr.Dataset,
    dim: Dims = "fold",
    *,
    beta: float = 1.0,
    skip_undefined: bool = False,
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""F_pr,re: F of the mean precision and the mean recall over folds.

    .. math::
        \overline{Pr} = \frac1k\sum_i Pr^{(i)},\quad \overline{Re} = \frac1k\sum_i Re^{(i)},
        \qquad F_{pr,re} = \frac{(1+\beta^2)\,\overline{Pr}\,\overline{Re}}
        {\beta^2\,\overline{Pr} + \overline{Re}}

    With ``skip_undefined=True`` (:math:`\tilde F_{pr,re}`) the means run over the folds
    with :math:`V^{(i)} = 1` only.

    Parameters
    ----------
    <<ds>>
    <<dim>>
    <<beta>>
    <<skip_undefined>>
    <<zero_division>>
        The value an undefined per-fold precision or recall takes in the means.

    Returns
    -------
    xarray.DataArray
        float64 without ``dim``.

    Notes
    -----
    Averaging smooths over a fold with very low precision or recall, so this method is
    biased upwards (Forman & Scholz 2010, §4.3). F of two zero means is 0. :math:`k` counts
    the real folds (see :func:`f_avg`). ``aggregate(ds, "f", "pr_re", dim)``.

    See Also
    --------
    f_tp_fp : the recommended aggregation.

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> round(cvframe.datasets.table1().cv.f_pr_re().item(), 3)
    0.734
    """
    return aggregate(
        ds, "f", "pr_re", dim, beta=beta, skip_undefined=skip_undefined, zero_division=zero_division
    )


@doc
def f_methods(
    ds: xr.Dataset, dim: Dims = "fold", *, beta: float = 1.0, zero_division: ZeroDivision = "warn"
) -> xr.Dataset:
    r"""All five F aggregations side by side (the apples-to-apples table).

    Variables ``f_tp_fp``, ``f_avg``, ``f_pr_re``, ``f_avg_skip``, ``f_pr_re_skip``; see
    :func:`f_tp_fp`, :func:`f_avg` and :func:`f_pr_re` for the formulas.

    Parameters
    ----------
    <<ds>>
    <<dim>>
    <<beta>>
    <<zero_division>>

    Returns
    -------
    xarray.Dataset
        Five float64 variables without ``dim``; ``.to_array("method")`` stacks them.

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> m = cvframe.datasets.table2().cv.f_methods(zero_division=0)
    >>> {k: round(v.item(), 3) for k, v in m.data_vars.items()}
    {'f_tp_fp': 0.769, 'f_avg': 0.667, 'f_pr_re': 0.682, 'f_avg_skip': 0.889, 'f_pr_re_skip': 0.909}
    """
    b = _checks.beta(beta)
    fill = _checks.zero_division(zero_division)
    dims = fold_dims(ds, dim)
    c = read_counts(ds)
    want = tuple(name[2:] for name in F_METHODS)  # one kernel pass for all five
    values = _kernel_values(c, "f", want, dims, b, fill)
    out = {}
    for name, agg in zip(F_METHODS, want, strict=True):
        skip = name.endswith("_skip")
        out[name] = _f_provenance(values[agg], name, dims, zero_division, b, skip)
    masks = _Masks(c, "f", dims, b, fill)
    first = (
        masks.bad,
        UNDEFINED["f"][0],
        "f_avg and f_pr_re count them as 0; the _skip methods skip those folds",
        masks.real,
    )
    pooled_item = (masks.pooled, UNDEFINED["f"][1], f"set to {fill}", None)
    warn(
        [first, pooled_item, _none_item(masks, False, fill), _none_item(masks, True, fill)],
        zero_division,
    )
    # the five share their coords: built from variables, so nothing is aligned again
    res = xr.Dataset({k: v.variable for k, v in out.items()}, coords=out["f_tp_fp"].coords)
    res.attrs = {
        "method": "f_methods",
        "reduced_dims": ",".join(map(str, dims)),
        "zero_division": _checks.zero_division_attr(zero_division),
        "beta": b,
    }
    return res


# --- former private names, kept while other modules move to the public ones ---------------

_fill = _checks.zero_division
_zd_attr = _checks.zero_division_attr
_beta = _checks.beta
_dims = fold_dims
_provenance = provenance


def _counts(ds: xr.Dataset, need_fold: bool = True) -> dict[str, xr.DataArray]:
    return read_counts(ds, need_fold=need_fold).as_dict()
