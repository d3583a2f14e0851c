"""AUC, average precision, precision at k and R-precision: one driver for all four.

Two ways of aggregating a ranking metric over the folds of a cross-validation
(Forman & Scholz 2010, §2.4 and §3.2):

- ``method="avg"`` — compute the metric on every fold's test set, then average the defined
  folds (AUC_avg, the recommended one: it asks the fold models only to *rank* well);
- ``method="merge"`` — pool the scores of all folds of a repeat and compute the metric once
  (AUC_merge: it silently also demands that the fold models be *calibrated* with each other);
- ``method="fold"`` — keep the ``fold`` dimension: the per-fold values themselves.

Every metric is a function of one class's scores sorted per group (:class:`~._rank.Ranked`)
that returns a value and a support per group. :func:`_run` parses the frame once and sorts
each class once: per fold, per repeat, or -- when both the per-fold and the merged values
are wanted -- per repeat with the fold riding in the lowest key bits, the per-fold order
then coming from a stable counting pass over that one sort (:meth:`~._rank.Ranked.by_low`).
It then applies the fold reduction, the undefined policy, the class average and the attrs
in one place, with one warning per call.

(Over 400 lines: most of it is the five public numpydoc docstrings with their formulas and
doctests; the code itself is one driver.)
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr

from .. import _checks
from .._docs import doc
from .._labels.frame import Frame, by_frame_dims, parse
from ..errors import UndefinedMetricWarning, few, user_stacklevel
from ..schema import CLASS, FOLD, REPEAT
from ._rank import Ranked, auc_both

__all__ = ["auc", "auc_methods", "average_precision", "precision_at_k", "r_precision"]

Method = Literal["avg", "merge", "fold"]
Undefined = Literal["skip", "nan"]
Average = Literal["macro", "weighted", None]

METHODS = ("avg", "merge", "fold")
UNDEFINED = ("skip", "nan")
AVERAGES = (None, "macro", "weighted")


@dataclass(frozen=True)
class _Metric:
    """A ranking metric: its name, why it can be undefined, and its per-group values.

    ``per_group(ranked)`` returns ``(value, support)`` per group: the value is NaN where the
    metric is undefined; the support (positives) weighs ``average="weighted"``.
    """

    name: str
    why: str
    per_group: Callable[[Ranked], tuple[np.ndarray, np.ndarray]]
    extra: dict[str, Any] = field(default_factory=dict)
    #: optional fused pass giving the pooled and the per-fold values of one class at once
    #: (same arguments as ``Ranked(..., low=...)``), or None where it does not apply
    both: Callable[..., Any] | None = None


def _auc_values(r: Ranked) -> tuple[np.ndarray, np.ndarray]:
    value, npos, _ = r.auc()
    return value, npos


def _r_precision_values(r: Ranked) -> tuple[np.ndarray, np.ndarray]:
    npos = r.npos
    return r.precision_at(npos), npos


AUC = _Metric("auc", "no positives or no negatives for a class", _auc_values, both=auc_both)
AP = _Metric("average_precision", "no positives for a class", lambda r: r.average_precision())
R_PRECISION = _Metric("r_precision", "no positives for a class", _r_precision_values)


def _precision_at_k(k: int) -> _Metric:
    return _Metric(
        "precision_at_k",
        f"fewer than k={k} samples in the fold",
        lambda r: (r.precision_at(np.asarray(k, dtype=np.int64)), r.npos),
        {"k": int(k)},
    )


# ------------------------------------------------------------------------------------------
# The driver
# ------------------------------------------------------------------------------------------


def _check(method: Any, undefined: Any, average: Any) -> None:
    _checks.choice("method", method, METHODS)
    _checks.choice("undefined", undefined, UNDEFINED)
    _checks.choice("average", average, AVERAGES)


def _evaluate(
    fr: Frame, metric: _Metric, per_fold: bool, merged: bool
) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[tuple[np.ndarray, np.ndarray]]]:
    """Per class: the per-fold and/or merged (value, support) arrays, one sort per class.

    When both are wanted, the one sort is by (repeat, score) with the fold in the lowest key
    bits, and the per-fold order comes from a stable counting pass over it
    (:meth:`~._rank.Ranked.by_low`); the fold sizes it needs are counted once for all classes.
    """
    fold_res, merge_res = [], []
    counts = buffer = None
    if per_fold and merged:
        g, n_groups = fr.groups(True)
        counts = np.bincount(g, minlength=n_groups) if g is not None else np.array([fr.n])
        if fr.present_ is None:
            fr.present_ = counts > 0
    for s, (lo, hi), y in zip(fr.scores, fr.ranges, fr.ys, strict=True):
        if counts is not None:
            fused = None
            if metric.both is not None:
                if buffer is None:  # one key buffer for every class
                    buffer = np.empty(fr.n, dtype=np.uint64)
                fused = metric.both(
                    s, lo, hi, y, fr.rep_codes, fr.n_reps, fr.fold_codes, fr.n_folds, counts, buffer
                )
            if fused is not None:
                merge_res.append(fused[0])
                fold_res.append(fused[1])
                continue
            ranked = Ranked(
                s, lo, hi, y, fr.rep_codes, fr.n_reps, fr.fold_codes, fr.n_folds, counts
            )
            merge_res.append(metric.per_group(ranked))
            ranked = ranked.by_low()
            fold_res.append(metric.per_group(ranked))
        else:
            g, n_groups = fr.groups(per_fold)
            ranked = Ranked(s, lo, hi, y, g, n_groups)
            if per_fold and fr.present_ is None:
                fr.present_ = ranked.size > 0
            (fold_res if per_fold else merge_res).append(metric.per_group(ranked))
        del ranked
    return fold_res, merge_res


def _cube(fr: Frame, per_fold: bool, per_class: list[np.ndarray]) -> xr.DataArray:
    """Stack per-class group arrays into a DataArray over (repeat?, fold?, class)."""
    arr = np.stack(per_class, axis=-1).astype(np.float64)
    dims: list[str] = []
    coords: dict[str, Any] = {}
    shape: list[int] = []
    if fr.rep_coord is not None:
        dims.append(REPEAT)
        coords[REPEAT] = fr.rep_coord
        shape.append(fr.n_reps)
    if per_fold:
        dims.append(FOLD)
        coords[FOLD] = fr.fold_coord[fr.fold_keep]
        shape.append(fr.n_folds)
    dims.append(CLASS)
    coords[CLASS] = _coord(fr.classes)
    shape.append(len(fr.classes))
    arr = arr.reshape(shape)
    if per_fold:
        arr = arr[..., fr.fold_keep, :]
    return xr.DataArray(arr, dims=dims, coords=coords)


def _coord(values: list[Any]) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype.kind in "USO":
        arr = np.asarray(values, dtype=object)
    return arr


def _where(mask: xr.DataArray) -> str:
    idx = np.argwhere(np.asarray(mask))
    parts = []
    for axis, dim in enumerate(mask.dims):
        coord = mask[dim].values
        vals = list(dict.fromkeys(coord[i] for i in idx[:, axis]))
        parts.append(f"{dim}={few(vals)}")
    return ", ".join(parts)


@dataclass
class _Undefined:
    """The undefined cells of one result, for the call's one warning."""

    n: int
    total: int
    where: str
    action: str
    label: str = ""


