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

from . import _checks
from .errors import few

__all__ = [
    "METRIC_SPECS",
    "MULTILABEL_SCORER_ALIASES",
    "SCORER_ALIASES",
    "MetricSpec",
    "accuracy",
    "as_float",
    "f_beta",
    "f_from_pr",
    "f_from_rates",
    "metric",
    "mirror_roc",
    "precision",
    "recall",
    "safe_divide",
    "scorer_metric",
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
    code: int  #: the metric's branch in the compiled loop of :mod:`cvframe._kernel`
    uses_tn: bool = False  #: whether the formula reads the true negatives
    #: ``(tp, fp, fn, tn) -> mask`` of the folds a fold mean calls undefined (and skips under
    #: ``skip_undefined``) when not ``den == 0``: for F, where precision or recall is
    fold_undefined: Callable[[Any, Any, Any, Any], Any] | None = None

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
        ),
        MetricSpec(
            "recall",
            "TP",
            "TP + FN",
            lambda tp, fp, fn, tn, beta: (tp, tp + fn),
            "TP + FN = 0",
            ("recall (no positives of the class)",) * 2,
            code=2,
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
        ),
        MetricSpec(
            "jaccard",
            "TP",
            "TP + FP + FN",
            lambda tp, fp, fn, tn, beta: (tp, tp + fp + fn),
            "TP = FP = FN = 0",
            ("Jaccard (TP = FP = FN = 0)", "Jaccard (TP = FP = FN = 0 after pooling)"),
            code=5,
        ),
    )
}


#: scikit-learn scorer names -> the pooled metric that stands for them under cross-validation
#: (the names of :class:`cvframe.search.PooledSearchCV`'s ``scoring=``). Counts are summed over
#: the folds before the metric (``_tp_fp``), scores are ranked or averaged over the merged
#: folds (``_merge``): where scikit-learn averages one number per fold, cvframe pools.
#: Only the scorers cvframe computes are listed; :func:`scorer_metric` resolves a name.
SCORER_ALIASES: dict[str, str] = {
    "f1": "f_tp_fp",
    "precision": "precision_tp_fp",
    "recall": "recall_tp_fp",
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced_accuracy_tp_fp",
    "jaccard": "jaccard_tp_fp",
    "roc_auc": "auc_merge",
    "average_precision": "average_precision_merge",
    "neg_brier_score": "neg_brier_merge",
    "neg_log_loss": "neg_log_loss_merge",
}

#: The same for a multilabel ``y`` (a 0/1 indicator matrix), looked up before
#: :data:`SCORER_ALIASES`: the sample-based scorers become the mean over every tested sample
#: (per-sample outcomes pooled over the folds), ``"accuracy"`` is the subset accuracy (as
#: scikit-learn's scorer on indicator matrices); ``"neg_hamming_loss"`` is cvframe's name
#: (scikit-learn has no scorer name for ``hamming_loss``). The label averages (``"f1_macro"``,
#: ``"jaccard_micro"``...) are those of :data:`SCORER_ALIASES` with the average as suffix.
MULTILABEL_SCORER_ALIASES: dict[str, str] = {
    "f1_samples": "f_samples",
    "jaccard_samples": "jaccard_samples",
    "accuracy": "subset_accuracy",
    "subset_accuracy": "subset_accuracy",
    "neg_hamming_loss": "neg_hamming_loss",
}


def scorer_metric(name: str, multilabel: bool = False) -> str:
    """The pooled metric of a scikit-learn scorer name (or of a pooled name itself).

    Parameters
    ----------
    name : str
        A key of :data:`SCORER_ALIASES` (``"f1"``, ``"roc_auc"``...) or one of its values
        (``"f_tp_fp"``, ``"auc_merge"``...), which is returned as is.
    multilabel : bool, default False
        The name scores a multilabel ``y``: :data:`MULTILABEL_SCORER_ALIASES` first
        (``"f1_samples"`` -> ``"f_samples"``, ``"accuracy"`` -> ``"subset_accuracy"``).

    Returns
    -------
    str
        The pooled metric name, a value of :data:`SCORER_ALIASES`.

    Raises
    ------
    ValueError
        For any other name: the message lists the accepted names.

    Examples
    --------
    >>> scorer_metric("f1"), scorer_metric("roc_auc"), scorer_metric("f_tp_fp")
    ('f_tp_fp', 'auc_merge', 'f_tp_fp')
    >>> scorer_metric("f1_samples", multilabel=True), scorer_metric("accuracy", multilabel=True)
    ('f_samples', 'subset_accuracy')
    """
    if isinstance(name, str):
        if multilabel and name in MULTILABEL_SCORER_ALIASES:
            return MULTILABEL_SCORER_ALIASES[name]
        if name in SCORER_ALIASES:
            return SCORER_ALIASES[name]
        if name in SCORER_ALIASES.values():
            return name
    accepted = [*SCORER_ALIASES, *dict.fromkeys(SCORER_ALIASES.values())]
    if isinstance(name, str) and name in MULTILABEL_SCORER_ALIASES:
        raise ValueError(
            f"scoring={name!r} scores a multilabel y (a 0/1 indicator matrix, one column per "
            "label); for 1-D class labels pass one of "
            f"{', '.join(map(repr, accepted))}."
        )
    if multilabel:
        accepted = [*MULTILABEL_SCORER_ALIASES, *accepted]
    raise ValueError(
        f"scoring={name!r} is not a scorer cvframe pools; pass one of "
        f"{', '.join(map(repr, accepted))} (a scikit-learn name maps to its pooled metric)."
    )


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
    tp, fp, fn, tn = (None if x is None else as_float(x) for x in (tp, fp, fn, tn))
    return safe_divide(*spec.num_den(tp, fp, fn, tn, b), fill)


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
