"""Plots of a predictions frame with scores: per-fold ROC curves with their AUC (``roc``) and
rates against the score (``score_rates``). Both are figure-level (seaborn ``relplot``
style); they draw :func:`cvframe.tidy.roc_table` (or the points of
:func:`cvframe.scores.roc`) and :func:`cvframe.scores.score_rates`."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import xarray as xr

from .. import repeats, scores, tidy
from .._core.docs import doc
from ..schema import CLASS, FOLD, FRAME_DIMS, REPEAT
from ..tidy.curves import frame_args
from ._style import (
    CONTEXT,
    as_method,
    check_single_panel_dims,
    check_size,
    column_arg,
    context,
    figure_level,
    finish,
    fold_palette,
    given,
    hue_colors,
    n_values,
    select_classes,
    set_titles,
    sns,
    wrap,
)
from .cost import cost_roc
from .curves import MAX_FOLD_ENTRIES, calibration, facet_curves, pr_curve

__all__ = ["DataFramePlotter", "roc", "score_rates"]


def _mean_sd(values: np.ndarray) -> str:
    """ "0.91 ± 0.03": the mean and sd (ddof=1) of the defined values, as
    :func:`cvframe.repeats.summary` gives them."""
    v = values[np.isfinite(values)]
    if len(v) == 0:
        return "undefined"
    if len(v) == 1:
        return f"{v[0]:.2f}"
    s = repeats.summary(xr.Dataset(), xr.DataArray(v, dims=FOLD), dim=FOLD)
    return f"{float(s['mean']):.2f} ± {float(s['std']):.2f}"


def _curve_aucs(part: pd.DataFrame, keys: list[str]) -> np.ndarray | None:
    """One AUC per curve of ``part`` (constant along a curve); None for a frame without."""
    if "auc" not in part.columns:
        return None
    if part.empty:
        return np.array([])
    return part.groupby(keys, sort=False, dropna=False)["auc"].first().to_numpy(float)


@doc
def roc(
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
    """Every fold's ROC curve (thin) and the merged curve (thick), AUCs in each legend.

    **Figure-level** (like :func:`seaborn.relplot`): one panel per class (``col``), wrapped
    at most four wide, one colour per fold or, for a frame stacking several models, per
    model (``hue``). Each panel's legend gives the AUC of every fold and of the merged curve
    ("fold 3 (AUC 0.91)", "merged (AUC 0.93)"); with more than five fold curves it gives
    their mean ± sd. A merged curve below the fold curves (AUC_merge < AUC_avg) says the
    folds' scores are not calibrated with each other (Forman & Scholz 2010, §3.2). Titles
    name the class and what the figure is of (a single model or repeat). The points and
    AUCs are :func:`cvframe.tidy.roc_table`.

    Parameters
    ----------
    data : pandas.DataFrame (or dask DataFrame)
        A predictions frame with scores (see :func:`cvframe.scores.roc`), or its
        :func:`cvframe.tidy.roc_table`, possibly filtered with pandas first.
    <<plot_classes>>
    hue : str, optional
        Column giving the colour: default ``model`` (or another stacked dim) when the frame
        has several, else ``fold``. ``"repeat"`` colours by repeat; fold curves of a
        colour are thin, its merged curve thick.
    col, row : str, optional
        Columns giving the panels: default one column per class (``class``), or per model
        when there is one class and ``hue`` is not the model.
    <<plot_col_wrap>>
    <<plot_size>>
    <<plot_palette>>
    <<frame_columns>>
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.plot` of the fold curves (e.g. ``alpha``,
        ``linewidth``).

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
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> g = df.cv.plot.roc()
    >>> g.ax.get_xlabel()
    'false positive rate'
    >>> [t.get_text() for t in g.ax.get_legend().get_texts()]
    ['fold 0 (AUC 0.75)', 'fold 1 (AUC 1.00)', 'merged (AUC 0.69)']
    """
    figure_level("roc", kwargs, "one panel per class")
    check_size(height, aspect)
    kw = frame_args(data, locals())
    # a roc_table (AUC in the legends) or a scores.roc frame (curves only) is drawn as it is
    pts = given(
        data, ("kind", "fpr", "tpr"), lambda d: tidy.roc_table(d, **kw), "roc tidy.roc_table"
    )
    line_kw = {"linewidth": 1.0, "alpha": 0.75} | kwargs
    labels_ = ("false positive rate", "true positive rate")
    return facet_curves(
        pts, classes, hue, col, row, col_wrap, height, aspect, palette, _roc_panel, labels_, line_kw
    )


def _roc_panel(
    axis: Any, data: pd.DataFrame, hue: str | None, color_of: dict[Any, Any], line_kw: Any
) -> tuple[dict[str, Any], str | None]:
    """One panel: the fold curves (thin), the merged curves (thick); its legend's entries
    (with the AUCs) and title."""
    rep = REPEAT if REPEAT in data.columns else None
    keys = [c for c in (*FRAME_DIMS, rep, FOLD, CLASS) if c is not None and c in data.columns]
    merged_keys = [k for k in keys if k != FOLD]
    axis.plot([0, 1], [0, 1], color="0.8", linestyle=":", linewidth=1)
    folds_ = data[data["kind"] == "fold"]
    merged = data[data["kind"] == "merged"]
    for _key, curve in folds_.groupby(keys, sort=False, dropna=False):
        c = color_of.get(curve[hue].iloc[0], "0.6") if hue else "0.6"
        axis.plot(curve["fpr"], curve["tpr"], color=c, **line_kw)
    for _key, curve in merged.groupby(merged_keys, sort=False, dropna=False):
        c = "black" if hue in (None, FOLD) else color_of.get(curve[hue].iloc[0], "black")
        axis.plot(curve["fpr"], curve["tpr"], color=c, linewidth=2.2)
    from matplotlib.lines import Line2D

    handles: dict[str, Any] = {}
    if hue in (None, FOLD):
        n_curves = folds_.groupby(keys, sort=False, dropna=False).ngroups
        one_rep = n_values(folds_, rep) <= 1 if rep else True
        if hue == FOLD and n_curves <= MAX_FOLD_ENTRIES and one_rep:
            for f, part in folds_.groupby(FOLD, sort=False):
                label = _with_auc(f"fold {f}", _curve_aucs(part, keys))
                handles[label] = Line2D([], [], color=color_of.get(f, "0.6"), linewidth=1.2)
        elif n_curves:
            first = "0.6" if hue is None else next(iter(color_of.values()))
            label = _with_auc(f"{n_curves} folds", _curve_aucs(folds_, keys))
            handles[label] = Line2D([], [], color=first, lw=1.2)
        m = _curve_aucs(merged, merged_keys)
        n_merged = merged.groupby(merged_keys, sort=False, dropna=False).ngroups
        if n_merged:
            extra = f", {n_merged} repeats" if n_merged > 1 else ""
            label = _with_auc("merged", m, extra)
            handles[label] = Line2D([], [], color="black", linewidth=2.2)
    else:
        for level, color in color_of.items():
            f_auc = _curve_aucs(folds_[folds_[hue] == level], keys)
            m_auc = _curve_aucs(merged[merged[hue] == level], merged_keys)
            if (folds_[hue] == level).any() or (merged[hue] == level).any():
                text = str(level)
                if f_auc is not None and m_auc is not None:
                    text = f"{level}: {_mean_sd(f_auc)} | {_mean_sd(m_auc)}"
                handles[text] = Line2D([], [], color=color, linewidth=2.2)
    with_auc = "auc" in data.columns
    return handles, "AUC: folds | merged" if hue not in (None, FOLD) and with_auc else None


def _with_auc(label: str, aucs: np.ndarray | None, extra: str = "") -> str:
    """ "fold 3 (AUC 0.91)"; the label alone (with ``extra`` in parentheses) without AUCs."""
    if aucs is None:
        return f"{label} ({extra.lstrip(', ')})" if extra else label
    return f"{label} (AUC {_mean_sd(aucs)}{extra})"


@doc
def score_rates(
    data: Any,
    *,
    classes: Sequence[Hashable] | Hashable | None = None,
    hue: str | None = FOLD,
    col: str | None = "rate",
    row: str | None = None,
    col_wrap: int | None = None,
    height: float = 3.0,
    aspect: float = 1.3,
    palette: Any = None,
    logx: bool = False,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
    **kwargs: Any,
) -> Any:
    r"""Each fold's false and true positive rate against the score threshold (Figure 3).

    **Figure-level** (a seaborn FacetGrid of step lines, as :func:`seaborn.relplot` draws
    them with ``units``): by default one column per rate
    ("false positive rate", "true positive rate"), one row per class (or model, or
    "model = lr | class = 3" when there are several of both), one colour per fold. Curves
    shifted along the score axis mean the fold models are not calibrated with each other:
    sorting all folds' scores together (AUC_merge) then mixes incomparable scores (Forman &
    Scholz 2010, Figure 3). The rates are :func:`cvframe.scores.score_rates`.

    Parameters
    ----------
    data : pandas.DataFrame (or dask DataFrame)
        A predictions frame with scores, or its :func:`cvframe.scores.score_rates` table,
        possibly filtered with pandas first.
    <<plot_classes>>
    hue : str or None, default "fold"
        Column giving the colour (``"repeat"``, ``"model"``, ...).
    col, row : str, optional
        Columns giving the panels; ``col="rate"`` puts FPR and TPR side by side. Default
        row: the class or model when there are several (both: one row per pair).
    <<plot_col_wrap>>
    <<plot_size>>
    <<plot_palette>>
    logx : bool, default False
        The paper's log axis with '0' at the smallest score (Figure 3): the x data are the
        thresholds shifted so that the panel's smallest score sits just right of the
        origin, :math:`x = t - s_{min} + \delta` with
        :math:`\delta = 10^{-3}(s_{max} - s_{min})` (:math:`\delta = 1` when all scores
        are equal), drawn on a log-scaled axis; :math:`s_{min}, s_{max}` are the smallest
        and largest score of the panel (class, and model of a stacked frame) over all its
        folds and repeats, so the folds keep their relative shifts. SVM decision values,
        negative ones included, draw as in the paper.
    <<frame_columns>>
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.plot` of every line (e.g. ``linewidth``,
        ``alpha``); ``facet_kws`` to :class:`seaborn.FacetGrid`; ``legend=False`` leaves
        the ``hue`` legend out (default: shown for up to 10 ``hue`` levels).

    Returns
    -------
    seaborn.FacetGrid

    References
    ----------
    <<reference>>
    (There: Figure 3.)

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
    figure_level("score_rates", kwargs, "one panel per rate")
    check_size(height, aspect)
    args = frame_args(data, locals())
    compute = functools.partial(scores.score_rates, **args)
    sr = given(data, ("rate", "value", "threshold"), compute, "score_rates scores.score_rates")
    sr = select_classes(sr, classes)
    sr = sr[np.isfinite(sr["threshold"].astype(float))]
    if logx:
        panel = [str(c) for c in (*FRAME_DIMS, CLASS) if c in sr.columns]
        sr = _shift_scores(sr, panel)
    names = {"fpr": "false positive rate", "tpr": "true positive rate"}
    sr["rate"] = sr["rate"].map(lambda r: names.get(r, r))
    for name, value in (("hue", hue), ("col", col), ("row", row)):
        column_arg(name, value, sr)
    if "rate" not in (hue, col, row):
        raise ValueError(
            "the false and true positive rates need a place: neither hue, col nor row is "
            "'rate'; pass col='rate' (the default) or hue='rate'."
        )
    used: list[Any] = []
    if row is None and col_wrap is None:
        multi = [d for d in (*FRAME_DIMS, CLASS) if d not in (hue, col) and n_values(sr, d) > 1]
        if len(multi) == 1:
            row = multi[0]
        elif multi:
            sr["_panel"] = [
                " | ".join(f"{d} = {v}" for d, v in zip(multi, vals, strict=True))
                for vals in sr[multi].astype(str).itertuples(index=False)
            ]
            row = "_panel"
            used.extend(multi)
    used += [hue, col, row]
    check_single_panel_dims(sr, used, [*FRAME_DIMS, CLASS])
    n_hue = n_values(sr, hue) if hue else 0
    if hue is not None and pd.api.types.is_numeric_dtype(sr[hue]):
        sr[hue] = sr[hue].astype(str)  # categorical colours, not a colour bar
    n_panels = n_values(sr, col) if col else 1
    line_kw: dict[str, Any] = {"drawstyle": "steps-post", "linewidth": 1.2} | kwargs
    legend = line_kw.pop("legend", 0 < n_hue <= 10)
    facet_kws = {"margin_titles": False} | dict(line_kw.pop("facet_kws", {}))
    g = sns().FacetGrid(
        sr,
        col=col,
        row=row,
        col_wrap=wrap(n_panels, col_wrap, row) if col else None,
        col_order=[v for v in names.values() if v in set(sr["rate"])] if col == "rate" else None,
        height=height,
        aspect=aspect,
        **facet_kws,
    )
    color_of = (
        hue_colors(sr, hue, palette if palette is not None else fold_palette(n_hue)) if hue else {}
    )
    for (i, j, _k), part in g.facet_data():
        _rate_lines(g.facet_axis(i, j), part, hue, color_of, line_kw)
    if legend and color_of:
        _legend_out(g, color_of, str(hue), line_kw, 0.04 if facet_kws["margin_titles"] else 0.01)
    g.set_axis_labels(
        "score threshold - min + delta (log)" if logx else "score threshold",
        "rate (score >= threshold)",
    )
    ctx = context(sr, used, (CLASS, *CONTEXT))
    set_titles(g, row, col, ctx, names={"rate": "", "_panel": ""})
    if logx:
        for axis in g.axes.flat:
            axis.set_xscale("log")
    return finish(g)


