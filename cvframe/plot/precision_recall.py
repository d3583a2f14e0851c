"""The precision-recall curves of a predictions frame with scores (``pr_curve``): every fold's
curve and the merged one, one panel per class; it draws :func:`cvframe.scores.pr_curve`."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import pandas as pd

from .. import metrics, scores
from .._core.docs import doc
from ..schema import FOLD
from ._facets import curve_colour, curve_keys, curve_table, draw_curves, facet_curves, fold_handles

__all__ = ["pr_curve"]

#: The axes of a precision-recall curve, the parts of F.
_PARTS = metrics.REGISTRY["f"].components
_XY = (_PARTS[1], _PARTS[0])  # recall on x, precision on y


def _pr_panel(
    axis: Any, data: pd.DataFrame, hue: Any, color_of: dict[Any, Any], line_kw: dict[str, Any]
) -> tuple[dict[str, Any], str | None]:
    """Fold PR curves (thin), merged ones (thick), the positives' share (dotted)."""
    from matplotlib.lines import Line2D

    steps = {"drawstyle": "steps-pre"}
    folds, merged = draw_curves(
        axis, data, hue, color_of, _XY, steps | line_kw, steps | {"lw": 2.2}
    )
    for _key, curve in merged.groupby(curve_keys(data)[1], sort=False, dropna=False):
        share = float(curve[_PARTS[0]].iloc[-1])  # every sample predicted positive
        axis.axhline(share, color=curve_colour(curve, hue, color_of, True), ls=":", lw=1)
    handles = fold_handles(folds, hue, color_of)
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
    <<curve_facets>>
    <<plot_layout>>
    <<frame_columns>>
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.plot` of the fold curves (``alpha``,
        ``linewidth``...).

    <<curve_raises>>

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
    table, columns = "scores.pr_curve", ("kind", *_PARTS)
    pts = curve_table("pr_curve", data, locals(), columns, scores.pr_curve, table)
    return facet_curves(pts, locals(), _pr_panel, _XY)
