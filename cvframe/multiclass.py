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

from typing import Any, Literal

import numpy as np
import xarray as xr

from . import _checks, formulas
from ._docs import doc, register
from ._types import Definition, Dims, FoldMethod, KappaFoldMethod, Metric, ZeroDivision
from .errors import CountsError
from .reduce import Undefined, aggregate_counts, check_metric, fold_dims, fold_mean, warn
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
    "KAPPA_BANDS",
    "METRICS",
    "PR_AVERAGES",
    "PR_KINDS",
    "STACKED",
    "confusion",
    "kappa",
    "kappa_band",
    "kappa_expected",
    "macro",
    "micro",
    "pr_mean",
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


def _support_weighted(
    x: xr.DataArray, c: Counts, dims: tuple[str, ...], fill: float
) -> tuple[xr.DataArray, Undefined]:
    """Class mean of ``x`` weighted by the support TP + FN summed over ``dims``.

    A class with support 0 weighs 0 (whatever its value); all supports 0 give ``fill``.
    Returns the average and its undefined case for the call's one warning.
    """
    support = (formulas.as_float(c.tp) + c.fn).sum(dims)
    total = support.sum(CLASS)
    num = (x.where(support > 0, 0.0) * support).sum(CLASS, skipna=False)
    none: Undefined = (
        total == 0,
        "the weighted average (every class has support 0)",
        f"set to {fill}",
        None,
    )
    return formulas.safe_divide(num, total, fill), none


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
    val, none = _support_weighted(per_class, c, dims, fill)
    warn([*undefined, none], zero_division)
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


# --- means of precision and recall ----------------------------------------------------------

#: How :func:`pr_mean` combines precision and recall.
PR_KINDS = ("min", "max", "arithmetic", "geometric", "harmonic")
#: Class averages of :func:`pr_mean` (``None`` keeps ``class``).
PR_AVERAGES = (None, "macro", "micro", "weighted")

PRKind = Literal["min", "max", "arithmetic", "geometric", "harmonic"]
PRAverage = Literal["macro", "micro", "weighted", None]


def _combine(kind: str, p: xr.DataArray, r: xr.DataArray, b: float) -> xr.DataArray:
    """One of the five means of precision ``p`` and recall ``r`` (NaN propagates)."""
    if kind == "min":
        return xr.where(p <= r, p, r, keep_attrs=False).where(p.notnull() & r.notnull())
    if kind == "max":
        return xr.where(p >= r, p, r, keep_attrs=False).where(p.notnull() & r.notnull())
    if kind == "arithmetic":
        return (p + r) / 2.0
    if kind == "geometric":
        out: xr.DataArray = (p * r) ** 0.5
        return out
    return formulas.f_from_pr(p, r, b)