def _reduce(
    fr: Frame,
    res: list[tuple[np.ndarray, np.ndarray]],
    metric: _Metric,
    method: str,
    undefined: str,
    average: str | None,
) -> tuple[xr.DataArray, _Undefined]:
    """Fold reduction, undefined policy and class average of one method's values.

    Groups without rows (a fold a repeat does not have) are not folds: they are neither
    undefined cells nor part of a mean.
    """
    per_fold = method != "merge"
    value = _cube(fr, per_fold, [r[0] for r in res])
    support = _cube(fr, per_fold, [r[1].astype(np.float64) for r in res])
    undefined_cells = value.isnull()
    present = None
    if per_fold:
        pres = fr.present.reshape(fr.n_reps, fr.n_folds)[:, fr.fold_keep]
        present = xr.DataArray(pres.reshape(value.shape[:-1]), dims=value.dims[:-1])
        undefined_cells = undefined_cells & present
        total = int(present.sum()) * len(fr.classes)
    else:
        total = value.size
    info = _Undefined(
        int(undefined_cells.sum()),
        total,
        _where(undefined_cells) if bool(undefined_cells.any()) else "",
        "skipped in the mean over folds" if method == "avg" else "left as NaN",
    )
    skip = undefined == "skip"
    reduced: list[str] = []
    with warnings.catch_warnings():  # all-NaN slices are counted in the one warning
        warnings.simplefilter("ignore", RuntimeWarning)
        if method == "avg":
            assert present is not None
            valid = present.broadcast_like(value)
            if skip:
                result = value.where(valid).mean(FOLD, skipna=True)
            else:
                result = value.where(valid, 0.0).sum(FOLD, skipna=False) / valid.sum(FOLD)
            support = support.where(valid, 0).sum(FOLD)
            reduced.append(FOLD)
        else:
            result = value if present is None else value.where(present.broadcast_like(value))
        if average == "macro":
            result = result.mean(CLASS, skipna=skip)
            reduced.append(CLASS)
        elif average == "weighted":
            w = support.where(result.notnull(), 0) if skip else support
            tot = w.sum(CLASS)
            result = (result * w).sum(CLASS, skipna=skip) / tot.where(tot > 0)
            reduced.append(CLASS)
    result.attrs = {
        "metric": metric.name,
        "method": method,
        "undefined": undefined,
        "average": "none" if average is None else average,
        "reduced_dims": ",".join(reduced),
        "n_undefined": info.n,
        "task": "binary" if fr.binary else "multiclass",
        "score_columns": ",".join(fr.score_cols),
        **metric.extra,
    }
    result.name = metric.name
    return result, info