#: Line properties the legend entries of :func:`score_rates` share with the lines (as seaborn's
#: relplot copies them into its legend).
_LEGEND_LINE_KEYS = ("alpha", "linestyle", "ls", "linewidth", "lw", "marker", "markersize", "ms")


def _rate_lines(
    axis: Any, part: pd.DataFrame, hue: str | None, color_of: dict[Any, Any], line_kw: Any
) -> None:
    """One panel of :func:`score_rates`: a line per fold (per repeat and fold) and ``hue``
    level, its points in threshold order, missing values left out; seaborn's
    ``lineplot(units=..., estimator=None)`` draws the same lines, at a quadratic cost in the
    number of panels that share their axes."""
    units = [c for c in (REPEAT, FOLD) if c in part.columns and c != hue]
    part = part.dropna(subset=["threshold", "value", *units, *([hue] if hue else [])])
    kw = dict(line_kw)
    default = kw.pop("color", kw.pop("c", "C0"))
    for level in color_of if hue else [None]:
        sub = part if level is None else part[part[hue] == level]
        if not len(sub):
            continue
        color = default if level is None else color_of[level]
        unit = sub[units].astype(str).agg("/".join, axis=1) if units else pd.Series(0, sub.index)
        for _u, line in sub.groupby(unit):  # in the order of the units' names, as seaborn's
            line = line.sort_values(["threshold", "value"])
            axis.plot(
                line["threshold"].to_numpy(float), line["value"].to_numpy(float), color=color, **kw
            )


