r"""Multiclass evaluation: class averaging, Cohen's kappa and confusion matrices.

A multiclass cube holds the one-vs-all (OVA) counts of every class on every fold. Two
aggregations compose here, and their order matters:

- **fold aggregation** (``fold_method``): ``"tp_fp"`` pools the counts over folds first (the
  default, Forman & Scholz's recommended F_tp,fp), ``"avg"`` computes the metric per fold and
  takes the mean over folds, ``"pr_re"`` (F only) takes F of the fold means of precision and
  recall, and ``None`` keeps the ``fold`` dimension;
- **class averaging**: :func:`macro` (unweighted mean of per-class values), :func:`weighted`
  (per-class values weighted by support :math:`TP + FN`) and :func:`micro` (counts summed over
  classes, then the metric).

All three are named uses of :func:`cvframe.reduce.aggregate` (the one fold-aggregation
engine): ``macro`` and ``weighted`` aggregate each class over folds first, then average over
classes, so ``macro("f", fold_method=m)`` is the class mean of the per-class ``f_<m>()``;
``micro`` sums over classes within each fold first, then aggregates the summed counts over
folds. A binary cube is averaged over both of its classes, as scikit-learn does.

:func:`kappa` and :func:`confusion` read the ``confusion`` variable of single-label cubes.
:func:`summary` (across repeats) lives in :mod:`cvframe.repeats` and is re-exported here.

Everything is plain xarray arithmetic, so dask-backed cubes stay lazy (undefined-metric
warnings need values, so lazy cubes skip them: pass ``zero_division`` explicitly there).

(Over 400 lines, nearly all numpydoc: each average documents its formula, its composition
with ``fold_method``, the scikit-learn equivalence and a worked example; the code of the
three averages is a few lines each on top of :func:`cvframe.reduce.aggregate_counts`.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from . import _checks, formulas
from ._docs import doc, register
from ._types import Definition, Dims, FoldMethod, KappaFoldMethod, Metric, ZeroDivision
from .errors import CountsError
from .reduce import Undefined, aggregate_counts, check_metric, fold_dims, warn
from .repeats import STACKED, summary
from .schema import (
    CLASS,
    CONFUSION,
    PRED,
    TRUE,
    Counts,
    check_structure,
    is_binary,
    provenance,
    read_counts,
)

__all__ = [
    "DEFINITIONS",
    "FOLD_METHODS",
    "METRICS",
    "STACKED",
    "confusion",
    "kappa",
    "macro",
    "micro",
    "summary",
    "weighted",
]

#: Metrics that can be averaged over classes.
METRICS = ("precision", "recall", "f", "accuracy")
#: Fold aggregations that compose with class averaging (``None`` keeps the fold dim).
FOLD_METHODS = ("tp_fp", "avg", "pr_re", None)
#: The two definitions of macro-F in use.
DEFINITIONS = ("mean", "f_of_means")

register(
    {
        "binary_classes": """\
On a binary cube (``task="binary"``, ``class`` holding the positive class only) the
average runs over both classes, the negative class's counts being the positive's with
TP and TN, FP and FN exchanged, as scikit-learn's ``average=...`` does on two labels."""
    }
)


# --- the counts a class average runs over --------------------------------------------------


def _class_counts(ds: xr.Dataset) -> Counts:
    """The counts of ``ds``; a binary cube gains its negative class (tp = the positive's tn)."""
    c = read_counts(ds)
    if not is_binary(ds):
        return c
    pos = ds[CLASS].values[0]
    neg: Any = f"not {pos}"
    if TRUE in ds.coords and ds.sizes.get(TRUE) == 2:
        others = [t for t in ds[TRUE].values.tolist() if t != pos]
        neg = others[0] if len(others) == 1 else neg
    return c.with_negative_class(neg)


def _dims_for(ds: xr.Dataset, dim: Dims, fold_method: str | None) -> tuple[str, ...]:
    dims = fold_dims(ds, dim)  # validated even when fold_method is None
    return () if fold_method is None else dims


def _finish(
    val: xr.DataArray,
    method: str,
    dims: tuple[str, ...],
    metric: str,
    fold_method: str | None,
    zero_division: Any,
    b: float,
    definition: str | None = None,
) -> xr.DataArray:
    return provenance(
        val,
        method,
        dims + (CLASS,),
        metric=metric,
        fold_method="none" if fold_method is None else fold_method,
        definition=definition,
        zero_division=zero_division,
        beta=b if metric == "f" else None,
    )


