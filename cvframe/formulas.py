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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from ._core import checks as _checks
from .errors import few

__all__ = [
    "METRIC_SPECS",
    "MetricSpec",
    "accuracy",
    "as_float",
    "both_classes",
    "f_beta",
    "f_from_pr",
    "f_from_rates",
    "metric",
    "mirror_roc",
    "precision",
    "recall",
    "safe_divide",
    "specificity",
    "valid",
]


def as_float(x: Any) -> Any:
    """Counts as float64 (unsigned and int32 counts are up-cast before any arithmetic)."""
    if isinstance(x, xr.DataArray):
        return x if x.dtype == np.float64 else x.astype("float64")
    return np.asarray(x, dtype="float64") if np.ndim(x) else float(x)


def safe_divide(num: Any, den: Any, fill: float = 0.0) -> Any:
    """``num / den`` where ``den > 0``, else ``fill``; never a division by zero.

    >>> safe_divide(1, 4), safe_divide(0, 0), safe_divide(0, 0, fill=1.0)
    (0.25, 0.0, 1.0)
    """
    num, den = as_float(num), as_float(den)
    undefined = den == 0
    ratio = num / (den + undefined)  # den + 1 where den == 0: finite, then replaced
    if isinstance(undefined, xr.DataArray):
        return xr.where(undefined, fill, ratio, keep_attrs=False)
    out = np.where(undefined, fill, ratio)
    return out.item() if out.ndim == 0 else out


@dataclass(frozen=True)
class MetricSpec:
    """One metric of counts (a row of :data:`METRIC_SPECS`): its formula ``num / den``, when
    it is undefined (``den == 0``) and how a warning words it."""

    name: str  #: the name in ``metric=`` arguments
    numerator: str  #: the formula as text
    denominator: str
    #: ``(tp, fp, fn, tn, beta) -> (num, den)`` of float64 counts (``tn`` None if not used)
    num_den: Callable[[Any, Any, Any, Any, float], tuple[Any, Any]]
    undefined_when: str  #: when ``den == 0``, as text
    warning: tuple[str, str]  #: a warning's words for an undefined fold (or cell), pooled cell
    code: int  #: the metric's branch in the compiled loop of :mod:`cvframe._core.kernel`
    uses_tn: bool = False  #: whether the formula reads the true negatives
    #: ``(tp, fp, fn, tn) -> mask`` of the folds a fold mean calls undefined (and skips under
    #: ``skip_undefined``) when not ``den == 0``: for F, where precision or recall is
    fold_undefined: Callable[[Any, Any, Any, Any], Any] | None = None
    #: One value over every class of single-label data (MCC, balanced accuracy): ``num_den``
    #: reads numpy counts whose last axis holds all the classes (:func:`both_classes` for a
    #: binary cube) and returns (num, den) without it; no branch in the compiled loop.
    over_classes: bool = False
    #: The cells ``(x, y)`` of which the metric is a monotone increasing function of the share
    #: :math:`x/(x+y)` (``x``, ``y`` sums of equally weighted cells; a formula reading ``beta``
    #: at ``beta=1``): its interval is a Beta posterior (:mod:`cvframe.intervals`). None: not one.
    share: tuple[tuple[str, ...], tuple[str, ...]] | None = None

    def undefined(self, tp: Any, fp: Any, fn: Any, tn: Any, pooled: bool = False) -> Any:
        """Mask of the undefined cells of float64 counts (per fold unless ``pooled``)."""
        if not pooled and self.fold_undefined is not None:
            return self.fold_undefined(tp, fp, fn, tn)
        return self.num_den(tp, fp, fn, tn, 1.0)[1] == 0


def _f_num_den(tp: Any, fp: Any, fn: Any, tn: Any, beta: float) -> tuple[Any, Any]:
    b2 = float(beta) ** 2
    num = (1.0 + b2) * tp
    return num, num + b2 * fn + fp


