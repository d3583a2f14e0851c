r"""Multiclass evaluation: class averages and means of precision and recall.

Two aggregations compose, and their order matters: the **fold aggregation**
(``fold_method``: ``"tp_fp"`` pools counts over folds first, ``"avg"`` averages per-fold
values, ``"pr_re"`` takes F of the fold means, ``None`` keeps ``fold``) and the **class
average**: :func:`macro` (unweighted), :func:`weighted` (by support :math:`TP + FN`) and
:func:`micro` (counts summed over classes first). All are named uses of
:func:`cvframe.reduce.aggregate`, with class means through :func:`cvframe.reduce.class_mean`.
A binary cube is averaged over both of its classes, as scikit-learn does. The kappa family
(:mod:`cvframe.kappa`) and :func:`summary` (:mod:`cvframe.repeats`) are re-exported here.
Dask-backed cubes stay lazy (lazy cubes skip the undefined-metric warning: pass
``zero_division`` explicitly there).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import xarray as xr

from . import formulas
from ._core import checks as _checks
from ._core.docs import doc, register
from ._core.types import Definition, Dims, FoldMethod, Metric, ZeroDivision
from .kappa import KAPPA_BANDS, confusion, kappa, kappa_band, kappa_expected
from .reduce import aggregate_counts, check_metric, class_mean, fold_dims, fold_mean, warn
from .repeats import STACKED, summary
from .schema import CLASS, TRUE, Counts, is_binary, provenance, read_counts

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

#: Metrics that can be averaged over classes: every metric of counts with one value per
#: class (the rows of :data:`cvframe.formulas.METRIC_SPECS` not over every class).
METRICS = tuple(name for name, spec in formulas.METRIC_SPECS.items() if not spec.over_classes)
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


def _setup(ds: xr.Dataset, metric: Any, fold_method: Any, beta: Any, zd: Any, dim: Dims) -> Any:
    """The checked metric, fold method, beta and fill, and the dims reduced over folds."""
    metric, fold_method = check_metric(metric, fold_method, METRICS)
    b, fill = _checks.beta(beta), _checks.zero_division(zd)
    dims = fold_dims(ds, dim)  # validated even when fold_method is None
    return metric, fold_method, b, fill, () if fold_method is None else dims


def _finish(
    val: Any, method: str, dims: Any, metric: str, fm: Any, zd: Any, b: float, d: Any = None
) -> xr.DataArray:
    fm, bt, red = "none" if fm is None else fm, b if metric == "f" else None, dims + (CLASS,)
    return provenance(
        val, method, red, metric=metric, fold_method=fm, definition=d, zero_division=zd, beta=bt
    )


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

    <<references>>
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
    metric, fold_method, b, fill, dims = _setup(ds, metric, fold_method, beta, zero_division, dim)
    definition = _checks.choice("definition", definition, DEFINITIONS)
    if definition == "f_of_means" and metric != "f":
        raise ValueError(
            f"definition='f_of_means' (F of macro precision and macro recall) applies to "
            f"metric='f' only, not metric={metric!r}; use definition='mean'."
        )
    c = _class_counts(ds)
    if definition == "f_of_means":
        fm = "avg" if fold_method == "pr_re" else fold_method
        pr, und_p = aggregate_counts(c, "precision", fm, dims, beta=b, fill=fill)
        re, und_r = aggregate_counts(c, "recall", fm, dims, beta=b, fill=fill)
        warn(und_p + und_r, zero_division)
        val = formulas.f_from_pr(class_mean(pr)[0], class_mean(re)[0], b)
    else:
        per_class, undefined = aggregate_counts(c, metric, fold_method, dims, beta=b, fill=fill)
        warn(undefined, zero_division)
        val = class_mean(per_class)[0]
    return _finish(val, "macro", dims, metric, fold_method, zero_division, b, definition)


def _support(c: Counts, dims: tuple[str, ...]) -> xr.DataArray:
    """The support of every class, TP + FN, summed over ``dims``."""
    return (formulas.as_float(c.tp) + c.fn).sum(dims)


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

    <<references>>
    <<slides>>

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.datasets.slides_confusion()
    >>> [round(ds.cv.weighted(m).item(), 2) for m in ("precision", "recall", "f")]
    [0.69, 0.7, 0.68]
    """
    metric, fold_method, b, fill, dims = _setup(ds, metric, fold_method, beta, zero_division, dim)
    c = _class_counts(ds)
    per_class, undefined = aggregate_counts(c, metric, fold_method, dims, beta=b, fill=fill)
    val, none = class_mean(per_class, _support(c, dims), fill)
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

    <<references>>
    <<slides>>

    Examples
    --------
    >>> import cvframe
    >>> round(cvframe.datasets.slides_confusion().cv.micro("f").item(), 2)
    0.7
    """
    metric, fold_method, b, fill, dims = _setup(ds, metric, fold_method, beta, zero_division, dim)
    c = _class_counts(ds).sum_classes()
    val, undefined = aggregate_counts(c, metric, fold_method, dims, beta=b, fill=fill)
    warn(undefined, zero_division)
    return _finish(val, "micro", dims, metric, fold_method, zero_division, b)


#: How :func:`pr_mean` combines precision and recall.
PR_KINDS = ("min", "max", "arithmetic", "geometric", "harmonic")
#: Class averages of :func:`pr_mean` (``None`` keeps ``class``).
PR_AVERAGES = (None, "macro", "micro", "weighted")

PRKind = Literal["min", "max", "arithmetic", "geometric", "harmonic"]
PRAverage = Literal["macro", "micro", "weighted", None]


def _combine(kind: str, p: xr.DataArray, r: xr.DataArray, b: float) -> Any:
    """One of the five means of precision ``p`` and recall ``r`` (NaN propagates)."""
    if kind in ("min", "max"):
        return (np.minimum if kind == "min" else np.maximum)(p, r)
    if kind == "arithmetic":
        return (p + r) / 2.0
    if kind == "geometric":
        return (p * r) ** 0.5
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
    b, fill = _checks.beta(beta), _checks.zero_division(zero_division)
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
        support = _support(c, red) if average == "weighted" else None
        (p, none), (r, _) = (class_mean(x, support, fill) for x in (p, r))
        items += [none] if support is not None else []
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
    fm, avg = ("none" if x is None else x for x in (fold_method, average))
    zd, bt = zero_division, b if kind == "harmonic" else None
    return provenance(
        val, "pr_mean", reduced, kind=kind, fold_method=fm, average=avg, zero_division=zd, beta=bt
    )
