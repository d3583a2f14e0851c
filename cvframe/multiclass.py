r"""Multiclass evaluation: class averaging, Cohen's kappa, confusion matrices, repeats.

A multiclass cube holds the one-vs-all (OVA) counts of every class on every fold. Two
aggregations compose here, and their order matters:

- **fold aggregation** (``fold_method``): ``"tp_fp"`` pools the counts over folds first (the
  default, Forman & Scholz's recommended F_tp,fp), ``"avg"`` computes the metric per fold and
  takes the mean over folds, ``"pr_re"`` (F only) takes F of the fold means of precision and
  recall, and ``None`` keeps the ``fold`` dimension;
- **class averaging**: :func:`macro` (unweighted mean of per-class values), :func:`weighted`
  (per-class values weighted by support :math:`TP + FN`) and :func:`micro` (counts summed over
  classes, then the metric).

``macro`` and ``weighted`` aggregate each class over folds first, then average over classes,
so ``macro("f", fold_method=m)`` is the class mean of the per-class ``f_<m>()``. ``micro`` sums
over classes within each fold first, then aggregates the summed counts over folds.

:func:`kappa` and :func:`confusion` read the ``confusion`` variable of single-label cubes;
:func:`summary` gives mean, standard deviation, standard error and a Student-t confidence
interval across repeats of a repeated cross-validation.

Everything is plain xarray arithmetic, so dask-backed cubes stay lazy (undefined-metric
warnings need values, so lazy cubes skip them: pass ``zero_division`` explicitly there).
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
from .errors import CountsError, check_choice, check_dims, warn_undefined
from .reduce import _beta, _counts, _dims, _doc, _fill, _provenance
from .reduce import f_tp_fp as _f_tp_fp
from .schema import CLASS, CONFUSION, COUNTS, PRED, REPEAT, TRUE, _where, check_structure, is_lazy

__all__ = ["DEFINITIONS", "FOLD_METHODS", "METRICS", "confusion", "kappa", "macro", "micro",
           "summary", "weighted"]

#: Metrics that can be averaged over classes.
METRICS = ("precision", "recall", "f", "accuracy")
#: Fold aggregations that compose with class averaging (``None`` keeps the fold dim).
FOLD_METHODS = ("tp_fp", "avg", "pr_re", None)
#: The dim along which summary() stacks the variables of a Dataset result.
STACKED = "variable"
#: The two definitions of macro-F in use.
DEFINITIONS = ("mean", "f_of_means")

_SLIDES = """A. Sperduti et al., "Evaluation of learning" (course slides): macro, micro and
       weighted averages and the kappa statistic of a 3-class confusion matrix."""

_MC_PARAMS = {
    "<<metric>>": """metric : {"precision", "recall", "f", "accuracy"}, default "f"
        The per-class one-vs-all metric. ``"accuracy"`` of a class is its one-vs-all
        accuracy :math:`(TP + TN)/n` (not the multiclass accuracy; see Notes).""",
    "<<fold_method>>": """fold_method : {"tp_fp", "avg", "pr_re", None}, default "tp_fp"
        How folds are aggregated: ``"tp_fp"`` sums the counts over ``dim`` and computes the
        metric once; ``"avg"`` is the mean over ``dim`` of per-fold values (undefined ones
        counted as the ``zero_division`` value); ``"pr_re"`` (``metric="f"`` only) is F of the
        means of per-fold precision and recall; ``None`` keeps ``dim`` (one value per fold).""",
    "<<slides>>": _SLIDES,
}


def _mdoc(func: Callable[..., Any]) -> Callable[..., Any]:
    """Inject this module's shared parameter docs, then the core ones."""
    doc = func.__doc__ or ""
    for key, text in _MC_PARAMS.items():
        doc = doc.replace(key, text)
    func.__doc__ = doc
    return _doc(func)


# --- argument checks -----------------------------------------------------------------------------

def _check_metric(metric: Any, fold_method: Any) -> tuple[str, str | None]:
    metric = check_choice("metric", metric, METRICS)
    fold_method = check_choice("fold_method", fold_method, FOLD_METHODS)
    if fold_method == "pr_re" and metric != "f":
        raise ValueError(
            f"fold_method='pr_re' is defined for metric='f' only (F of the fold means of "
            f"precision and recall), not for metric={metric!r}; use fold_method='avg' for the "
            f"mean over folds of {metric}, or 'tp_fp' to pool the counts."
        )
    return metric, fold_method


def _fold_dims(ds: xr.Dataset, dim: Dims, fold_method: str | None) -> tuple[str, ...]:
    dims = _dims(ds, dim)  # validated even when fold_method is None
    return () if fold_method is None else dims


