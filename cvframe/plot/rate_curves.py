"""Each fold's false and true positive rate against the score threshold (``score_rates``, the
paper's Figure 3), one panel per rate and class; it draws :func:`cvframe.scores.score_rates`."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import scores
from .._core.docs import doc
from ..schema import CLASS, FOLD, FRAME_DIMS, REPEAT
from . import _style
from ._facets import curve_table

__all__ = ["LOGX_DELTA", "score_rates"]


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
    <<plot_layout>>
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
    columns, table = ("rate", "value", "threshold"), "scores.score_rates"
    sr = curve_table("score_rates", data, locals(), columns, scores.score_rates, table, "per rate")
    sr = _style.select_classes(sr, classes)
    sr = sr[np.isfinite(sr["threshold"].astype(float))]
    if logx:
        panel = [str(c) for c in (*FRAME_DIMS, CLASS) if c in sr.columns]
        sr = _shift_scores(sr, panel)
    names = {"fpr": "false positive rate", "tpr": "true positive rate"}
    sr["rate"] = sr["rate"].map(lambda r: names.get(r, r))
    for name, value in (("hue", hue), ("col", col), ("row", row)):
        _style.column_arg(name, value, sr)
    if "rate" not in (hue, col, row):
        raise ValueError(
            "the false and true positive rates need a place: neither hue, col nor row is "
            "'rate'; pass col='rate' (the default) or hue='rate'."
        )
    used: list[Any] = []
    if row is None and col_wrap is None:
        multi = [
            d for d in (*FRAME_DIMS, CLASS) if d not in (hue, col) and _style.n_values(sr, d) > 1
        ]
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
    _style.check_single_panel_dims(sr, used, [*FRAME_DIMS, CLASS])
    n_hue = _style.n_values(sr, hue) if hue else 0
    if hue is not None and pd.api.types.is_numeric_dtype(sr[hue]):
        sr[hue] = sr[hue].astype(str)  # categorical colours, not a colour bar
    n_panels = _style.n_values(sr, col) if col else 1
    line_kw: dict[str, Any] = {"drawstyle": "steps-post", "linewidth": 1.2} | kwargs
    legend = line_kw.pop("legend", 0 < n_hue <= 10)
    facet_kws = {"margin_titles": False} | dict(line_kw.pop("facet_kws", {}))
    g = _style.sns().FacetGrid(
        sr,
        col=col,
        row=row,
        col_wrap=_style.wrap(n_panels, col_wrap, row) if col else None,
        col_order=[v for v in names.values() if v in set(sr["rate"])] if col == "rate" else None,
        height=height,
        aspect=aspect,
        **facet_kws,
    )
    color_of = (
        _style.hue_colors(sr, hue, palette if palette is not None else _style.fold_palette(n_hue))
        if hue
        else {}
    )
    for (i, j, _k), part in g.facet_data():
        _rate_lines(g.facet_axis(i, j), part, hue, color_of, line_kw)
    if legend and color_of:
        _legend_out(g, color_of, str(hue), line_kw)
    g.set_axis_labels(
        "score threshold - min + delta (log)" if logx else "score threshold",
        "rate (score >= threshold)",
    )
    ctx = _style.context(sr, used, (CLASS, *_style.CONTEXT))
    _style.set_titles(g, row, col, ctx, names={"rate": "", "_panel": ""})
    if logx:
        for axis in g.axes.flat:
            axis.set_xscale("log")
    return _style.finish(g)


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


def _legend_out(g: Any, color_of: dict[Any, Any], title: str, line_kw: Any) -> None:
    """The ``hue`` legend of :func:`score_rates` beside the panels, right of the figure, by
    seaborn's ``FacetGrid.add_legend`` (which widens the figure for it and keeps the panels
    left of it, also through a later ``g.tight_layout()``). It draws the figure twice to
    measure the legend: the panels are hidden meanwhile, so that only the legend is drawn."""
    from matplotlib.lines import Line2D

    common = {k: v for k, v in line_kw.items() if k in _LEGEND_LINE_KEYS}
    handles = {str(v): Line2D([], [], color=c, **common) for v, c in color_of.items()}
    shown = [ax for ax in g.figure.axes if ax.get_visible()]
    for ax in shown:
        ax.set_visible(False)
    try:
        g.add_legend(legend_data=handles, title=title, label_order=list(handles))
    finally:
        for ax in shown:
            ax.set_visible(True)


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
