"""Cost-sensitive ROC plot: the ROC curve, its convex hull, the iso-cost line at the given
costs and prior, and the optimal operating point. It draws :func:`cvframe.tidy.cost_roc_table`
(from :func:`cvframe.scores.roc`, :func:`cvframe.scores.roc_hull` and
:func:`cvframe.scores.optimal_operating_point`)."""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import tidy
from .._core.docs import doc
from ..schema import FOLD, REPEAT
from ._facets import curve_keys, curve_table, facet_grid
from ._style import finish, n_values

__all__ = ["cost_roc"]

#: The grey of the iso-cost lines.
ISO = "0.45"


@doc
def cost_roc(
    df: Any,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    prevalence: float | None = None,
    method: str = "merge",
    *,
    classes: Sequence[Hashable] | Hashable | None = None,
    hue: str | None = None,
    col: str | None = None,
    row: str | None = None,
    col_wrap: int | None = None,
    height: float = 3.6,
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
    r"""The ROC curve, its convex hull, the iso-cost line and the optimal operating point.

    **Figure-level** (like :func:`seaborn.relplot`): one panel per class (``col``), wrapped
    at most four wide; one colour per fold (``method="fold"``), per repeat, or per model of
    a stacked frame (``hue``). For each class (one-vs-all) and each fold
    (``method="fold"``) or each repeat's pooled scores (``method="merge"``): the ROC points
    (thin line), the vertices of their convex hull (dashed, with markers), the iso-cost
    line of slope :math:`m = c_{FP}(1-\pi)/(c_{FN}\pi)` through the optimal vertex (grey)
    and that vertex (a star, labelled with its threshold and expected cost when the panel
    has one curve). Points above the line would cost less; none of the curve is. The rows
    drawn are :func:`cvframe.tidy.cost_roc_table`.

    Parameters
    ----------
    df : pandas.DataFrame (or dask DataFrame)
        A predictions frame with scores, or its :func:`cvframe.tidy.cost_roc_table`,
        possibly filtered with pandas first (the costs are then the table's).
    cost_fp, cost_fn, prevalence :
        As in :func:`cvframe.scores.optimal_operating_point` (prevalence: default the
        data's).
    method : {"merge", "fold"}, default "merge"
        The pooled curve of each repeat, or one curve per fold.
    <<plot_classes>>
    hue : str, optional
        Column giving the colour: default ``model`` (or another stacked dim) when the frame
        has several, else ``fold`` for ``method="fold"``, else ``repeat`` when there are
        several; without any, the curves are black.
    col, row : str, optional
        Columns giving the panels: default one column per class, or per model when there
        is one class and ``hue`` is not the model.
    <<plot_layout>>
    <<frame_columns>>
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.plot` of the ROC curves (e.g. ``alpha``,
        ``linewidth``).

    <<curve_raises>>

    References
    ----------
    <<cost_refs>>

    Examples
    --------
    >>> import pandas as pd, cvframe
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 0, 0],
    ...                    "y_true": [1, 0, 1, 1, 0, 0],
    ...                    "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.1]})
    >>> g = cvframe.plot.cost_roc(df, cost_fp=1, cost_fn=1)
    >>> g.ax.get_xlabel()
    'false positive rate'
    >>> g = df.cv.plot.cost_roc(cost_fp=5, method="fold", height=3)
    """
    compute = functools.partial(
        tidy.cost_roc_table, cost_fp=cost_fp, cost_fn=cost_fn, prevalence=prevalence, method=method
    )
    table = curve_table(
        "cost_roc", df, locals(), ("part", "fpr", "tpr"), compute, "tidy.cost_roc_table"
    )
    axes = ("false positive rate", "true positive rate")
    g, table, hue, color_of = facet_grid(table, locals(), axes, _default_hue)
    keys = curve_keys(table)[0]
    line_kw = {"linewidth": 1.0, "alpha": 0.5} | kwargs
    for (i, j, _k), part in g.facet_data():
        if len(part):
            _panel(g.facet_axis(i, j), part, keys, hue, color_of, line_kw)
    g.add_legend(legend_data=_handles(hue, color_of), label_order=list(_handles(hue, color_of)))
    return finish(g)


def _default_hue(table: pd.DataFrame) -> str | None:
    """The colour of the curves without a stacked dim: the fold, else the repeat (several)."""
    return FOLD if n_values(table, FOLD) else REPEAT if n_values(table, REPEAT) > 1 else None


def _panel(
    axis: Any,
    part: pd.DataFrame,
    keys: list[str],
    hue: str | None,
    color_of: dict[Any, Any],
    line_kw: dict[str, Any],
) -> None:
    """One panel: per curve its ROC points, hull vertices, iso-cost line and optimum."""
    axis.plot([0, 1], [0, 1], color="0.8", linestyle=":", linewidth=1)
    curves = list(part.groupby(keys, sort=False, dropna=False))
    for _key, curve in curves:
        color = color_of.get(curve[hue].iloc[0], "black") if hue else "black"
        roc, hull, best = (curve[curve["part"] == p] for p in tidy.PARTS)
        axis.plot(roc["fpr"], roc["tpr"], color=color, **line_kw)
        axis.plot(hull["fpr"], hull["tpr"], color=color, linestyle="--", marker="o", ms=3)
        for _, opt in best.iterrows():
            _iso_line(axis, opt, color, label=len(curves) == 1)
    axis.set_xlim(-0.02, 1.02)
    axis.set_ylim(-0.02, 1.02)
    axis.set_aspect("equal")


def _handles(hue: str | None, color_of: dict[Any, Any]) -> dict[str, Any]:
    """The legend: the hue levels (up to 10), then what the line styles mean."""
    from matplotlib.lines import Line2D

    handles: dict[str, Any] = {}
    if hue is not None and 1 < len(color_of) <= 10:
        named = hue in (FOLD, REPEAT)
        for level, c in color_of.items():
            handles[f"{hue} {level}" if named else str(level)] = Line2D([], [], color=c)
    handles["ROC convex hull"] = Line2D([], [], color="0.2", linestyle="--", marker="o", ms=3)
    handles["iso-cost line"] = Line2D([], [], color=ISO)
    handles["optimal point"] = Line2D(
        [], [], color="0.2", marker="*", ms=10, linestyle="", markeredgecolor="black"
    )
    return handles


def _iso_line(axis: Any, row: pd.Series, color: Any, label: bool) -> None:
    """The iso-cost line through the optimum, and the optimum labelled with its threshold."""
    x0, y0, m = float(row["fpr"]), float(row["tpr"]), float(row["slope"])
    if np.isinf(m):
        axis.plot([x0, x0], [0, 1], color=ISO, linewidth=1)
    else:
        xs = np.array([0.0, 1.0])
        axis.plot(xs, y0 + m * (xs - x0), color=ISO, linewidth=1)
    axis.plot([x0], [y0], marker="*", ms=12, color=color, markeredgecolor="black", zorder=5)
    if label:  # one curve per panel: label its optimum (several would overlap)
        axis.annotate(
            f"t = {row['threshold']:.3g}\nEC = {row['expected_cost']:.3g}",
            (x0, y0),
            # towards the panel's inside: never over the tick labels or out of the panel
            xytext=(8 if x0 < 0.5 else -8, -8 if y0 > 0.5 else 8),
            textcoords="offset points",
            ha="left" if x0 < 0.5 else "right",
            va="top" if y0 > 0.5 else "bottom",
            fontsize=9,
        )