# --- one warning per call ------------------------------------------------------------------------

def _warn(items: list[tuple[xr.DataArray, str, str]], zero_division: Any) -> None:
    """Emit one UndefinedMetricWarning naming every undefined case of the call, with counts."""
    if not (isinstance(zero_division, str) and zero_division == "warn"):
        return
    found = []
    for mask, what, action in items:
        if is_lazy(mask):
            return
        n_bad = int(mask.sum())
        if n_bad:
            found.append((mask, what, action, n_bad))
    if not found:
        return
    mask, what, action, n_bad = found[0]
    for m2, w2, a2, n2 in found[1:]:
        action += f"; {w2} is undefined in {n2} of {int(m2.size)} cells ({_where(m2)}), {a2}"
    warn_undefined(what, n_bad, int(mask.size), _where(mask), action=action, stacklevel=4)


# --- fold aggregation of one metric ----------------------------------------------------------------

def _aggregate(c: dict[str, xr.DataArray], metric: str, fold_method: str | None,
               dims: tuple[str, ...], b: float, fill: float
               ) -> tuple[xr.DataArray, tuple[xr.DataArray, str, str]]:
    """``metric`` aggregated over ``dims`` by ``fold_method`` for every remaining cell.

    Returns the values and the (mask, what, action) of the cells where it was undefined.
    """
    cells = {k: v.sum(dims) for k, v in c.items()} if fold_method == "tp_fp" else c
    tp, fp, fn, tn = (cells[k] for k in COUNTS)
    fold = "" if fold_method == "tp_fp" else " per fold"
    if metric == "precision":
        val = formulas.precision(tp, fp, fill)
        undefined = (tp + fp == 0, "precision (no predicted positives)", f"set to {fill}")
    elif metric == "recall":
        val = formulas.recall(tp, fn, fill)
        undefined = (tp + fn == 0, "recall (no positives of the class)", f"set to {fill}")
    elif metric == "accuracy":
        n = tp + fp + fn + tn
        val = formulas.accuracy(tp + tn, n, fill)
        undefined = (n == 0, "accuracy (no tested samples)", f"set to {fill}")
    elif fold_method == "pr_re":
        pr = formulas.precision(tp, fp, fill).mean(dims, skipna=False)
        re = formulas.recall(tp, fn, fill).mean(dims, skipna=False)
        undefined = (~formulas.valid(tp, fp, fn), "precision or recall" + fold,
                     f"counted as {fill} in the fold means")
        return formulas.f_from_pr(pr, re, b), undefined
    elif fold_method == "tp_fp":
        val = formulas.f_beta(tp, fp, fn, b, fill)
        undefined = (tp + fp + fn == 0, "F (TP = FP = FN = 0 after pooling)", f"set to {fill}")
    else:
        val = formulas.f_beta(tp, fp, fn, b, fill)
        undefined = (~formulas.valid(tp, fp, fn), "precision or recall" + fold,
                     f"F there is 0, or {fill} where TP = FP = FN = 0")
    if fold_method == "avg":
        val = val.mean(dims, skipna=False)
    return val, undefined


def _finish(val: xr.DataArray, method: str, dims: tuple[str, ...], metric: str,
            fold_method: str | None, zero_division: Any, b: float,
            definition: str | None = None) -> xr.DataArray:
    return _provenance(val, method, dims + (CLASS,), metric=metric,
                       fold_method="none" if fold_method is None else fold_method,
                       definition=definition, zero_division=zero_division,
                       beta=b if metric == "f" else None)


# --- class averaging -------------------------------------------------------------------------------

@_mdoc
def macro(ds: xr.Dataset, metric: str = "f", fold_method: str | None = "tp_fp",
          definition: str = "mean", beta: float = 1.0, *, dim: Dims = "fold",
          zero_division: ZeroDivision = "warn") -> xr.DataArray:
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
    metric, fold_method = _check_metric(metric, fold_method)
    definition = check_choice("definition", definition, DEFINITIONS)
    if definition == "f_of_means" and metric != "f":
        raise ValueError(
            f"definition='f_of_means' (F of macro precision and macro recall) applies to "
            f"metric='f' only, not metric={metric!r}; use definition='mean'."
        )
    b = _beta(beta)
    fill = _fill(zero_division)
    c = _counts(ds)
    dims = _fold_dims(ds, dim, fold_method)
    if definition == "f_of_means":
        fm = "avg" if fold_method == "pr_re" else fold_method
        pr, und_p = _aggregate(c, "precision", fm, dims, b, fill)
        re, und_r = _aggregate(c, "recall", fm, dims, b, fill)
        _warn([und_p, und_r], zero_division)
        val = formulas.f_from_pr(pr.mean(CLASS, skipna=False), re.mean(CLASS, skipna=False), b)
    else:
        per_class, undefined = _aggregate(c, metric, fold_method, dims, b, fill)
        _warn([undefined], zero_division)
        val = per_class.mean(CLASS, skipna=False)
    return _finish(val, "macro", dims, metric, fold_method, zero_division, b, definition)


