"""The one path from a metric name to its number: :func:`cube` (count and multilabel metrics
of :data:`cvframe.metrics.REGISTRY` from a cube, by variant and class average), :func:`frame`
(score metrics of a predictions frame), :func:`pooled_counts` (count metrics of numpy counts,
which the resampling tests draw) and :func:`multilabel_metrics_from_frame`. compare,
interval, PooledSearchCV, explain and the report compute through here, so a metric added to
the registry reaches every one of them.

>>> import cvframe
>>> ds = cvframe.datasets.table1()
>>> round(cube(ds, "f", "tp_fp").item(), 3), round(cube(ds, "f", "avg").item(), 3)
(0.583, 0.692)
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd
import xarray as xr

from . import formulas, metrics, multiclass, reduce, scores
from ._core.docs import doc
from ._core.types import Dims, ZeroDivision
from .build.predictions import frame_cube
from .errors import few
from .reduce import multilabel
from .schema import CLASS, read_counts

__all__ = [
    "average_classes",
    "cube",
    "fold_values",
    "frame",
    "multilabel_metrics_from_frame",
    "pooled_counts",
]

_HOW = {None: None, "avg": "avg", "tp_fp": "pooled"}


def cube(
    ds: xr.Dataset,
    metric: str,
    variant: str | None,
    average: str | None = None,
    *,
    beta: float = 1.0,
    zero_division: Any = "warn",
) -> xr.DataArray:
    """A count or multilabel metric of a cube: per fold (``variant=None``), pooled
    (``"tp_fp"``) or fold-averaged (``"avg"``, ``"avg_skip"``, ``"pr_re"``...), averaged
    over the classes by ``average`` (None: per class; a metric over every class, such as
    accuracy or MCC, ignores it)."""
    entry = metrics.REGISTRY[metric]
    fm = variant.removesuffix("_skip") if variant else None  # "avg_skip": "avg", skipping
    skip = bool(variant and variant.endswith("_skip"))
    if entry.kind == "score":
        raise ValueError(
            f"metric={metric!r} reads scores: pass the predictions frame, not the counts cube."
        )
    if entry.kind == "sample":  # sample-based, or averaged over every label decision
        extra = {"beta": beta} if entry.kernel == "f_samples" else {}
        if entry.kernel == "jaccard_samples":
            return multilabel.jaccard(ds, "samples", cast(Any, fm), zero_division=zero_division)
        return getattr(multilabel, entry.kernel)(ds, fm, zero_division=zero_division, **extra)
    if entry.kernel == "accuracy" and (average is None or ds.attrs.get("task") == "multiclass"):
        return reduce.accuracy(ds, cast(Any, _HOW[fm]), zero_division=zero_division)
    spec = formulas.METRIC_SPECS[entry.kernel]
    if average is None or spec.over_classes or ds.sizes.get(CLASS, 1) <= 1:
        kw: dict[str, Any] = {"beta": beta, "skip_undefined": skip, "zero_division": zero_division}
        return reduce.aggregate(ds, cast(Any, entry.kernel), cast(Any, fm), **kw)
    if skip:
        raise ValueError(
            f"{metrics.display(metric, variant)} skips undefined folds per class; a class "
            f"average (average={average!r}) of it is not defined: use variant 'avg', or "
            "average=None."
        )
    if entry.kernel not in multiclass.METRICS:
        raise ValueError(
            f"metric={metric!r} has no class average (average={average!r} averages "
            f"{few(multiclass.METRICS)}); pass average=None to keep the classes."
        )
    func = getattr(multiclass, average)
    return func(ds, entry.kernel, fold_method=fm, beta=beta, zero_division=zero_division)


def fold_values(
    ds: xr.Dataset,
    metric: str,
    average: str | None = None,
    *,
    beta: float = 1.0,
    zero_division: Any = "warn",
) -> xr.DataArray:
    """Per-fold values of a count metric (NaN where a cell is not a fold)."""
    vals = cube(ds, metric, None, average, beta=beta, zero_division=zero_division)
    is_fold = read_counts(ds).is_fold
    return vals.where(is_fold if CLASS in vals.dims else is_fold.any(CLASS))


def average_classes(values: np.ndarray, support: np.ndarray, average: str | None) -> np.ndarray:
    """Per-class values (..., C) as one value (...): macro or support-weighted mean."""
    if values.shape[-1] == 1:
        return values[..., 0]
    if average == "weighted":
        return formulas.safe_divide((values * support).sum(-1), support.sum(-1))
    return values.mean(-1)


def pooled_counts(
    metric: str, counts: dict[str, np.ndarray], average: str | None, beta: float, binary: bool
) -> np.ndarray:
    """A count metric of numpy counts over (..., C), 0 where undefined, -> (...): the class
    average of a per-class metric, or the metric over every class (``binary``: the classes
    hold the positive one only)."""
    kernel = metrics.REGISTRY[metric].kernel
    tp, fp, fn, tn = (counts[k] for k in ("tp", "fp", "fn", "tn"))
    if formulas.METRIC_SPECS[kernel].over_classes:
        if binary:
            tp, fp, fn, tn = formulas.both_classes(tp, fp, fn, tn)
        return np.asarray(formulas.metric(kernel, tp, fp, fn, tn, fill=0.0))
    if average == "micro" and tp.shape[-1] > 1:
        tp, fp, fn, tn = (x.sum(-1, keepdims=True) for x in (tp, fp, fn, tn))
    per_class = np.asarray(formulas.metric(kernel, tp, fp, fn, tn, beta=beta, fill=0.0))
    return average_classes(per_class, tp + fn, average)


def frame(df: Any, metric: str, method: str, *args: Any, **kwargs: Any) -> xr.DataArray:
    """A score metric of a predictions frame: ``scores.<kernel>(df, method, ...)`` (method
    ``"merge"``, ``"avg"`` or ``"fold"``; further arguments as that function takes them)."""
    entry = metrics.REGISTRY[metric]
    if entry.kind != "score":
        raise ValueError(f"metric={metric!r} is not a score metric; compute it from the cube.")
    return getattr(scores, entry.kernel)(df, method, *args, **kwargs)


@doc
def multilabel_metrics_from_frame(
    df: pd.DataFrame,
    fold_method: multilabel.MLFoldMethod = "tp_fp",
    dim: Dims = "fold",
    *,
    beta: float = 1.0,
    zero_division: ZeroDivision = "warn",
    labels: Sequence[Hashable] | None = None,
    y_true: str = "y_true",
    y_pred: str = "y_pred",
    fold: str = "fold",
    repeat: str | None = "repeat",
    sample_weight: str | None = None,
    dims: Sequence[str] | None = None,
) -> xr.Dataset:
    r"""Every multilabel metric of a multilabel predictions frame (``df.cv.multilabel_metrics()``).

    :func:`cvframe.reduce.multilabel_metrics` (``ds.cv.multilabel_metrics()``) of the frame's
    counts cube, with the same arguments, after the frame's columns: the
    ``y_true_<label>`` / ``y_pred_<label>`` indicator columns (as
    :func:`cvframe.cross_validate` writes them) are counted per fold with the per-sample
    outcomes at ``beta`` (:func:`cvframe.build.counts_from_frame` sums them at
    :math:`\beta = 1`): ``f_samples``, ``f_macro``, ``f_micro``, ``jaccard_samples``,
    ``jaccard_macro``, ``jaccard_micro``, ``subset_accuracy``, ``hamming_loss``.

    Parameters
    ----------
    df : pandas.DataFrame or dask.dataframe.DataFrame
        A multilabel predictions frame: ``fold``, optional ``repeat`` and dimension columns,
        one ``y_true_<label>`` and one ``y_pred_<label>`` 0/1 column per label.
    <<ml_fold_method>>
    <<dim>>
    <<beta>>
        The per-sample F (:math:`F_{\beta}` of each sample's labels) and macro/micro F.
    <<zero_division>>
    labels : sequence, optional
        The labels, in the order of the indicator columns (default: their names).
    y_true, y_pred, fold : str
        Column names (the indicator columns are ``<y_true>_<label>``).
    repeat : str or None, default "repeat"
        Column of the repeat, when the frame has it.
    sample_weight : str, optional
        Column of per-sample weights (every mean becomes a weighted mean).
    dims : sequence of str, optional
        Further columns kept as dims (default: ``model``, ``param``, ``dataset``, ``subset``
        when present).

    Returns
    -------
    xarray.Dataset
        One float64 variable per metric over the kept dims (``dim`` too when
        ``fold_method=None``).

    Raises
    ------
    ValueError
        A frame that is not multilabel (no ``y_true_<label>`` columns) or a bad argument.

    See Also
    --------
    cvframe.reduce.multilabel_metrics : the same on a cube (``ds.cv.multilabel_metrics()``).
    sklearn.metrics.fbeta_score : ``average="samples"``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 1],
    ...                    "y_true_a": [1, 1, 0, 0], "y_true_b": [0, 1, 1, 0],
    ...                    "y_pred_a": [1, 1, 0, 0], "y_pred_b": [1, 1, 0, 0]})
    >>> m = df.cv.multilabel_metrics(beta=2.0, zero_division=1.0)
    >>> round(m.f_samples.item(), 4)  # (5/6 + 1 + 0 + 1) / 4
    0.7083
    """
    if y_true in df.columns:  # a single-label frame (a multilabel one has y_true_<label>)
        raise ValueError(
            f"df is not a multilabel predictions frame: it has a {y_true!r} column; a "
            f"multilabel frame has one {y_true}_<label> and one {y_pred}_<label> 0/1 column per "
            "label. For single-label data use df.cv.counts().cv.macro() / .micro() / .accuracy()."
        )
    cube = frame_cube(
        df, labels, None, y_true=y_true, y_pred=y_pred, fold=fold, repeat=repeat,
        sample_weight=sample_weight, dims=dims, beta=beta,
    )  # fmt: skip
    return multilabel.multilabel_metrics(
        cube, fold_method, dim, beta=beta, zero_division=zero_division
    )
