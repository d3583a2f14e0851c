r"""The precision-recall break-even point over thresholds, per fold, averaged or merged.

The value at which precision equals recall as the threshold sweeps over the scores (Basili &
Filice; Sebastiani 2002, §7.1.3): a ranking metric of the one score driver (:mod:`._driver`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .._core import checks as _checks
from .._core.docs import doc, register
from .._core.labels.frame import Frame, FrameArgs
from ._driver import Average, Method, Metric, Undefined, dataset, ranked, run, sort
from ._parsed import by_frame_dims
from ._rank import Ranked

__all__ = ["break_even_point"]

register(
    {
        "bep_references": """\
References
----------
.. [1] R. Basili and S. Filice, "Performance Evaluation of Machine Learning Systems"
   (course slides, University of Roma Tor Vergata): "the BEP is the interpolated estimate
   of the value for which Recall = Precision".
.. [2] F. Sebastiani, "Machine learning in automated text categorization", ACM Computing
   Surveys 34(1), 2002, §7.1.3.
.. [3] G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls
   in Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, §2.4
   and §3.2."""
    }
)


def _cut(r: Ranked, npos: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per group with positives: its end ``ge`` in the ascending order, the cut at
    :math:`k = n_+` (the top n_+ start there) and the run of tied scores holding it."""
    ge = r.bounds[1:][ok]
    cut = ge - npos[ok]
    return (ge, cut, *r.run_at(cut))


def _bep_values(r: Ranked) -> tuple[np.ndarray, np.ndarray]:
    """(BEP, n_pos) per group (NaN without positives); the tied run holding the cut at
    :math:`k = n_+` spans ``[s0, e0)`` of the ascending scores (group end ``ge``)."""
    npos = r.npos
    out = np.full(r.n_groups, np.nan)
    ok = npos > 0
    if not ok.any():
        return out, npos
    if not r.ties:  # the cut k = n_+ is a threshold: P = R exactly there
        out[ok] = r.precision_at(npos)[ok]
        return out, npos
    ge, cut, s0, e0 = _cut(r, npos, ok)
    k = npos[ok].astype(np.float64)
    c_ge = r.cp_at(ge)
    tp0 = (c_ge - r.cp_at(e0)).astype(np.float64)  # above the run
    tp1 = (c_ge - r.cp_at(s0)).astype(np.float64)  # down to and including the run
    k0 = (ge - e0).astype(np.float64)
    k1 = (ge - s0).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p1, r1 = tp1 / k1, tp1 / k
        p0 = np.where(k0 > 0, tp0 / k0, p1)  # above the top run: the top run's precision
        r0 = tp0 / k
        d0, d1 = p0 - r0, p1 - r1
        den = d0 - d1
        lam = np.where(den > 0, d0 / den, 0.0)
    value = np.where(s0 == cut, p1, p0 + lam * (p1 - p0))
    out[ok] = value
    return out, npos


BEP = Metric("break_even_point", "no positives for a class", ranked(_bep_values))


def _bep_thresholds(r: Ranked) -> tuple[np.ndarray, ...]:
    """(BEP, n_pos, threshold, threshold_above, exact) per group: the cut-off t_j (the
    first with k_j >= n_+), the one above it and whether k_j = n_+."""
    value, npos = _bep_values(r)
    thr, above, exact = (np.full(r.n_groups, np.nan) for _ in range(3))
    ok = npos > 0
    if ok.any():
        ge, cut, s0, e0 = _cut(r, npos, ok)
        thr[ok] = r.block_scores(s0)
        top = e0 >= ge  # no run above: the cut-off above predicts nothing (+inf)
        above[ok] = np.where(top, np.inf, r.block_scores(np.minimum(e0, r.n - 1)))
        exact[ok] = (s0 == cut).astype(np.float64)
    return value, npos, thr, above, exact


#: The variables of ``break_even_point(..., return_threshold=True)``.
_THRESHOLD_VARS = ("value", "support", "threshold", "threshold_above", "exact")


def _threshold_values(fr: Frame, per_fold: bool, merged: bool) -> tuple[Any, Any]:
    """Per class, the :func:`_bep_thresholds` of every fold and/or pooled repeat."""
    out = [
        [
            dict(zip(_THRESHOLD_VARS, _bep_thresholds(sort(fr, c, pf)), strict=True))
            for c in range(len(fr.classes))
        ]
        if wanted
        else None
        for pf, wanted in ((True, per_fold), (False, merged))
    ]
    return out[0], out[1]


BEP_THRESHOLD = Metric(
    BEP.name, BEP.why, _threshold_values, methods=("fold", "merge"), averages=(None,)
)


