"""AUC, average precision, precision at k and R-precision: four specs of the one driver.

Each metric is a :class:`~._driver.Metric` whose values come from one class's scores sorted
per group (:class:`~._rank.Ranked`); :func:`auc_arrays` is the same AUC on plain arrays (one
row per resample or model), on the same sort.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .._core import checks as _checks
from .._core.docs import doc
from .._core.labels.frame import FrameArgs
from ..errors import few
from ._driver import AVERAGES, METHODS, UNDEFINED, Average, Method, Metric, Undefined, ranked, run
from ._parsed import by_frame_dims, ranks
from ._rank import Ranked, auc_both, delong_placements
from .curves import WHY

__all__ = [
    "AVERAGES",
    "METHODS",
    "UNDEFINED",
    "Average",
    "Method",
    "Undefined",
    "auc",
    "auc_arrays",
    "auc_methods",
    "average_precision",
    "delong_arrays",
    "delong_frame",
    "delong_paired_arrays",
    "precision_at_k",
    "r_precision",
]


_NO_POS = "no positives for a class"
AUC = Metric("auc", WHY, ranked(Ranked.auc, auc_both))
DELONG = Metric("auc", WHY, ranked(Ranked.delong), methods=("merge",), averages=(None,))
AP = Metric("average_precision", _NO_POS, ranked(Ranked.average_precision))
R_PRECISION = Metric("r_precision", _NO_POS, ranked(lambda r: (r.precision_at(r.npos), r.npos)))


def _precision_at_k(k: int) -> Metric:
    at_k, why = np.asarray(k, dtype=np.int64), f"fewer than k={k} samples in the fold"
    return Metric("precision_at_k", why, ranked(lambda r: (r.precision_at(at_k), r.npos)), {"k": k})


@doc
@by_frame_dims
@ranks
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

    <<frame_parameters>>
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

    <<score_references>>

    <<score_examples>>
    >>> scores.auc(df).item()
    0.875
    >>> scores.auc(df, method="fold").values.ravel().tolist()
    [0.75, 1.0]
    >>> round(scores.auc(df, method="merge").item(), 4)
    0.6875
    """
    return run(df, AUC, (method,), undefined, average, FrameArgs.of(locals()))[0]["auc"]


@doc
@by_frame_dims
@ranks
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

    <<frame_parameters>>
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
    One sort per class gives both: each repeat's scores sorted once, the fold in the lowest
    key bits; AUC_merge is read off that order and the per-fold AUCs from it (a fold's scores
    keep their order), in one compiled pass with numba (the ``fast`` extra), else after a
    stable counting pass by fold. The numbers are the same either way.

    <<score_references>>

    <<score_examples>>
    >>> ds = scores.auc_methods(df)
    >>> float(ds.auc_avg.item()), round(float(ds.auc_merge.item()), 4)
    (0.875, 0.6875)
    """
    args = FrameArgs.of(locals())
    avg, merge = run(df, AUC, ("avg", "merge"), undefined, average, args)
    attrs = {"metric": "auc", "undefined": undefined, "average": str(average).lower()}
    return xr.Dataset({"auc_avg": avg["auc"], "auc_merge": merge["auc"]}, attrs=attrs)


@doc
@by_frame_dims
@ranks
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

    <<frame_parameters>>
    <<method_params>>

    Returns
    -------
    xarray.DataArray
        As :func:`auc`.

    See Also
    --------
    sklearn.metrics.average_precision_score : the same number for one fold.

    <<score_references>>

    <<score_examples>>
    >>> scores.average_precision(df, method="fold").values.ravel().round(4).tolist()
    [0.8333, 1.0]
    """
    args = FrameArgs.of(locals())
    return run(df, AP, (method,), undefined, average, args)[0]["average_precision"]


