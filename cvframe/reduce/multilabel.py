r"""Multilabel metrics of a counts cube, aggregated over folds like every cvframe metric.

Two kinds, as in scikit-learn. **Sample-based** metrics score each tested sample over its
labels and average over the samples: F with ``average="samples"`` (:func:`f_samples`),
Jaccard with ``average="samples"``, the subset accuracy (an exact match of the label set,
``accuracy_score`` on indicator matrices). They need each sample's outcome, so a multilabel
cube built from predictions (``from_predictions``, ``df.cv.counts()``, ``cross_validate``)
stores their per-fold sums beside the counts (:data:`SAMPLE_VARS`, no ``class`` dim).
**Label-based** metrics come from the one-vs-all counts of every label: the Hamming loss
(the share of wrong label decisions) and macro, micro and weighted Jaccard
(:math:`TP/(TP+FP+FN)` of :data:`cvframe.formulas.METRIC_SPECS`).

Every function takes ``fold_method``: ``"tp_fp"`` pools the folds (scikit-learn on
``cross_val_predict`` output), ``"avg"`` is the mean of the per-fold values (scikit-learn's
``cross_val_score``), ``None`` keeps the folds.
"""

from __future__ import annotations

from typing import Any, Literal

import xarray as xr

from .. import formulas
from .._core import checks as _checks
from .._core.docs import doc, register
from .._core.types import Dims, How, ZeroDivision
from ..schema import CLASS, Counts, is_binary, is_lazy, provenance, read_counts
from ._engine import Undefined, aggregate_counts, class_mean, fold_dims, fold_mean, warn
from .cells import accuracy

__all__ = [
    "JACCARD_AVERAGES",
    "ML_FOLD_METHODS",
    "SAMPLE_VARS",
    "f_samples",
    "hamming_loss",
    "jaccard",
    "multilabel_metrics",
    "subset_accuracy",
]

#: The per-fold sums of per-sample outcomes of a multilabel cube (no ``class`` dim).
SAMPLE_VARS = ("n_samples", "subset_correct", "n_empty", "sample_f_sum", "jaccard_sum")
#: Fold aggregations of the multilabel metrics (``None`` keeps the fold dim).
ML_FOLD_METHODS = ("tp_fp", "avg", None)
#: Averages of :func:`jaccard` (``None`` keeps ``class``).
JACCARD_AVERAGES = ("samples", "macro", "micro", "weighted", None)

MLFoldMethod = Literal["tp_fp", "avg", None]
JaccardAverage = Literal["samples", "macro", "micro", "weighted", None]

register(
    {
        "ml_fold_method": """\
fold_method : {"tp_fp", "avg", None}, default "tp_fp"
    ``"tp_fp"``: pool the folds (sample-based metrics: the mean over all tested samples,
    i.e. fold means weighted by fold size; label-based: the metric of the summed counts);
    ``"avg"``: the unweighted mean of the per-fold values over the folds that hold test
    samples; ``None``: one value per fold.""",
        "sample_vars": """\
The per-sample outcomes are stored in a multilabel cube built from predictions
(``from_predictions``, ``df.cv.counts()``, ``cross_validate``) as per-fold sums:
``n_samples``, ``subset_correct``, ``n_empty`` (samples with no true and no predicted
label), ``sample_f_sum`` and ``jaccard_sum`` (over the other samples). They describe the
labels the cube was built with: a cube with fewer classes (``ds.sel({"class": [...]})``)
is refused; score a subset of labels from the frame restricted to their columns.""",
    }
)


# --- checks -----------------------------------------------------------------------------------


def _fold_method(fold_method: Any) -> Any:
    if isinstance(fold_method, str) and fold_method == "pr_re":
        raise ValueError(
            "fold_method='pr_re' (F of the fold means of precision and recall) is not defined "
            "for multilabel metrics; use fold_method='tp_fp' (pooled over the folds) or "
            "'avg' (the mean of per-fold values)."
        )
    return _checks.choice("fold_method", fold_method, ML_FOLD_METHODS)


def _setup(ds: xr.Dataset, fold_method: Any, dim: Dims, zero_division: Any) -> Any:
    """The checked fold method, fill and the dims reduced over folds (validated always)."""
    fm = _fold_method(fold_method)
    fill = _checks.zero_division(zero_division)
    dims = fold_dims(ds, dim)
    return fm, fill, () if fm is None else dims


