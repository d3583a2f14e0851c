"""Tidy curves of the score metrics: ROC points per fold and merged, and score rates.

Every curve comes from :func:`points` (one sort per class, :class:`~._rank.Ranked`: a point
per run of tied scores, and the curve's AUC from the same sort); :func:`curve_table` turns
them into the tidy tables of :func:`roc`, :func:`score_rates` and
:func:`cvframe.scores.roc_hull` with one warning. Plots draw these frames.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._core import checks as _checks
from .._core.docs import doc
from .._core.labels.frame import Frame, FrameArgs, place
from ..errors import few
from ..schema import CLASS, FOLD, REPEAT
from ._driver import Undefined, check, sort, warn
from ._parsed import by_frame_dims, read

__all__ = ["curve_rows", "curve_table", "hull_mask", "label_col", "points", "roc", "score_rates"]

#: Why a curve can be undefined.
WHY = "no positives or no negatives for a class"


def points(
    fr: Frame, per_fold: bool, origin: bool = True, auc: bool = False
) -> list[dict[str, np.ndarray]]:
    """Per class: every ROC point of every group, with counts, from one sort per class.

    Rows are ordered by group and decreasing threshold; ``tp``/``fp`` are the counts scored
    at or above the threshold, and ``origin`` puts the point (0, 0) at threshold +inf first
    in every group that has rows. Per group: ``npos``, ``nneg``, ``present`` (has rows),
    ``bad`` (present, without positives or negatives) and, with ``auc``, the curve's AUC
    from the same sort.
    """
    out = []
    for c in range(len(fr.classes)):
        ranked = sort(fr, c, per_fold)
        cur = ranked.curve()
        if auc:
            cur["auc"] = ranked.auc()[0]
        ranked.release()
        del ranked
        present = fr.present if per_fold else np.ones(fr.n_reps, dtype=bool)
        cur["present"] = present
        cur["bad"] = present & ((cur["npos"] == 0) | (cur["nneg"] == 0))
        if origin:
            gs = np.flatnonzero(present)
            n0, n1 = len(gs), len(cur["group"])
            grp = np.concatenate([gs, cur["group"]])
            order = np.lexsort((np.r_[np.zeros(n0, np.int64), np.arange(1, n1 + 1)], grp))
            cur["group"] = grp[order]
            cur["threshold"] = np.r_[np.full(n0, np.inf), cur["threshold"]][order]
            for k in ("tp", "fp"):
                cur[k] = np.r_[np.zeros(n0, np.int64), cur[k]][order]
        out.append(cur)
    return out


def hull_mask(group: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Which points are vertices of the upper-left convex hull of their group.

    The points of a group are consecutive and monotone (non-decreasing ``x`` and ``y``,
    e.g. the (FP, TP) counts of a ROC curve from (0, 0) to (N, P)). A point is dropped when
    it lies on or below the chord joining its two neighbours — a left turn or no turn,
    ``cross((m - p), (n - p)) >= 0`` — and the pass repeats until every inner point is a
    strict right turn. The first and last point of each group are always kept. Integer
    coordinates give exact turns (scaling the axes by ``1/N`` and ``1/P`` keeps the sign).

    >>> hull_mask(np.zeros(5, int), np.array([0, 1, 1, 2, 3]), np.array([0, 1, 2, 2, 3]))
    array([ True, False,  True, False,  True])
    """
    n = len(group)
    alive = np.arange(n)
    for _ in range(_PASSES):
        if len(alive) < 3:
            break
        p, m, q = alive[:-2], alive[1:-1], alive[2:]
        inner = (group[p] == group[m]) & (group[m] == group[q])
        cross = (x[m] - x[p]) * (y[q] - y[p]) - (y[m] - y[p]) * (x[q] - x[p])
        drop = inner & (cross >= 0)
        if not drop.any():
            break
        keep = np.ones(len(alive), dtype=bool)
        keep[1:-1] = ~drop
        alive = alive[keep]
    else:  # rare shapes peel one point per pass: finish with the sequential monotone chain
        alive = _chain(alive, group, x, y)
    mask = np.zeros(n, dtype=bool)
    mask[alive] = True
    return mask


#: Vectorised pruning passes before :func:`hull_mask` falls back to the monotone chain.
_PASSES = 64


