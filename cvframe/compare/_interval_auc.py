r"""The DeLong interval of AUC_merge (DeLong, DeLong & Clarke-Pearson 1988), from the midrank
placements of Sun & Xu (2014), on the logit scale.

For a repeat's pooled scores with :math:`n_1` positives and :math:`n_0` negatives, the
placement of a positive is the share of negatives scored below it (ties one half),
:math:`V_{10}(i) = (R_i - R^{+}_i)/n_0`, and of a negative the share of positives scored
above it, :math:`V_{01}(j) = 1 - (R_j - R^{-}_j)/n_1` (:math:`R` the midrank among all
scores, :math:`R^{\pm}` among the positives or the negatives). Their means are the AUC and

.. math:: \widehat{\mathrm{Var}}(\widehat{AUC}) = \frac{s^2_{10}}{n_1} + \frac{s^2_{01}}{n_0},

the two sample variances of the placements. The interval is
:math:`\mathrm{expit}(\mathrm{logit}\,\widehat{AUC} \pm z\,\widehat{se}/(\widehat{AUC}(1 -
\widehat{AUC})))`: the logit scale keeps it inside (0, 1) and covers better than the raw
scale near 1 with few positives (measured by :func:`cvframe.coverage_study`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import xarray as xr

from .. import _labels, scores
from .._labels import frame as frame_reader
from ..errors import few
from ..schema import CLASS, REPEAT

__all__ = ["delong_arrays", "delong_frame", "frame_interval", "logit_interval"]


def delong_arrays(s: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """AUC (:func:`cvframe.scores.auc_arrays`, the one ranking sort) and its DeLong variance
    of every row of scores ``s`` (..., S) with 0/1 labels ``y``; NaN variance where a row has
    fewer than 2 positives or 2 negatives."""
    s = np.asarray(s, dtype=np.float64)
    yb = np.broadcast_to(np.asarray(y).astype(bool), s.shape)
    auc = np.asarray(scores.auc_arrays(s, yb))
    n1 = yb.sum(-1)
    n0 = s.shape[-1] - n1
    # one sort: per score, the negatives (positives) below it, ties counted half (Sun & Xu)
    order = np.argsort(s, axis=-1, kind="stable")
    ss = np.take_along_axis(s, order, -1)
    yb = np.take_along_axis(yb, order, -1)
    cpos = np.cumsum(yb, axis=-1)
    cneg = np.arange(1, s.shape[-1] + 1) - cpos
    first, last = _tie_bounds(ss)
    pos_before = np.take_along_axis(cpos, first, -1) - np.take_along_axis(yb, first, -1)
    neg_before = np.take_along_axis(cneg, first, -1) - ~np.take_along_axis(yb, first, -1)
    pos_tied = np.take_along_axis(cpos, last, -1) - pos_before
    neg_tied = np.take_along_axis(cneg, last, -1) - neg_before
    neg_below = neg_before + 0.5 * neg_tied
    pos_below = pos_before + 0.5 * pos_tied
    with np.errstate(invalid="ignore", divide="ignore"):
        v10 = neg_below / n0[..., None]
        v01 = 1.0 - pos_below / n1[..., None]
        var10 = _var(v10, yb, n1)
        var01 = _var(v01, ~yb, n0)
        var = var10 / n1 + var01 / n0
    var = np.where((n1 >= 2) & (n0 >= 2), var, np.nan)
    return auc, var


def _tie_bounds(ss: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every position of the rows ``ss`` (sorted along the last axis): the first and the
    last position of its run of equal values."""
    n = ss.shape[-1]
    pos = np.broadcast_to(np.arange(n), ss.shape)
    starts = np.ones(ss.shape, dtype=bool)
    starts[..., 1:] = ss[..., 1:] != ss[..., :-1]
    ends = np.ones(ss.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    first = np.maximum.accumulate(np.where(starts, pos, 0), axis=-1)
    rev = np.maximum.accumulate(np.where(ends, n - 1 - pos, 0)[..., ::-1], axis=-1)[..., ::-1]
    return first, n - 1 - rev


def _var(v: np.ndarray, mask: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Sample variance (ddof=1) of ``v`` over the ``mask`` entries of each row."""
    m = np.where(mask, v, 0.0).sum(-1) / n
    return np.where(mask, (v - m[..., None]) ** 2, 0.0).sum(-1) / (n - 1)


def logit_interval(auc: Any, var: Any, z: float) -> tuple[Any, Any]:
    """``expit(logit(auc) +- z se / (auc (1 - auc)))``; [auc, auc] where the AUC is 0 or 1."""
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(var) / (auc * (1.0 - auc))
        centre = np.log(auc / (1.0 - auc))
        lo = 1.0 / (1.0 + np.exp(-(centre - z * se)))
        hi = 1.0 / (1.0 + np.exp(-(centre + z * se)))
    edge = (auc <= 0.0) | (auc >= 1.0)
    if isinstance(auc, xr.DataArray):
        return xr.where(edge, auc, lo), xr.where(edge, auc, hi)
    return np.where(edge, auc, lo), np.where(edge, auc, hi)


@frame_reader.by_frame_dims
def delong_frame(
    df: Any,
    labels: Sequence[Hashable] | None,
    pos_label: Hashable | None,
    y_true: str,
    fold: str,
    repeat: str | None,
    score: str,
) -> xr.Dataset:
    """AUC_merge and its DeLong variance per (repeat, class) of a predictions frame, read by
    the one frame reader (per ``model``/``dataset`` group)."""
    fr = frame_reader.parse(df, labels, pos_label, y_true, fold, repeat, score)
    n_rep = fr.n_reps
    auc = np.full((n_rep, len(fr.classes)), np.nan)
    var, n_pos = np.full_like(auc, np.nan), np.zeros_like(auc)
    for c, (s, y) in enumerate(zip(fr.scores, fr.ys, strict=True)):
        for r in range(n_rep):
            rows = slice(None) if fr.rep_codes is None else fr.rep_codes == r
            a, v = delong_arrays(s[rows], np.asarray(y)[rows])
            auc[r, c], var[r, c] = float(a), float(v)
            n_pos[r, c] = np.count_nonzero(np.asarray(y)[rows])
    dims = [CLASS]
    coords: dict[str, Any] = {CLASS: _labels.coord(fr.classes)}
    if fr.rep_coord is not None:
        dims.insert(0, REPEAT)
        coords[REPEAT] = fr.rep_coord
    else:
        auc, var, n_pos = auc[0], var[0], n_pos[0]
    data = {"auc": (dims, auc), "var": (dims, var), "n_pos": (dims, n_pos)}
    return xr.Dataset(data, coords=coords)


def frame_interval(
    df: Any, average: Any, level: float, frame: tuple
) -> tuple[xr.DataArray, xr.DataArray, xr.DataArray, dict[str, Any]]:
    """AUC_merge of a frame and its DeLong interval, per kept dim; repeats: the mean AUC
    and the mean per-repeat variance (one pass); a class average sums the classes'
    variances weighted by w**2, as if the one-vs-rest AUCs were independent."""
    from scipy.special import ndtri  # the normal quantile, without loading scipy.stats

    res = delong_frame(df, *frame)
    auc, var = res["auc"], res["var"]
    if bool(var.isnull().any()):
        raise ValueError(
            "method='delong' needs at least 2 positives and 2 negatives of every class in "
            f"every repeat ({few(auc.where(var.isnull(), drop=True)[CLASS].values)} lack "
            "them); merge rare classes, or pass pos_label= for one class."
        )
    if average is not None and auc.sizes.get(CLASS, 1) > 1:
        if average == "weighted":
            w = res["n_pos"] / res["n_pos"].sum(CLASS)
        else:
            w = xr.ones_like(auc) / auc.sizes[CLASS]
        auc, var = (auc * w).sum(CLASS), (var * w**2).sum(CLASS)
    if REPEAT in auc.dims:  # every repeat is one pass over the same samples
        auc, var = auc.mean(REPEAT), var.mean(REPEAT)
    lo, hi = logit_interval(auc, var, float(ndtri((1 + level) / 2)))
    return auc, lo, hi, {"scale": "logit"}