def _samples(ds: xr.Dataset, what: str) -> dict[str, xr.DataArray]:
    """The per-fold sums of per-sample outcomes (NaN padding as 0), checked."""
    missing = [v for v in SAMPLE_VARS if v not in ds.data_vars]
    if missing:
        raise ValueError(
            f"{what} needs the per-sample outcomes, but the cube lacks {missing} (task="
            f"{ds.attrs.get('task')!r}); build a multilabel cube from predictions: "
            "cvframe.from_predictions(Y_true, Y_pred, fold=...) with 0/1 indicator matrices, "
            "df.cv.counts() of a multilabel frame, or cvframe.cross_validate. Counts alone "
            "give only the label-based metrics (hamming_loss, jaccard(average='macro'))."
        )
    n_labels = ds["n_samples"].attrs.get("n_labels")
    if n_labels is not None and CLASS in ds.sizes and int(n_labels) != ds.sizes[CLASS]:
        raise ValueError(
            f"{what}: the cube's per-sample sums run over the {int(n_labels)} labels it was "
            f"built with, but it now has {ds.sizes[CLASS]} classes (a selection of labels?); "
            "per-sample outcomes cannot be re-derived for a subset. Build the cube from the "
            "predictions of the labels you want (their y_true_/y_pred_ columns)."
        )
    out = {}
    for v in SAMPLE_VARS:
        x = ds[v]
        out[v] = x.fillna(0) if x.dtype.kind == "f" else x
    return out


def _per_sample_mean(
    s: dict[str, xr.DataArray], num: xr.DataArray, fm: Any, dims: Any, fill: float, what: str
) -> tuple[xr.DataArray, list[Undefined]]:
    """The mean of a per-sample quantity (its per-fold sums ``num``) per fold, over all the
    samples of the folds (``"tp_fp"``) or over the folds (``"avg"``)."""
    n = s["n_samples"]
    if fm == "tp_fp":
        total = n.sum(dims)
        val = formulas.safe_divide(num.sum(dims), total, fill)
        return val, [(total == 0, f"{what} (no tested samples)", f"set to {fill}", None)]
    per_fold = formulas.safe_divide(num, n, fill)
    if fm is None:
        return per_fold, [(n == 0, f"{what} (empty fold)", f"set to {fill}", None)]
    val, none = fold_mean(per_fold, n > 0, dims, fill)
    items = [] if none is None else [(none, "the fold mean (no folds to average)", "", None)]
    return val, [(m, w, f"set to {fill}", c) for m, w, _, c in items]


def _empty_item(s: dict[str, xr.DataArray], metric: str, fill: float, zd: Any) -> list[Undefined]:
    """The samples without true and predicted labels, where per-sample F and Jaccard are 0/0."""
    empty = s["n_empty"]
    if not (isinstance(zd, str) and zd == "warn") or is_lazy(empty):
        return []
    k, n = float(empty.sum()), float(s["n_samples"].sum())
    if not k:
        return []
    what = f"{metric} of {k:g} of {n:g} samples (no true and no predicted labels)"
    return [(empty > 0, what, f"those samples score {fill}", None)]


def _with_empty(s: dict[str, xr.DataArray], name: str, fill: float) -> xr.DataArray:
    """The per-fold sum of a per-sample F or Jaccard with the empty samples at ``fill``."""
    empty = s["n_empty"]
    return s[name] + xr.where(empty > 0, fill * formulas.as_float(empty), 0.0)


def _finish(val: xr.DataArray, method: str, dims: Any, fm: Any, zd: Any, **extra: Any) -> Any:
    return provenance(
        val, method, dims, fold_method="none" if fm is None else fm, zero_division=zd, **extra
    )


# --- sample-based metrics -----------------------------------------------------------------------


