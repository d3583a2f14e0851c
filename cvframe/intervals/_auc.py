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

from typing import Any

import numpy as np
import xarray as xr

from .. import scores
from .._core.labels.frame import FrameArgs
from .._core.quantiles import z_quantile
from ..errors import few
from ..schema import CLASS, REPEAT


def delong_arrays(s: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """AUC and its DeLong variance of every row of scores ``s`` (..., S) with labels ``y``
    (true where positive): :func:`cvframe.scores.ranking.delong_arrays`, one sort of all
    rows; NaN variance where a row has fewer than 2 positives or 2 negatives."""
    s = np.asarray(s, dtype=np.float64)
    yb = np.broadcast_to(np.asarray(y).astype(bool), s.shape)
    return scores.ranking.delong_arrays(s, yb)


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


def combine(auc: Any, var: Any, n_pos: Any, average: Any) -> tuple[Any, Any]:
    r"""AUCs and DeLong variances over ``class`` averaged as ``average`` says: weights
    :math:`w` (macro: equal; weighted: the positives' shares), the AUC :math:`\sum w A` and its
    variance :math:`\sum w^2 V`, as if the one-vs-rest AUCs were independent; unchanged with
    ``average=None`` or one class."""
    if average is None or auc.sizes.get(CLASS, 1) <= 1:
        return auc, var
    if average == "weighted":
        w = n_pos / n_pos.sum(CLASS)
    else:
        w = xr.ones_like(auc) / auc.sizes[CLASS]
    return (auc * w).sum(CLASS), (var * w**2).sum(CLASS)


def frame_interval(
    df: Any, average: Any, level: float, args: FrameArgs
) -> tuple[xr.DataArray, xr.DataArray, xr.DataArray, dict[str, Any]]:
    """AUC_merge of a frame (or a parsed one) and its DeLong interval, per kept dim, from
    :func:`cvframe.scores.ranking.delong_frame` (the one frame reader and the one sort of
    AUC_merge); repeats: the mean AUC and the mean per-repeat variance (one pass); a class
    average by :func:`combine`. The info holds the per-class ``auc`` and ``n_pos`` of one
    pass under ``"per_class"`` (what a certificate reads; dropped from the attrs)."""
    res = scores.ranking.delong_frame(df, **vars(args))
    auc, var = res["auc"], res["var"]
    if bool(var.isnull().any()):
        raise ValueError(
            "method='delong' needs at least 2 positives and 2 negatives of every class in "
            f"every repeat ({few(auc.where(var.isnull(), drop=True)[CLASS].values)} lack "
            "them); merge rare classes, or pass pos_label= for one class."
        )
    n_pos = res["n_pos"]
    one = {"auc": auc, "n_pos": n_pos}
    if REPEAT in auc.dims:  # every repeat is one pass over the same samples
        one = {k: v.mean(REPEAT) for k, v in one.items()}
    auc, var = combine(auc, var, n_pos, average)
    if REPEAT in auc.dims:
        auc, var = auc.mean(REPEAT), var.mean(REPEAT)
    lo, hi = logit_interval(auc, var, z_quantile(level))
    return auc, lo, hi, {"scale": "logit", "per_class": one}
