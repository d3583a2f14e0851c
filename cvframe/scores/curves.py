"""Tidy curves of the score metrics: ROC points per fold and merged, and score rates.

Both draw on the same sort as the ranking metrics (:class:`~._rank.Ranked`): every run of tied
scores of a group is one point, with the true and false positives scored at or above it.
Plots draw these frames; they compute nothing themselves.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _checks
from .._docs import doc
from .._labels.frame import Frame, by_frame_dims, parse, place
from ..errors import UndefinedMetricWarning, few, user_stacklevel
from ..schema import CLASS, FOLD, REPEAT
from ._rank import Ranked
from .ranking import UNDEFINED, Undefined

__all__ = ["roc", "score_rates"]


def _curves(fr: Frame, per_fold: bool) -> list[dict[str, np.ndarray]]:
    g, n_groups = fr.groups(per_fold)
    out = []
    for s, (lo, hi), y in zip(fr.scores, fr.ranges, fr.ys, strict=True):
        ranked = Ranked(s, lo, hi, y, g, n_groups)
        if per_fold and fr.present_ is None:
            fr.present_ = ranked.size > 0
        out.append(ranked.curve())
        del ranked
    return out


def label_col(coord: np.ndarray, codes: np.ndarray) -> Any:
    """Column of coordinate values taken at ``codes``; -1 gives a missing value."""
    arr = pd.array(coord) if coord.dtype != object else pd.array(list(coord))
    return arr.take(codes, allow_fill=True)


def _warn_curves(what: str, n: int, total: int, where: list[str]) -> None:
    warnings.warn(
        f"{what} (no positives or no negatives for a class) is undefined in {n} of {total} "
        f"curves ({few(where)}); left out. Pass undefined='nan' to keep them with NaN rates "
        "and silence this warning.",
        UndefinedMetricWarning,
        stacklevel=user_stacklevel(),
    )


def curve_rows(
    fr: Frame,
    per_fold: bool,
    kind: str | None,
    grp: np.ndarray,
    ci: int,
    cols: dict[str, np.ndarray],
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
    data[CLASS] = (
        np.full(len(grp), fr.classes[ci], dtype=object)
        if isinstance(fr.classes[ci], str)
        else np.full(len(grp), fr.classes[ci])
    )
    data.update(cols)
    return pd.DataFrame(data)


@doc
@by_frame_dims
def roc(
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
    r"""Tidy ROC points of every fold, plus the merged curve of each repeat.

    For each fold and class, one point per distinct score t in decreasing order:
    :math:`FPR(t) = FP(s \ge t) / n_0`, :math:`TPR(t) = TP(s \ge t) / n_1`, preceded by the
    point (0, 0) at threshold +inf — scikit-learn's ``roc_curve(..., drop_intermediate=False)``.
    The trapezoidal area under each fold's points is its AUC.

    Parameters
    ----------
    <<frame_params>>
    undefined : {"skip", "nan"}
        Curves of folds without positives or without negatives: ``"skip"`` leaves them out
        with one :class:`~cvframe.UndefinedMetricWarning`; ``"nan"`` keeps their points with
        NaN rates, silently.

    Returns
    -------
    pandas.DataFrame
        Columns ``kind`` (``"fold"`` for a fold's curve, ``"merged"`` for the pooled curve of
        a repeat), ``repeat`` (when the frame has one), ``fold`` (missing, ``<NA>``, on merged
        rows), ``class``, ``threshold``, ``fpr``, ``tpr``. Rows are ordered by kind, repeat,
        fold, class and decreasing threshold, ready for ``seaborn.lineplot(x="fpr",
        y="tpr", hue="fold")``.

    See Also
    --------
    sklearn.metrics.roc_curve

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
    >>> pts = scores.roc(df)
    >>> pts[pts.kind == "fold"].query("fold == 0")[["threshold", "fpr", "tpr"]].values.tolist()
    [[inf, 0.0, 0.0], [0.8, 0.0, 0.5], [0.4, 0.5, 0.5], [0.35, 0.5, 1.0], [0.1, 1.0, 1.0]]
    """
    _checks.choice("undefined", undefined, UNDEFINED)
    fr = parse(df, labels, pos_label, y_true, fold, repeat, score)
    frames = []
    n_undef, total, where = 0, 0, []
    for kind, per_fold in (("fold", True), ("merged", False)):
        curves = _curves(fr, per_fold)
        present = fr.present if per_fold else np.ones(fr.n_reps, dtype=bool)
        for ci, cur in enumerate(curves):
            npos, nneg = cur["npos"], cur["nneg"]
            bad = present & ((npos == 0) | (nneg == 0))
            n_undef += int(bad.sum())
            total += int(present.sum())
            if bad.any():
                where += [place(fr, per_fold, g, fr.classes[ci]) for g in np.flatnonzero(bad)]
            keep_g = present & ~bad if undefined == "skip" else present
            gs = np.flatnonzero(keep_g)
            grp = np.concatenate([gs, cur["group"]])
            thr = np.concatenate([np.full(len(gs), np.inf), cur["threshold"]])
            tp = np.concatenate([np.zeros(len(gs), np.int64), cur["tp"]])
            fp = np.concatenate([np.zeros(len(gs), np.int64), cur["fp"]])
            first = np.concatenate([np.zeros(len(gs)), np.ones(len(cur["group"]))])
            seq = np.concatenate([np.zeros(len(gs)), np.arange(1, len(cur["group"]) + 1)])
            sel = keep_g[grp]
            order = np.lexsort((seq[sel], first[sel], grp[sel]))
            grp, thr, tp, fp = (a[sel][order] for a in (grp, thr, tp, fp))
            with np.errstate(invalid="ignore", divide="ignore"):
                fpr = fp / nneg[grp].astype(np.float64)
                tpr = tp / npos[grp].astype(np.float64)
            frames.append(
                curve_rows(fr, per_fold, kind, grp, ci, {"threshold": thr, "fpr": fpr, "tpr": tpr})
            )
    if n_undef and undefined == "skip":
        _warn_curves("ROC curve", n_undef, total, where)
    out = pd.concat(frames, ignore_index=True)
    keys = ["kind"] + [c for c in (REPEAT, FOLD) if c in out.columns]
    out = out.sort_values(keys, kind="stable", ignore_index=True)
    out.attrs = {"undefined": undefined}
    return out


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

    Parameters
    ----------
    <<frame_params>>
    undefined : {"skip", "nan"}
        As in :func:`roc`.

    Returns
    -------
    pandas.DataFrame
        Long format: columns ``repeat`` (when present), ``fold``, ``class``, ``threshold``,
        ``rate`` (``"fpr"`` or ``"tpr"``) and ``value``; ready for
        ``seaborn.relplot(x="threshold", y="value", hue="fold", col="rate", kind="line")``.

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
    >>> sr = scores.score_rates(df)
    >>> sr[(sr.fold == 1) & (sr.rate == "tpr")][["threshold", "value"]].values.tolist()
    [[11.0, 0.5], [10.5, 1.0], [10.2, 1.0], [10.0, 1.0]]
    """
    _checks.choice("undefined", undefined, UNDEFINED)
    fr = parse(df, labels, pos_label, y_true, fold, repeat, score)
    curves = _curves(fr, True)
    present = fr.present
    frames, where, n_undef, total = [], [], 0, 0
    for ci, cur in enumerate(curves):
        npos, nneg = cur["npos"], cur["nneg"]
        bad = present & ((npos == 0) | (nneg == 0))
        n_undef += int(bad.sum())
        total += int(present.sum())
        where += [place(fr, True, g, fr.classes[ci]) for g in np.flatnonzero(bad)]
        keep = (present & ~bad if undefined == "skip" else present)[cur["group"]]
        grp = cur["group"][keep]
        with np.errstate(invalid="ignore", divide="ignore"):
            fpr = cur["fp"][keep] / nneg[grp].astype(np.float64)
            tpr = cur["tp"][keep] / npos[grp].astype(np.float64)
        thr = cur["threshold"][keep]
        for rate, val in (("fpr", fpr), ("tpr", tpr)):
            frames.append(
                curve_rows(
                    fr,
                    True,
                    None,
                    grp,
                    ci,
                    {"threshold": thr, "rate": np.full(len(grp), rate, dtype=object), "value": val},
                )
            )
    if n_undef and undefined == "skip":
        _warn_curves("score-rate curve", n_undef, total, where)
    out = pd.concat(frames, ignore_index=True)
    keys = [c for c in (REPEAT, FOLD) if c in out.columns]
    out = out.sort_values(keys + ["rate"], kind="stable", ignore_index=True)
    out.attrs = {"undefined": undefined}
    return out