#: The metrics of counts, by name; every other table of metrics derives from this one.
METRIC_SPECS: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        MetricSpec(
            "precision",
            "TP",
            "TP + FP",
            lambda tp, fp, fn, tn, beta: (tp, tp + fp),
            "TP + FP = 0",
            ("precision (no predicted positives)",) * 2,
            code=1,
            share=(("tp",), ("fp",)),
        ),
        MetricSpec(
            "recall",
            "TP",
            "TP + FN",
            lambda tp, fp, fn, tn, beta: (tp, tp + fn),
            "TP + FN = 0",
            ("recall (no positives of the class)",) * 2,
            code=2,
            share=(("tp",), ("fn",)),
        ),
        MetricSpec(
            "f",
            "(1 + beta^2) TP",
            "(1 + beta^2) TP + beta^2 FN + FP",
            _f_num_den,
            "TP = FP = FN = 0",
            ("precision or recall", "F (TP = FP = FN = 0 after pooling)"),
            code=0,
            fold_undefined=lambda tp, fp, fn, tn: ~valid(tp, fp, fn),
            share=(("tp",), ("fp", "fn")),  # F = 2J / (1 + J) of the Jaccard index J
        ),
        MetricSpec(
            "accuracy",
            "TP + TN",
            "TP + FP + FN + TN",
            lambda tp, fp, fn, tn, beta: (tp + tn, tp + fp + fn + tn),
            "TP + FP + FN + TN = 0",
            ("accuracy (empty fold)", "accuracy (no tested samples)"),
            code=4,
            uses_tn=True,
            share=(("tp", "tn"), ("fp", "fn")),
        ),
        MetricSpec(
            "specificity",
            "TN",
            "TN + FP",
            lambda tp, fp, fn, tn, beta: (tn, tn + fp),
            "TN + FP = 0",
            ("specificity (no negatives of the class)",) * 2,
            code=3,
            uses_tn=True,
            share=(("tn",), ("fp",)),
        ),
        MetricSpec(
            "jaccard",
            "TP",
            "TP + FP + FN",
            lambda tp, fp, fn, tn, beta: (tp, tp + fp + fn),
            "TP = FP = FN = 0",
            ("Jaccard (TP = FP = FN = 0)", "Jaccard (TP = FP = FN = 0 after pooling)"),
            code=5,
            share=(("tp",), ("fp", "fn")),
        ),
        MetricSpec(  # 1 - accuracy of single-label data: the samples outside the diagonal
            "error",
            "n - sum_k TP_k",
            "n",
            lambda tp, fp, fn, tn, beta: (
                (tp + fp + fn + tn)[..., 0] - tp.sum(-1),
                (tp + fp + fn + tn)[..., 0],
            ),
            "n = 0",
            ("error (empty fold)", "error (no tested samples)"),
            code=-1,
            over_classes=True,
        ),
        MetricSpec(
            "mcc",
            "n sum_k TP_k - sum_k t_k p_k",
            "sqrt((n^2 - sum_k p_k^2) (n^2 - sum_k t_k^2))",
            lambda tp, fp, fn, tn, beta: _mcc_num_den(tp, fp, fn, tn),
            "all samples are of one class, or all are predicted as one",
            (
                "the Matthews correlation (one true or one predicted class in the fold)",
                "the Matthews correlation (one true or one predicted class after pooling)",
            ),
            code=-1,
            uses_tn=True,
            over_classes=True,
        ),
        MetricSpec(
            "balanced_accuracy",
            "sum_k TP_k / t_k over the classes with t_k > 0",
            "#classes with t_k > 0",
            lambda tp, fp, fn, tn, beta: _balanced_accuracy_num_den(tp, fn),
            "the fold has no samples",
            ("balanced accuracy (an empty fold)", "balanced accuracy (no tested samples)"),
            code=-1,
            over_classes=True,
        ),
    )
}


