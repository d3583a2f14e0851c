"""Plots of a predictions frame with scores: per-fold ROC curves (``roc``) and rates against
the score (``score_rates``); the ``df.cv.plot`` namespace. The curves come from
:mod:`cvframe.scores`."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import scores
from .._docs import accessor_doc
from ..build import FRAME_DIMS
from ..schema import CLASS, FOLD
from ._style import fold_palette, plt, sns
from .cost import cost_roc

__all__ = ["DataFramePlotter", "roc", "score_rates"]


def _per_model(df: pd.DataFrame, func: Any, by: str | None, **kwargs: Any) -> pd.DataFrame:
    """The scores table per value of ``by``.

    The scores functions already keep ``model``/``dataset``/``subset`` columns apart; only
    another ``by`` column is split here.
    """
    if by is None or by not in df.columns or by in FRAME_DIMS:
        return func(df, **kwargs)
    parts = []
    for key, part in df.groupby(by, sort=False):
        out = func(part.drop(columns=[by]), **kwargs)
        out.insert(0, by, key)
        parts.append(out)
    return pd.concat(parts, ignore_index=True)


def roc(
    df: pd.DataFrame,
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
    by: str | None = "model",
    height: float = 3.5,
) -> Any:
    """Every fold's ROC curve (thin, coloured by fold) and the merged curve (thick, black).

    The curves come from :func:`cvframe.scores.roc`; a fold curve far from the others, or a
    merged curve below the fold curves (AUC_merge < AUC_avg), says the folds' scores are not
    calibrated with each other (Forman & Scholz 2010, §3.2).

    Parameters
    ----------
    df : pandas.DataFrame
        A predictions frame with scores (see :func:`cvframe.scores.roc`).
    labels, pos_label, y_true, fold, repeat, score :
        As in :func:`cvframe.scores.roc`.
    by : str or None, default "model"
        A column giving one facet row per value (used when the frame has it).
    height : float

    Returns
    -------
    seaborn.FacetGrid
        One panel per class (and per ``by`` value).

    Examples
    --------
    >>> import pandas as pd, cvframe
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> g = df.cv.plot.roc()
    >>> g.ax.get_xlabel()
    'false positive rate'
    """
    seaborn = sns()
    rep = repeat if repeat is not None and repeat in df.columns else None
    pts = _per_model(
        df,
        scores.roc,
        by,
        labels=labels,
        pos_label=pos_label,
        y_true=y_true,
        fold=fold,
        repeat=rep,
        score=score,
    )
    pts = pts.rename(columns={fold: FOLD}) if fold in pts.columns else pts
    pts[CLASS] = pts[CLASS].astype(str)
    row = by if by is not None and by in pts.columns else None
    classes = list(dict.fromkeys(pts[CLASS]))
    n_folds = int(pts.loc[pts["kind"] == "fold", FOLD].nunique()) or 1
    fold_values = sorted(pts.loc[pts["kind"] == "fold", FOLD].dropna().unique().tolist())
    palette = dict(zip(fold_values, fold_palette(n_folds), strict=False))
    g = seaborn.FacetGrid(
        pts,
        col=CLASS,
        row=row,
        col_order=classes,
        height=height,
        aspect=1.0,
        margin_titles=row is not None,
        col_wrap=min(5, len(classes)) if row is None and len(classes) > 1 else None,
    )

    def facet(data: pd.DataFrame, **_: Any) -> None:
        axis = plt().gca()
        axis.plot([0, 1], [0, 1], color="0.8", linestyle=":", linewidth=1)
        keys = ([rep] if rep else []) + [FOLD]
        for key, curve in data[data["kind"] == "fold"].groupby(keys, sort=False):
            f = key[-1] if isinstance(key, tuple) else key
            axis.plot(
                curve["fpr"],
                curve["tpr"],
                color=palette[f],
                linewidth=1,
                alpha=0.75,
                drawstyle="default",
            )
        merged = data[data["kind"] == "merged"]
        for _key, curve in merged.groupby(rep, sort=False) if rep else [(0, merged)]:
            axis.plot(curve["fpr"], curve["tpr"], color="black", linewidth=2.2)
        axis.set_xlim(-0.02, 1.02)
        axis.set_ylim(-0.02, 1.02)

    g.map_dataframe(facet)
    g.set_axis_labels("false positive rate", "true positive rate")
    if row is None:
        g.set_titles("class {col_name}" if len(classes) > 1 else "")
    else:
        g.set_titles(col_template="class {col_name}", row_template="{row_name}")
    from matplotlib.lines import Line2D

    handles = {}
    if n_folds <= 10:
        handles = {f"fold {f}": Line2D([], [], color=palette[f], linewidth=1) for f in fold_values}
    handles["merged (all folds)"] = Line2D([], [], color="black", linewidth=2.2)
    g.add_legend(legend_data=handles, title="curve", label_order=list(handles))
    return g


def score_rates(
    df: pd.DataFrame,
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
    by: str | None = "model",
    logx: bool = False,
    height: float = 3.2,
) -> Any:
    r"""Each fold's false and true positive rate against the score threshold (Figure 3).

    Curves shifted along the score axis mean the fold models are not calibrated with each
    other: sorting all folds' scores together (AUC_merge) then mixes incomparable scores
    (Forman & Scholz 2010, Figure 3). The rates come from :func:`cvframe.scores.score_rates`.

    Parameters
    ----------
    df : pandas.DataFrame
        A predictions frame with scores.
    labels, pos_label, y_true, fold, repeat, score :
        As in :func:`cvframe.scores.score_rates`.
    by : str or None, default "model"
        A column giving one facet row per value (used when the frame has it).
    logx : bool, default False
        The paper's log axis with '0' at the smallest score (Figure 3): the x data are the
        thresholds shifted so that the panel's smallest score sits just right of the
        origin, :math:`x = t - s_{min} + \delta` with
        :math:`\delta = 10^{-3}(s_{max} - s_{min})` (:math:`\delta = 1` when all scores
        are equal), drawn on a log-scaled axis; :math:`s_{min}, s_{max}` are the smallest
        and largest score of the panel (class, and model of a stacked frame) over all its
        folds and repeats, so the folds keep their relative shifts. SVM decision values,
        negative ones included, draw as in the paper.
    height : float

    Returns
    -------
    seaborn.FacetGrid
        Columns "false positive rate" and "true positive rate"; one row per class (and per
        ``by`` value).

    Examples
    --------
    >>> import pandas as pd, cvframe
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> g = df.cv.plot.score_rates()
    >>> [ax.get_title() for ax in g.axes.flat]
    ['false positive rate', 'true positive rate']
    """
    seaborn = sns()
    rep = repeat if repeat is not None and repeat in df.columns else None
    sr = _per_model(
        df,
        scores.score_rates,
        by,
        labels=labels,
        pos_label=pos_label,
        y_true=y_true,
        fold=fold,
        repeat=rep,
        score=score,
    )
    sr = sr.rename(columns={fold: FOLD}) if fold in sr.columns else sr
    sr = sr[np.isfinite(sr["threshold"].astype(float))]
    if logx:
        panel = [str(c) for c in (by, *FRAME_DIMS, CLASS) if c is not None and c in sr.columns]
        sr = _shift_scores(sr, list(dict.fromkeys(panel)))
    sr["rate"] = sr["rate"].map({"fpr": "false positive rate", "tpr": "true positive rate"})
    sr[CLASS] = sr[CLASS].astype(str)
    rows = [c for c in ((by if by in sr.columns else None),) if c]
    if sr[CLASS].nunique() > 1:
        sr["_row"] = (
            ("class " + sr[CLASS]) if not rows else sr[rows[0]].astype(str) + ", class " + sr[CLASS]
        )
        row: str | None = "_row"
    else:
        row = rows[0] if rows else None
    n_folds = int(sr[FOLD].nunique())
    units = None
    if rep:
        sr["_unit"] = sr[rep].astype(str) + "/" + sr[FOLD].astype(str)
        units = "_unit"
    g = seaborn.relplot(
        data=sr,
        kind="line",
        x="threshold",
        y="value",
        hue=FOLD,
        col="rate",
        row=row,
        units=units,
        estimator=None,
        col_order=["false positive rate", "true positive rate"],
        palette=fold_palette(n_folds),
        drawstyle="steps-post",
        linewidth=1.2,
        height=height,
        aspect=1.3,
        facet_kws={"margin_titles": row is not None},
        legend="full" if n_folds <= 10 else False,
    )
    g.set_axis_labels(
        "score threshold - min + delta (log)" if logx else "score threshold",
        "rate (score >= threshold)",
    )
    if row is None:
        g.set_titles("{col_name}")
    else:
        g.set_titles(col_template="{col_name}", row_template="{row_name}")
    if logx:
        for axis in g.axes.flat:
            axis.set_xscale("log")
    return g


#: The shift of ``logx``: the smallest score lands at this share of the score range.
LOGX_DELTA = 1e-3


def _shift_scores(sr: pd.DataFrame, panel: list[str]) -> pd.DataFrame:
    """Thresholds as ``t - min + delta`` per panel (see ``score_rates(logx=True)``)."""
    t = sr["threshold"].astype(float)
    groups = t.groupby([sr[c] for c in panel], sort=False) if panel else t.groupby(0 * t)
    lo, hi = groups.transform("min"), groups.transform("max")
    delta = np.where(hi > lo, LOGX_DELTA * (hi - lo), 1.0)
    sr = sr.copy()
    sr["threshold"] = t - lo + delta
    return sr


class DataFramePlotter:
    """``df.cv.plot``: the plots of a predictions frame with scores (stateless)."""

    __slots__ = ("_obj",)

    def __init__(self, df: pd.DataFrame) -> None:
        self._obj = df

    def roc(
        self,
        *,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
        by: str | None = "model",
        height: float = 3.5,
    ) -> Any:
        return roc(
            self._obj,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
            by=by,
            height=height,
        )

    def score_rates(
        self,
        *,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
        by: str | None = "model",
        logx: bool = False,
        height: float = 3.2,
    ) -> Any:
        return score_rates(
            self._obj,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
            by=by,
            logx=logx,
            height=height,
        )

    def cost_roc(
        self,
        cost_fp: float = 1.0,
        cost_fn: float = 1.0,
        prevalence: float | None = None,
        method: str = "merge",
        ax: Any = None,
        *,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
        height: float = 3.6,
    ) -> Any:
        return cost_roc(
            self._obj,
            cost_fp,
            cost_fn,
            prevalence,
            method,
            ax,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
            height=height,
        )

    roc.__doc__ = accessor_doc(globals()["roc"])
    cost_roc.__doc__ = accessor_doc(globals()["cost_roc"])
    score_rates.__doc__ = accessor_doc(globals()["score_rates"])
