"""Cost-sensitive ROC plot: the ROC curve, its convex hull, the iso-cost line at the given
costs and prior, and the optimal operating point. Everything drawn comes from
:func:`cvframe.scores.roc`, :func:`cvframe.scores.roc_hull` and
:func:`cvframe.scores.optimal_operating_point`."""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _checks, scores
from ..build import FRAME_DIMS
from ..schema import CLASS, FOLD
from ._style import finish, fold_palette, in_memory, plt, select_classes, sns, wrap

__all__ = ["cost_roc"]

PANEL = "_panel"


def _quiet(func: Any, caught: list[warnings.WarningMessage], *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        out = func(*args, **kwargs)
    caught.extend(got)
    return out


def _rewarn(caught: list[warnings.WarningMessage]) -> None:
    """One warning per category: the three tables warn about the same undefined curves."""
    seen: set[type] = set()
    for w in caught:
        if w.category not in seen:
            seen.add(w.category)
            warnings.warn(str(w.message), w.category, stacklevel=3)


def _panel(frame: pd.DataFrame, dims: list[str]) -> pd.DataFrame:
    label = "class " + frame[CLASS].astype(str)
    for d in reversed(dims):
        label = frame[d].astype(str) + ", " + label
    frame[PANEL] = label
    return frame


def cost_roc(
    df: pd.DataFrame,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    prevalence: float | None = None,
    method: str = "merge",
    ax: Any = None,
    *,
    classes: Sequence[Hashable] | Hashable | None = None,
    col_wrap: int | None = None,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
    height: float = 3.6,
) -> Any:
    r"""The ROC curve, its convex hull, the iso-cost line and the optimal operating point.

    **Figure-level** without ``ax`` (a FacetGrid, one panel per class and model, wrapped at
    most four wide), **axes-level** with ``ax`` (one panel). For each class (one-vs-all)
    and each fold (``method="fold"``) or each repeat's pooled scores (``method="merge"``):
    the ROC points (thin line), the vertices of their convex hull (dashed, with markers),
    the iso-cost line of slope
    :math:`m = c_{FP}(1-\pi)/(c_{FN}\pi)` through the optimal vertex (grey) and that vertex
    (a star, labelled with its threshold and expected cost when the panel has one curve).
    Points above the line would cost less; none of the curve is. The tables come from
    :func:`cvframe.scores.roc`, :func:`cvframe.scores.roc_hull` and
    :func:`cvframe.scores.optimal_operating_point`.

    Parameters
    ----------
    df : pandas.DataFrame
        A predictions frame with scores.
    cost_fp, cost_fn, prevalence :
        As in :func:`cvframe.scores.optimal_operating_point` (prevalence: default the
        data's).
    method : {"merge", "fold"}, default "merge"
        The pooled curve of each repeat, or one curve per fold.
    ax : matplotlib.axes.Axes, optional
        Draw into this Axes (the frame must give one panel: one class, one model);
        default a seaborn FacetGrid with one panel per class (and per model, dataset or
        subset of a stacked frame).
    classes : label or list of labels, optional
        Draw only these classes (default all).
    col_wrap : int, optional
        Panels per row of the grid (default: at most 4, balanced).
    labels, pos_label, y_true, fold, repeat, score :
        As in :func:`cvframe.scores.roc`.
    height : float
        Height of a facet (without ``ax``).

    Returns
    -------
    matplotlib.axes.Axes or seaborn.FacetGrid
        The Axes when ``ax`` is given, else the FacetGrid.

    References
    ----------
    F. Provost and T. Fawcett, "Robust Classification for Imprecise Environments", Machine
    Learning 42(3), 2001.

    Examples
    --------
    >>> import pandas as pd, cvframe
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 0, 0],
    ...                    "y_true": [1, 0, 1, 1, 0, 0],
    ...                    "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.1]})
    >>> g = cvframe.plot.cost_roc(df, cost_fp=1, cost_fn=1)
    >>> g.ax.get_xlabel()
    'false positive rate'
    >>> ax = df.cv.plot.cost_roc(cost_fp=5, ax=g.ax)
    """
    method = _checks.choice("method", method, ("merge", "fold"))
    df = in_memory(df)
    kind = "merged" if method == "merge" else "fold"
    frame_kwargs: dict[str, Any] = {
        "labels": labels,
        "pos_label": pos_label,
        "y_true": y_true,
        "fold": fold,
        "repeat": repeat,
        "score": score,
    }
    caught: list[warnings.WarningMessage] = []
    pts = _quiet(scores.roc, caught, df, **frame_kwargs)
    pts = pts[pts["kind"] == kind].reset_index(drop=True)
    hull = _quiet(scores.roc_hull, caught, df, method, **frame_kwargs)
    opt = _quiet(
        scores.optimal_operating_point,
        caught,
        df,
        cost_fp,
        cost_fn,
        prevalence,
        method,
        **frame_kwargs,
    )
    _rewarn(caught)
    table = opt.to_dataframe().reset_index()
    table = table[np.isfinite(table["expected_cost"])]
    if classes is not None:
        pts = select_classes(pts, classes)
        keep = set(pts[CLASS])
        hull = hull[hull[CLASS].isin(keep)].reset_index(drop=True)
        table = table[table[CLASS].isin(keep)].reset_index(drop=True)
    rep = repeat if repeat is not None and repeat in pts.columns else None
    dims = [d for d in FRAME_DIMS if d in pts.columns]
    for frame in (pts, hull, table):
        _panel(frame, dims)
    keys = ([rep] if rep else []) + ([FOLD] if method == "fold" else [])
    curves = sorted(pts[FOLD].dropna().unique().tolist()) if method == "fold" else []
    palette = dict(zip(curves, fold_palette(max(len(curves), 1)), strict=False))

    def draw(axis: Any, panel: str) -> None:
        axis.plot([0, 1], [0, 1], color="0.8", linestyle=":", linewidth=1)
        p, h, o = (f[f[PANEL] == panel] for f in (pts, hull, table))
        groups = list(p.groupby(keys, sort=False)) if keys else [((), p)]
        for key, curve in groups:
            sel = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
            color = palette[sel[FOLD]] if FOLD in sel else "black"
            hv, ov = h, o
            for k, v in sel.items():
                hv, ov = hv[hv[k] == v], ov[ov[k] == v]
            axis.plot(curve["fpr"], curve["tpr"], color=color, linewidth=1, alpha=0.5)
            axis.plot(hv["fpr"], hv["tpr"], color=color, linestyle="--", marker="o", ms=3)
            for _, row in ov.iterrows():
                _iso_line(axis, row, color, label=len(groups) == 1)
        axis.set_xlim(-0.02, 1.02)
        axis.set_ylim(-0.02, 1.02)
        axis.set_aspect("equal")

    panels = list(dict.fromkeys(pts[PANEL]))
    if ax is not None:
        if len(panels) != 1:
            raise ValueError(
                f"ax= takes one panel but the frame gives {len(panels)} ({panels[:5]}); "
                "leave ax=None for a grid of panels, or select one class/model first."
            )
        draw(ax, panels[0])
        ax.set_xlabel("false positive rate")
        ax.set_ylabel("true positive rate")
        return finish(ax)
    g = sns().FacetGrid(
        pts,
        col=PANEL,
        col_order=panels,
        col_wrap=wrap(len(panels), col_wrap, None) if len(panels) > 1 else None,
        height=height,
        aspect=1.0,
    )

    def facet(data: pd.DataFrame, **_: Any) -> None:
        draw(plt().gca(), data[PANEL].iloc[0])

    g.map_dataframe(facet)
    g.set_axis_labels("false positive rate", "true positive rate")
    g.set_titles("{col_name}" if len(panels) > 1 else "")
    from matplotlib.lines import Line2D

    handles: dict[str, Any] = {}
    if 1 < len(curves) <= 10:
        handles = {f"fold {f}": Line2D([], [], color=palette[f]) for f in curves}
    handles["ROC convex hull"] = Line2D([], [], color="0.2", linestyle="--", marker="o", ms=3)
    handles["iso-cost line"] = Line2D([], [], color="0.45")
    handles["optimal point"] = Line2D(
        [], [], color="0.2", marker="*", ms=10, linestyle="", markeredgecolor="black"
    )
    g.add_legend(legend_data=handles, label_order=list(handles))
    return finish(g)


def _iso_line(axis: Any, row: pd.Series, color: Any, label: bool) -> None:
    """The iso-cost line through the optimum, and the optimum labelled with its threshold."""
    x0, y0, m = float(row["fpr"]), float(row["tpr"]), float(row["slope"])
    if np.isinf(m):
        axis.plot([x0, x0], [0, 1], color="0.45", linewidth=1)
    else:
        xs = np.array([0.0, 1.0])
        axis.plot(xs, y0 + m * (xs - x0), color="0.45", linewidth=1)
    axis.plot([x0], [y0], marker="*", ms=12, color=color, markeredgecolor="black", zorder=5)
    if label:  # one curve per panel: label its optimum (several would overlap)
        axis.annotate(
            f"t = {row['threshold']:.3g}\nEC = {row['expected_cost']:.3g}",
            (x0, y0),
            xytext=(6, -22),
            textcoords="offset points",
            fontsize=9,
        )