@doc
def pr_mean(
    ds: xr.Dataset,
    kind: PRKind = "harmonic",
    fold_method: FoldMethod = "tp_fp",
    average: PRAverage = None,
    *,
    beta: float = 1.0,
    dim: Dims = "fold",
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""A mean of precision and recall, aggregated over folds and classes like every metric.

    The five means of the Basili & Filice slides, of a precision :math:`P` and a recall
    :math:`R`:

    .. math::
        \min(P, R),\quad \max(P, R),\quad \frac{P + R}{2},\quad \sqrt{P R},\quad
        \frac{(1+\beta^2)\,P R}{\beta^2 P + R}\ \ (\text{harmonic: } F_\beta)

    so that :math:`\min \le \text{harmonic} \le \text{geometric} \le \text{arithmetic}
    \le \max` (at ``beta=1``).

    **Class average** (``average``): precision and recall are each averaged over classes
    first, then combined — ``"micro"``: :math:`\mu P = \sum_c TP_c / \sum_c (TP_c + FP_c)`
    and :math:`\mu R = \sum_c TP_c / \sum_c (TP_c + FN_c)` of the counts summed over
    classes, so ``kind="arithmetic"`` is the slides' micro break-even point
    :math:`\mu BEP = (\mu P + \mu R)/2` and ``"harmonic"`` their :math:`\mu F_1`;
    ``"macro"``: :math:`MP = \frac1C\sum_c P_c`, :math:`MR = \frac1C\sum_c R_c`, so
    ``"arithmetic"`` is the macro twin :math:`(MP + MR)/2` and ``"harmonic"`` the slides'
    :math:`MF_1` (``macro("f", definition="f_of_means")``, not scikit-learn's mean of
    per-class F); ``"weighted"``: :math:`P` and :math:`R` weighted by class support
    :math:`TP_c + FN_c`; ``None`` keeps ``class``.

    **Fold aggregation** (``fold_method``), as for F: ``"tp_fp"`` pools the counts over
    ``dim``, then :math:`P`, :math:`R` and their mean once; ``"avg"`` is the mean over the
    folds of the per-fold mean; ``"pr_re"`` combines the fold means :math:`\overline{P}`,
    :math:`\overline{R}`; ``None`` keeps ``dim``. So ``pr_mean("harmonic", m)`` equals
    ``f_tp_fp``, ``f_avg`` and ``f_pr_re`` for ``m`` = ``"tp_fp"``, ``"avg"``, ``"pr_re"``.

    Parameters
    ----------
    <<ds>>
    kind : {"min", "max", "arithmetic", "geometric", "harmonic"}, default "harmonic"
        Which mean of precision and recall.
    <<fold_method>>
        For ``pr_mean`` every kind accepts ``"pr_re"`` (the mean of the fold means).
    average : {None, "macro", "micro", "weighted"}, default None
        The class average of precision and recall, applied before the mean (see above).
    <<beta>>
        Used by ``kind="harmonic"`` only.
    <<dim>>
        Ignored (but checked) when ``fold_method=None``.
    <<zero_division>>
        The value an undefined precision or recall takes before the mean (a class that
        no fold predicts, a fold without positives); also the weighted average's value when
        every support is 0.

    Returns
    -------
    xarray.DataArray
        float64 without ``dim`` (``fold_method=None`` keeps it) and, when ``average`` is
        given, without ``class``; every other dim is kept. Attrs ``method="pr_mean"``,
        ``kind``, ``fold_method``, ``average``, ``zero_division``, ``beta`` (harmonic) and
        ``reduced_dims``.

    Raises
    ------
    ValueError
        For an unknown ``kind``, ``fold_method`` or ``average`` (listing the valid ones).

    Notes
    -----
    With the harmonic mean, a precision or recall of 0 gives 0 (the limit), as F does.
    Where precision or recall is undefined it takes the ``zero_division`` value *before*
    the mean, so ``kind="harmonic", fold_method="avg"`` equals ``f_avg`` under every
    policy (F of a fold with :math:`TP = 0 < FP + FN` is 0 either way).

    <<binary_classes>>
    So micro precision, recall and every micro mean of a binary cube are its accuracy.

    See Also
    --------
    cvframe.reduce.aggregate : the fold aggregation of precision and recall used here.
    macro, micro, weighted

    References
    ----------
    R. Basili and S. Filice, "Performance Evaluation of Machine Learning Systems" (course
    slides, University of Roma Tor Vergata): break-even point, the means of precision and
    recall, :math:`\mu BEP` and :math:`MF_1`.
    <<reference>>

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.datasets.basili_confusion()
    >>> round(ds.cv.pr_mean("arithmetic", average="micro").item(), 4)  # micro BEP
    0.8333
    >>> [round(ds.cv.pr_mean(k, average="macro").item(), 4) for k in cvframe.multiclass.PR_KINDS]
    [0.8333, 0.838, 0.8356, 0.8356, 0.8356]
    >>> t1 = cvframe.datasets.table1()
    >>> t1.cv.pr_mean("harmonic", "avg").item() == t1.cv.f_avg().item()
    True
    """
    kind = _checks.choice("kind", kind, PR_KINDS)
    fold_method = _checks.choice("fold_method", fold_method, FOLD_METHODS)
    average = _checks.choice("average", average, PR_AVERAGES)
    b = _checks.beta(beta)
    fill = _checks.zero_division(zero_division)
    dims = fold_dims(ds, dim)
    c = read_counts(ds) if average is None else _class_counts(ds)
    if average == "micro":
        c = c.sum_classes()
    per_fold = fold_method in (None, "avg")
    red = () if per_fold else dims
    fm = None if per_fold else ("avg" if fold_method == "pr_re" else "tp_fp")
    p, items = aggregate_counts(c, "precision", fm, red, fill=fill)
    r, und_r = aggregate_counts(c, "recall", fm, red, fill=fill)
    items = items + und_r
    if average in ("macro", "weighted"):
        if average == "macro":
            p, r = p.mean(CLASS, skipna=False), r.mean(CLASS, skipna=False)
        else:
            (p, none), (r, _) = (_support_weighted(x, c, red, fill) for x in (p, r))
            items.append(none)
    val = _combine(kind, p, r, b)
    if fold_method == "avg":
        if c.padded is not False:  # undefined cells are counted among the real folds only
            real = c.is_fold

            def on_folds(mask: Any) -> Any:
                def build() -> xr.DataArray:  # masks may be built lazily (only to warn)
                    m = mask() if callable(mask) else mask
                    extra = [d for d in real.dims if d not in m.dims]
                    return m & (real.any(extra) if extra else real)

                return build

            items = [
                (on_folds(m), what, f"{action} before the mean", None)
                for m, what, action, _ in items
            ]
        val, no_fold = fold_mean(val, c, dims, fill)
        if no_fold is not None:
            items.append((no_fold, "the fold mean (no folds to average)", f"set to {fill}", None))
    warn(items, zero_division)
    reduced = (() if fold_method is None else dims) + (() if average is None else (CLASS,))
    return provenance(
        val,
        "pr_mean",
        reduced,
        kind=kind,
        fold_method="none" if fold_method is None else fold_method,
        average="none" if average is None else average,
        zero_division=zero_division,
        beta=b if kind == "harmonic" else None,
    )


# --- kappa: the chance matrix and the strength of agreement ---------------------------------

#: The strength-of-agreement bands of kappa: (upper limit, label), the last one open.
KAPPA_BANDS = (
    (0.20, "Poor"),
    (0.40, "Fair"),
    (0.60, "Moderate"),
    (0.80, "Good"),
    (1.00, "Very good"),
)


@doc
def kappa_expected(ds: xr.Dataset, dim: Dims = "fold") -> xr.DataArray:
    r"""The confusion matrix a chance classifier with the same marginals would produce.

    Kappa compares the agreement of a classifier with that of a *random* classifier that
    predicts each class as often as the real one did, independently of the truth. From the
    confusion matrix :math:`N` (summed over ``dim``) with row sums :math:`r_j`, column sums
    :math:`c_k` and :math:`n` samples:

    .. math:: E_{jk} = \frac{r_j\,c_k}{n} = (\text{outer}(r, c) / n)_{jk},\qquad
        \kappa = \frac{\operatorname{tr} N - \operatorname{tr} E}{n - \operatorname{tr} E}

    :math:`\operatorname{tr} E` is the number of agreements expected by chance,
    :math:`\operatorname{tr} N - \operatorname{tr} E` the extra successes and
    :math:`n - \operatorname{tr} E` the largest possible extra successes.

    Parameters
    ----------
    <<ds>>
        It must carry the ``confusion`` variable (single-label data).
    dim : str, sequence of str or None, default "fold"
        The dims the confusion matrix is summed over first; ``None`` gives one chance
        matrix per fold. ``true`` and ``pred`` are kept.

    Returns
    -------
    xarray.DataArray
        float64 over ``(..., true, pred)``: expected counts (an empty matrix, :math:`n = 0`,
        has expected counts 0). Attrs ``method="kappa_expected"`` and ``reduced_dims``.

    Raises
    ------
    CountsError
        When ``ds`` has no ``confusion`` variable (e.g. a multilabel cube).

    See Also
    --------
    kappa, confusion, kappa_band

    References
    ----------
    J. Cohen, "A coefficient of agreement for nominal scales", Educational and Psychological
    Measurement 20(1), 1960.
    <<slides>>

    Examples
    --------
    The slides' random classifier: 60 + 18 + 4 = 82 chance agreements, 140 - 82 = 58 extra
    successes out of at most 200 - 82 = 118, so kappa = 58/118.

    >>> import cvframe
    >>> ds = cvframe.datasets.slides_confusion()
    >>> e = ds.cv.kappa_expected()
    >>> e.values
    array([[60., 30., 10.],
           [36., 18.,  6.],
           [24., 12.,  4.]])
    >>> float(e.sum()), float(e.values.trace())
    (200.0, 82.0)
    """
    conf = _confusion_var(ds)
    dims = _confusion_dims(conf, dim)
    if conf.dtype.kind == "f":
        conf = conf.fillna(0)  # all-NaN padding matrices are not folds
    x = formulas.as_float(conf.sum(dims) if dims else conf)
    rows, cols = x.sum(PRED), x.sum(TRUE)
    out = formulas.safe_divide(rows * cols, x.sum((TRUE, PRED)), 0.0)
    out = out.transpose(*x.dims)
    return provenance(out, "kappa_expected", dims)


def _band_labels(values: np.ndarray) -> np.ndarray:
    limits = np.asarray([u for u, _ in KAPPA_BANDS[:-1]])
    labels = np.asarray([lab for _, lab in KAPPA_BANDS] + ["undefined"], dtype=object)
    idx = np.searchsorted(limits, values, side="left")  # kappa <= limit: that band
    idx = np.where(np.isnan(values), len(KAPPA_BANDS), idx)
    return labels[idx]


@doc
def kappa_band(kappa_value: Any) -> Any:
    r"""The strength of agreement a kappa value stands for (Poor ... Very good).

    ==================  =====================
    kappa               strength of agreement
    ==================  =====================
    :math:`\le 0.20`    Poor
    0.20 -- 0.40        Fair
    0.40 -- 0.60        Moderate
    0.60 -- 0.80        Good
    :math:`> 0.80`      Very good
    ==================  =====================

    Each band includes its upper limit: the slides' table reads "< 0.20, 0.21 -- 0.40, ...,
    0.81 -- 1.00" on two decimals, so 0.20 is Poor, 0.40 Fair, 0.80 Good and any value above
    0.80 Very good. Negative kappa (worse than chance) is Poor; NaN is ``"undefined"``.

    Parameters
    ----------
    kappa_value : float, array-like or xarray.DataArray
        Kappa value(s), each in [-1, 1] or NaN.

    Returns
    -------
    str, numpy.ndarray or xarray.DataArray
        The label(s): a ``str`` for a scalar, an object array of ``str`` for an array, and a
        DataArray with the same dims and coords (``attrs["method"] = "kappa_band"``) for a
        DataArray.

    Raises
    ------
    ValueError
        When a value lies outside [-1, 1] (kappa never does).
    TypeError
        When ``kappa_value`` is not numeric.

    References
    ----------
    D. G. Altman, *Practical Statistics for Medical Research*, Chapman & Hall, 1991,
    Table 14.8.
    <<slides>>

    Examples
    --------
    >>> import cvframe
    >>> from cvframe.multiclass import kappa_band
    >>> kappa_band(58 / 118)
    'Moderate'
    >>> kappa_band([0.0, 0.2, 0.21, 0.8, 0.81, float("nan")]).tolist()
    ['Poor', 'Poor', 'Fair', 'Good', 'Very good', 'undefined']
    >>> kappa_band(cvframe.datasets.slides_confusion().cv.kappa()).item()
    'Moderate'
    """
    is_da = isinstance(kappa_value, xr.DataArray)
    raw = kappa_value.values if is_da else kappa_value
    try:
        values = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"kappa_value={kappa_value!r} must be a number, an array of numbers or a "
            "DataArray (e.g. ds.cv.kappa())."
        ) from None
    if isinstance(raw, (bool, np.bool_)) or np.asarray(raw).dtype.kind == "b":
        raise TypeError(f"kappa_value={kappa_value!r} must be numeric, not boolean.")
    bad = ~np.isnan(values) & ((values < -1.0 - 1e-12) | (values > 1.0 + 1e-12))
    if bad.any():
        raise ValueError(
            f"kappa_value has {int(bad.sum())} value(s) outside [-1, 1] (e.g. "
            f"{float(values[bad].ravel()[0])!r}); Cohen's kappa lies in [-1, 1]."
        )
    labels = _band_labels(values)
    if is_da:
        out = xr.DataArray(labels, dims=kappa_value.dims, coords=kappa_value.coords)
        out.attrs = {"method": "kappa_band"}
        out.name = "kappa_band"
        return out
    if values.ndim == 0:
        return str(np.asarray(labels, dtype=object).reshape(()).item())
    return np.asarray(labels, dtype=object).reshape(values.shape)
