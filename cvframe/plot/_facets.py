"""The figure every curve plot shares: the checks and the table it starts with
(:func:`curve_table`), a FacetGrid of panels, one per class by default (:func:`facet_grid`), each
drawn by its plot's panel function with its legend beside it (:func:`facet_curves`); and what
the panels share (the keys of a curve, its colour, the fold and merged lines, the legend
entries of the folds)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from .._core.docs import register
from ..schema import CLASS, FOLD, FRAME_DIMS, REPEAT
from ..tidy.curves import frame_args
from . import _style

register(
    {
        "curve_facets": """\
hue : str, optional
    Column giving the colour: default ``model`` (or another stacked dim) when the frame
    has several, else ``fold``. ``"repeat"`` colours by repeat; fold curves of a
    colour are thin, its merged curve thick.
col, row : str, optional
    Columns giving the panels: default one column per class (``class``), or per model
    when there is one class and ``hue`` is not the model.""",
        "curve_raises": """\
Returns
-------
seaborn.FacetGrid

Raises
------
TypeError
    ``ax=``: the plot is figure-level (reach the panels through ``g.axes``).
ValueError
    ``classes`` not among the frame's classes; ``hue``/``col``/``row`` not a column;
    several models that neither ``hue``, ``col`` nor ``row`` separate.""",
    }
)

#: Fold curves listed one by one in a panel's legend up to this many; a count beyond.
MAX_FOLD_ENTRIES = 5


#: ``draw(axis, part, hue, color_of, line_kw) -> (legend handles, legend title)`` of a panel.
Panel = Callable[
    [Any, pd.DataFrame, Any, dict[Any, Any], dict[str, Any]], tuple[dict[str, Any], str | None]
]


def curve_table(
    name: str,
    data: Any,
    scope: dict[str, Any],
    columns: tuple[str, ...],
    compute: Callable[..., pd.DataFrame],
    table: str,
    panels: str = "per class",
) -> pd.DataFrame:
    """The checks a figure-level plot ``name`` of a predictions frame starts with (no
    ``ax=``, the panel size), its arguments the plot's ``locals()`` (``scope``); and the table
    it draws: ``data`` when it has ``columns``, else ``compute(data, **frame columns)``, which
    is ``cvframe.<table>``."""
    _style.figure_level(
        name, scope["kwargs"], f"one panel {panels}", scope["height"], scope["aspect"]
    )
    kw = frame_args(data, scope)
    return _style.given(data, columns, lambda d: compute(d, **kw), f"{name} {table}")


def facet_grid(
    pts: pd.DataFrame,
    scope: dict[str, Any],
    axis_labels: tuple[str, str],
    fallback: Callable[[pd.DataFrame], str | None] = lambda _: FOLD,
) -> tuple[Any, pd.DataFrame, str | None, dict[Any, Any]]:
    """The FacetGrid of the rows of ``pts`` for the plot's ``classes``, ``hue``, ``col``,
    ``row``, ``col_wrap``, ``height``, ``aspect`` and ``palette`` (in ``scope``), with its axis
    labels and titles; also those rows, the ``hue`` column (default: the stacked dim with
    several values, else ``fallback(rows)``) and the colour of each ``hue`` level."""
    hue, col, row = scope["hue"], scope["col"], scope["row"]
    pts = _style.select_classes(pts, scope["classes"])
    for name, value in (("hue", hue), ("col", col), ("row", row)):
        _style.column_arg(name, value, pts)
    hue = hue if hue is not None else _style.default_hue(pts, fallback(pts))
    if col is None and row is None:
        col = _style.default_col(pts, [hue])
    _style.check_single_panel_dims(pts, [hue, col, row], [*FRAME_DIMS, CLASS])
    n_panels = _style.n_values(pts, col) if col else 1
    g = _style.sns().FacetGrid(
        pts,
        col=col,
        row=row,
        col_wrap=_style.wrap(n_panels, scope["col_wrap"], row) if col else None,
        height=scope["height"],
        aspect=scope["aspect"],
        col_order=list(dict.fromkeys(pts[col])) if col else None,
        row_order=list(dict.fromkeys(pts[row])) if row else None,
    )
    g.set_axis_labels(*axis_labels)
    _style.set_titles(g, row, col, _style.context(pts, [hue, col, row], (CLASS, *_style.CONTEXT)))
    return g, pts, hue, _style.hue_colors(pts, hue, scope["palette"])


def facet_curves(
    pts: pd.DataFrame, scope: dict[str, Any], draw: Panel, axis_labels: tuple[str, str]
) -> Any:
    """The figure of :func:`cvframe.plot.roc`, :func:`pr_curve` and :func:`calibration`: a
    :func:`facet_grid` on the unit square, each panel drawn by ``draw`` (the fold curves with
    the plot's ``kwargs``) with its legend beside it."""
    g, pts, hue, color_of = facet_grid(pts, scope, axis_labels)
    line_kw = {"linewidth": 1.0, "alpha": 0.75} | scope["kwargs"]
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
                **_style.beside_axes(axis),
            )
    _style.grow_for_legends(g)
    return _style.finish(g)


