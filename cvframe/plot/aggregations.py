"""The fold aggregations of a counts cube: every fold's precision, recall and F with each fold
aggregation as a line (``folds``), and the five F aggregations side by side with their spread
across repeats (``methods``). Both are figure-level (seaborn FacetGrid) and draw the frames of
:mod:`cvframe.tidy`; each also takes such a frame (filtered with pandas) instead of the cube."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import metrics, tidy
from .._core.docs import doc
from .._core.types import ZeroDivision
from ..reduce import F_METHODS
from ..schema import CLASS, FOLD, REPEAT
from ..tidy import METHOD_LABELS
from . import _style

__all__ = ["folds", "methods"]

#: The parts of F drawn beside it (precision and recall).
_PARTS = metrics.REGISTRY["f"].components


def _str_classes(frame: pd.DataFrame) -> list[str]:
    """The class labels of a tidy frame as text, in the cube's order."""
    frame[CLASS] = frame[CLASS].astype(str)
    return list(dict.fromkeys(frame[CLASS]))


def _facet_default(
    col: Any, row: Any, col_wrap: Any, groups: list[Hashable], inner: str
) -> tuple[Any, Any]:
    """Default facets: ``inner`` (metric, ...) on columns and the user-dim cell on rows; a
    user dim asked on columns puts ``inner`` on rows."""
    group = (groups[0] if len(groups) == 1 else _style.GROUP) if groups else None
    if col is None and row is None:
        return inner, (None if col_wrap is not None else group)
    if col is None:
        return (inner if row != inner else group), row
    if row is None and col != inner and col_wrap is None:
        return col, inner
    return col, row