def _f_samples(
    ds: xr.Dataset, fm: Any, dims: Any, b: float, fill: float, zd: Any
) -> tuple[xr.DataArray, list[Undefined]]:
    s = _samples(ds, "f_samples")
    stored = float(ds["sample_f_sum"].attrs.get("beta", 1.0))
    if b != stored:
        raise ValueError(
            f"beta={b:g}, but the cube's per-sample F sums are of F with beta={stored:g} (a "
            "per-sample F cannot be re-weighted from sums); compute it from the predictions "
            f"frame: df.cv.multilabel_metrics(beta={b:g}), or leave beta at {stored:g}."
        )
    val, items = _per_sample_mean(s, _with_empty(s, "sample_f_sum", fill), fm, dims, fill, "F")
    return val, [*_empty_item(s, "F", fill, zd), *items]


@doc
def f_samples(
    ds: xr.Dataset,
    fold_method: MLFoldMethod = "tp_fp",
    dim: Dims = "fold",
    *,
    beta: float = 1.0,
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""Samples-averaged F: each sample's F over its labels, then the mean over the samples.

    Sample :math:`i` of fold :math:`k` has :math:`tp_i, fp_i, fn_i` over the labels and

    .. math::
        F_i = \frac{(1+\beta^2)\,tp_i}{(1+\beta^2)\,tp_i + \beta^2 fn_i + fp_i},\qquad
        F^{(k)} = \frac{1}{n_k}\sum_{i \in k} F_i

    (scikit-learn's ``f1_score(average="samples")`` on fold :math:`k`). ``"tp_fp"`` gives
    :math:`\sum_k \sum_{i\in k} F_i / \sum_k n_k`, the mean over every tested sample;
    ``"avg"`` gives :math:`\frac1K\sum_k F^{(k)}`.

    Parameters
    ----------
    <<ds>>
    <<ml_fold_method>>
    <<dim>>
    beta : float, default 1
        Must be the beta the cube's per-sample sums were made with (1 for every cube built
        from predictions); ``df.cv.multilabel_metrics(beta=...)`` scores another beta.
    <<zero_division>>
        The F of a sample with no true and no predicted label (scikit-learn's meaning),
        and the value of a fold without samples.

    Returns
    -------
    xarray.DataArray
        float64 without ``dim`` and ``class`` (``fold_method=None`` keeps ``dim``); every
        other dim is kept.

    Raises
    ------
    ValueError
        A cube without per-sample sums (from counts or confusion matrices), a selection of
        its labels, ``beta`` other than the cube's, ``fold_method="pr_re"``.

    Notes
    -----
    <<sample_vars>>

    See Also
    --------
    sklearn.metrics.f1_score : ``average="samples"``.
    jaccard, subset_accuracy, multilabel_metrics

    References
    ----------
    G. Tsoumakas, I. Katakis and I. Vlahavas, "Mining Multi-label Data", Data Mining and
    Knowledge Discovery Handbook, Springer, 2010, §7.1.1.

    Examples
    --------
    >>> import cvframe
    >>> Y = [[1, 0], [1, 1], [0, 1], [0, 0]]
    >>> P = [[1, 1], [1, 1], [0, 0], [0, 0]]
    >>> ds = cvframe.from_predictions(Y, P, fold=[0, 0, 0, 1])
    >>> cvframe.reduce.f_samples(ds, None, zero_division=1.0).values.round(4).tolist()
    [0.5556, 1.0]
    >>> cvframe.reduce.f_samples(ds, zero_division=1.0).item()  # (2/3 + 1 + 0 + 1) / 4
    0.6666666666666666
    """
    fm, fill, dims = _setup(ds, fold_method, dim, zero_division)
    b = _checks.beta(beta)
    val, items = _f_samples(ds, fm, dims, b, fill, zero_division)
    warn(items, zero_division)
    return _finish(val, "f_samples", dims, fm, zero_division, beta=b)


def _subset_accuracy(ds: xr.Dataset, fm: Any, dims: Any, fill: float) -> Any:
    s = _samples(ds, "subset_accuracy")
    return _per_sample_mean(s, s["subset_correct"], fm, dims, fill, "subset accuracy")


@doc
def subset_accuracy(
    ds: xr.Dataset,
    fold_method: MLFoldMethod = "tp_fp",
    dim: Dims = "fold",
    *,
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""Subset accuracy: the share of samples whose predicted label set is exactly the true one.

    .. math:: \text{acc}^{(k)} = \frac{1}{n_k}\sum_{i\in k} [\,\hat Y_i = Y_i\,]

    scikit-learn's ``accuracy_score`` on indicator matrices; ``"tp_fp"`` is the share over
    every tested sample, ``"avg"`` the mean of the fold shares.

    Parameters
    ----------
    <<ds>>
    <<ml_fold_method>>
    <<dim>>
    <<zero_division>>
        The value of a fold (or a pool) without samples.

    Returns
    -------
    xarray.DataArray
        float64 without ``dim`` and ``class`` (``fold_method=None`` keeps ``dim``).

    Notes
    -----
    <<sample_vars>>

    See Also
    --------
    sklearn.metrics.accuracy_score
    hamming_loss : the share of wrong label decisions (a partial credit).

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.from_predictions([[1, 0], [1, 1], [0, 1], [0, 0]],
    ...                               [[1, 1], [1, 1], [0, 0], [0, 0]], fold=[0, 0, 0, 1])
    >>> cvframe.reduce.subset_accuracy(ds).item(), cvframe.reduce.subset_accuracy(ds, "avg").item()
    (0.5, 0.6666666666666666)
    """
    fm, fill, dims = _setup(ds, fold_method, dim, zero_division)
    val, items = _subset_accuracy(ds, fm, dims, fill)
    warn(items, zero_division)
    return _finish(val, "subset_accuracy", dims, fm, zero_division)


# --- label-based metrics ------------------------------------------------------------------------


def _hamming(
    ds: xr.Dataset, fm: Any, dims: Any, fill: float
) -> tuple[xr.DataArray, list[Undefined]]:
    c = read_counts(ds, need_fold=fm is not None)
    acc, items = aggregate_counts(c, "accuracy", fm, dims, fill=fill)
    return 1.0 - class_mean(acc)[0], items


@doc
def hamming_loss(
    ds: xr.Dataset,
    fold_method: MLFoldMethod = "tp_fp",
    dim: Dims = "fold",
    *,
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""Hamming loss: the share of wrong label decisions, over samples and labels.

    With :math:`C` labels and :math:`n_k` samples in fold :math:`k`,

    .. math:: H^{(k)} = \frac{1}{n_k C}\sum_{c=1}^{C}\left(FP_c^{(k)} + FN_c^{(k)}\right)
        = 1 - \frac1C \sum_c \text{acc}_c^{(k)}

    the mean over labels of the one-vs-all error rates (scikit-learn's ``hamming_loss`` on
    indicator matrices; on a single-label multiclass cube, the error rate
    :math:`1 - \sum_c TP_c / n`, as ``hamming_loss`` on 1-D labels). ``"tp_fp"`` pools the
    counts over the folds, ``"avg"`` averages the per-fold losses.

    Parameters
    ----------
    <<ds>>
    <<ml_fold_method>>
    <<dim>>
    <<zero_division>>
        The value of a fold (or a pool) without samples.

    Returns
    -------
    xarray.DataArray
        float64 without ``dim`` and ``class`` (``fold_method=None`` keeps ``dim``).

    See Also
    --------
    sklearn.metrics.hamming_loss
    subset_accuracy

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.from_predictions([[1, 0], [1, 1], [0, 1], [0, 0]],
    ...                               [[1, 1], [1, 1], [0, 0], [0, 0]], fold=[0, 0, 0, 1])
    >>> from cvframe.reduce import hamming_loss
    >>> hamming_loss(ds).item(), hamming_loss(ds, None).values.round(4).tolist()
    (0.25, [0.3333, 0.0])
    """
    fm, fill, dims = _setup(ds, fold_method, dim, zero_division)
    if ds.attrs.get("task") == "multiclass":
        how: How = {"tp_fp": "pooled", "avg": "avg"}.get(fm)  # type: ignore[assignment]
        acc = accuracy(ds, how, dim, zero_division=zero_division)
        return _finish(1.0 - acc, "hamming_loss", dims, fm, zero_division)
    val, items = _hamming(ds, fm, dims, fill)
    warn(items, zero_division)
    return _finish(val, "hamming_loss", dims, fm, zero_division)


def _label_counts(ds: xr.Dataset, average: Any, fm: Any) -> Counts:
    if is_binary(ds) and average is not None:
        raise ValueError(
            f"jaccard(average={average!r}) averages over labels, but this binary cube holds "
            "the positive class only; scikit-learn's average over both classes is "
            f"ds.cv.{average}('jaccard'), the positive class's Jaccard is "
            "ds.cv.jaccard(average=None)."
        )
    return read_counts(ds, need_fold=fm is not None)


def _jaccard(
    ds: xr.Dataset, average: Any, fm: Any, dims: Any, fill: float, zd: Any
) -> tuple[xr.DataArray, list[Undefined]]:
    if average == "samples":
        s = _samples(ds, "jaccard(average='samples')")
        num = _with_empty(s, "jaccard_sum", fill)
        val, items = _per_sample_mean(s, num, fm, dims, fill, "Jaccard")
        return val, [*_empty_item(s, "Jaccard", fill, zd), *items]
    c = _label_counts(ds, average, fm)
    if average == "micro":
        return aggregate_counts(c.sum_classes(), "jaccard", fm, dims, fill=fill)
    per_class, items = aggregate_counts(c, "jaccard", fm, dims, fill=fill)
    if average is None:
        return per_class, items
    if average == "macro":
        return class_mean(per_class)[0], items
    support = (formulas.as_float(c.tp) + c.fn).sum(dims)  # the true labels of each class
    val = class_mean(per_class, support, fill)[0]
    none = support.sum(CLASS) == 0  # no true label at all: the plain mean, as scikit-learn
    what = "the weighted average (every label has support 0)"
    val = xr.where(none, class_mean(per_class)[0], val)
    return val, [*items, (none, what, "the unweighted mean is used", None)]


@doc
def jaccard(
    ds: xr.Dataset,
    average: JaccardAverage = "samples",
    fold_method: MLFoldMethod = "tp_fp",
    dim: Dims = "fold",
    *,
    zero_division: ZeroDivision = "warn",
) -> xr.DataArray:
    r"""Jaccard index (intersection over union), per sample or per label, aggregated over folds.

    .. math::
        J_i = \frac{|Y_i \cap \hat Y_i|}{|Y_i \cup \hat Y_i|}
            = \frac{tp_i}{tp_i + fp_i + fn_i}\ (\text{sample } i),\qquad
        J_c = \frac{TP_c}{TP_c + FP_c + FN_c}\ (\text{label } c)

    - ``average="samples"``: the mean of :math:`J_i` over the samples (see
      :func:`f_samples` for how folds are pooled or averaged);
    - ``"macro"``: the mean over labels of :math:`J_c`; ``"weighted"``: weighted by the
      support :math:`TP_c + FN_c` (pooled over ``dim``; the plain mean where every
      support is 0, as scikit-learn); ``"micro"``: :math:`J` of the
      counts summed over labels; ``None``: :math:`J_c` of every label (``class`` kept).
      The fold aggregation of :math:`J_c` comes first (``"tp_fp"`` pools the counts).

    scikit-learn's ``jaccard_score(average=...)`` on each fold (``"avg"``) or on the
    pooled predictions (``"tp_fp"``).

    Parameters
    ----------
    <<ds>>
    average : {"samples", "macro", "micro", "weighted", None}, default "samples"
    <<ml_fold_method>>
    <<dim>>
    <<zero_division>>
        The Jaccard of a sample with no true and no predicted label, or of a label with
        :math:`TP = FP = FN = 0` (scikit-learn's meaning); the value of an empty fold.

    Returns
    -------
    xarray.DataArray
        float64 without ``dim`` and ``class`` (``average=None`` keeps ``class``,
        ``fold_method=None`` keeps ``dim``).

    Raises
    ------
    ValueError
        ``average="samples"`` on a cube without per-sample sums; a label average on a binary
        cube (use ``ds.cv.macro("jaccard")``, which averages both classes).

    Notes
    -----
    <<sample_vars>>

    See Also
    --------
    sklearn.metrics.jaccard_score
    f_samples

    References
    ----------
    P. Jaccard, "The distribution of the flora in the alpine zone", New Phytologist 11(2),
    1912.

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.from_predictions([[1, 0], [1, 1], [0, 1], [0, 0]],
    ...                               [[1, 1], [1, 1], [0, 0], [0, 0]], fold=[0, 0, 0, 1])
    >>> cvframe.reduce.jaccard(ds, zero_division=1.0).item()  # (1/2 + 1 + 0 + 1) / 4
    0.625
    >>> from cvframe.reduce import jaccard
    >>> jaccard(ds, "micro").item(), jaccard(ds, "macro").item()  # 3/5; (2/2 + 1/3) / 2
    (0.6, 0.6666666666666666)
    """
    average = _checks.choice("average", average, JACCARD_AVERAGES)
    fm, fill, dims = _setup(ds, fold_method, dim, zero_division)
    val, items = _jaccard(ds, average, fm, dims, fill, zero_division)
    warn(items, zero_division)
    avg, red = ("none", dims) if average is None else (average, dims + (CLASS,))
    return _finish(val, "jaccard", red, fm, zero_division, average=avg)


# --- all of them ------------------------------------------------------------------------------


@doc
def multilabel_metrics(
    ds: xr.Dataset,
    fold_method: MLFoldMethod = "tp_fp",
    dim: Dims = "fold",
    *,
    beta: float = 1.0,
    zero_division: ZeroDivision = "warn",
) -> xr.Dataset:
    r"""Every multilabel metric of scikit-learn, aggregated over folds the same way.

    ``f_samples``, ``f_macro``, ``f_micro``, ``jaccard_samples``, ``jaccard_macro``,
    ``jaccard_micro``, ``subset_accuracy`` and ``hamming_loss`` (see :func:`f_samples`,
    :func:`jaccard`, :func:`subset_accuracy`, :func:`hamming_loss`; macro and micro F are
    :func:`cvframe.multiclass.macro` and ``micro`` of ``metric="f"``), with one warning per
    call.

    Parameters
    ----------
    <<ds>>
    <<ml_fold_method>>
    <<dim>>
    <<beta>>
        For the sample-based F it must be the cube's (see :func:`f_samples`).
    <<zero_division>>

    Returns
    -------
    xarray.Dataset
        One float64 variable per metric, without ``dim`` and ``class`` (``fold_method=None``
        keeps ``dim``); attrs ``fold_method``, ``zero_division``, ``beta``.

    Notes
    -----
    <<sample_vars>>

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.from_predictions([[1, 0], [1, 1], [0, 1], [0, 0]],
    ...                               [[1, 1], [1, 1], [0, 0], [0, 0]], fold=[0, 0, 0, 1])
    >>> m = cvframe.reduce.multilabel_metrics(ds, zero_division=1.0)
    >>> {k: round(float(v), 4) for k, v in m.data_vars.items()}  # doctest: +NORMALIZE_WHITESPACE
    {'f_samples': 0.6667, 'f_macro': 0.75, 'f_micro': 0.75, 'jaccard_samples': 0.625,
     'jaccard_macro': 0.6667, 'jaccard_micro': 0.6, 'subset_accuracy': 0.5,
     'hamming_loss': 0.25}
    """
    fm, fill, dims = _setup(ds, fold_method, dim, zero_division)
    b, zd = _checks.beta(beta), zero_division
    f_samples = _f_samples(ds, fm, dims, b, fill, zd)
    c = read_counts(ds, need_fold=fm is not None)
    per_class, f_items = aggregate_counts(c, "f", fm, dims, beta=b, fill=fill)
    found = {
        "f_samples": f_samples,
        "f_macro": (class_mean(per_class)[0], f_items),
        "f_micro": aggregate_counts(c.sum_classes(), "f", fm, dims, beta=b, fill=fill),
        **{
            f"jaccard_{a}": _jaccard(ds, a, fm, dims, fill, zd)
            for a in ("samples", "macro", "micro")
        },
        "subset_accuracy": _subset_accuracy(ds, fm, dims, fill),
        "hamming_loss": _hamming(ds, fm, dims, fill),
    }
    warn([item for _, items in found.values() for item in items], zero_division)
    res = xr.Dataset({name: value for name, (value, _) in found.items()})
    for v in res.data_vars.values():
        v.attrs = {}
    res.attrs = {
        "fold_method": "none" if fm is None else fm,
        "zero_division": _checks.zero_division_attr(zero_division),
        "beta": b,
        "reduced_dims": ",".join(map(str, dims + (CLASS,))),
    }
    return res
