"""Per-cell metrics of a counts cube (precision, recall, F, specificity, V) and accuracy.

Each is the engine (:func:`cvframe.reduce.aggregate_counts`) run with ``fold_method=None``,
or for accuracy its fold mean (:func:`cvframe.reduce.fold_mean`).
"""

from __future__ import annotations

from typing import Any

import xarray as xr

from .. import formulas
from .._core import checks as _checks
from .._core.docs import doc
from .._core.types import Dims, How, ZeroDivision
from ..schema import CLASS, provenance, read_counts
from ._engine import UNDEFINED, aggregate_counts, fold_dims, fold_mean, warn


def _cell(ds: xr.Dataset, metric: str, zero_division: Any, beta: float = 1.0) -> xr.DataArray:
    b = _checks.beta(beta)
    fill = _checks.zero_division(zero_division)
    c = read_counts(ds, need_fold=False)
    val, items = aggregate_counts(c, metric, None, (), beta=b, fill=fill)
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

    <<references>>

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

    <<references>>

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

    <<references>>

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

    <<references>>

    Examples
    --------
    >>> import cvframe
    >>> cvframe.datasets.table2().cv.valid().values.ravel()
    array([ True, False,  True,  True])
    """
    c = read_counts(ds, need_fold=False)
    return provenance(formulas.valid(c.tp, c.fp, c.fn), "valid")


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

    <<references>>

    Examples
    --------
    >>> import cvframe
    >>> float(cvframe.datasets.basili_confusion().cv.accuracy(how="pooled").round(4))
    0.8333
    """
    how = _checks.choice("how", how, [None, "pooled", "avg"])
    fill = _checks.zero_division(zero_division)
    dims = () if how is None else fold_dims(ds, dim)
    c = read_counts(ds, need_fold=how is not None)
    p = c.sum(dims) if how == "pooled" else c
    if ds.attrs.get("task") == "multiclass":  # a sample counts once: sum_c TP_c, no class
        correct, n = formulas.as_float(p.tp).sum(CLASS), p.n.isel({CLASS: 0}, drop=True)
    else:  # one-vs-all decisions per class: TP + TN
        correct, n = formulas.as_float(p.tp) + p.tn, p.n
    name = "accuracy" if how is None else f"accuracy_{how}"
    val = formulas.accuracy(correct, n, fill)
    if how == "avg":
        val, none = fold_mean(val, c, dims, fill)
        items = [] if none is None else [(none, "the fold mean (no folds to average)")]
    else:
        items = [(n == 0, UNDEFINED["accuracy"][how == "pooled"])]
    warn([(m, what, f"set to {fill}", None) for m, what in items], zero_division)
    return provenance(val, name, dims, zero_division=zero_division)


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
    out = 1.0 - acc
    out.attrs = {**acc.attrs, "method": acc.attrs["method"].replace("accuracy", "error_rate")}
    out.name = out.attrs["method"]
    return out