def _fold_frames(
    data: Any, methods: Any, beta: float, zero_division: Any
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The points and the lines of ``folds``: each frame given is drawn as it is, the rest
    is computed (a fold table frame without metric columns is read as counts)."""
    kw = {"beta": beta, "zero_division": zero_division}
    points = (FOLD, CLASS, *_PARTS, "f")
    pf = _style.given(data, points, lambda d: tidy.fold_table(_style.cube_of(d, "folds"), **kw))
    if methods is not None and not isinstance(methods, pd.DataFrame):
        raise TypeError(
            f"methods must be a tidy.fold_aggregates or tidy.methods_table frame, got "
            f"{type(methods).__name__}; or None to compute the lines from data."
        )
    source = data if isinstance(data, xr.Dataset) else pf  # a frame: its counts
    lines = ("metric", "line", "value")
    aggregate = tidy.fold_aggregates
    return pf, _style.given(
        methods, lines, lambda m: aggregate(_style.cube_of(source, "folds"), methods=m, **kw)
    )


@doc
def folds(
    data: Any,
    *,
    classes: Sequence[Hashable] | Hashable | None = None,
    hue: str | None = REPEAT,
    col: str | None = None,
    row: str | None = None,
    col_wrap: int | None = None,
    height: float = 3.0,
    aspect: float = 1.1,
    palette: Any = None,
    beta: float = 1.0,
    zero_division: ZeroDivision = 0.0,
    methods: pd.DataFrame | None = None,
    **kwargs: Any,
) -> Any:
    """Every fold's precision, recall and F per class as points; the aggregations as lines.

    **Figure-level** (a seaborn FacetGrid, like ``catplot``): by default one column per
    metric (``col="metric"``) and one row per model/user-dim cell. Points are the per-fold
    values (all repeats, jittered, shaded by ``hue``); a short marked line per class shows
    each fold aggregation: for precision and recall the pooled value (sum the counts, then
    divide) and the mean over folds; for F the five methods of
    :func:`cvframe.reduce.f_methods` (mean over repeats when there are repeats). A point far
    from the lines is a fold to look at (see :func:`cvframe.diagnostics.anomalies`). The
    points are :func:`cvframe.tidy.fold_table`, the lines :func:`cvframe.tidy.fold_aggregates`.

    Parameters
    ----------
    data : xarray.Dataset or pandas.DataFrame
        A counts cube (dask-backed or not), or its :func:`cvframe.tidy.fold_table` filtered
        with pandas: drawn as it is (its F of the ``beta`` it was computed with), the lines
        being the aggregations of the rows kept.
    <<plot_classes>>
    hue : {"repeat", "fold", None}, default "repeat"
        Shade of the points (greys by repeat; a palette by fold).
    col, row : str, optional
        Facets among ``"metric"`` and the user dims (``model``, ...); default metric on
        columns, the user-dim cell on rows. ``col="model"`` puts the metrics on rows.
    <<plot_col_wrap>>
    height, aspect : float
        Size of each facet (inches; width = height * aspect, widened for many classes).
    <<plot_palette>>
    <<beta>>
    <<tidy_zero_division>>
    methods : pandas.DataFrame, optional
        The lines, already computed: a :func:`cvframe.tidy.fold_aggregates` frame (drawn as
        it is) or the :func:`cvframe.tidy.methods_table` of the data (the F lines; precision
        and recall are aggregated here). Default: every line computed from ``data``.
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.scatter` of the fold points.

    Returns
    -------
    seaborn.FacetGrid

    Examples
    --------
    >>> import cvframe
    >>> g = cvframe.datasets.table1().cv.plot.folds()
    >>> [ax.get_title() for ax in g.axes.flat]
    ['precision', 'recall', 'F']
    """
    _style.figure_level("folds", kwargs, "one panel per metric", height, aspect)
    seaborn = _style.sns()
    pf, agg = _fold_frames(data, methods, beta, zero_division)
    pf, agg = _style.select_classes(pf, classes), _style.select_classes(agg, classes)
    dims = list(pf.columns[: list(pf.columns).index(CLASS) + 1])
    groups = _style.group_dims(dims)
    pf = pf.rename(columns={"f": "F"})
    classes_ = _str_classes(agg)
    pf[CLASS] = pf[CLASS].astype(str)
    long = pf.melt(id_vars=dims, value_vars=[*_PARTS, "F"], var_name="metric", value_name="value")
    if len(groups) > 1:
        _style.add_group(long, groups)
        _style.add_group(agg, groups)
    extra = ["metric", _style.GROUP] if len(groups) > 1 else ["metric"]
    for name, value in (("col", col), ("row", row)):
        _style.column_arg(name, value, long, extra)
    _style.column_arg("hue", hue, long, [REPEAT])
    col, row = _facet_default(col, row, col_wrap, groups, "metric")
    used = [col, row] + ([*groups] if _style.GROUP in (col, row) else [])
    _style.check_single_panel_dims(long, used, [str(d) for d in groups])

    line_names = list(tidy.LINES)
    # pooling (precision/recall pooled, F_tp,fp) and averaging (mean of folds, F_avg) keep
    # one colour and marker each across the panels
    pal = _style.method_palette()
    colors = dict(pal, pooled=pal["F_tp,fp"], **{"mean of folds": pal["F_avg"]})
    markers = dict(zip(line_names, ["D", "o", "D", "o", "s", "v", "^"], strict=True))
    xpos = {c: i for i, c in enumerate(classes_)}
    levels = list(dict.fromkeys(long[hue])) if hue in long.columns else []
    if palette is not None and levels:
        shades = list(seaborn.color_palette(palette, len(levels)))
    elif hue == REPEAT and len(levels) > 1:
        shades = list(seaborn.color_palette("Greys", len(levels) + 3)[3:])
    elif len(levels) > 1:
        shades = list(_style.fold_palette(len(levels)))
    else:
        shades = ["0.45"]
    metric_order = [*_PARTS, "F"]
    n_cols = long[col].nunique() if col else 1
    g = seaborn.FacetGrid(
        long,
        col=col,
        row=row,
        col_wrap=_style.wrap(n_cols, col_wrap, row) if col else None,
        col_order=metric_order if col == "metric" else None,
        row_order=metric_order if row == "metric" else None,
        height=height,
        aspect=aspect * max(1.0, len(classes_) / 6),
        sharey=True,
        despine=True,
    )
    # jitter of the fold points: fixed, so the figure is reproducible
    jitter = np.random.default_rng(0).uniform(-0.25, 0.25, len(long))
    long["_x"] = long[CLASS].map(xpos).to_numpy(dtype=float) + jitter
    codes = pd.Categorical(long[hue], categories=levels).codes if len(levels) > 1 else None
    long["_shade"] = codes if codes is not None else 0
    scatter_kw = {"s": 14, "alpha": 0.75, "linewidths": 0, "zorder": 5} | kwargs
    half = 0.38
    # the y axis starts a little below the lowest value (0 when a fold scores 0)
    values = np.concatenate([long["value"].to_numpy(float), agg["value"].to_numpy(float)])
    lowest = np.nanmin(values) if np.isfinite(values).any() else np.nan
    low = max(-0.02, float(np.floor((lowest - 0.05) * 10) / 10)) if np.isfinite(lowest) else -0.02
    facets = [v for v in (row, col) if v is not None]
    for key, ax in g.axes_dict.items():
        cell = dict(zip(facets, key if len(facets) == 2 else (key,), strict=True))
        pts, sub = long, agg
        for var, value in cell.items():
            pts = pts[pts[var] == value]
            sub = sub[sub[var].astype(str) == str(value)] if var in sub.columns else sub
        ax.scatter(pts["_x"], pts["value"], c=[shades[i] for i in pts["_shade"]], **scatter_kw)
        n_lines = sub["line"].nunique()
        for i, (name, part) in enumerate(sub.groupby("line", sort=False)):
            x = part[CLASS].map(xpos).to_numpy(dtype=float)
            c = colors[name]
            ax.hlines(part["value"], x - half, x + half, colors=[c], linewidth=1.8, zorder=2)
            # markers staggered along the segment: coinciding methods stay visible
            ax.plot(
                x - half + (i + 0.5) * 2 * half / max(n_lines, 1),
                part["value"],
                marker=markers[name],
                color=c,
                markersize=6,
                markeredgecolor="white",
                markeredgewidth=0.5,
                linestyle="none",
                zorder=6,
            )
        ax.set_xticks(range(len(classes_)), classes_)
        ax.set_xlim(-0.6, len(classes_) - 0.4)
        ax.set_ylim(low, 1.02)
        ax.set_xlabel("class")
        if len(classes_) > 8:
            ax.tick_params(axis="x", labelsize=9, labelrotation=90)
    g.set_ylabels("value")
    ctx = _style.context(long, used, _style.CONTEXT)
    _style.set_titles(
        g, row, col, ctx, names={"metric": "", _style.GROUP: "", **{d: str(d) for d in groups}}
    )
    _folds_legend(g, colors, markers, hue, dict(zip(levels, shades, strict=False)))
    return _style.finish(g)


def _folds_legend(
    g: Any, colors: dict[str, Any], markers: dict[str, str], hue: Any, shade_of: dict[Any, Any]
) -> None:
    """The legend of ``folds``: each aggregation line, a fold point, the ``hue`` levels."""
    from matplotlib.lines import Line2D

    names = {
        "pooled": "pooled / F_tp,fp",
        "mean of folds": "mean of folds / F_avg",
        **{m: m for m in tidy.LINES[3:] if m != "F_avg"},
    }
    handles = {
        label: Line2D([], [], color=colors[name], marker=markers[name], linewidth=1.8)
        for name, label in names.items()
    }
    handles["one fold"] = Line2D([], [], color="0.45", marker="o", linestyle="none", markersize=5)
    if 1 < len(shade_of) <= 10 and hue != REPEAT:
        for lv, c in shade_of.items():
            handles[f"{hue} {lv}"] = Line2D([], [], color=c, marker="o", linestyle="none")
    g.add_legend(legend_data=handles, title="aggregation", label_order=list(handles))
    for t in g.legend.get_texts():
        t.set_fontsize(9)


@doc
def methods(
    data: Any,
    *,
    classes: Sequence[Hashable] | Hashable | None = None,
    x: str = CLASS,
    hue: str | None = "method",
    col: str | None = None,
    row: str | None = None,
    col_wrap: int | None = None,
    height: float = 3.5,
    aspect: float = 1.3,
    palette: Any = None,
    errorbar: Any = "sd",
    beta: float = 1.0,
    zero_division: ZeroDivision = 0.0,
    **kwargs: Any,
) -> Any:
    """The five F aggregations side by side per class, with their spread across repeats.

    **Figure-level**: a :func:`seaborn.catplot` (``kind="point"``) of the long form of
    :func:`cvframe.tidy.methods_table` (columns ``class``, ``method``, ``F``, the user dims
    and ``repeat``); each point is the mean over repeats and its bar ``errorbar`` across
    repeats. By default one panel per model/user-dim cell.

    Parameters
    ----------
    data : xarray.Dataset or pandas.DataFrame
        A counts cube (dask-backed or not), its :func:`cvframe.tidy.methods_table` or its
        :func:`cvframe.tidy.fold_table`, possibly filtered with pandas first.
    <<plot_classes>>
    x, hue, col, row : str
        Columns of the long frame: ``class``, ``method``, ``repeat`` and the user dims
        (``model``, ...). Default x ``class``, hue ``method``, one column per user-dim cell;
        ``hue="model"`` compares models and puts the methods on columns.
    <<plot_col_wrap>>
    height, aspect : float
        Size of each facet (inches; width = height * aspect, widened for many classes).
    palette : seaborn palette, optional
        Default: one colour per method.
    errorbar : seaborn errorbar spec, default "sd"
        Interval across repeats (e.g. ``("pi", 100)`` for min-max, ``("ci", 95)``).
    <<beta>>
    <<tidy_zero_division>>
    **kwargs
        Passed to :func:`seaborn.catplot` (e.g. ``kind="bar"``, ``markers``, ``dodge``).

    Returns
    -------
    seaborn.FacetGrid

    Examples
    --------
    >>> import cvframe
    >>> g = cvframe.datasets.table2().cv.plot.methods()
    >>> g.ax.get_ylabel()
    'F'
    """
    _style.figure_level("methods", kwargs, "one panel per cell of the other dims", height, aspect)
    seaborn = _style.sns()
    mt = _style.given(
        data,
        F_METHODS,
        lambda d: tidy.methods_table(
            _style.cube_of(d, "methods"), beta=beta, zero_division=zero_division
        ),
    )
    mt = _style.select_classes(mt, classes)
    dims = list(mt.columns[: list(mt.columns).index(CLASS) + 1])
    classes_ = _str_classes(mt)
    long = mt.melt(id_vars=dims, value_vars=list(F_METHODS), var_name="method", value_name="F")
    long["method"] = long["method"].map(METHOD_LABELS)
    groups = _style.group_dims(dims)
    if len(groups) > 1:
        _style.add_group(long, groups)
    for name, value in (("x", x), ("hue", hue), ("col", col), ("row", row)):
        _style.column_arg(name, value, long)
    group = (str(groups[0]) if len(groups) == 1 else _style.GROUP) if groups else None
    if col is None and row is None:
        if group is not None and group not in (x, hue):
            col = group
        elif "method" not in (x, hue):
            col = "method"
    used = [x, hue, col, row] + (list(groups) if _style.GROUP in (x, hue, col, row) else [])
    _style.check_single_panel_dims(long, used, [str(d) for d in groups])
    if "method" not in used:
        raise ValueError(
            "the five methods need a place: pass x, hue, col or row = 'method' (or filter "
            "the frame to one method)."
        )
    has_rep = REPEAT in long.columns and long[REPEAT].nunique() > 1 and REPEAT not in used
    n_col = long[col].nunique() if col else 1
    order: dict[Any, list[str]] = {CLASS: classes_, "method": list(METHOD_LABELS.values())}
    if palette is None and hue == "method":
        palette = _style.method_palette()
    kw: dict[str, Any] = {
        "kind": "point",
        "dodge": 0.55 if hue is not None else False,
        "linestyle": "none",
        "markers": ["D", "o", "s", "v", "^"] if hue == "method" else "o",
        "capsize": 0.1 if has_rep else 0,
        "err_kws": {"linewidth": 1.2},
    }
    kw |= kwargs
    if kw["kind"] != "point":
        for k in ("dodge", "linestyle", "markers", "err_kws"):
            if k not in kwargs:
                kw.pop(k)
    g = seaborn.catplot(
        data=long,
        x=x,
        y="F",
        hue=hue,
        order=order.get(x),
        hue_order=order.get(hue),
        col=col,
        row=row,
        col_order=order.get(col),
        row_order=order.get(row),
        col_wrap=_style.wrap(n_col, col_wrap, row) if col else None,
        errorbar=errorbar if has_rep else None,
        palette=palette if hue is not None else None,
        height=height,
        aspect=aspect * max(1.0, len(classes_) / 5 if x == CLASS else 1.0),
        **kw,
    )
    g.set_axis_labels(x if x != CLASS else "class", "F")
    for axis in g.axes.flat:
        axis.grid(axis="y", alpha=0.3)
        if x == CLASS and len(classes_) > 8:
            axis.tick_params(axis="x", labelrotation=90)
    ctx = _style.context(long, used, _style.CONTEXT)
    _style.set_titles(g, row, col, ctx, names={_style.GROUP: "", "method": ""})
    if g.legend is not None:
        g.legend.set_title(
            str(hue)
            + (f"\n(bars: {errorbar} over\n{long[REPEAT].nunique()} repeats)" if has_rep else "")
        )
    return _style.finish(g)
