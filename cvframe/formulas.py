"""Elementwise metrics of counts: no dims, no reductions, no warnings.

Every function takes counts as Python numbers, numpy arrays or DataArrays (eager or dask)
and returns float64 of the same kind. Undefined cells (0/0) take the numeric value ``fill``;
the policy and the warning live one layer up, in :mod:`cvframe.reduce`.

>>> precision(3, 1), recall(3, 0), f_beta(14, 19, 1)
(0.75, 1.0, 0.5833333333333334)
>>> precision(0, 0, fill=float("nan"))
nan
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from . import _checks

__all__ = [
    "accuracy",
    "as_float",
    "f_beta",
    "f_from_pr",
    "f_from_rates",
    "mirror_roc",
    "precision",
    "recall",
    "safe_divide",
    "specificity",
    "valid",
]


def _where(cond: Any, a: Any, b: Any) -> Any:
    if isinstance(cond, xr.DataArray):
        return xr.where(cond, a, b, keep_attrs=False)
    out = np.where(cond, a, b)
    return out.item() if out.ndim == 0 else out


def as_float(x: Any) -> Any:
    """Counts as float64 (unsigned and int32 counts are up-cast before any arithmetic)."""
    if isinstance(x, xr.DataArray):
        return x if x.dtype == np.float64 else x.astype("float64")
    return np.asarray(x, dtype="float64") if np.ndim(x) else float(x)


_float = as_float  # the former private name


def safe_divide(num: Any, den: Any, fill: float = 0.0) -> Any:
    """``num / den`` where ``den > 0``, else ``fill``; never a division by zero.

    >>> safe_divide(1, 4), safe_divide(0, 0), safe_divide(0, 0, fill=1.0)
    (0.25, 0.0, 1.0)
    """
    num, den = _float(num), _float(den)
    undefined = den == 0
    ratio = num / (den + undefined)  # den + 1 where den == 0: finite, then replaced
    return _where(undefined, fill, ratio)


def precision(tp: Any, fp: Any, fill: float = 0.0) -> Any:
    r"""Precision :math:`TP/(TP+FP)`; undefined (``fill``) when :math:`TP+FP=0`."""
    return safe_divide(tp, _float(tp) + _float(fp), fill)


def recall(tp: Any, fn: Any, fill: float = 0.0) -> Any:
    r"""Recall (true-positive rate) :math:`TP/(TP+FN)`; undefined when :math:`TP+FN=0`."""
    return safe_divide(tp, _float(tp) + _float(fn), fill)


def specificity(tn: Any, fp: Any, fill: float = 0.0) -> Any:
    r"""Specificity (true-negative rate) :math:`TN/(TN+FP)`; undefined when :math:`TN+FP=0`."""
    return safe_divide(tn, _float(tn) + _float(fp), fill)


def f_beta(tp: Any, fp: Any, fn: Any, beta: float = 1.0, fill: float = 0.0) -> Any:
    r"""F-measure from counts, as scikit-learn >= 1.3 computes it.

    .. math:: F_\beta = \frac{(1+\beta^2)\,TP}{(1+\beta^2)\,TP + \beta^2 FN + FP}

    It is 0 whenever :math:`TP = 0 < FP + FN` (the limit the paper's Equation (2) gives)
    and undefined (``fill``) only when :math:`TP = FP = FN = 0`.

    >>> f_beta(2, 0, 2), f_beta(0, 0, 4), f_beta(0, 0, 0, fill=float("nan"))
    (0.6666666666666666, 0.0, nan)
    """
    tp, fp, fn = _float(tp), _float(fp), _float(fn)
    b2 = float(beta) ** 2
    return safe_divide((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp, fill)


def f_from_pr(p: Any, r: Any, beta: float = 1.0) -> Any:
    r"""The weighted harmonic mean of precision and recall.

    .. math:: F_\beta = \frac{(1+\beta^2)\,P\,R}{\beta^2 P + R}

    0 when :math:`P = R = 0` (its limit); NaN inputs give NaN.

    >>> round(f_from_pr(0.6, 0.9375), 4)
    0.7317
    """
    p, r = _float(p), _float(r)
    b2 = float(beta) ** 2
    return safe_divide((1 + b2) * p * r, b2 * p + r, 0.0)


def _in_unit(name: str, value: Any, open_ends: bool = False) -> None:
    """Numbers in [0, 1] ((0, 1) when ``open_ends``); NaN passes, DataArrays are not read."""
    if isinstance(value, xr.DataArray):
        return
    arr = np.asarray(value, dtype="float64")
    bad = (arr <= 0) | (arr >= 1) if open_ends else (arr < 0) | (arr > 1)
    if np.any(bad):
        where = "(0, 1)" if open_ends else "[0, 1]"
        raise ValueError(f"{name} has values {np.unique(arr[bad])[:5].tolist()} outside {where}.")


def f_from_rates(tpr: Any, fpr: Any, prevalence: Any, beta: float = 1.0) -> Any:
    r"""F-measure from the true and false positive rates at a class prevalence (Figure 1b).

    With prevalence :math:`\pi = P/(P+N)`, precision is
    :math:`\pi\,TPR / (\pi\,TPR + (1-\pi)\,FPR)` and recall is TPR, so

    .. math:: F_\beta = \frac{(1+\beta^2)\,\pi\,TPR}
        {(1+\beta^2)\,\pi\,TPR + \beta^2\,\pi\,(1 - TPR) + (1-\pi)\,FPR}

    which is :func:`f_beta` of the counts per sample :math:`TP = \pi\,TPR`,
    :math:`FN = \pi(1-TPR)`, :math:`FP = (1-\pi)FPR`: 0 where :math:`TPR = 0` (also where
    precision is 0/0, the paper's Equation (2) extension). The surface is sharp at low
    prevalence: any sizeable FPR swamps the few positives (Forman & Scholz 2010, Figure 1).

    Parameters
    ----------
    tpr, fpr : float or array-like
        True and false positive rates in [0, 1]; numpy broadcasting applies.
    prevalence : float or array-like
        The share of positives, in (0, 1).
    beta : float, default 1

    Returns
    -------
    float or numpy.ndarray (DataArray inputs give a DataArray)

    References
    ----------
    G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls in
    Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, Figure 1.

    Examples
    --------
    >>> round(f_from_rates(0.5, 0.0, 0.01), 4)  # no false positives: precision 1, F = 2/3
    0.6667
    >>> round(f_from_rates(0.5, 0.01, 0.01), 4)  # 1% FPR at 1% positives: precision 0.34
    0.4016
    >>> f_from_rates([0.0, 1.0], [0.0, 1.0], 0.5).tolist()
    [0.0, 0.6666666666666666]
    """
    b = _checks.beta(beta)
    _in_unit("tpr", tpr)
    _in_unit("fpr", fpr)
    _in_unit("prevalence", prevalence, open_ends=True)
    tpr, fpr, pi = _float(tpr), _float(fpr), _float(prevalence)
    return f_beta(pi * tpr, (1.0 - pi) * fpr, pi * (1.0 - tpr), b, 0.0)


def accuracy(correct: Any, n: Any, fill: float = 0.0) -> Any:
    r"""Accuracy :math:`\text{correct}/n`; undefined when the fold is empty (:math:`n = 0`)."""
    return safe_divide(correct, n, fill)


def valid(tp: Any, fp: Any, fn: Any) -> Any:
    r"""The paper's :math:`V`: True where precision and recall are both defined.

    :math:`V = (TP + FP > 0) \wedge (TP + FN > 0)`.

    >>> bool(valid(0, 0, 4)), bool(valid(1, 0, 0))
    (False, True)
    """
    return ((_float(tp) + _float(fp)) > 0) & ((_float(tp) + _float(fn)) > 0)


def mirror_roc(fpr: Any, tpr: Any) -> tuple[Any, Any]:
    r"""An ROC point mirrored through (0.5, 0.5): the classifier with its decisions inverted.

    :math:`(\mathrm{FPR}, \mathrm{TPR}) \mapsto (1 - \mathrm{FPR}, 1 - \mathrm{TPR})`.
    Predicting the opposite of a classifier swaps its true and false positives with its
    false and true negatives, so a point below the diagonal (worse than random) maps to one
    above it; negating the scores maps the whole ROC curve so, and AUC :math:`a` becomes
    :math:`1 - a`. Reference: T. Fawcett, "An introduction to ROC analysis", Pattern
    Recognition Letters 27(8), 2006, §4.2.

    Examples
    --------
    >>> mirror_roc(0.75, 0.25)  # below the diagonal -> above it
    (0.25, 0.75)
    >>> [v.tolist() for v in mirror_roc([0.0, 0.25], [0.5, 1.0])]
    [[1.0, 0.75], [0.5, 0.0]]
    """
    return 1.0 - _float(fpr), 1.0 - _float(tpr)