# --- class averaging -----------------------------------------------------------------------------


@doc
def macro(
    ds: xr.Dataset,
    metric: Metric = "f",
    fold_method: FoldMethod = "tp_fp",
    definition: Definition = "mean",
    beta: float = 1.0,
    *,
    dim: Dims = "fold",
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""Macro average: every class weighs the same.

    Each class's metric is first aggregated over folds by ``fold_method`` (giving
    :math:`M_c`), then averaged over the :math:`C` classes:

    .. math:: \text{macro} = \frac1C \sum_{c=1}^C M_c
        \qquad (\texttt{definition="mean"}, \text{scikit-learn's})

    For F, ``definition="f_of_means"`` is the other macro-F in use: F of the macro precision
    and the macro recall,

    .. math:: \overline{P} = \frac1C\sum_c P_c,\quad \overline{R} = \frac1C\sum_c R_c,\qquad
        F = \frac{(1+\beta^2)\,\overline{P}\,\overline{R}}{\beta^2\,\overline{P}+\overline{R}}

    where :math:`P_c, R_c` are fold-aggregated like :math:`M_c` (pooled for ``"tp_fp"``,
    fold means for ``"avg"`` and ``"pr_re"``, per fold for ``None``).

    Parameters
    ----------
    <<ds>>
    <<metric>>
    <<fold_method>>
    definition : {"mean", "f_of_means"}, default "mean"
        ``"f_of_means"`` applies to ``metric="f"`` only.
    <<beta>>
        Used by ``metric="f"`` only.
    <<dim>>
        Ignored (but checked) when ``fold_method=None``.
    <<zero_division>>
        A class whose metric is undefined (e.g. a class absent from a fold: recall 0/0)
        takes this value in the class mean; ``np.nan`` propagates to the average (unlike
        scikit-learn, which leaves NaN classes out of the mean — select the classes you
        want with ``ds.sel({"class": [...]})`` instead).

    Returns
    -------
    xarray.DataArray
        float64 without ``class`` and ``dim`` (``fold_method=None`` keeps ``dim``); every
        other dim (``repeat``, ``model``, ...) is kept. Attrs ``method="macro"``, ``metric``,
        ``fold_method``, ``definition``, ``zero_division``, ``beta`` and ``reduced_dims``.

    Raises
    ------
    ValueError
        For an unknown ``metric``, ``fold_method`` or ``definition`` (listing the valid
        ones), ``fold_method="pr_re"`` or ``definition="f_of_means"`` with a metric other
        than ``"f"``.

    Notes
    -----
    Classes absent from a fold, or from the whole data but named in ``labels``, are kept
    with zero counts; their undefined values follow ``zero_division`` (one warning per call
    under ``"warn"``). Macro averages favour small classes.

    <<binary_classes>>

    See Also
    --------
    micro, weighted
    sklearn.metrics.precision_recall_fscore_support : ``average="macro"`` on pooled
        predictions equals ``fold_method="tp_fp"``.

    References
    ----------
    <<reference>>
    <<slides>>

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.datasets.slides_confusion()
    >>> [round(ds.cv.macro(m).item(), 2) for m in ("precision", "recall", "f")]
    [0.67, 0.62, 0.62]
    >>> round(ds.cv.macro("f", definition="f_of_means").item(), 4)
    0.6401
    """
    metric, fold_method = check_metric(metric, fold_method, METRICS)
    definition = _checks.choice("definition", definition, DEFINITIONS)
    if definition == "f_of_means" and metric != "f":
        raise ValueError(
            f"definition='f_of_means' (F of macro precision and macro recall) applies to "
            f"metric='f' only, not metric={metric!r}; use definition='mean'."
        )
    b = _checks.beta(beta)
    fill = _checks.zero_division(zero_division)
    dims = _dims_for(ds, dim, fold_method)
    c = _class_counts(ds)
    if definition == "f_of_means":
        fm = "avg" if fold_method == "pr_re" else fold_method
        pr, und_p = aggregate_counts(c, "precision", fm, dims, beta=b, fill=fill)
        re, und_r = aggregate_counts(c, "recall", fm, dims, beta=b, fill=fill)
        warn(und_p + und_r, zero_division)
        val = formulas.f_from_pr(pr.mean(CLASS, skipna=False), re.mean(CLASS, skipna=False), b)
    else:
        per_class, undefined = aggregate_counts(c, metric, fold_method, dims, beta=b, fill=fill)
        warn(undefined, zero_division)
        val = per_class.mean(CLASS, skipna=False)
    return _finish(val, "macro", dims, metric, fold_method, zero_division, b, definition)


@doc
def weighted(
    ds: xr.Dataset,
    metric: Metric = "f",
    fold_method: FoldMethod = "tp_fp",
    beta: float = 1.0,
    *,
    dim: Dims = "fold",
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""Support-weighted average over classes (scikit-learn's ``average="weighted"``).

    Each class's metric is aggregated over folds by ``fold_method`` (:math:`M_c`), then
    weighted by the class support pooled over ``dim``, :math:`s_c = \sum_i (TP_c^{(i)} +
    FN_c^{(i)})` (per fold when ``fold_method=None``):

    .. math:: \text{weighted} = \frac{\sum_c s_c\,M_c}{\sum_c s_c}

    Classes with zero support get weight 0 (even when their metric is undefined).

    Parameters
    ----------
    <<ds>>
    <<metric>>
    <<fold_method>>
    <<beta>>
        Used by ``metric="f"`` only.
    <<dim>>
        Ignored (but checked) when ``fold_method=None``.
    <<zero_division>>
        Also the value when every support is 0 (the average is 0/0 there).

    Returns
    -------
    xarray.DataArray
        float64 without ``class`` and ``dim`` (``fold_method=None`` keeps ``dim``); attrs
        ``method="weighted"``, ``metric``, ``fold_method``, ``zero_division``, ``beta``,
        ``reduced_dims``.

    Notes
    -----
    Pooled weighted recall equals the (multiclass) accuracy for single-label data, since
    :math:`\sum_c s_c R_c = \sum_c TP_c`. Weighted F can lie outside the range between
    weighted precision and weighted recall.

    <<binary_classes>>

    See Also
    --------
    macro, micro
    sklearn.metrics.precision_recall_fscore_support

    References
    ----------
    <<reference>>
    <<slides>>

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.datasets.slides_confusion()
    >>> [round(ds.cv.weighted(m).item(), 2) for m in ("precision", "recall", "f")]
    [0.69, 0.7, 0.68]
    """
    metric, fold_method = check_metric(metric, fold_method, METRICS)
    b = _checks.beta(beta)
    fill = _checks.zero_division(zero_division)
    dims = _dims_for(ds, dim, fold_method)
    c = _class_counts(ds)
    per_class, undefined = aggregate_counts(c, metric, fold_method, dims, beta=b, fill=fill)
    support = (formulas.as_float(c.tp) + c.fn).sum(dims)
    total = support.sum(CLASS)
    num = (per_class.where(support > 0, 0.0) * support).sum(CLASS, skipna=False)
    none: Undefined = (
        total == 0,
        "the weighted average (every class has support 0)",
        f"set to {fill}",
        None,
    )
    warn([*undefined, none], zero_division)
    val = formulas.safe_divide(num, total, fill)
    return _finish(val, "weighted", dims, metric, fold_method, zero_division, b)


@doc
def micro(
    ds: xr.Dataset,
    metric: Metric = "f",
    fold_method: FoldMethod = "tp_fp",
    beta: float = 1.0,
    *,
    dim: Dims = "fold",
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""Micro average: sum the counts over classes within each fold, then aggregate folds.

    .. math:: TP^{(i)} = \sum_c TP_c^{(i)},\ FP^{(i)} = \sum_c FP_c^{(i)},\ \ldots

    then the metric of these summed counts is aggregated over folds by ``fold_method``
    (``"tp_fp"``: sum over folds, then the metric — e.g. micro
    :math:`P = \sum_{i,c} TP / \sum_{i,c} (TP + FP)`).

    Parameters
    ----------
    <<ds>>
    <<metric>>
    <<fold_method>>
    <<beta>>
        Used by ``metric="f"`` only.
    <<dim>>
        Ignored (but checked) when ``fold_method=None``.
    <<zero_division>>

    Returns
    -------
    xarray.DataArray
        float64 without ``class`` and ``dim`` (``fold_method=None`` keeps ``dim``); attrs
        ``method="micro"``, ``metric``, ``fold_method``, ``zero_division``, ``beta``,
        ``reduced_dims``.

    Notes
    -----
    For single-label data over *all* classes every error is one FP and one FN, so micro
    precision = micro recall = micro F = the multiclass accuracy :math:`\sum_c TP_c / n`;
    over a subset of classes (``ds.sel({"class": [...]})``) they differ. Micro
    ``"accuracy"`` is the one-vs-all accuracy of the summed counts,
    :math:`\sum_c (TP_c + TN_c) / (C\,n)`, which is *not* the multiclass accuracy (use
    ``ds.cv.accuracy(how="pooled")`` for that).

    <<binary_classes>>
    So micro F equals the accuracy of a binary cube too.

    See Also
    --------
    macro, weighted
    sklearn.metrics.precision_recall_fscore_support : ``average="micro"``.

    References
    ----------
    <<reference>>
    <<slides>>

    Examples
    --------
    >>> import cvframe
    >>> round(cvframe.datasets.slides_confusion().cv.micro("f").item(), 2)
    0.7
    """
    metric, fold_method = check_metric(metric, fold_method, METRICS)
    b = _checks.beta(beta)
    fill = _checks.zero_division(zero_division)
    dims = _dims_for(ds, dim, fold_method)
    c = _class_counts(ds).sum_classes()
    val, undefined = aggregate_counts(c, metric, fold_method, dims, beta=b, fill=fill)
    warn(undefined, zero_division)
    return _finish(val, "micro", dims, metric, fold_method, zero_division, b)


# --- confusion matrices and kappa ---------------------------------------------------------------


def _confusion_var(ds: xr.Dataset) -> xr.DataArray:
    if not isinstance(ds, xr.Dataset):
        check_structure(ds)
    if CONFUSION not in ds.data_vars:
        task = ds.attrs.get("task", "unknown")
        raise CountsError(
            f"ds has no {CONFUSION!r} variable (task={task!r}); confusion matrices and kappa "
            "exist only for single-label data. Build the cube with cvframe.from_predictions "
            "or cvframe.from_confusion from single-label y_true/y_pred (multilabel cubes have "
            "no confusion matrix)."
        )
    conf = ds[CONFUSION]
    for d in (TRUE, PRED):
        if d not in conf.dims:
            raise CountsError(
                f"confusion has dims {conf.dims}; it must be over (..., 'fold', "
                f"{TRUE!r}, {PRED!r})."
            )
    return conf


def _confusion_dims(conf: xr.DataArray, dim: Dims) -> tuple[str, ...]:
    dims = _checks.dims(conf, dim)
    bad = [d for d in dims if d in (TRUE, PRED)]
    if bad:
        raise ValueError(
            f"dim={dim!r} includes {bad}; the confusion matrix keeps its "
            f"{TRUE!r} and {PRED!r} dims (sum them yourself for marginals)."
        )
    return dims


@doc
def confusion(ds: xr.Dataset, dim: Dims = "fold") -> xr.DataArray:
    r"""The confusion matrix (rows ``true``, columns ``pred``) summed over ``dim``.

    .. math:: N_{jk} = \sum_i N^{(i)}_{jk}

    Parameters
    ----------
    <<ds>>
        It must carry the ``confusion`` variable (single-label data).
    dim : str, sequence of str or None, default "fold"
        The dims to sum over; ``None`` keeps every fold. ``true`` and ``pred`` are kept.

    Returns
    -------
    xarray.DataArray
        int64 over ``(..., true, pred)``.

    Raises
    ------
    CountsError
        When ``ds`` has no ``confusion`` variable (e.g. a multilabel cube).

    Examples
    --------
    >>> import cvframe
    >>> cvframe.datasets.slides_confusion().cv.confusion().values
    array([[88, 10,  2],
           [14, 40,  6],
           [18, 10, 12]])
    """
    conf = _confusion_var(ds)
    dims = _confusion_dims(conf, dim)
    out = conf.sum(dims) if dims else conf.copy()
    out.attrs = {"method": "confusion"}
    if dims:
        out.attrs["reduced_dims"] = ",".join(map(str, dims))
    out.name = CONFUSION
    return out


def _kappa(conf: xr.DataArray, fill: float) -> tuple[xr.DataArray, xr.DataArray]:
    """Cohen's kappa of every matrix in ``conf``, from integer sums (exact up to the divide).

    kappa = (n·trace − Σ_k r_k c_k) / (n² − Σ_k r_k c_k), the same as (p_o − p_e)/(1 − p_e).
    """
    t = np.asarray(conf[TRUE].values) if TRUE in conf.coords else np.arange(conf.sizes[TRUE])
    p = np.asarray(conf[PRED].values) if PRED in conf.coords else np.arange(conf.sizes[PRED])
    eye = xr.DataArray((t[:, None] == p[None, :]).astype("float64"), dims=(TRUE, PRED))
    x = formulas.as_float(conf)
    n = x.sum((TRUE, PRED))
    trace = (x * eye).sum((TRUE, PRED))
    chance = (x.sum(PRED) * x.sum(TRUE) * eye).sum((TRUE, PRED))
    den = n * n - chance
    return formulas.safe_divide(n * trace - chance, den, fill), den == 0


@doc
def kappa(
    ds: xr.Dataset,
    fold_method: KappaFoldMethod = "tp_fp",
    *,
    dim: Dims = "fold",
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""Cohen's kappa: agreement between truth and prediction beyond chance.

    From a confusion matrix :math:`N` with :math:`n` samples, row sums :math:`r_k` and column
    sums :math:`c_k`:

    .. math:: p_o = \frac{\sum_k N_{kk}}{n},\quad p_e = \frac{\sum_k r_k c_k}{n^2},\qquad
        \kappa = \frac{p_o - p_e}{1 - p_e}

    Parameters
    ----------
    <<ds>>
        It must carry the ``confusion`` variable (single-label data).
    fold_method : {"tp_fp", "avg", None}, default "tp_fp"
        ``"tp_fp"``: kappa of the confusion matrix summed over ``dim`` (pooled);
        ``"avg"``: mean over ``dim`` of per-fold kappa; ``None``: one kappa per fold.
    <<dim>>
    <<zero_division>>
        Kappa is undefined when :math:`p_e = 1` (all samples of one class, all predicted as
        it, so :math:`p_o = 1` too) or for an empty matrix.

    Returns
    -------
    xarray.DataArray
        float64 without ``true``, ``pred`` and (unless ``fold_method=None``) ``dim``.

    Notes
    -----
    Kappa is symmetric in truth and prediction and at most 1; 0 means chance agreement.

    See Also
    --------
    sklearn.metrics.cohen_kappa_score

    References
    ----------
    J. Cohen, "A coefficient of agreement for nominal scales", Educational and Psychological
    Measurement 20(1), 1960.
    <<slides>>

    Examples
    --------
    >>> import cvframe
    >>> round(cvframe.datasets.slides_confusion().cv.kappa().item(), 3)
    0.492
    """
    fold_method = _checks.choice("fold_method", fold_method, ["tp_fp", "avg", None])
    fill = _checks.zero_division(zero_division)
    conf = _confusion_var(ds)
    dims = _confusion_dims(conf, dim)
    if conf.dtype.kind == "f":
        conf = conf.fillna(0)  # all-NaN padding matrices are not folds
    if fold_method == "tp_fp":
        val, undefined = _kappa(conf.sum(dims), fill)
    else:
        val, undefined = _kappa(conf, fill)
    items: list[Undefined] = []
    if fold_method == "avg":
        real = conf.sum((TRUE, PRED)) > 0  # an empty matrix is not a fold
        total = val.where(real, 0.0).sum(dims, skipna=False)
        count = real.sum(dims)
        items.append((undefined & real, "kappa (p_e = 1 or no samples)", f"set to {fill}", real))
        val = formulas.safe_divide(total, count, fill)
        items.append((count == 0, "the fold mean (no folds to average)", f"set to {fill}", None))
    else:
        items.append((undefined, "kappa (p_e = 1 or no samples)", f"set to {fill}", None))
    warn(items, zero_division)
    red = () if fold_method is None else dims
    return provenance(
        val,
        "kappa",
        red,
        fold_method="none" if fold_method is None else fold_method,
        zero_division=zero_division,
    )