def _balanced_accuracy_num_den(tp: Any, fn: Any) -> tuple[Any, Any]:
    r"""Balanced accuracy of one-vs-all counts whose last axis holds every class: the mean
    recall :math:`TP_k / t_k` over the classes present (:math:`t_k = TP_k + FN_k > 0`), as
    scikit-learn's ``balanced_accuracy_score`` (Brodersen et al. 2010); for two classes
    :math:`(TPR + TNR) / 2`."""
    support = tp + fn
    return safe_divide(tp, support).sum(-1), (support > 0).sum(-1).astype(np.float64)


def _mcc_num_den(tp: Any, fp: Any, fn: Any, tn: Any) -> tuple[Any, Any]:
    r"""The multiclass Matthews correlation (Gorodkin's :math:`R_K`) of one-vs-all counts
    whose last axis holds every class: with true and predicted margins
    :math:`t_k = TP_k + FN_k`, :math:`p_k = TP_k + FP_k` and :math:`n` samples,
    :math:`(n \sum_k TP_k - \sum_k t_k p_k) /
    \sqrt{(n^2 - \sum_k p_k^2)(n^2 - \sum_k t_k^2)}` (the binary MCC for two classes)."""
    t, p = tp + fn, tp + fp
    n = (tp + fp + fn + tn)[..., 0]
    num = n * tp.sum(-1) - (t * p).sum(-1)
    return num, np.sqrt((n * n - (p * p).sum(-1)) * (n * n - (t * t).sum(-1)))


def metric(
    name: str, tp: Any, fp: Any, fn: Any, tn: Any = None, *, beta: float = 1.0, fill: float = 0.0
) -> Any:
    r"""Any metric of :data:`METRIC_SPECS` from counts, elementwise: ``num / den``.

    .. math:: \text{metric} = \frac{\text{numerator}(TP, FP, FN, TN)}
        {\text{denominator}(TP, FP, FN, TN)}

    ``fill`` where the denominator is 0 (see :attr:`MetricSpec.undefined_when`).

    Parameters
    ----------
    name : {"precision", "recall", "f", "accuracy", "specificity", "jaccard"}
    tp, fp, fn : number, array-like or DataArray
        Counts (numpy broadcasting / xarray alignment applies).
    tn : number, array-like or DataArray, optional
        Needed by ``"accuracy"`` and ``"specificity"``.
    beta : float, default 1
        The :math:`\beta` of F.
    fill : float, default 0
        The value of an undefined cell.

    Returns
    -------
    float, numpy.ndarray or DataArray (float64)

    References
    ----------
    G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies", ACM SIGKDD
    Explorations 12(1), 2010, §2.

    Examples
    --------
    >>> metric("precision", 3, 1, 2), metric("f", 14, 19, 1), metric("accuracy", 3, 1, 2, 4)
    (0.75, 0.5833333333333334, 0.7)
    >>> metric("recall", [1, 0], [0, 0], [1, 0]).tolist()
    [0.5, 0.0]
    """
    spec = METRIC_SPECS[_checks.choice("metric", name, list(METRIC_SPECS))]
    if spec.uses_tn and tn is None:
        raise ValueError(f"metric={name!r} needs tn (the true negatives); pass tn=...")
    b = _checks.beta(beta)
    if spec.over_classes:  # numpy counts, the classes on the last axis
        tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn))
    else:
        tp, fp, fn, tn = (None if x is None else as_float(x) for x in (tp, fp, fn, tn))
    return safe_divide(*spec.num_den(tp, fp, fn, tn, b), fill)


def both_classes(tp: Any, fp: Any, fn: Any, tn: Any) -> tuple[np.ndarray, ...]:
    """The counts of a binary problem's positive class (last axis of length 1) with its
    negative class appended: its TP is the positive's TN, its FP the positive's FN.

    >>> [x.tolist() for x in both_classes([[3]], [[1]], [[2]], [[4]])]
    [[[3, 4]], [[1, 2]], [[2, 1]], [[4, 3]]]
    """
    tp, fp, fn, tn = (np.asarray(x) for x in (tp, fp, fn, tn))
    pairs = ((tp, tn), (fp, fn), (fn, fp), (tn, tp))
    return tuple(np.concatenate([a, b], axis=-1) for a, b in pairs)


