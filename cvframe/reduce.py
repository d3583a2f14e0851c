"""Per-fold metrics and fold aggregations of a counts cube.

Two reduction strategies do all the work: *pooled* (sum the counts along ``dim``, then apply
the formula) and *averaged* (apply the formula per cell, then take the mean along ``dim``).
The five F-measure aggregations of Forman & Scholz (2010, §2.3) are named uses of them:

==================  ==========================================================
``f_tp_fp``         pooled F: sum TP, FP, FN over folds, then F (recommended)
``f_avg``           averaged F: mean of per-fold F
``f_pr_re``         F of the averaged precision and the averaged recall
``f_avg_skip``      ``f_avg`` over the folds where precision and recall are defined
``f_pr_re_skip``    ``f_pr_re`` over the folds where precision and recall are defined
==================  ==========================================================

Every function here is plain xarray arithmetic, so a dask-backed cube stays lazy.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
import xarray as xr

from . import formulas
from ._types import Dims, ZeroDivision
from .errors import check_choice, check_dims, warn_undefined
from .schema import CLASS, CONFUSION, COUNTS, _where, check_structure, is_lazy

__all__ = [
    "F_METHODS",
    "accuracy",
    "error_rate",
    "f",
    "f_avg",
    "f_methods",
    "f_pr_re",
    "f_tp_fp",
    "pooled",
    "precision",
    "recall",
    "specificity",
    "valid",
]

#: The five fold aggregations of F, in the paper's order.
F_METHODS = ("f_tp_fp", "f_avg", "f_pr_re", "f_avg_skip", "f_pr_re_skip")

_REFERENCE = """G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies:
       Pitfalls in Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010."""

_PARAMS = {
    "<<ds>>": """ds : xarray.Dataset
        A counts cube (``tp``, ``fp``, ``fn``, ``tn`` over ``(..., fold, class)``).""",
    "<<dim>>": """dim : str or sequence of str, default "fold"
        The dimension(s) to aggregate over; every other dimension (``class``, ``repeat``,
        ``model``, ...) is kept with its coordinates.""",
    "<<beta>>": """beta : float, default 1
        Weight of recall relative to precision, a finite number >= 0 (``beta=1`` is F1).""",
    "<<zero_division>>": """zero_division : {"warn", 0.0, 1.0, np.nan}, default "warn"
        Value of a metric where it is undefined (0/0), with scikit-learn's meaning:
        ``"warn"`` uses 0 and emits one :class:`~cvframe.UndefinedMetricWarning` per call
        with the number of affected cells; a number uses that value silently. On a
        dask-backed cube the cells are not counted (that would compute the cube), so no
        warning is emitted: choose the value explicitly there.""",
    "<<skip_undefined>>": """skip_undefined : bool, default False
        Average only over the folds where precision and recall are both defined
        (:math:`V^{(i)} = 1`): the paper's tilde methods, which are biased upwards. Under
        ``zero_division="warn"`` one warning says how many folds were skipped.""",
    "<<reference>>": _REFERENCE,
}


def _doc(func: Callable[..., Any]) -> Callable[..., Any]:
    """Inject the shared parameter descriptions (written once, above) into a docstring."""
    doc = func.__doc__ or ""
    for key, text in _PARAMS.items():
        doc = doc.replace(key, text)
    func.__doc__ = doc
    return func


# --- argument checks ---------------------------------------------------------------------------

def _fill(zero_division: Any) -> float:
    """The numeric value of a ``zero_division`` policy ("warn" behaves as 0)."""
    if isinstance(zero_division, str):
        if zero_division == "warn":
            return 0.0
    elif isinstance(zero_division, numbers.Real) and not isinstance(zero_division, bool):
        value = float(zero_division)
        if value in (0.0, 1.0) or math.isnan(value):
            return value
    raise ValueError(
        f"zero_division={zero_division!r} is not valid; expected one of "
        "['warn', 0.0, 1.0, nan] (scikit-learn's meaning)."
    )


def _zd_attr(zero_division: Any) -> str:
    return zero_division if isinstance(zero_division, str) else repr(float(zero_division))


def _beta(beta: Any) -> float:
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real):
        raise TypeError(f"beta={beta!r} must be a real number >= 0 (e.g. beta=1 for F1).")
    value = float(beta)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"beta={beta!r} must be a finite number >= 0 (e.g. beta=1 for F1).")
    return value


def _skip(skip_undefined: Any) -> bool:
    if not isinstance(skip_undefined, (bool, np.bool_)):
        raise TypeError(f"skip_undefined={skip_undefined!r} must be True or False.")
    return bool(skip_undefined)


def _dims(ds: xr.Dataset, dim: Dims) -> tuple[str, ...]:
    check_structure(ds)
    dims = check_dims(ds["tp"], dim)
    if CLASS in dims:
        raise ValueError(
            f"dim={dim!r} includes 'class'; fold aggregations keep classes. Average over "
            "classes with ds.cv.macro(), ds.cv.micro() or ds.cv.weighted()."
        )
    return dims


def _counts(ds: xr.Dataset, need_fold: bool = True) -> dict[str, xr.DataArray]:
    check_structure(ds, need_fold=need_fold)
    return {v: ds[v] for v in COUNTS}


# --- provenance and warnings ---------------------------------------------------------------------

def _provenance(da: xr.DataArray, method: str, dims: tuple[str, ...] = (), **extra: Any
                ) -> xr.DataArray:
    """Attach the attrs that say how a number was computed (netCDF-safe types only)."""
    attrs: dict[str, Any] = {"method": method}
    if dims:
        attrs["reduced_dims"] = ",".join(map(str, dims))
    for key, value in extra.items():
        if value is None:
            continue
        if key == "zero_division":
            value = _zd_attr(value)
        elif isinstance(value, (bool, np.bool_)):
            value = "yes" if value else "no"
        attrs[key] = value
    da.attrs = attrs
    da.name = method
    return da


def _count_and_warn(mask: xr.DataArray, what: str, zero_division: Any, action: str,
                    stacklevel: int = 4) -> None:
    """One warning for all cells where ``mask`` is True, under ``zero_division="warn"``.

    Lazy (dask) cubes are not computed for the count: pass ``zero_division`` explicitly there.
    """
    if not (isinstance(zero_division, str) and zero_division == "warn") or is_lazy(mask):
        return
    n_bad = int(mask.sum())
    if n_bad:
        warn_undefined(what, n_bad, int(mask.size), _where(mask), stacklevel=stacklevel,
                       action=action)


# --- per fold -----------------------------------------------------------------------------------

@_doc
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
    c = _counts(ds, need_fold=False)
    fill = _fill(zero_division)
    _count_and_warn(c["tp"] + c["fp"] == 0, "precision (no predicted positives)",
                    zero_division, f"set to {fill}")
    return _provenance(formulas.precision(c["tp"], c["fp"], fill), "precision",
                       zero_division=zero_division)


@_doc
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
    c = _counts(ds, need_fold=False)
    fill = _fill(zero_division)
    _count_and_warn(c["tp"] + c["fn"] == 0, "recall (no positives in the fold)",
                    zero_division, f"set to {fill}")
    return _provenance(formulas.recall(c["tp"], c["fn"], fill), "recall",
                       zero_division=zero_division)


@_doc
def f(ds: xr.Dataset, *, beta: float = 1.0, zero_division: ZeroDivision = "warn"
      ) -> xr.DataArray:
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
    b = _beta(beta)
    c = _counts(ds, need_fold=False)
    fill = _fill(zero_division)
    _count_and_warn(~formulas.valid(c["tp"], c["fp"], c["fn"]),
                    "precision or recall", zero_division,
                    f"F there is 0, or {fill} where TP = FP = FN = 0")
    return _provenance(formulas.f_beta(c["tp"], c["fp"], c["fn"], b, fill), "f",
                       zero_division=zero_division, beta=b)


@_doc
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
    c = _counts(ds, need_fold=False)
    fill = _fill(zero_division)
    _count_and_warn(c["tn"] + c["fp"] == 0, "specificity (no negatives in the fold)",
                    zero_division, f"set to {fill}")
    return _provenance(formulas.specificity(c["tn"], c["fp"], fill), "specificity",
                       zero_division=zero_division)


@_doc
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
    c = _counts(ds, need_fold=False)
    return _provenance(formulas.valid(c["tp"], c["fp"], c["fn"]), "valid")


def _correct_and_n(ds: xr.Dataset) -> tuple[xr.DataArray, xr.DataArray]:
    """Correct predictions and test size per fold.

    Single-label multiclass cubes (``task="multiclass"``) count a sample once: correct is
    :math:`\\sum_c TP_c` and the class dim is dropped. Binary and multilabel cubes count
    one-vs-all decisions per class: correct is :math:`TP + TN` and ``class`` is kept.
    """
    c = _counts(ds, need_fold=False)
    n = c["tp"] + c["fp"] + c["fn"] + c["tn"]
    if ds.attrs.get("task") == "multiclass":
        return c["tp"].sum(CLASS), n.isel({CLASS: 0}, drop=True)
    return c["tp"] + c["tn"], n


@_doc
def accuracy(ds: xr.Dataset, how: str | None = None, dim: Dims = "fold", *,
             zero_division: ZeroDivision = "warn") -> xr.DataArray:
    r"""Accuracy per fold, pooled over folds, or averaged over folds.

    - ``how=None``: per fold, :math:`\text{correct}^{(i)} / n^{(i)}`;
    - ``how="pooled"``: :math:`\sum_i \text{correct}^{(i)} / \sum_i n^{(i)}`, which equals
      the fold-size-weighted mean of fold accuracies;
    - ``how="avg"``: the unweighted mean of fold accuracies (differs from pooled when fold
      sizes differ).

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

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> float(cvframe.datasets.basili_confusion().cv.accuracy(how="pooled").round(4))
    0.8333
    """
    how = check_choice("how", how, [None, "pooled", "avg"])
    fill = _fill(zero_division)
    correct, n = _correct_and_n(ds)
    if how is None:
        _count_and_warn(n == 0, "accuracy (empty fold)", zero_division, f"set to {fill}")
        return _provenance(formulas.accuracy(correct, n, fill), "accuracy",
                           zero_division=zero_division)
    dims = _dims(ds, dim)
    if how == "pooled":
        total = n.sum(dims, skipna=False)
        _count_and_warn(total == 0, "accuracy (no tested samples)", zero_division,
                        f"set to {fill}")
        return _provenance(formulas.accuracy(correct.sum(dims, skipna=False), total, fill),
                           "accuracy_pooled", dims, zero_division=zero_division)
    _count_and_warn(n == 0, "accuracy (empty fold)", zero_division, f"counted as {fill}")
    per_fold = formulas.accuracy(correct, n, fill)
    return _provenance(per_fold.mean(dims, skipna=False), "accuracy_avg", dims,
                       zero_division=zero_division)


@_doc
def error_rate(ds: xr.Dataset, how: str | None = None, dim: Dims = "fold", *,
               zero_division: ZeroDivision = "warn") -> xr.DataArray:
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


# --- fold aggregation -------------------------------------------------------------------------

@_doc
def pooled(ds: xr.Dataset, dim: Dims = "fold") -> xr.Dataset:
    r"""The counts summed along ``dim``: :math:`TP = \sum_i TP^{(i)}` and likewise.

    ``confusion``, when present, is summed too. Integer counts stay int64.

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
    check_structure(ds)
    dims = _dims(ds, dim)
    names = list(COUNTS) + ([CONFUSION] if CONFUSION in ds.data_vars else [])
    out = ds[names].sum(dims, keep_attrs=True, skipna=False)
    out.attrs = dict(ds.attrs, reduced_dims=",".join(map(str, dims)))
    return out