@doc
@by_frame_dims
def break_even_point(
    df: pd.DataFrame,
    method: Method = "avg",
    undefined: Undefined = "skip",
    *,
    average: Average = None,
    return_threshold: bool = False,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> xr.DataArray | xr.Dataset:
    r"""Precision-recall break-even point over thresholds, per fold, averaged or merged.

    For one fold (or the pooled folds of a repeat, ``method="merge"``) with :math:`n_+`
    positives, let the thresholds be the distinct scores :math:`t_1 > t_2 > \dots`; at
    :math:`t_j` the :math:`k_j` samples scored :math:`\ge t_j` are predicted positive, with
    :math:`TP_j` positives among them, :math:`P_j = TP_j/k_j` and :math:`R_j = TP_j/n_+`.
    Since :math:`P_j - R_j = TP_j (1/k_j - 1/n_+)`, the sign of :math:`P - R` changes where
    :math:`k` passes :math:`n_+`. With :math:`j` the first threshold with
    :math:`k_j \ge n_+`:

    - if :math:`k_j = n_+`: :math:`P_j = R_j` and :math:`BEP = TP_j / n_+` (exact);
    - else the point :math:`(R_{j-1}, P_{j-1})` just above the tied run and
      :math:`(R_j, P_j)` are joined by a straight line in the precision-recall plane, and
      the BEP is where it meets :math:`P = R`:

      .. math:: d = P - R,\quad \lambda = \frac{d_{j-1}}{d_{j-1} - d_j},\quad
          BEP = P_{j-1} + \lambda\,(P_j - P_{j-1})

      (:math:`\lambda = 0` when :math:`d_{j-1} = d_j = 0`, i.e. no positive above the cut);
      when :math:`t_j` is the top score (no threshold above it), :math:`P_{j-1}` is taken as
      :math:`P_j` at :math:`R = 0`, so :math:`BEP = P_j`.

    Without tied scores at the cut the BEP therefore equals the R-precision
    (:func:`r_precision`, the precision at :math:`k = n_+`); with ties the two differ:
    R-precision shares the tied run's positives in proportion (interpolation in the counts),
    the BEP interpolates precision and recall linearly. A fold without positives is
    undefined; a fold without negatives has BEP 1.

    **The threshold.** With ``return_threshold=True`` (``method="fold"`` or ``"merge"``)
    the cut-off is returned too, so that a threshold picked on validation folds can be
    applied to a test set (predict positive when the score is :math:`\ge` ``threshold``):
    ``threshold`` is :math:`t_j`, the highest cut-off predicting at least :math:`n_+`
    samples positive. ``exact`` is 1 when :math:`k_j = n_+`: there :math:`P = R` holds
    exactly (always so without ties at the cut). It is 0 when a run of tied scores spans
    :math:`n_+`: no cut-off gives :math:`P = R`; it is met between ``threshold_above``
    (:math:`t_{j-1}`, where :math:`P \ge R`; +inf when :math:`t_j` is the top score)
    and ``threshold`` (where :math:`P < R`), and the BEP is the interpolated value above.

    <<frame_parameters>>
    <<method_params>>
    return_threshold : bool, default False
        Return a Dataset with the BEP and its cut-off (``method`` "fold" or "merge",
        ``average=None``).

    Returns
    -------
    xarray.DataArray or xarray.Dataset
        As :func:`auc`. With ``return_threshold``: a Dataset of ``break_even_point``,
        ``threshold``, ``threshold_above`` and ``exact`` (1.0 or 0.0; NaN where undefined).

    Raises
    ------
    ValueError
        As :func:`auc` (missing columns, NaN scores, unknown labels, bad options).

    Warns
    -----
    UndefinedMetricWarning
        Once per call under ``undefined="skip"`` when a fold (or a pooled repeat) has no
        positives of a class.

    See Also
    --------
    r_precision : the precision at :math:`k = n_+` (equal without ties at the cut).
    cvframe.multiclass.pr_mean : the micro break-even point :math:`(\mu P + \mu R)/2` of
        a counts cube.

    <<bep_references>>

    <<score_examples>>
    >>> scores.break_even_point(df, method="fold").values.ravel().tolist()
    [0.5, 1.0]
    >>> tied = pd.DataFrame({"fold": 0, "y_true": [1, 1, 0, 0, 1],
    ...                      "score": [0.9, 0.5, 0.5, 0.5, 0.1]})
    >>> round(scores.break_even_point(tied).item(), 4)  # P = R between k = 1 and k = 4
    0.6
    >>> ds = scores.break_even_point(tied, "merge", return_threshold=True)
    >>> ds.threshold.item(), ds.threshold_above.item(), ds.exact.item()
    (0.5, 0.9, 0.0)
    """
    args = FrameArgs.of(locals())
    if not _checks.flag("return_threshold", return_threshold):
        return run(df, BEP, (method,), undefined, average, args)[0]["break_even_point"]
    (out,) = run(df, BEP_THRESHOLD, (method,), undefined, average, args)
    return dataset(out, dict(out["break_even_point"].attrs))
