"""Plots of a predictions frame with scores: the precision-recall curves (``pr_curve``) and
the reliability diagram (``calibration``), per fold and merged. Both are figure-level (one
panel per class, like :func:`cvframe.plot.roc`) and draw the tables of
:func:`cvframe.scores.pr_curve` and :func:`cvframe.scores.calibration_curve`."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import pandas as pd

from .. import scores
from .._core.docs import doc
from ..schema import CLASS, FOLD, FRAME_DIMS, REPEAT
from ..tidy.curves import frame_args
from ._style import (
    CONTEXT,
    beside_axes,
    check_single_panel_dims,
    check_size,
    column_arg,
    context,
    default_col,
    default_hue,
    figure_level,
    finish,
    given,
    grow_for_legends,
    hue_colors,
    n_values,
    select_classes,
    set_titles,
    sns,
    wrap,
)

__all__ = ["MAX_FOLD_ENTRIES", "calibration", "facet_curves", "pr_curve"]

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


def _keys(data: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The columns telling curves apart: of fold curves, of merged curves."""
    keys = [c for c in (*FRAME_DIMS, REPEAT, FOLD, CLASS) if c in data.columns]
    return keys, [k for k in keys if k != FOLD]


def _fold_handles(
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


def _colour(curve: pd.DataFrame, hue: Any, color_of: dict[Any, Any], merged: bool) -> Any:
    if hue in (None, FOLD):
        return "black" if merged else color_of.get(curve[FOLD].iloc[0], "0.6") if hue else "0.6"
    return color_of.get(curve[hue].iloc[0], "black")


def _pr_panel(
    axis: Any, data: pd.DataFrame, hue: Any, color_of: dict[Any, Any], line_kw: dict[str, Any]
) -> tuple[dict[str, Any], str | None]:
    """Fold PR curves (thin), merged ones (thick), the positives' share (dotted)."""
    from matplotlib.lines import Line2D

    keys, merged_keys = _keys(data)
    folds = data[data["kind"] == "fold"]
    merged = data[data["kind"] == "merged"]
    for _key, curve in folds.groupby(keys, sort=False, dropna=False):
        c = _colour(curve, hue, color_of, False)
        axis.plot(curve["recall"], curve["precision"], color=c, drawstyle="steps-pre", **line_kw)
    for _key, curve in merged.groupby(merged_keys, sort=False, dropna=False):
        c = _colour(curve, hue, color_of, True)
        axis.plot(curve["recall"], curve["precision"], color=c, drawstyle="steps-pre", lw=2.2)
        share = float(curve["precision"].iloc[-1])  # every sample predicted positive
        axis.axhline(share, color=c, linestyle=":", linewidth=1)
    handles = _fold_handles(folds, hue, color_of, keys)
    if len(merged) and hue in (None, FOLD):
        handles["merged"] = Line2D([], [], color="black", linewidth=2.2)
    if len(merged):
        handles["share of positives"] = Line2D([], [], color="0.3", linestyle=":", linewidth=1)
    return handles, None


@doc
def pr_curve(
    data: Any,
    *,
    classes: Sequence[Hashable] | Hashable | None = None,
    hue: str | None = None,
    col: str | None = None,
    row: str | None = None,
    col_wrap: int | None = None,
    height: float = 3.0,
    aspect: float = 1.0,
    palette: Any = None,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
    **kwargs: Any,
) -> Any:
    """Every fold's precision-recall curve (thin) and the merged curve (thick).

    **Figure-level** (like :func:`seaborn.relplot`): one panel per class (``col``),
    wrapped at most four wide, one colour per fold or, for a frame stacking several
    models, per model (``hue``; each model's merged curve thick in its colour). A dotted
    line marks the share of positives, the precision of a random ranking. The curves are
    :func:`cvframe.scores.pr_curve` (precision against recall at every distinct score,
    drawn as steps).

    Parameters
    ----------
    data : pandas.DataFrame (or dask DataFrame)
        A predictions frame with scores, or its :func:`cvframe.scores.pr_curve` table,
        possibly filtered with pandas first.
    <<plot_classes>>
    hue : str, optional
        Column giving the colour: default ``model`` (or another stacked dim) when the frame
        has several, else ``fold``.
    col, row : str, optional
        Columns giving the panels: default one column per class.
    <<plot_col_wrap>>
    <<plot_size>>
    <<plot_palette>>
    <<frame_columns>>
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.plot` of the fold curves (``alpha``,
        ``linewidth``...).

    Returns
    -------
    seaborn.FacetGrid

    Raises
    ------
    ValueError
        ``classes`` not among the frame's classes; ``hue``/``col``/``row`` not a column;
        several models that neither ``hue``, ``col`` nor ``row`` separate.

    References
    ----------
    <<reference>>
    (There: §3.2.)

    Examples
    --------
    >>> import pandas as pd, cvframe
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 0.6, 0.7, 0.65, 0.9]})
    >>> g = df.cv.plot.pr_curve()
    >>> g.ax.get_xlabel(), g.ax.get_ylabel()
    ('recall', 'precision')
    >>> [t.get_text() for t in g.ax.get_legend().get_texts()]
    ['fold 0', 'fold 1', 'merged', 'share of positives']
    """
    figure_level("pr_curve", kwargs, "one panel per class")
    check_size(height, aspect)
    kw = frame_args(data, locals())
    pts = given(
        data,
        ("kind", "precision", "recall"),
        lambda d: scores.pr_curve(d, **kw),
        "pr_curve scores.pr_curve",
    )
    line_kw = {"linewidth": 1.0, "alpha": 0.75} | kwargs
    labels_ = ("recall", "precision")
    return facet_curves(
        pts, classes, hue, col, row, col_wrap, height, aspect, palette, _pr_panel, labels_, line_kw
    )


def _band(curves: pd.DataFrame) -> pd.DataFrame:
    """Per bin with at least two fold curves: the mean predicted probability and the range
    (min, max) of the observed fractions."""
    by = curves.groupby("bin", sort=True)
    band = pd.DataFrame(
        {
            "x": by["prob_pred"].mean(),
            "lo": by["prob_true"].min(),
            "hi": by["prob_true"].max(),
            "n": by.size(),
        }
    )
    return band[band["n"] >= 2]


def _calibration_panel(
    axis: Any, data: pd.DataFrame, hue: Any, color_of: dict[Any, Any], line_kw: dict[str, Any]
) -> tuple[dict[str, Any], str | None]:
    """The diagonal, the band of the folds, the fold curves (thin), the merged ones (bold)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    keys, merged_keys = _keys(data)
    axis.plot([0, 1], [0, 1], color="0.8", linestyle=":", linewidth=1)
    folds = data[data["kind"] == "fold"]
    merged = data[data["kind"] == "merged"]
    band_keys = [k for k in merged_keys if k != CLASS or hue == CLASS]
    has_band = False
    for _key, part in folds.groupby(band_keys or (lambda _: 0), sort=False, dropna=False):
        band = _band(part)
        if len(band):
            c = "0.5" if hue in (None, FOLD) else _colour(part, hue, color_of, True)
            axis.fill_between(band["x"], band["lo"], band["hi"], color=c, alpha=0.18, lw=0)
            has_band = True
    for _key, curve in folds.groupby(keys, sort=False, dropna=False):
        c = _colour(curve, hue, color_of, False)
        axis.plot(curve["prob_pred"], curve["prob_true"], color=c, **line_kw)
    for _key, curve in merged.groupby(merged_keys, sort=False, dropna=False):
        c = _colour(curve, hue, color_of, True)
        axis.plot(curve["prob_pred"], curve["prob_true"], color=c, lw=2.2, marker="o", ms=3.5)
    handles = _fold_handles(folds, hue, color_of, keys)
    if len(merged) and hue in (None, FOLD):
        handles["merged"] = Line2D([], [], color="black", linewidth=2.2, marker="o", ms=3.5)
    if has_band:
        handles["range of folds"] = Patch(color="0.5", alpha=0.25, lw=0)
    return handles, None


@doc
def calibration(
    data: Any,
    *,
    bins: int = 10,
    strategy: str = "uniform",
    classes: Sequence[Hashable] | Hashable | None = None,
    hue: str | None = None,
    col: str | None = None,
    row: str | None = None,
    col_wrap: int | None = None,
    height: float = 3.0,
    aspect: float = 1.0,
    palette: Any = None,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
    **kwargs: Any,
) -> Any:
    """Reliability diagram: each fold's curve (thin), the pooled curve (bold), their band.

    **Figure-level**: one panel per class (``col``), one colour per fold or per model
    (``hue``). In every panel the dotted diagonal is perfect calibration; each fold's
    calibration curve is a thin line, the merged (pooled) curve a bold line with markers,
    and a shaded band spans, bin by bin, the lowest to the highest observed fraction of
    positives among the folds (drawn at their mean predicted probability; bins with at
    least two folds). A wide band says a pooled reliability diagram hides fold-to-fold
    differences. The curves are :func:`cvframe.scores.calibration_curve`.

    Parameters
    ----------
    data : pandas.DataFrame (or dask DataFrame)
        A predictions frame with probability scores, or its
        :func:`cvframe.scores.calibration_curve` table, possibly filtered with pandas.
    bins : int, default 10
        As in :func:`cvframe.scores.calibration_curve`.
    strategy : {"uniform", "quantile"}, default "uniform"
        As in :func:`cvframe.scores.calibration_curve`.
    <<plot_classes>>
    hue : str, optional
        Column giving the colour: default ``model`` (or another stacked dim) when the frame
        has several, else ``fold``.
    col, row : str, optional
        Columns giving the panels: default one column per class.
    <<plot_col_wrap>>
    <<plot_size>>
    <<plot_palette>>
    <<frame_columns>>
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.plot` of the fold curves.

    Returns
    -------
    seaborn.FacetGrid

    Raises
    ------
    ValueError
        Scores outside [0, 1]; ``classes`` not among the frame's classes;
        ``hue``/``col``/``row`` not a column.

    References
    ----------
    <<calibration_refs>>

    Examples
    --------
    >>> import pandas as pd, cvframe
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 0.6, 0.7, 0.65, 0.9]})
    >>> g = df.cv.plot.calibration(bins=4)
    >>> g.ax.get_xlabel(), g.ax.get_ylabel()
    ('mean predicted probability', 'fraction of positives')
    >>> [t.get_text() for t in g.ax.get_legend().get_texts()]
    ['fold 0', 'fold 1', 'merged', 'range of folds']
    """
    figure_level("calibration", kwargs, "one panel per class")
    check_size(height, aspect)
    kw = frame_args(data, locals())
    pts = given(
        data,
        ("kind", "prob_pred", "prob_true"),
        lambda d: scores.calibration_curve(d, bins, "both", strategy, **kw),
        "calibration scores.calibration_curve",
    )
    line_kw = {"linewidth": 1.0, "alpha": 0.75} | kwargs
    labels_ = ("mean predicted probability", "fraction of positives")
    return facet_curves(
        pts,
        classes,
        hue,
        col,
        row,
        col_wrap,
        height,
        aspect,
        palette,
        _calibration_panel,
        labels_,
        line_kw,
    )