def _chain(idx: np.ndarray, group: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Andrew's monotone chain (upper hull) over the points ``idx``, group by group."""
    gs, xs, ys = group[idx].tolist(), x[idx].tolist(), y[idx].tolist()
    stack: list[int] = []  # positions into idx
    start = 0
    for i in range(len(gs)):
        if i > 0 and gs[i] != gs[i - 1]:
            start = len(stack)
        while len(stack) - start >= 2:
            a, b = stack[-2], stack[-1]
            if (xs[b] - xs[a]) * (ys[i] - ys[a]) - (ys[b] - ys[a]) * (xs[i] - xs[a]) >= 0:
                stack.pop()
            else:
                break
        stack.append(i)
    return idx[np.asarray(stack, dtype=np.int64)]


def label_col(coord: np.ndarray, codes: np.ndarray) -> Any:
    """Column of coordinate values taken at ``codes``; -1 gives a missing value."""
    arr = pd.array(coord) if coord.dtype != object else pd.array(list(coord))
    return arr.take(codes, allow_fill=True)


def curve_rows(
    fr: Frame, per_fold: bool, kind: Any, grp: np.ndarray, ci: int, cols: dict[str, np.ndarray]
) -> pd.DataFrame:
    """The rows of one class in :func:`roc`'s layout (kind, repeat, fold, class, ``cols``)."""
    data: dict[str, Any] = {}
    if kind is not None:
        data["kind"] = np.full(len(grp), kind, dtype=object)
    if fr.rep_coord is not None:
        rep = grp // fr.n_folds if per_fold else grp
        data[REPEAT] = label_col(fr.rep_coord, rep)
    fcodes = grp % fr.n_folds if per_fold else np.full(len(grp), -1)
    data[FOLD] = label_col(fr.fold_coord, fcodes)
    cls = fr.classes[ci]
    data[CLASS] = np.full(len(grp), cls, dtype=object if isinstance(cls, str) else None)
    data.update(cols)
    return pd.DataFrame(data)


#: ``rows(pts, per_fold, kind, ci)``: the rows of one class's curves (a list of frames).
Rows = Callable[[dict[str, np.ndarray], bool, Any, int], list[pd.DataFrame]]


def curve_table(
    fr: Frame,
    kinds: Sequence[tuple[Any, bool]],
    rows: Rows,
    what: str,
    undefined: str,
    instead: str,
    by: Sequence[str] = ("kind",),
    origin: bool = True,
    auc: bool = False,
    why: str = WHY,
    needs_negatives: bool = True,
) -> pd.DataFrame:
    """A tidy table of curves: ``rows`` of every kind and class, one warning for the curves
    without positives or negatives (``undefined="skip"``; without positives only when not
    ``needs_negatives``, as ``why`` says), sorted by ``by``, repeat, fold."""
    frames: list[pd.DataFrame] = []
    n_bad, total, where = 0, 0, []
    for kind, per_fold in kinds:
        for ci, pts in enumerate(points(fr, per_fold, origin, auc)):
            if not needs_negatives:
                pts["bad"] = pts["present"] & (pts["npos"] == 0)
            bad = np.flatnonzero(pts["bad"])
            n_bad += len(bad)
            total += int(pts["present"].sum())
            where += [place(fr, per_fold, g, fr.classes[ci]) for g in bad]
            frames += rows(pts, per_fold, kind, ci)
    if undefined == "skip":
        warn(f"{what} ({why})", [(n_bad, total, "curves", few(where), "left out")], instead)
    out = pd.concat(frames, ignore_index=True)
    keys = [c for c in (*by[:1], REPEAT, FOLD) if c in out.columns] + list(by[1:])
    out = out.sort_values(keys, kind="stable", ignore_index=True)
    out.attrs = {"undefined": undefined}
    return out


def rates(pts: dict[str, np.ndarray], sel: np.ndarray) -> tuple[np.ndarray, ...]:
    """Group, threshold, FPR and TPR of the points ``sel``."""
    grp = pts["group"][sel]
    with np.errstate(invalid="ignore", divide="ignore"):
        fpr = pts["fp"][sel] / pts["nneg"][grp].astype(np.float64)
        tpr = pts["tp"][sel] / pts["npos"][grp].astype(np.float64)
    return grp, pts["threshold"][sel], fpr, tpr


_NAN_RATES = "keep them with NaN rates"


def kept(pts: dict[str, np.ndarray], undefined: str) -> np.ndarray:
    """Which groups a curve table shows: all that have rows, or (``"skip"``) the defined."""
    return pts["present"] & ~pts["bad"] if undefined == "skip" else pts["present"]


@doc
@by_frame_dims
def roc(
    df: pd.DataFrame,
    undefined: Undefined = "skip",
    *,
    auc: bool = False,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> pd.DataFrame:
    r"""Tidy ROC points of every fold, plus the merged curve of each repeat.

    For each fold and class, one point per distinct score t in decreasing order:
    :math:`FPR(t) = FP(s \ge t) / n_0`, :math:`TPR(t) = TP(s \ge t) / n_1`, preceded by the
    point (0, 0) at threshold +inf — scikit-learn's ``roc_curve(..., drop_intermediate=False)``.
    The trapezoidal area under each fold's points is its AUC.

    <<frame_parameters>>
    undefined : {"skip", "nan"}
        Curves of folds without positives or without negatives: ``"skip"`` leaves them out
        with one :class:`~cvframe.UndefinedMetricWarning`; ``"nan"`` keeps their points with
        NaN rates, silently.
    auc : bool, default False
        Add a column ``auc``: each curve's AUC (the fold's AUC on a fold curve, AUC_merge of
        the repeat on a merged curve), from the same parse and the same sort as the points.

    Returns
    -------
    pandas.DataFrame
        Columns ``kind`` (``"fold"`` for a fold's curve, ``"merged"`` for the pooled curve of
        a repeat), ``repeat`` (when the frame has one), ``fold`` (missing, ``<NA>``, on merged
        rows), ``class``, ``threshold``, ``fpr``, ``tpr`` (and ``auc``). Rows are ordered by
        kind, repeat, fold, class and decreasing threshold, ready for
        ``seaborn.lineplot(x="fpr", y="tpr", hue="fold")``.

    See Also
    --------
    sklearn.metrics.roc_curve

    <<score_references>>

    <<score_examples>>
    >>> pts = scores.roc(df)
    >>> pts[pts.kind == "fold"].query("fold == 0")[["threshold", "fpr", "tpr"]].values.tolist()
    [[inf, 0.0, 0.0], [0.8, 0.0, 0.5], [0.4, 0.5, 0.5], [0.35, 0.5, 1.0], [0.1, 1.0, 1.0]]
    """
    check((), undefined, None)
    with_auc = _checks.flag("auc", auc)
    fr = read(df, FrameArgs.of(locals()))

    def rows(pts: dict[str, np.ndarray], per_fold: bool, kind: Any, ci: int) -> list[Any]:
        grp, thr, fpr, tpr = rates(pts, kept(pts, undefined)[pts["group"]])
        cols = {"threshold": thr, "fpr": fpr, "tpr": tpr}
        if with_auc:
            cols["auc"] = pts["auc"][grp]
        return [curve_rows(fr, per_fold, kind, grp, ci, cols)]

    kinds = (("fold", True), ("merged", False))
    return curve_table(fr, kinds, rows, "ROC curve", undefined, _NAN_RATES, auc=with_auc)


@doc
@by_frame_dims
def score_rates(
    df: pd.DataFrame,
    undefined: Undefined = "skip",
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> pd.DataFrame:
    r"""Each fold's false and true positive rate against the score threshold (Figure 3).

    For every fold, class and distinct score t: :math:`FPR(t) = FP(s \ge t)/n_0` and
    :math:`TPR(t) = TP(s \ge t)/n_1`. Folds whose curves are shifted along the score axis
    are not calibrated with each other — the reason AUC_merge falls below AUC_avg
    (Forman & Scholz 2010, Figure 3 and §3.2).

    <<frame_parameters>>
    undefined : {"skip", "nan"}
        As in :func:`roc`.

    Returns
    -------
    pandas.DataFrame
        Long format: columns ``repeat`` (when present), ``fold``, ``class``, ``threshold``,
        ``rate`` (``"fpr"`` or ``"tpr"``) and ``value``; ready for
        ``seaborn.relplot(x="threshold", y="value", hue="fold", col="rate", kind="line")``.

    <<score_references>>

    <<score_examples>>
    >>> sr = scores.score_rates(df)
    >>> sr[(sr.fold == 1) & (sr.rate == "tpr")][["threshold", "value"]].values.tolist()
    [[11.0, 0.5], [10.5, 1.0], [10.2, 1.0], [10.0, 1.0]]
    """
    check((), undefined, None)
    fr = read(df, FrameArgs.of(locals()))

    def rows(pts: dict[str, np.ndarray], per_fold: bool, kind: Any, ci: int) -> list[Any]:
        grp, thr, fpr, tpr = rates(pts, kept(pts, undefined)[pts["group"]])
        rate = {r: np.full(len(grp), r, dtype=object) for r in ("fpr", "tpr")}
        return [
            curve_rows(fr, True, None, grp, ci, {"threshold": thr, "rate": rate[r], "value": v})
            for r, v in (("fpr", fpr), ("tpr", tpr))
        ]

    by = ("", "rate")
    kinds = ((None, True),)
    return curve_table(fr, kinds, rows, "score-rate curve", undefined, _NAN_RATES, by, False)
