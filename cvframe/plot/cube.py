"""Plots of a counts cube: every fold (``folds``), the five methods (``methods``), the
confusion matrix (``confusion``); the ``ds.cv.plot`` namespace. They draw the frames of
:mod:`cvframe.tidy`."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import tidy
from .._docs import accessor_doc, doc
from .._types import ZeroDivision
from ..reduce import F_METHODS
from ..schema import CLASS, PRED, REPEAT, TRUE
from ..tidy import METHOD_LABELS
from ._style import GROUP, add_group, group_dims, method_palette, plt, sns

__all__ = ["DatasetPlotter", "confusion", "folds", "methods"]


def _str_classes(frame: pd.DataFrame) -> list[str]:
    """The class labels of a tidy frame as text, in the cube's order."""
    frame[CLASS] = frame[CLASS].astype(str)
    return list(dict.fromkeys(frame[CLASS]))


@doc
def folds(
    ds: xr.Dataset,
    *,
    beta: float = 1.0,
    zero_division: ZeroDivision = 0.0,
    height: float = 3.0,
    aspect: float = 1.1,
) -> Any:
    """Every fold's precision, recall and F per class as points; the aggregations as lines.

    One panel per metric (columns) and per model/user-dim cell (rows). Points are the
    per-fold values (all repeats, jittered, coloured by repeat); a short marked line per class
    shows each fold aggregation: for precision and recall the pooled value (sum the counts,
    then divide) and the mean over folds; for F the five methods of
    :func:`cvframe.reduce.f_methods` (mean over repeats when there are repeats). A point far
    from the lines is a fold to look at (see :func:`cvframe.diagnostics.anomalies`). The
    points are :func:`cvframe.tidy.fold_table`, the lines :func:`cvframe.tidy.fold_aggregates`.

    Parameters
    ----------
    <<ds>>
    <<beta>>
    <<tidy_zero_division>>
    height, aspect : float
        Size of each facet (inches; width = height * aspect).

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
    seaborn, pyplot = sns(), plt()
    pf = tidy.fold_table(ds, beta=beta, zero_division=zero_division)
    agg = tidy.fold_aggregates(ds, beta=beta, zero_division=zero_division)
    dims = list(pf.columns[: list(pf.columns).index(CLASS) + 1])
    groups = group_dims(dims)
    pf = pf.rename(columns={"f": "F"})
    classes = _str_classes(agg)
    pf[CLASS] = pf[CLASS].astype(str)
    long = pf.melt(
        id_vars=dims, value_vars=["precision", "recall", "F"], var_name="metric", value_name="value"
    )
    row = add_group(long, groups)
    add_group(agg, groups)

    line_names = list(tidy.LINES)
    # pooling (precision/recall pooled, F_tp,fp) and averaging (mean of folds, F_avg) keep
    # one colour and marker each across the panels
    pal = method_palette()
    colors = dict(pal, pooled=pal["F_tp,fp"], **{"mean of folds": pal["F_avg"]})
    markers = dict(zip(line_names, ["D", "o", "D", "o", "s", "v", "^"], strict=True))
    xpos = {c: i for i, c in enumerate(classes)}
    n_rep = int(long[REPEAT].nunique()) if REPEAT in long.columns else 1
    shades = seaborn.color_palette("Greys", n_rep + 3)[3:] if n_rep > 1 else ["0.45"]
    g = seaborn.FacetGrid(
        long,
        col="metric",
        row=row,
        col_order=["precision", "recall", "F"],
        height=height,
        aspect=aspect * max(1.0, len(classes) / 6),
        sharey=True,
        margin_titles=row is not None,
        despine=True,
    )
    # jitter of the fold points: fixed, so the figure is reproducible
    jitter = np.random.default_rng(0).uniform(-0.25, 0.25, len(long))
    long["_x"] = long[CLASS].map(xpos).to_numpy(dtype=float) + jitter
    rep_codes = pd.factorize(long[REPEAT])[0] if n_rep > 1 else np.zeros(len(long), int)
    long["_shade"] = rep_codes

    def points(data: pd.DataFrame, **_: Any) -> None:
        axis = plt().gca()
        axis.scatter(
            data["_x"],
            data["value"],
            s=14,
            alpha=0.75,
            linewidths=0,
            c=[shades[i] for i in data["_shade"]],
            zorder=5,
        )

    g.map_dataframe(points)
    half = 0.38
    # the y axis starts a little below the lowest value (0 when a fold scores 0)
    values = np.concatenate([long["value"].to_numpy(float), agg["value"].to_numpy(float)])
    lowest = np.nanmin(values) if np.isfinite(values).any() else np.nan
    low = max(-0.02, float(np.floor((lowest - 0.05) * 10) / 10)) if np.isfinite(lowest) else -0.02
    for key, ax in g.axes_dict.items():
        metric = key if row is None else key[1]
        sub = agg[agg["metric"] == metric]
        if row is not None:
            sub = sub[sub[GROUP] == key[0]]
        n_lines = sub["line"].nunique()
        for i, (name, part) in enumerate(sub.groupby("line", sort=False)):
            x = part[CLASS].map(xpos).to_numpy(dtype=float)
            c = colors[name]
            ax.hlines(part["value"], x - half, x + half, colors=[c], linewidth=1.8, zorder=2)
            # markers staggered along the segment: coinciding methods stay visible
            ax.plot(
                x - half + (i + 0.5) * 2 * half / n_lines,
                part["value"],
                marker=markers[name],
                color=c,
                markersize=6,
                markeredgecolor="white",
                markeredgewidth=0.5,
                linestyle="none",
                zorder=6,
            )
        ax.set_xticks(range(len(classes)), classes)
        ax.set_xlim(-0.6, len(classes) - 0.4)
        ax.set_ylim(low, 1.02)
        ax.set_xlabel("class")
        if len(classes) > 8:
            ax.tick_params(axis="x", labelsize=8)
    g.set_ylabels("value")
    if row is None:
        g.set_titles(col_template="{col_name}")
    else:
        g.set_titles(col_template="{col_name}", row_template="{row_name}")
    from matplotlib.lines import Line2D

    names = {
        "pooled": "pooled / F_tp,fp",
        "mean of folds": "mean of folds / F_avg",
        **{m: m for m in line_names[3:] if m != "F_avg"},
    }
    handles = {
        label: Line2D([], [], color=colors[name], marker=markers[name], linewidth=1.8)
        for name, label in names.items()
    }
    handles["one fold"] = Line2D([], [], color="0.45", marker="o", linestyle="none", markersize=5)
    g.add_legend(legend_data=handles, title="aggregation", label_order=list(handles))
    pyplot.setp(g.legend.get_texts(), fontsize=9)
    return g


@doc
def methods(
    ds: xr.Dataset,
    *,
    beta: float = 1.0,
    zero_division: ZeroDivision = 0.0,
    errorbar: Any = "sd",
    height: float = 3.5,
    aspect: float = 1.3,
) -> Any:
    """The five F aggregations side by side per class, with their spread across repeats.

    The values are :func:`cvframe.tidy.methods_table`.

    Parameters
    ----------
    ds : xarray.Dataset
        A counts cube; with a ``repeat`` dim each point is the mean over repeats and the bar
        is ``errorbar`` across repeats; user dims (``model``, ...) get a column each.
    <<beta>>
    <<tidy_zero_division>>
    errorbar : seaborn errorbar spec, default "sd"
        Interval across repeats (e.g. ``("pi", 100)`` for min-max, ``("ci", 95)``).
    height, aspect : float
        Size of each facet (inches; width = height * aspect).

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
    seaborn = sns()
    mt = tidy.methods_table(ds, beta=beta, zero_division=zero_division)
    dims = list(mt.columns[: list(mt.columns).index(CLASS) + 1])
    classes = _str_classes(mt)
    long = mt.melt(id_vars=dims, value_vars=list(F_METHODS), var_name="method", value_name="F")
    long["method"] = long["method"].map(METHOD_LABELS)
    col = add_group(long, group_dims(dims))
    has_rep = REPEAT in long.columns and long[REPEAT].nunique() > 1
    n_col = long[col].nunique() if col else 1
    # many classes: one row per user-dim cell (wide panels); few: side by side
    by_row = col is not None and len(classes) > 4
    g = seaborn.catplot(
        data=long,
        kind="point",
        x=CLASS,
        y="F",
        hue="method",
        hue_order=list(METHOD_LABELS.values()),
        order=classes,
        col=None if by_row else col,
        row=col if by_row else None,
        col_wrap=3 if n_col > 3 and not by_row else None,
        dodge=0.55,
        linestyle="none",
        markers=["D", "o", "s", "v", "^"],
        errorbar=errorbar if has_rep else None,
        palette=method_palette(),
        height=height,
        aspect=aspect * max(1.0, len(classes) / 4 if by_row else len(classes) / 5),
        capsize=0.1 if has_rep else 0,
        err_kws={"linewidth": 1.2},
    )
    g.set_axis_labels("class", "F")
    for axis in g.axes.flat:
        axis.grid(axis="y", alpha=0.3)
    if col:
        g.set_titles("{row_name}" if by_row else "{col_name}")
    if g.legend is not None:
        g.legend.set_title(
            "method"
            + (f"\n(bars: {errorbar} over\n{long[REPEAT].nunique()} repeats)" if has_rep else "")
        )
    return g