def _warn(metric: _Metric, infos: list[_Undefined]) -> None:
    """The call's one UndefinedMetricWarning, over every method it computed."""
    bad = [i for i in infos if i.n]
    if not bad:
        return
    parts = [f"{i.n} of {i.total} {i.label}cells ({i.where}); {i.action}" for i in bad]
    warnings.warn(
        f"{metric.name} ({metric.why}) is undefined in {'; and in '.join(parts)}. Pass "
        "undefined='nan' to get NaN instead and silence this warning.",
        UndefinedMetricWarning,
        stacklevel=user_stacklevel(),
    )


def _run(
    df: pd.DataFrame,
    metric: _Metric,
    methods: Sequence[str],
    undefined: str,
    average: str | None,
    labels: Sequence[Hashable] | None,
    pos_label: Hashable | None,
    y_true: str,
    fold: str,
    repeat: str | None,
    score: str,
) -> list[xr.DataArray]:
    """The one body of every ranking metric: parse, sort, reduce, warn once."""
    for m in methods:
        _check(m, undefined, average)
    fr = parse(df, labels, pos_label, y_true, fold, repeat, score)
    fold_res, merge_res = _evaluate(
        fr, metric, any(m != "merge" for m in methods), "merge" in methods
    )
    out, infos = [], []
    for m in methods:
        result, info = _reduce(
            fr, merge_res if m == "merge" else fold_res, metric, m, undefined, average
        )
        if len(methods) > 1:
            info.label = "merged " if m == "merge" else "fold "
        out.append(result)
        infos.append(info)
    if undefined == "skip":
        _warn(metric, infos)
    return out


#: The driver under public names, for the ranking metrics of other modules of this package
#: (:mod:`.bep`): a metric is a :class:`RankingMetric`, run by :func:`run_metric`.
RankingMetric = _Metric
run_metric = _run


# ==========================================================================================
# Public functions
# ==========================================================================================