def _legend_out(g: Any, color_of: dict[Any, Any], title: str, line_kw: Any, margin: float) -> None:
    """The ``hue`` legend of :func:`score_rates` beside the panels, right of the figure,
    placed as seaborn's ``FacetGrid.add_legend`` places it: the figure made wider by the
    legend and the panels kept left of it (also by a later ``g.tight_layout()``). The
    legend's width comes from a layout of the legend alone; ``add_legend`` draws the whole
    figure twice for it, the larger part of the time of a figure with many panels."""
    import matplotlib as mpl
    from matplotlib.lines import Line2D

    fig = g.figure
    common = {k: v for k, v in line_kw.items() if k in _LEGEND_LINE_KEYS}
    handles = [Line2D([], [], color=c, **common) for c in color_of.values()]
    legend = fig.legend(
        handles, [str(v) for v in color_of], scatterpoints=1, frameon=False, loc="center right"
    )
    legend.set_title(title, prop={"size": mpl.rcParams["legend.title_fontsize"]})
    width = legend.get_window_extent().width / fig.dpi
    fig_width, fig_height = fig.get_size_inches()
    fig.set_size_inches(fig_width + width, fig_height)
    right = 1 - (margin + width / (fig_width + width))
    fig.subplots_adjust(right=right)
    g._tight_layout_rect[2] = right  # what add_legend sets: FacetGrid.tight_layout keeps it
    g._legend = legend  # g.legend, as after add_legend


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

    #: raises the AttributeError of a missing name; cvframe.accessors makes ``pred.cv.plot.folds``
    #: name the namespace that has the plot (from the difference of the two plotters' methods)
    _missing: ClassVar[Callable[[Any, str], Any]] = object.__getattribute__

    def __getattr__(self, name: str) -> Any:
        return type(self)._missing(self, name)

    roc = as_method(roc)
    score_rates = as_method(score_rates)
    cost_roc = as_method(cost_roc)
    pr_curve = as_method(pr_curve)
    calibration = as_method(calibration)
