"""The figure every curve plot shares (:func:`facet_curves`): a FacetGrid of unit-square panels,
one per class by default, each drawn by its plot's panel function with its legend beside it;
and what the panels share (the keys of a curve, its colour, the legend entries of the folds)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from ..schema import CLASS, FOLD, FRAME_DIMS, REPEAT
from ._style import (
    CONTEXT,
    beside_axes,
    check_single_panel_dims,
    column_arg,
    context,
    default_col,
    default_hue,
    finish,
    grow_for_legends,
    hue_colors,
    n_values,
    select_classes,
    set_titles,
    sns,
    wrap,
)

__all__ = [
    "MAX_FOLD_ENTRIES",
    "Panel",
    "curve_colour",
    "curve_keys",
    "facet_curves",
    "fold_handles",
]


#: Fold curves listed one by one in a panel's legend up to this many; a count beyond.
MAX_FOLD_ENTRIES = 5


#: ``draw(axis, part, hue, color_of, line_kw) -> (legend handles, legend title)`` of a panel.
Panel = Callable[
    [Any, pd.DataFrame, Any, dict[Any, Any], dict[str, Any]], tuple[dict[str, Any], str | None]
]


def facet_curves(
    pts: pd.DataFrame,
    classes: Any,
    hue: str | None,
    col: str | None,
    row: str | None,
    col_wrap: int | None,
    height: float,
    aspect: float,
    palette: Any,
    draw: Panel,
    axis_labels: tuple[str, str],
    line_kw: dict[str, Any],
) -> Any:
    """The figure of :func:`cvframe.plot.roc`, :func:`pr_curve` and :func:`calibration`: a
    FacetGrid (one panel per class by default) on the unit square, each panel drawn by
    ``draw`` with its legend beside it."""
    pts = select_classes(pts, classes)
    for name, value in (("hue", hue), ("col", col), ("row", row)):
        column_arg(name, value, pts)
    hue = hue if hue is not None else default_hue(pts, FOLD)
    if col is None and row is None:
        col = default_col(pts, [hue])
    check_single_panel_dims(pts, [hue, col, row], [*FRAME_DIMS, CLASS])
    color_of = hue_colors(pts, hue, palette)
    n_panels = n_values(pts, col) if col else 1
    g = sns().FacetGrid(
        pts,
        col=col,
        row=row,
        col_wrap=wrap(n_panels, col_wrap, row) if col else None,
        height=height,
        aspect=aspect,
        col_order=list(dict.fromkeys(pts[col])) if col else None,
        row_order=list(dict.fromkeys(pts[row])) if row else None,
    )
    for (i, j, _k), part in g.facet_data():
        if not len(part):
            continue
        axis = g.facet_axis(i, j)
        handles, title = draw(axis, part, hue, color_of, line_kw)
        axis.set_xlim(-0.02, 1.02)
        axis.set_ylim(-0.02, 1.02)
        if handles:
            axis.legend(
                list(handles.values()),
                list(handles),
                fontsize=9,
                title=title,
                title_fontsize=9,
                frameon=True,
                framealpha=0.85,
                handlelength=1.5,
                **beside_axes(axis),
            )
    g.set_axis_labels(*axis_labels)
    set_titles(g, row, col, context(pts, [hue, col, row], (CLASS, *CONTEXT)))
    grow_for_legends(g)
    return finish(g)


def curve_keys(data: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The columns telling curves apart: of fold curves, of merged curves."""
    keys = [c for c in (*FRAME_DIMS, REPEAT, FOLD, CLASS) if c in data.columns]
    return keys, [k for k in keys if k != FOLD]


def fold_handles(
    folds: pd.DataFrame, hue: Any, color_of: dict[Any, Any], keys: list[str]
) -> dict[str, Any]:
    """Legend entries of the fold curves: one per fold (few folds, one repeat), else a count;
    one per ``hue`` level when the colour is not the fold."""
    from matplotlib.lines import Line2D

    out: dict[str, Any] = {}
    if hue not in (None, FOLD):
        for level, color in color_of.items():
            if (folds[hue] == level).any():
                out[str(level)] = Line2D([], [], color=color, linewidth=2.2)
        return out
    n_curves = folds.groupby(keys, sort=False, dropna=False).ngroups
    one_rep = n_values(folds, REPEAT) <= 1
    if hue == FOLD and n_curves <= MAX_FOLD_ENTRIES and one_rep:
        for f in dict.fromkeys(folds[FOLD]):
            out[f"fold {f}"] = Line2D([], [], color=color_of.get(f, "0.6"), linewidth=1.2)
    elif n_curves:
        first = "0.6" if hue is None else next(iter(color_of.values()))
        out[f"{n_curves} folds"] = Line2D([], [], color=first, linewidth=1.2)
    return out


def curve_colour(curve: pd.DataFrame, hue: Any, color_of: dict[Any, Any], merged: bool) -> Any:
    if hue in (None, FOLD):
        return "black" if merged else color_of.get(curve[FOLD].iloc[0], "0.6") if hue else "0.6"
    return color_of.get(curve[hue].iloc[0], "black")