@doc
@by_frame_dims
@ranks
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

    <<frame_parameters>>
    k : int
        How many top-scored samples, >= 1.
    <<method_params>>

    Returns
    -------
    xarray.DataArray
        As :func:`auc`; attrs also record ``k``.

    <<score_references>>

    <<score_examples>>
    >>> scores.precision_at_k(df, 2, method="fold").values.ravel().tolist()
    [0.5, 1.0]
    """
    k = _checks.integer(
        "k", k, low=1, fix="k must be an integer >= 1 (how many top-scored samples)."
    )
    metric, args = _precision_at_k(k), FrameArgs.of(locals())
    return run(df, metric, (method,), undefined, average, args)[0]["precision_at_k"]


@doc
@by_frame_dims
@ranks
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

    <<frame_parameters>>
    <<method_params>>

    Returns
    -------
    xarray.DataArray
        As :func:`auc`.

    <<score_references>>

    <<score_examples>>
    >>> scores.r_precision(df, method="fold").values.ravel().tolist()
    [0.5, 1.0]
    """
    args = FrameArgs.of(locals())
    return run(df, R_PRECISION, (method,), undefined, average, args)[0]["r_precision"]


def _array(name: str, value: Any, fix: str) -> np.ndarray:
    """``value`` as a float64 array of finite real numbers, or an error naming ``name``."""
    arr = np.asarray(value)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}; {fix}")
    arr = arr.astype(np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        raise ValueError(
            f"{name} has {int(bad.sum())} NaN or infinite values ({few(np.unique(arr[bad]))}); "
            f"{fix}"
        )
    return arr


@doc
def auc_arrays(scores: Any, y: Any, weights: Any | None = None) -> np.ndarray:
    r"""AUC of every row of a score array, ties counting one half (midranks).

    For one row with scores :math:`s_i`, labels :math:`y_i \in \{0, 1\}` and weights
    :math:`w_i` (1 when not given),

    .. math:: AUC = \frac{\sum_{i: y_i = 1} \sum_{j: y_j = 0} w_i w_j
              \left([s_i > s_j] + \tfrac12 [s_i = s_j]\right)}
              {\sum_{i: y_i = 1} w_i \; \sum_{j: y_j = 0} w_j},

    the Mann-Whitney statistic of :func:`auc`. An integer weight is a count: the AUC of
    the weighted row is the AUC of the row with every sample repeated ``weight`` times
    (a bootstrap resample given as counts), and a weight of 0 drops the sample.

    Parameters
    ----------
    scores : array-like of shape (..., S)
        Real scores (higher means more positive), finite; the last axis holds the samples
        of one row.
    y : array-like of 0/1 or bool
        Whether each sample is positive, broadcast with ``scores`` (numpy's rules), e.g.
        shape (S,) for every row alike.
    weights : array-like, optional
        Nonnegative finite weights or counts per sample, broadcast with ``scores`` and
        ``y``, e.g. shape (B, S) for B bootstrap resamples of one row of scores.

    Returns
    -------
    numpy.ndarray
        float64 of the broadcast shape without its last axis (0-d for one row); NaN where a
        row has no positives or no negatives (of positive weight).

    Raises
    ------
    ValueError
        NaN or infinite values, labels other than 0/1, negative weights, shapes that do not
        broadcast (TypeError: values that are not numbers).

    Notes
    -----
    All rows are sorted together in the one packed sort of the ranking metrics.

    See Also
    --------
    auc : the same statistic per fold of a predictions frame.
    sklearn.metrics.roc_auc_score : the same number for one row (``sample_weight=weights``).

    <<score_references>>

    Examples
    --------
    >>> import numpy as np
    >>> from cvframe import scores
    >>> s = np.array([[0.1, 0.4, 0.35, 0.8], [0.5, 0.5, 0.5, 0.5]])
    >>> scores.auc_arrays(s, [0, 0, 1, 1]).tolist()
    [0.75, 0.5]
    >>> float(scores.auc_arrays(s[0], [0, 0, 1, 1], weights=[1, 0, 2, 1]))  # 0.4 dropped
    1.0
    >>> scores.auc_arrays(s[0], [0, 0, 1, 1], weights=[[1, 1, 1, 1], [2, 0, 0, 2]]).tolist()
    [0.75, 1.0]
    """
    ranked, lead = _rows(scores, y, weights)
    if ranked is None:
        return np.full(lead, np.nan)
    return ranked.auc()[0].reshape(lead)


def _rows(scores: Any, y: Any, weights: Any | None) -> tuple[Ranked | None, tuple[int, ...]]:
    """Every row of ``scores`` sorted as one group (checked, broadcast with ``y`` and
    ``weights``), and the shape of the rows; None for no rows or no samples."""
    s = _array("scores", scores, "pass finite real scores.")
    yv = _array("y", y, "pass 0/1 or bool labels, one per score.")
    if not np.all((yv == 0.0) | (yv == 1.0)):
        raise ValueError(
            f"y has values {few(np.unique(yv[(yv != 0.0) & (yv != 1.0)]))}; y must be 0/1 or "
            "bool (1 = positive)."
        )
    arrays = [s, yv]
    if weights is not None:
        wv = _array("weights", weights, "pass nonnegative finite weights or counts.")
        if (wv < 0).any():
            raise ValueError(
                f"weights has negative values {few(np.unique(wv[wv < 0]))}; weights are "
                "nonnegative counts or weights."
            )
        arrays.append(wv)
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        labels = ("scores", "y", "weights")[: len(arrays)]
        names = ", ".join(f"{n} {a.shape}" for n, a in zip(labels, arrays, strict=True))
        raise ValueError(
            f"the shapes of {names} do not broadcast together; give every array the samples "
            "on its last axis (y of shape (S,) serves every row)."
        ) from None
    if not shape:
        raise ValueError("scores is a single number; pass an array whose last axis holds samples.")
    s, yv, *rest = (np.broadcast_to(a, shape) for a in arrays)
    w = rest[0] if rest else None
    lead = s.shape[:-1]
    n_rows, n = int(np.prod(lead, dtype=np.int64)), s.shape[-1]
    if n_rows == 0 or n == 0:
        return None, lead
    flat = np.ascontiguousarray(s).reshape(-1)
    g = np.repeat(np.arange(n_rows, dtype=np.int64), n) if n_rows > 1 else None
    y_flat = np.ascontiguousarray(yv, dtype=bool).reshape(-1)
    w_flat = None if w is None else np.ascontiguousarray(w).reshape(-1)
    return Ranked(
        flat, float(flat.min()), float(flat.max()), y_flat, g, n_rows, weights=w_flat
    ), lead


@doc
def delong_arrays(scores: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""AUC and its DeLong variance of every row of a score array (one sort of all rows).

    In a row with :math:`n_1` positives and :math:`n_0` negatives, the placement of a
    positive is the share of negatives scored below it, :math:`V_{10}(i) = (R_i -
    R^{+}_i)/n_0`, and of a negative the share of positives not below it,
    :math:`V_{01}(j) = 1 - (R_j - R^{-}_j)/n_1` (:math:`R` the midrank among all scores,
    :math:`R^{\pm}` among the positives or the negatives: ties count one half). Their
    means are the AUC of :func:`auc_arrays`, and

    .. math:: \widehat{\mathrm{Var}}(\widehat{AUC}) = \frac{s^2_{10}}{n_1} +
              \frac{s^2_{01}}{n_0},

    with :math:`s^2` the sample variances (ddof = 1) of the placements.

    Parameters
    ----------
    scores, y : array-like
        As in :func:`auc_arrays` (no weights).

    Returns
    -------
    tuple of numpy.ndarray
        ``(auc, var)`` of the shape of the rows; NaN variance where a row has fewer than
        2 positives or 2 negatives.

    References
    ----------
    E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, Biometrics 44(3), 1988; X. Sun and
    W. Xu, IEEE Signal Processing Letters 21(11), 2014.

    Examples
    --------
    >>> from cvframe import scores
    >>> auc, var = scores.ranking.delong_arrays([0.1, 0.4, 0.35, 0.8, 0.7, 0.2], [0, 0, 1, 1, 1, 0])
    >>> round(float(auc), 4), round(float(var), 5)
    (0.8889, 0.02469)
    """
    ranked, lead = _rows(scores, y, None)
    if ranked is None:
        return np.full(lead, np.nan), np.full(lead, np.nan)
    res = ranked.delong()
    return res["value"].reshape(lead), res["var"].reshape(lead)


def delong_paired_arrays(scores: Any, y: Any, *, placements: bool = False) -> tuple:
    r"""AUCs of several models' scores of the same samples and DeLong's covariance matrix.

    The paired form of :func:`delong_arrays` (as R's ``pROC::roc.test(paired=TRUE,
    method="delong")``): with the placements :math:`V^m_{10}(i)` of the positives and
    :math:`V^m_{01}(j)` of the negatives of every model :math:`m` (midranks: ties count one
    half), :math:`\widehat{\mathrm{Cov}}(\widehat{AUC}_a, \widehat{AUC}_b) = s_{10}(a, b)/n_1 +
    s_{01}(a, b)/n_0` (sample covariances, ddof = 1), and the test of :math:`AUC_a = AUC_b` is
    :math:`z = (\widehat{AUC}_a - \widehat{AUC}_b) / \sqrt{V_a + V_b - 2 C_{ab}}`.

    Parameters
    ----------
    scores : array-like of shape (..., M, S)
        Finite real scores of M models (rows) for the same S samples.
    y : array-like of 0/1 or bool, shape (S,) or (..., 1, S)
        Whether each sample is positive: the same for every model.
    placements : bool, default False
        Also return every sample's placement (..., M, S): :math:`V_{10}` of a positive,
        :math:`V_{01}` of a negative (each group's mean is the AUC).

    Returns
    -------
    tuple of numpy.ndarray
        ``(auc, cov)`` of shapes (..., M) and (..., M, M) (NaN covariance with fewer than 2
        positives or 2 negatives), and the placements when asked.

    References
    ----------
    DeLong, DeLong & Clarke-Pearson, Biometrics 44(3), 1988; Sun & Xu (2014); X. Robin et
    al., pROC, BMC Bioinformatics 12, 2011.

    Examples
    --------
    >>> from cvframe import scores
    >>> s = [[0.1, 0.4, 0.35, 0.8, 0.7, 0.2], [0.2, 0.1, 0.6, 0.9, 0.3, 0.4]]
    >>> auc, cov = scores.ranking.delong_paired_arrays(s, [0, 0, 1, 1, 1, 0])
    >>> [round(float(a), 4) for a in auc], round(float(cov[0, 1]), 5)
    ([0.8889, 0.8889], -0.01235)
    """
    s = _array("scores", scores, "pass finite real scores.")
    yv = _array("y", y, "pass 0/1 or bool labels, one per score.")
    shape = np.broadcast_shapes(s.shape, yv.shape) if s.shape[-1:] == yv.shape[-1:] else ()
    pos = np.broadcast_to(yv, shape) == 1.0
    if len(shape) < 2 or (pos != pos[..., :1, :]).any() or ((yv != 0) & (yv != 1)).any():
        raise ValueError(
            f"scores of shape {s.shape} with y of shape {yv.shape}: pass (..., M, S) scores, "
            "one row per model, and the one y of their samples (S,)."
        )
    n1 = pos.sum(-1, keepdims=True).astype(np.float64)
    n0 = shape[-1] - n1
    with np.errstate(invalid="ignore", divide="ignore"):
        v = delong_placements(np.broadcast_to(s, shape), pos)
        auc = (v * pos).sum(-1) / n1[..., 0]
        d = v - auc[..., None]
        dp, dn = d * pos, d * ~pos
        cov = np.einsum("...as,...bs->...ab", dp, dp) / (n1 * (n1 - 1))[..., 0, None]
        cov += np.einsum("...as,...bs->...ab", dn, dn) / (n0 * (n0 - 1))[..., 0, None]
    cov = np.where(((n1 < 2) | (n0 < 2))[..., :1, :], np.nan, cov)
    return (auc, cov, v) if placements else (auc, cov)


@doc
@by_frame_dims
@ranks
def delong_frame(
    df: pd.DataFrame,
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> xr.Dataset:
    r"""AUC_merge per repeat and class with its DeLong variance (:func:`delong_arrays` of
    each repeat's pooled scores), from the one sort of :func:`auc_methods`: a class of a
    frame parsed once (:func:`cvframe.scores.parse`) sorted for AUC_merge is not sorted
    again.

    <<frame_parameters>>

    Returns
    -------
    xarray.Dataset
        ``auc`` (AUC_merge), ``var`` (NaN with fewer than 2 positives or 2 negatives) and
        ``n_pos`` over ``class`` (plus ``repeat``, ``model``...).

    References
    ----------
    E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, Biometrics 44(3), 1988; X. Sun and
    W. Xu, IEEE Signal Processing Letters 21(11), 2014.

    <<score_examples>>
    >>> res = scores.ranking.delong_frame(df)
    >>> round(float(res.auc.item()), 4), round(float(res["var"].item()), 4)
    (0.6875, 0.0495)
    """
    args = FrameArgs.of(locals())
    out = run(df, DELONG, ("merge",), "nan", None, args)[0]
    return xr.Dataset({k: out[k].drop_attrs() for k in ("auc", "var", "n_pos")})