@_doc
def f_tp_fp(ds: xr.Dataset, dim: Dims = "fold", *, beta: float = 1.0,
            zero_division: ZeroDivision = "warn") -> xr.DataArray:
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

    See Also
    --------
    f_avg, f_pr_re, f_methods

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> round(cvframe.datasets.table1().cv.f_tp_fp().item(), 3)
    0.583
    """
    b = _beta(beta)
    dims = _dims(ds, dim)
    fill = _fill(zero_division)
    p = pooled(ds, dims)
    _count_and_warn(p["tp"] + p["fp"] + p["fn"] == 0, "F (TP = FP = FN = 0 after pooling)",
                    zero_division, f"set to {fill}")
    return _provenance(formulas.f_beta(p["tp"], p["fp"], p["fn"], b, fill), "f_tp_fp", dims,
                       zero_division=zero_division, beta=b)


def _masked_mean(x: xr.DataArray, mask: xr.DataArray | None, dims: tuple[str, ...],
                 fill: float) -> xr.DataArray:
    """Mean along ``dims``; with a mask, over the True cells only (``fill`` where none)."""
    if mask is None:
        return x.mean(dims, skipna=False)
    total = x.where(mask, 0.0).sum(dims, skipna=False)
    count = mask.sum(dims)
    return formulas.safe_divide(total, count, fill)


def _warn_invalid(c: dict[str, xr.DataArray], skip: bool, zero_division: Any) -> xr.DataArray:
    v = formulas.valid(c["tp"], c["fp"], c["fn"])
    action = "those folds are skipped" if skip else "their F, precision or recall count as 0"
    _count_and_warn(~v, "precision or recall", zero_division, action, stacklevel=5)
    return v


class _Folds:
    """Per-fold precision, recall, F and V of a cube, each computed once.

    The five fold aggregations share these, so :func:`f_methods` makes one set of passes over
    the counts instead of five (it matters for simulated cubes with 10^6 trials).
    """

    __slots__ = ("tp", "fp", "fn", "v", "b", "fill", "_prec", "_rec", "_f")

    def __init__(self, c: dict[str, xr.DataArray], b: float, fill: float) -> None:
        self.tp, self.fp, self.fn = (formulas._float(c[k]) for k in ("tp", "fp", "fn"))
        self.v = formulas.valid(self.tp, self.fp, self.fn)
        self.b, self.fill = b, fill
        self._prec: xr.DataArray | None = None
        self._rec: xr.DataArray | None = None
        self._f: xr.DataArray | None = None

    @property
    def prec(self) -> xr.DataArray:
        if self._prec is None:
            self._prec = formulas.precision(self.tp, self.fp, self.fill)
        return self._prec

    @property
    def rec(self) -> xr.DataArray:
        if self._rec is None:
            self._rec = formulas.recall(self.tp, self.fn, self.fill)
        return self._rec

    @property
    def f(self) -> xr.DataArray:
        if self._f is None:
            self._f = formulas.f_beta(self.tp, self.fp, self.fn, self.b, self.fill)
        return self._f

    def f_avg(self, dims: tuple[str, ...], skip: bool) -> xr.DataArray:
        return _masked_mean(self.f, self.v if skip else None, dims, self.fill)

    def f_pr_re(self, dims: tuple[str, ...], skip: bool) -> xr.DataArray:
        mask = self.v if skip else None
        pr = _masked_mean(self.prec, mask, dims, self.fill)
        re = _masked_mean(self.rec, mask, dims, self.fill)
        return formulas.f_from_pr(pr, re, self.b)


@_doc
def f_avg(ds: xr.Dataset, dim: Dims = "fold", *, beta: float = 1.0,
          skip_undefined: bool = False, zero_division: ZeroDivision = "warn") -> xr.DataArray:
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
    valid fold the result is the ``zero_division`` value.

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
    b, skip = _beta(beta), _skip(skip_undefined)
    dims = _dims(ds, dim)
    fill = _fill(zero_division)
    c = _counts(ds)
    _warn_invalid(c, skip, zero_division)
    name = "f_avg_skip" if skip else "f_avg"
    return _provenance(_Folds(c, b, fill).f_avg(dims, skip), name, dims,
                       zero_division=zero_division, skip_undefined=skip, beta=b)


@_doc
def f_pr_re(ds: xr.Dataset, dim: Dims = "fold", *, beta: float = 1.0,
            skip_undefined: bool = False, zero_division: ZeroDivision = "warn") -> xr.DataArray:
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
    biased upwards (Forman & Scholz 2010, §4.3). F of two zero means is 0.

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
    b, skip = _beta(beta), _skip(skip_undefined)
    dims = _dims(ds, dim)
    fill = _fill(zero_division)
    c = _counts(ds)
    _warn_invalid(c, skip, zero_division)
    name = "f_pr_re_skip" if skip else "f_pr_re"
    return _provenance(_Folds(c, b, fill).f_pr_re(dims, skip), name, dims,
                       zero_division=zero_division, skip_undefined=skip, beta=b)


@_doc
def f_methods(ds: xr.Dataset, dim: Dims = "fold", *, beta: float = 1.0,
              zero_division: ZeroDivision = "warn") -> xr.Dataset:
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
    b = _beta(beta)
    dims = _dims(ds, dim)
    fill = _fill(zero_division)
    c = _counts(ds)
    folds = _Folds(c, b, fill)
    _count_and_warn(~folds.v, "precision or recall", zero_division,
                    "f_avg and f_pr_re count them as 0; the _skip methods skip those folds")
    tot = {k: c[k].sum(dims, skipna=False) for k in ("tp", "fp", "fn")}
    out = {
        "f_tp_fp": formulas.f_beta(tot["tp"], tot["fp"], tot["fn"], b, fill),
        "f_avg": folds.f_avg(dims, skip=False),
        "f_pr_re": folds.f_pr_re(dims, skip=False),
        "f_avg_skip": folds.f_avg(dims, skip=True),
        "f_pr_re_skip": folds.f_pr_re(dims, skip=True),
    }
    for name, da in out.items():
        _provenance(da, name, dims, zero_division=zero_division,
                    skip_undefined=name.endswith("_skip"), beta=b)
    res = xr.Dataset(out)
    res.attrs = {"method": "f_methods", "reduced_dims": ",".join(map(str, dims)),
                 "zero_division": _zd_attr(zero_division), "beta": b}
    return res