def curve_keys(data: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The columns telling curves apart: of fold curves, of merged curves."""
    keys = [c for c in (*FRAME_DIMS, REPEAT, FOLD, CLASS) if c in data.columns]
    return keys, [k for k in keys if k != FOLD]


def draw_curves(
    axis: Any,
    data: pd.DataFrame,
    hue: Any,
    color_of: dict[Any, Any],
    xy: tuple[str, str],
    fold_kw: dict[str, Any],
    merged_kw: dict[str, Any],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every fold curve (``kind`` "fold") and merged curve of a panel, ``xy`` its columns;
    the fold rows and the merged rows."""
    keys, merged_keys = curve_keys(data)
    folds, merged = data[data["kind"] == "fold"], data[data["kind"] == "merged"]
    for is_merged, part, by in ((False, folds, keys), (True, merged, merged_keys)):
        kw = merged_kw if is_merged else fold_kw
        for _key, curve in part.groupby(by, sort=False, dropna=False):
            c = curve_colour(curve, hue, color_of, is_merged)
            axis.plot(curve[xy[0]], curve[xy[1]], color=c, **kw)
    return folds, merged


def fold_handles(
    folds: pd.DataFrame,
    hue: Any,
    color_of: dict[Any, Any],
    label: Callable[[str, pd.DataFrame], str] = lambda text, _part: text,
) -> dict[str, Any]:
    """Legend entries of the fold curves: one per fold (few folds, one repeat), else a count;
    one per ``hue`` level when the colour is not the fold. ``label(text, rows)`` is an
    entry's text (of the fold curves ``rows``)."""
    from matplotlib.lines import Line2D

    out: dict[str, Any] = {}
    if hue not in (None, FOLD):
        for level, color in color_of.items():
            if (folds[hue] == level).any():
                out[str(level)] = Line2D([], [], color=color, linewidth=2.2)
        return out
    n_curves = folds.groupby(curve_keys(folds)[0], sort=False, dropna=False).ngroups
    one_rep = _style.n_values(folds, REPEAT) <= 1
    if hue == FOLD and n_curves <= MAX_FOLD_ENTRIES and one_rep:
        for f, part in folds.groupby(FOLD, sort=False):
            out[label(f"fold {f}", part)] = Line2D([], [], color=color_of.get(f, "0.6"), lw=1.2)
    elif n_curves:
        first = "0.6" if hue is None else next(iter(color_of.values()))
        out[label(f"{n_curves} folds", folds)] = Line2D([], [], color=first, linewidth=1.2)
    return out


def curve_colour(curve: pd.DataFrame, hue: Any, color_of: dict[Any, Any], merged: bool) -> Any:
    """A curve's colour: black when merged and coloured by fold, else its ``hue`` level's."""
    if hue in (None, FOLD):
        return "black" if merged else color_of.get(curve[FOLD].iloc[0], "0.6") if hue else "0.6"
    return color_of.get(curve[hue].iloc[0], "black" if merged else "0.6")