def confusion(
    ds: xr.Dataset,
    *,
    normalize: str | None = None,
    ax: Any = None,
    cmap: str = "Blues",
    annot: bool | None = None,
) -> Any:
    """The confusion matrix summed over folds (and repeats) as a heatmap.

    The values are :func:`cvframe.tidy.confusion_table`.

    Parameters
    ----------
    ds : xarray.Dataset
        A cube with ``confusion`` (single-label data) or a binary cube (its 2x2 table of
        TP, FN / FP, TN is drawn).
    normalize : {None, "true", "pred", "all"}, default None
        As in :func:`sklearn.metrics.confusion_matrix`: counts, or shares of each true class
        (rows sum to 1), of each predicted class (columns), or of all samples.
    ax : matplotlib Axes, optional
        Draw into it (only without user dims).
    cmap : str, default "Blues"
    annot : bool, optional
        Write the values in the cells; default when there are at most 12 classes.

    Returns
    -------
    matplotlib.axes.Axes, or seaborn.FacetGrid with one panel per user-dim cell
    (``model``, ...).

    Raises
    ------
    CountsError
        A multilabel cube (no ``confusion``): plot its per-class counts with ``folds``.

    Examples
    --------
    >>> import cvframe
    >>> ax = cvframe.datasets.slides_confusion().cv.plot.confusion(normalize="true")
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('predicted', 'true')
    """
    seaborn = sns()
    table = tidy.confusion_table(ds, normalize=normalize)
    groups = group_dims(list(table.columns[:-1]))
    n = table[TRUE].nunique()
    annot = n <= 12 if annot is None else annot
    fmt = ".2f" if normalize else ".0f"
    label = {
        None: "count",
        "true": "share of true class",
        "pred": "share of predicted class",
        "all": "share of all samples",
    }[normalize]

    def draw(part: pd.DataFrame, axis: Any, cbar: bool = True) -> None:
        rows, cols = pd.unique(part[TRUE]), pd.unique(part[PRED])
        mat = part.pivot(index=TRUE, columns=PRED, values="value").reindex(index=rows, columns=cols)
        mat.index = [str(v) for v in mat.index]
        mat.columns = [str(v) for v in mat.columns]
        seaborn.heatmap(
            mat,
            ax=axis,
            cmap=cmap,
            annot=annot,
            fmt=fmt,
            square=True,
            cbar=cbar,
            cbar_kws={"label": label, "shrink": 0.8},
            vmin=0,
            vmax=1 if normalize else None,
            annot_kws={"fontsize": 8 if n > 6 else 10},
        )
        axis.set_xlabel("predicted")
        axis.set_ylabel("true")
        axis.tick_params(axis="y", labelrotation=0)

    if not groups:
        if ax is None:
            _, ax = plt().subplots(figsize=(1.6 + 0.45 * n + 1.5, 1.2 + 0.45 * n))
        draw(table, ax)
        return ax
    table[GROUP] = [", ".join(map(str, v)) for v in table[groups].itertuples(index=False)]
    cells = pd.DataFrame({GROUP: list(dict.fromkeys(table[GROUP]))})
    g = seaborn.FacetGrid(
        cells, col=GROUP, col_wrap=min(3, len(cells)), height=1.2 + 0.45 * n, aspect=1.2
    )

    def facet(data: pd.DataFrame, **_: Any) -> None:
        draw(table[table[GROUP] == data[GROUP].iloc[0]], plt().gca())

    g.map_dataframe(facet)
    g.set_titles("{col_name}")
    return g


