r"""Counts and metrics at every cut-off of the scores, per fold and pooled; the PR curve.

A score becomes a decision at a threshold :math:`t`: a sample is predicted positive when
its score is :math:`\ge t`. :func:`metric_at_thresholds` gives, for every fold and for the
pooled folds of each repeat, the four counts and any count metric of
:data:`cvframe.formulas.METRIC_SPECS` at every distinct score (or at given thresholds);
:func:`pr_curve` the precision-recall curve. Both come from the one parse and the one sort
per class of :func:`cvframe.scores.roc` (:func:`~.curves.points`).
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from .. import formulas
from .._core import checks as _checks
from .._core.docs import doc, register
from .._core.labels.frame import FrameArgs, place
from ..errors import UndefinedMetricWarning, few, user_stacklevel
from ._driver import Undefined, check
from ._parsed import by_frame_dims, read
from .curves import curve_rows, curve_table, kept

__all__ = ["CURVE_KINDS", "CurveMethod", "metric_at_thresholds", "pr_curve"]

CurveMethod = Literal["both", "fold", "merge"]
#: The curves each ``method=`` gives: (kind, per fold).
CURVE_KINDS: dict[str, tuple[tuple[str, bool], ...]] = {
    "fold": (("fold", True),),
    "merge": (("merged", False),),
    "both": (("fold", True), ("merged", False)),
}

register(
    {
        "curve_method": """\