@_mdoc
def weighted(ds: xr.Dataset, metric: str = "f", fold_method: str | None = "tp_fp",
             beta: float = 1.0, *, dim: Dims = "fold",
             zero_division: ZeroDivision = "warn") -> xr.DataArray:
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
    metric, fold_method = _check_metric(metric, fold_method)
    b = _beta(beta)
    fill = _fill(zero_division)
    c = _counts(ds)
    dims = _fold_dims(ds, dim, fold_method)
    per_class, undefined = _aggregate(c, metric, fold_method, dims, b, fill)
    support = formulas._float(c["tp"] + c["fn"]).sum(dims)
    total = support.sum(CLASS)
    num = (per_class.where(support > 0, 0.0) * support).sum(CLASS, skipna=False)
    _warn([undefined, (total == 0, "the weighted average (every class has support 0)",
                       f"set to {fill}")], zero_division)
    val = formulas.safe_divide(num, total, fill)
    return _finish(val, "weighted", dims, metric, fold_method, zero_division, b)


@_mdoc
def micro(ds: xr.Dataset, metric: str = "f", fold_method: str | None = "tp_fp",
          beta: float = 1.0, *, dim: Dims = "fold",
          zero_division: ZeroDivision = "warn") -> xr.DataArray:
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
    metric, fold_method = _check_metric(metric, fold_method)
    b = _beta(beta)
    fill = _fill(zero_division)
    c = {k: v.sum(CLASS) for k, v in _counts(ds).items()}
    dims = _fold_dims(ds, dim, fold_method)
    val, undefined = _aggregate(c, metric, fold_method, dims, b, fill)
    _warn([undefined], zero_division)
    return _finish(val, "micro", dims, metric, fold_method, zero_division, b)


# --- confusion matrices and kappa ------------------------------------------------------------------

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
            raise CountsError(f"confusion has dims {conf.dims}; it must be over (..., 'fold', "
                              f"{TRUE!r}, {PRED!r}).")
    return conf


def _confusion_dims(conf: xr.DataArray, dim: Dims) -> tuple[str, ...]:
    dims = check_dims(conf, dim)  # type: ignore[arg-type]  # Hashable dims, as in xarray
    bad = [d for d in dims if d in (TRUE, PRED)]
    if bad:
        raise ValueError(f"dim={dim!r} includes {bad}; the confusion matrix keeps its "
                         f"{TRUE!r} and {PRED!r} dims (sum them yourself for marginals).")
    return dims


@_mdoc
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
    x = formulas._float(conf)
    n = x.sum((TRUE, PRED))
    trace = (x * eye).sum((TRUE, PRED))
    chance = (x.sum(PRED) * x.sum(TRUE) * eye).sum((TRUE, PRED))
    den = n * n - chance
    return formulas.safe_divide(n * trace - chance, den, fill), den == 0


@_mdoc
def kappa(ds: xr.Dataset, fold_method: str | None = "tp_fp", *, dim: Dims = "fold",
          zero_division: ZeroDivision = "warn") -> xr.DataArray:
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
    fold_method = check_choice("fold_method", fold_method, ["tp_fp", "avg", None])
    fill = _fill(zero_division)
    conf = _confusion_var(ds)
    dims = _confusion_dims(conf, dim)
    if fold_method == "tp_fp":
        val, undefined = _kappa(conf.sum(dims), fill)
    else:
        val, undefined = _kappa(conf, fill)
    _warn([(undefined, "kappa (p_e = 1 or no samples)", f"set to {fill}")], zero_division)
    if fold_method == "avg":
        val = val.mean(dims, skipna=False)
    red = () if fold_method is None else dims
    return _provenance(val, "kappa", red, fold_method="none" if fold_method is None
                       else fold_method, zero_division=zero_division)


# --- repeats --------------------------------------------------------------------------------------