class DatasetPlotter:
    """``ds.cv.plot``: the plots of a counts cube (stateless; see :mod:`cvframe.plot`)."""

    __slots__ = ("_obj",)

    def __init__(self, ds: xr.Dataset) -> None:
        self._obj = ds

    def folds(
        self,
        *,
        beta: float = 1.0,
        zero_division: ZeroDivision = 0.0,
        height: float = 3.0,
        aspect: float = 1.1,
    ) -> Any:
        return folds(
            self._obj, beta=beta, zero_division=zero_division, height=height, aspect=aspect
        )

    def methods(
        self,
        *,
        beta: float = 1.0,
        zero_division: ZeroDivision = 0.0,
        errorbar: Any = "sd",
        height: float = 3.5,
        aspect: float = 1.3,
    ) -> Any:
        return methods(
            self._obj,
            beta=beta,
            zero_division=zero_division,
            errorbar=errorbar,
            height=height,
            aspect=aspect,
        )

    def confusion(
        self,
        *,
        normalize: str | None = None,
        ax: Any = None,
        cmap: str = "Blues",
        annot: bool | None = None,
    ) -> Any:
        return confusion(self._obj, normalize=normalize, ax=ax, cmap=cmap, annot=annot)

    folds.__doc__ = accessor_doc(globals()["folds"])
    methods.__doc__ = accessor_doc(globals()["methods"])
    confusion.__doc__ = accessor_doc(globals()["confusion"])