method : {"both", "fold", "merge"}, default "both"
    ``"fold"``: one curve per fold (``kind == "fold"``); ``"merge"``: one curve over the
    pooled scores of all folds of each repeat (``kind == "merged"``); ``"both"``: both,
    as :func:`cvframe.scores.roc` gives them."""
    }
)


def _thresholds(thresholds: Any) -> np.ndarray | None:
    """Given cut-offs as a sorted (decreasing) array of distinct numbers, or None."""
    if thresholds is None:
        return None
    t = np.asarray(thresholds, dtype=np.float64).ravel()
    if t.size == 0 or np.isnan(t).any():
        bad = few(t[np.isnan(t)].tolist()) if t.size else "none"
        raise ValueError(
            f"thresholds must be non-empty and without NaN (got {bad}); pass the cut-offs "
            "as numbers, or None for every distinct score."
        )
    return np.unique(t)[::-1]


def _at(pts: dict[str, np.ndarray], keep: np.ndarray, t: np.ndarray | None, origin: bool):
    """Group, threshold, TP and FP of the kept groups: every point (``t`` None; without the
    point at +inf unless ``origin``) or the counts scored :math:`\\ge` each of ``t``."""
    if t is None:
        sel = keep[pts["group"]] & (origin | np.isfinite(pts["threshold"]))
        return pts["group"][sel], pts["threshold"][sel], pts["tp"][sel], pts["fp"][sel]
    bounds = np.searchsorted(pts["group"], np.arange(len(keep) + 1))
    out: list[list[np.ndarray]] = [[], [], [], []]
    for g in np.flatnonzero(keep):
        a, b = bounds[g], bounds[g + 1]
        # the points of a group descend from +inf: the last one scored >= t holds its counts
        j = a + np.searchsorted(-pts["threshold"][a:b], -t, side="right") - 1
        for lst, v in zip(out, (np.full(len(t), g), t, pts["tp"][j], pts["fp"][j]), strict=True):
            lst.append(v)
    if not out[0]:
        return np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64)
    grp, thr, tp, fp = (np.concatenate(v) for v in out)
    return grp, thr, tp, fp


@doc
@by_frame_dims
def metric_at_thresholds(
    df: pd.DataFrame,
    metric: str | None = "f",
    thresholds: Sequence[float] | np.ndarray | None = None,
    *,
    method: CurveMethod = "both",
    beta: float = 1.0,
    zero_division: Any = "warn",
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> pd.DataFrame:
    r"""The four counts and a count metric at every cut-off, per fold and pooled.

    For each fold (and the pooled folds of each repeat) and class, at threshold :math:`t`
    the samples scored :math:`s \ge t` are predicted positive:

    .. math:: TP(t) = \#\{i \in +: s_i \ge t\},\quad FP(t) = \#\{i \in -: s_i \ge t\},
        \quad FN = n_+ - TP,\quad TN = n_- - FP,

    and the metric is :func:`cvframe.formulas.metric` of these counts (F_beta,
    precision, recall, accuracy, specificity). Without ``thresholds`` the cut-offs are
    the curve's own distinct scores (every decision the scores allow); with them, every
    curve is evaluated at the same cut-offs, so folds line up row by row (a threshold
    above every score predicts nothing positive).

    The pooled rows at the best cut-off give the threshold a pooled metric (F_tp,fp)
    would choose; the fold rows give each fold's choice and its spread
    (:class:`cvframe.PooledThresholdClassifierCV` does both).

    <<frame_parameters>>
    metric : {"f", "precision", "recall", "accuracy", "specificity"} or None, default "f"
        A metric of :data:`cvframe.formulas.METRIC_SPECS`; None gives the counts only.
    thresholds : array-like of float, optional
        The cut-offs. Default: every distinct score of each curve.
    <<curve_method>>
    <<beta>>
    zero_division : {"warn", 0.0, 1.0, np.nan}, default "warn"
        The metric where it is undefined (e.g. precision at a cut-off above every score):
        ``"warn"`` uses 0 with one :class:`~cvframe.UndefinedMetricWarning`; a number is
        used silently.

    Returns
    -------
    pandas.DataFrame
        Columns ``kind`` (``"fold"`` or ``"merged"``), ``repeat`` (when present), ``fold``
        (``<NA>`` on merged rows), ``class``, ``threshold``, ``tp``, ``fp``, ``fn``,
        ``tn`` and the metric (named by ``metric``); the stacked dims (``model``, ...)
        first. Rows go by kind, repeat, fold, class and decreasing threshold.

    Raises
    ------
    ValueError
        An unknown ``metric`` (the message lists the names), NaN ``thresholds``, and the
        frame errors of :func:`cvframe.scores.roc`.

    See Also
    --------
    pr_curve : precision and recall at every cut-off.
    sklearn.metrics.confusion_matrix_at_thresholds : the counts of one curve.

    <<score_references>>

    <<probability_examples>>
    >>> t = scores.metric_at_thresholds(df, "f")
    >>> t[t.kind == "merged"][["threshold", "tp", "fp", "f"]].round(3).values.tolist()[:3]
    [[0.9, 1.0, 0.0, 0.4], [0.8, 2.0, 0.0, 0.667], [0.7, 3.0, 0.0, 0.857]]
    """
    spec = None if metric is None else formulas.METRIC_SPECS.get(metric)
    if metric is not None and spec is None:
        _checks.choice("metric", metric, list(formulas.METRIC_SPECS))
    b = _checks.beta(beta)
    fill = _checks.zero_division(zero_division)
    _checks.choice("method", method, list(CURVE_KINDS))
    t = _thresholds(thresholds)
    fr = read(df, FrameArgs.of(locals()))
    bad: list[str] = []
    n_rows, n_bad = [0], [0]

    def rows(pts: dict[str, np.ndarray], per_fold: bool, kind: Any, ci: int) -> list[Any]:
        grp, thr, tp, fp = _at(pts, pts["present"], t, False)
        fn, tn = pts["npos"][grp] - tp, pts["nneg"][grp] - fp
        cols: dict[str, Any] = {"threshold": thr, "tp": tp, "fp": fp, "fn": fn, "tn": tn}
        if spec is not None and metric is not None:
            cols[metric] = formulas.metric(metric, tp, fp, fn, tn, beta=b, fill=fill)
            f64 = [np.asarray(c, np.float64) for c in (tp, fp, fn, tn)]
            undefined = spec.undefined(f64[0], f64[1], f64[2], f64[3], pooled=True)  # den == 0
            undefined = np.asarray(undefined, bool)
            n_rows[0] += len(grp)
            bad.extend(place(fr, per_fold, g, fr.classes[ci]) for g in np.unique(grp[undefined]))
            n_bad[0] += int(undefined.sum())
        return [curve_rows(fr, per_fold, kind, grp, ci, cols)]

    # curves without positives or negatives are rows like any other (their counts are
    # defined); only the metric can be undefined, which zero_division handles
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        out = curve_table(fr, CURVE_KINDS[method], rows, "counts", "nan", "", origin=True)
    if n_bad[0] and zero_division == "warn" and spec is not None:
        warnings.warn(
            f"{metric} is undefined ({spec.undefined_when}) in {n_bad[0]} of "
            f"{n_rows[0]} rows ({few(bad)}); set to 0. Pass zero_division= (0.0, 1.0 or "
            "np.nan) to choose the value and silence this warning.",
            UndefinedMetricWarning,
            stacklevel=user_stacklevel(),
        )
    out.attrs = {"metric": metric, "beta": b, "zero_division": str(zero_division)}
    return out


@doc
@by_frame_dims
def pr_curve(
    df: pd.DataFrame,
    method: CurveMethod = "both",
    undefined: Undefined = "skip",
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> pd.DataFrame:
    r"""Precision-recall curve of every fold and of the pooled folds of each repeat.

    At every distinct score :math:`t` of a curve, in decreasing order:

    .. math:: P(t) = \frac{TP(s \ge t)}{TP(s \ge t) + FP(s \ge t)},\qquad
        R(t) = \frac{TP(s \ge t)}{n_+},

    preceded by the point :math:`(R, P) = (0, 1)` at threshold +inf: scikit-learn's
    ``precision_recall_curve(..., drop_intermediate=False)`` read backwards, per fold and
    on the merged scores. The merged curve sorts every fold's scores together, so it
    mixes ranking with calibration across folds, as AUC_merge does (Forman & Scholz
    2010, §3.2).

    <<frame_parameters>>
    <<curve_method>>
    undefined : {"skip", "nan"}
        Curves of folds without positives (recall 0/0): ``"skip"`` leaves them out with
        one :class:`~cvframe.UndefinedMetricWarning`; ``"nan"`` keeps them with NaN
        recall, silently.

    Returns
    -------
    pandas.DataFrame
        Columns ``kind`` (``"fold"``/``"merged"``), ``repeat`` (when present), ``fold``
        (``<NA>`` on merged rows), ``class``, ``threshold``, ``precision``, ``recall``,
        ready for ``seaborn.lineplot(x="recall", y="precision", hue="fold")`` and for
        :func:`cvframe.plot.pr_curve`.

    See Also
    --------
    sklearn.metrics.precision_recall_curve
    break_even_point : where precision equals recall, and its threshold.
    metric_at_thresholds : the counts and any count metric at every cut-off.

    <<score_references>>

    <<score_examples>>
    >>> pr = scores.pr_curve(df)
    >>> fold0 = pr.query("kind == 'fold' and fold == 0")
    >>> fold0[["threshold", "precision", "recall"]].round(3).values.tolist()
    [[inf, 1.0, 0.0], [0.8, 1.0, 0.5], [0.4, 0.5, 0.5], [0.35, 0.667, 1.0], [0.1, 0.5, 1.0]]
    """
    check((), undefined, None)
    _checks.choice("method", method, list(CURVE_KINDS))
    fr = read(df, FrameArgs.of(locals()))

    def rows(pts: dict[str, np.ndarray], per_fold: bool, kind: Any, ci: int) -> list[Any]:
        grp, thr, tp, fp = _at(pts, kept(pts, undefined), None, True)
        with np.errstate(invalid="ignore", divide="ignore"):
            precision = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1), 1.0)
            recall = tp / pts["npos"][grp].astype(np.float64)
        recall[np.isinf(thr)] = 0.0
        cols = {"threshold": thr, "precision": precision, "recall": recall}
        return [curve_rows(fr, per_fold, kind, grp, ci, cols)]

    return curve_table(
        fr,
        CURVE_KINDS[method],
        rows,
        "precision-recall curve",
        undefined,
        "keep them with NaN recall",
        why="no positives for a class",
        needs_negatives=False,
    )