def precision(tp: Any, fp: Any, fill: float = 0.0) -> Any:
    r"""Precision :math:`TP/(TP+FP)`; undefined (``fill``) when :math:`TP+FP=0`."""
    return metric("precision", tp, fp, None, fill=fill)


def recall(tp: Any, fn: Any, fill: float = 0.0) -> Any:
    r"""Recall (true-positive rate) :math:`TP/(TP+FN)`; undefined when :math:`TP+FN=0`."""
    return metric("recall", tp, None, fn, fill=fill)


def specificity(tn: Any, fp: Any, fill: float = 0.0) -> Any:
    r"""Specificity (true-negative rate) :math:`TN/(TN+FP)`; undefined when :math:`TN+FP=0`."""
    return metric("specificity", None, fp, None, tn, fill=fill)


def f_beta(tp: Any, fp: Any, fn: Any, beta: float = 1.0, fill: float = 0.0) -> Any:
    r"""F-measure from counts, as scikit-learn >= 1.3 computes it.

    .. math:: F_\beta = \frac{(1+\beta^2)\,TP}{(1+\beta^2)\,TP + \beta^2 FN + FP}

    It is 0 whenever :math:`TP = 0 < FP + FN` (the limit the paper's Equation (2) gives)
    and undefined (``fill``) only when :math:`TP = FP = FN = 0`.

    >>> f_beta(2, 0, 2), f_beta(0, 0, 4), f_beta(0, 0, 0, fill=float("nan"))
    (0.6666666666666666, 0.0, nan)
    """
    return metric("f", tp, fp, fn, beta=beta, fill=fill)


def f_from_pr(p: Any, r: Any, beta: float = 1.0) -> Any:
    r"""The weighted harmonic mean of precision and recall.

    .. math:: F_\beta = \frac{(1+\beta^2)\,P\,R}{\beta^2 P + R}

    0 when :math:`P = R = 0` (its limit); NaN inputs give NaN.

    >>> round(f_from_pr(0.6, 0.9375), 4)
    0.7317
    """
    p, r = as_float(p), as_float(r)
    b2 = float(beta) ** 2
    return safe_divide((1 + b2) * p * r, b2 * p + r, 0.0)


def _in_unit(name: str, value: Any, open_ends: bool = False) -> None:
    """Numbers in [0, 1] ((0, 1) when ``open_ends``); NaN passes.

    A DataArray is checked too (a dask-backed one is computed for the check).
    """
    arr = as_float(value) if isinstance(value, xr.DataArray) else np.asarray(value, dtype=float)
    bad = (arr <= 0) | (arr >= 1) if open_ends else (arr < 0) | (arr > 1)
    if bool(bad.any()):
        found = np.asarray(arr.where(bad) if isinstance(arr, xr.DataArray) else arr[bad]).ravel()
        where = "(0, 1)" if open_ends else "[0, 1]"
        raise ValueError(
            f"{name} has values {few(np.unique(found[~np.isnan(found)]).tolist())} outside "
            f"{where}; pass {'shares' if open_ends else 'rates'} in {where}."
        )


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
    tpr, fpr, pi = as_float(tpr), as_float(fpr), as_float(prevalence)
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
    return ((as_float(tp) + as_float(fp)) > 0) & ((as_float(tp) + as_float(fn)) > 0)


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
    _in_unit("fpr", fpr)
    _in_unit("tpr", tpr)
    return 1.0 - as_float(fpr), 1.0 - as_float(tpr)


def __getattr__(name: str) -> Any:
    """The scikit-learn scorer tables, which live in the metric registry
    (:data:`cvframe.metrics.SCORER_ALIASES`), under their former names here."""
    if name in ("SCORER_ALIASES", "MULTILABEL_SCORER_ALIASES", "scorer_metric"):
        from . import metrics

        return getattr(metrics, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