@_doc
def summary(ds: xr.Dataset, result: xr.DataArray | xr.Dataset | None = None,
            dim: str = REPEAT, ci: float = 0.95) -> xr.Dataset:
    r"""Mean, spread and a Student-t confidence interval of a result across repeats.

    For the :math:`n` values :math:`x_j` of ``result`` along ``dim``:

    .. math::
        \bar x = \frac1n\sum_j x_j,\quad
        s = \sqrt{\frac{1}{n-1}\sum_j (x_j - \bar x)^2},\quad
        \text{sem} = \frac{s}{\sqrt n},\quad
        \bar x \pm t_{n-1,\,(1+ci)/2}\,\text{sem}

    Parameters
    ----------
    ds : xarray.Dataset
        The counts cube; used to compute the default ``result``.
    result : xarray.DataArray or xarray.Dataset, optional
        A result computed from ``ds`` that still has ``dim`` (e.g. ``ds.cv.macro()``).
        Default ``f_tp_fp(ds)`` (pooled F per repeat and class). A Dataset (e.g.
        ``ds.cv.f_methods()``) is stacked along a new ``variable`` dim (xarray's
        ``to_array`` default), one entry per data variable, so every statistic compares the
        methods side by side: ``s["mean"].sel(variable="f_avg")``. (Not a dim named
        ``method``: ``.sel(method=...)`` is xarray's interpolation keyword.)
    dim : str, default "repeat"
        The dim to summarise over; it must exist and have at least 2 entries.
    ci : float, default 0.95
        Confidence level, strictly between 0 and 1.

    Returns
    -------
    xarray.Dataset
        Variables ``mean``, ``std`` (ddof=1), ``sem``, ``ci_low``, ``ci_high`` (float64,
        without ``dim``; every other dim kept) and ``n`` (int64, the number of values).
        Attrs: ``method="summary"``, ``reduced_dims``, ``ci`` and the result's own attrs
        prefixed ``result_``.

    Raises
    ------
    ValueError
        When ``dim`` is absent or of length 1, or ``ci`` is not in (0, 1).

    Notes
    -----
    NaN values (e.g. under ``zero_division=np.nan``) propagate; nothing is skipped. The
    interval treats repeats as independent draws, which they are not (they reuse the same
    data), so it is an optimistic measure of the uncertainty of a CV estimate: it shows the
    variation due to the random split, not the variation across data sets.

    References
    ----------
    <<reference>>

    Examples
    --------
    >>> import cvframe, xarray as xr
    >>> one = cvframe.datasets.slides_confusion()
    >>> ds = xr.concat([one, one], dim="repeat")
    >>> s = ds.cv.summary(ds.cv.micro())
    >>> float(s["mean"]), float(s["std"]), int(s["n"])
    (0.7, 0.0, 2)
    """
    from scipy import stats

    if isinstance(ci, bool) or not isinstance(ci, numbers.Real) or not 0 < float(ci) < 1:
        raise ValueError(f"ci={ci!r} must be a confidence level strictly between 0 and 1 "
                         "(e.g. ci=0.95).")
    if result is None:
        result = _f_tp_fp(ds)
    if isinstance(result, xr.Dataset):
        if STACKED in result.dims:
            raise ValueError(f"result is a Dataset that already has a {STACKED!r} dim; pass "
                             f"one of its variables {list(result.data_vars)} instead.")
        kept = dict(result.attrs)
        names = np.asarray(list(result.data_vars), dtype=object)  # str coords as object
        result = result.to_array(dim=STACKED).assign_coords({STACKED: names})
        result.attrs = kept
    elif not isinstance(result, xr.DataArray):
        raise TypeError(f"result must be an xarray DataArray or Dataset computed from ds "
                        f"(e.g. ds.cv.macro()), got {type(result).__name__}.")
    (d,) = check_dims(result, dim) if isinstance(dim, str) else (None,)
    if d is None:
        raise TypeError(f"dim={dim!r} must be one dimension name, e.g. dim='repeat'.")
    n = result.sizes[d]
    if n < 2:
        raise ValueError(f"dim={dim!r} has length {n}; a summary across {dim!r} needs at least "
                         "2 values (the standard deviation uses ddof=1). Run more repeats.")
    x = result.astype("float64")
    mean = x.mean(d, skipna=False)
    std = x.std(d, ddof=1, skipna=False)
    sem = std / math.sqrt(n)
    half = float(stats.t.ppf((1 + float(ci)) / 2, n - 1)) * sem
    out = xr.Dataset({"mean": mean, "std": std, "sem": sem, "ci_low": mean - half,
                      "ci_high": mean + half, "n": xr.DataArray(np.int64(n))})
    for v in out.data_vars.values():
        v.attrs = {}
    attrs: dict[str, Any] = {"method": "summary", "reduced_dims": d, "ci": float(ci)}
    for key, value in result.attrs.items():
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            attrs[f"result_{key}"] = value
    out.attrs = attrs
    return out