@doc
@by_frame_dims
def auc(
    df: pd.DataFrame,
    method: Method = "avg",
    undefined: Undefined = "skip",
    *,
    average: Average = None,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> xr.DataArray:
    r"""Area under the ROC curve per fold, averaged over folds (AUC_avg) or merged (AUC_merge).

    For one fold (or, with ``method="merge"``, for the pooled folds of one repeat) with
    :math:`n_1` positives and :math:`n_0` negatives, AUC is the Mann–Whitney statistic

    .. math:: AUC = \frac{1}{n_1 n_0} \sum_{i \in +} \sum_{j \in -}
              \left([s_i > s_j] + \tfrac12 [s_i = s_j]\right),

    ties counting one half. :math:`AUC_{avg} = \frac1k \sum_i AUC^{(i)}` over the folds of a
    repeat; :math:`AUC_{merge}` is the AUC of all folds' scores sorted together, which also
    penalises fold models that are not calibrated with each other (Forman & Scholz 2010,
    §3.2: 92% AUC_avg vs 80% AUC_merge on the same folds).

    Parameters
    ----------
    <<frame_params>>
    <<method_params>>

    Returns
    -------
    xarray.DataArray
        Over ``class`` (length 1 holding ``pos_label`` when binary), plus ``repeat`` when the
        frame has a repeat column, plus ``fold`` for ``method="fold"``; without ``class``
        when ``average`` is given. Attrs record ``metric``, ``method``, ``undefined``,
        ``average``, ``reduced_dims`` and ``n_undefined``.

    Raises
    ------
    ValueError
        A missing column, NaN or infinite scores, score columns that do not match the labels
        (missing or extra ``score_<label>``; columns are matched by name), labels outside
        ``labels``, binary labels other than {0, 1}/{False, True} without ``pos_label``.
    TypeError
        Non-numeric scores, labels mixing strings and numbers.

    Warns
    -----
    UndefinedMetricWarning
        Once per call under ``undefined="skip"`` when a fold (or a pooled repeat) has no
        positives or no negatives for a class: AUC is undefined there (never 0 or 0.5).
    UserWarning
        When a score column holds only 0 and 1 (hard predictions): AUC then equals the
        balanced accuracy.

    Notes
    -----
    One packed ``uint64`` sort per class (group, score and label in one key), then
    tie-aware rank sums per group: no loop over folds. :func:`auc_methods` gets both
    aggregations from that one sort.

    See Also
    --------
    auc_methods : both aggregations side by side.
    sklearn.metrics.roc_auc_score : the same number for one fold.

    References
    ----------
    <<score_refs>>

    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> scores.auc(df).item()
    0.875
    >>> scores.auc(df, method="fold").values.ravel().tolist()
    [0.75, 1.0]
    >>> round(scores.auc(df, method="merge").item(), 4)
    0.6875
    """
    return _run(
        df, AUC, (method,), undefined, average, labels, pos_label, y_true, fold, repeat, score
    )[0]


@doc
@by_frame_dims
def auc_methods(
    df: pd.DataFrame,
    undefined: Undefined = "skip",
    *,
    average: Average = None,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> xr.Dataset:
    r"""AUC_avg and AUC_merge side by side.

    ``auc_avg`` is the mean of the per-fold AUCs; ``auc_merge`` the AUC of all folds' scores
    of a repeat sorted together (see :func:`auc`). They differ when the fold models are not
    calibrated with each other: AUC_merge < AUC_avg signals scores shifted between folds.

    Parameters
    ----------
    <<frame_params>>
    undefined : {"skip", "nan"}
        As in :func:`auc`; one warning per call covers both variables.
    average : {None, "macro", "weighted"}
        As in :func:`auc`.

    Returns
    -------
    xarray.Dataset
        Variables ``auc_avg`` and ``auc_merge`` over ``class`` (plus ``repeat``).

    Notes
    -----
    One sort per class gives both: the scores of each repeat are sorted once, with the fold
    in the lowest bits of the packed key; AUC_merge is read off that order, and the per-fold
    AUCs from the same order (a fold's scores keep their order inside the pooled sort), ties
    counting one half in both. With numba installed (the ``fast`` extra) both come from one
    compiled pass over the sorted keys; otherwise a stable counting pass by fold (a radix
    sort of the small fold codes) regroups the sorted keys per fold. The numbers are the
    same either way.

    References
    ----------
    <<score_refs>>

    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> ds = scores.auc_methods(df)
    >>> float(ds.auc_avg.item()), round(float(ds.auc_merge.item()), 4)
    (0.875, 0.6875)
    """
    avg, merge = _run(
        df,
        AUC,
        ("avg", "merge"),
        undefined,
        average,
        labels,
        pos_label,
        y_true,
        fold,
        repeat,
        score,
    )
    ds = xr.Dataset({"auc_avg": avg, "auc_merge": merge})
    ds.attrs = {
        "metric": "auc",
        "undefined": undefined,
        "average": "none" if average is None else average,
    }
    return ds


@doc
@by_frame_dims
def average_precision(
    df: pd.DataFrame,
    method: Method = "avg",
    undefined: Undefined = "skip",
    *,
    average: Average = None,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> xr.DataArray:
    r"""Average precision per fold, averaged over folds, or merged.

    scikit-learn's step-wise definition: with thresholds at the distinct scores in
    decreasing order, :math:`AP = \sum_n (R_n - R_{n-1}) P_n`, where :math:`P_n, R_n` are
    the precision and recall of predicting positive every sample scored at least the n-th
    threshold (all tied samples enter together). A fold without positives has undefined AP;
    a fold without negatives has AP = 1.

    Parameters
    ----------
    <<frame_params>>
    <<method_params>>

    Returns
    -------
    xarray.DataArray
        As :func:`auc`.

    See Also
    --------
    sklearn.metrics.average_precision_score : the same number for one fold.

    References
    ----------
    <<score_refs>>

    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> scores.average_precision(df, method="fold").values.ravel().round(4).tolist()
    [0.8333, 1.0]
    """
    return _run(
        df, AP, (method,), undefined, average, labels, pos_label, y_true, fold, repeat, score
    )[0]


@doc
@by_frame_dims
def precision_at_k(
    df: pd.DataFrame,
    k: int,
    method: Method = "avg",
    undefined: Undefined = "skip",
    *,
    average: Average = None,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> xr.DataArray:
    r"""Precision among the k top-scored samples of each fold, averaged over folds.

    :math:`P@k = \frac{1}{k} \#\{\text{positives among the } k \text{ highest scores}\}`.
    When the k-th place falls inside a run of tied scores, the run contributes its
    positives in proportion to the places it takes (the expected value under random
    tie-breaking). A fold with fewer than k samples is undefined.

    Parameters
    ----------
    <<frame_params>>
    k : int
        How many top-scored samples, >= 1.
    <<method_params>>

    Returns
    -------
    xarray.DataArray
        As :func:`auc`; attrs also record ``k``.

    References
    ----------
    <<score_refs>>

    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> scores.precision_at_k(df, 2, method="fold").values.ravel().tolist()
    [0.5, 1.0]
    """
    k = _checks.integer(
        "k", k, low=1, fix="k must be an integer >= 1 (how many top-scored samples)."
    )
    return _run(
        df,
        _precision_at_k(k),
        (method,),
        undefined,
        average,
        labels,
        pos_label,
        y_true,
        fold,
        repeat,
        score,
    )[0]


@doc
@by_frame_dims
def r_precision(
    df: pd.DataFrame,
    method: Method = "avg",
    undefined: Undefined = "skip",
    *,
    average: Average = None,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> xr.DataArray:
    r"""R-precision (the precision-recall break-even point) per fold, averaged over folds.

    With R positives in the fold, R-precision is :math:`P@R`: the share of positives among
    the R top-scored samples, where precision equals recall. Ties at the cut are shared as
    in :func:`precision_at_k`. A fold without positives is undefined.

    Parameters
    ----------
    <<frame_params>>
    <<method_params>>

    Returns
    -------
    xarray.DataArray
        As :func:`auc`.

    References
    ----------
    <<score_refs>>

    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> scores.r_precision(df, method="fold").values.ravel().tolist()
    [0.5, 1.0]
    """
    return _run(
        df,
        R_PRECISION,
        (method,),
        undefined,
        average,
        labels,
        pos_label,
        y_true,
        fold,
        repeat,
        score,
    )[0]
