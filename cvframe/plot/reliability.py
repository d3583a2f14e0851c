"""The reliability diagram of a predictions frame with probability scores (``calibration``):
every fold's curve, the merged one and the band of the folds, one panel per class; it draws
:func:`cvframe.scores.calibration_curve`."""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from typing import Any

import pandas as pd

from .. import scores
from .._core.docs import doc
from ..schema import CLASS, FOLD
from ._facets import (
    MAX_FOLD_ENTRIES,
    curve_colour,
    curve_keys,
    curve_table,
    draw_curves,
    facet_curves,
    fold_handles,
)

__all__ = ["calibration"]


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


def _panel(
    axis: Any, data: pd.DataFrame, hue: Any, color_of: dict[Any, Any], line_kw: dict[str, Any]
) -> tuple[dict[str, Any], str | None]:
    """The diagonal, the band of the folds, the merged curves (bold, on top, first in the
    legend) and, when there are few, the fold curves (thin): with more than
    :data:`MAX_FOLD_ENTRIES` fold curves in the panel (ten folds, repeats, rare positives
    whose curves jump from bin to bin) the band alone stands for them."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    axis.plot([0, 1], [0, 1], color="0.8", linestyle=":", linewidth=1)
    folds = data[data["kind"] == "fold"]
    n_curves = folds.groupby(curve_keys(folds)[0], sort=False, dropna=False).ngroups
    lines = 0 < n_curves <= MAX_FOLD_ENTRIES
    band_keys = [k for k in curve_keys(data)[1] if k != CLASS or hue == CLASS]
    has_band = False
    for _key, part in folds.groupby(band_keys or (lambda _: 0), sort=False, dropna=False):
        band = _band(part)
        if len(band):
            c = "0.5" if hue in (None, FOLD) else curve_colour(part, hue, color_of, True)
            axis.fill_between(band["x"], band["lo"], band["hi"], color=c, alpha=0.18, lw=0)
            has_band = True
    xy = ("prob_pred", "prob_true")
    merged_kw = {"lw": 2.2, "marker": "o", "ms": 3.5, "zorder": 3}
    drawn = data if lines else data[data["kind"] == "merged"]
    _, merged = draw_curves(axis, drawn, hue, color_of, xy, line_kw, merged_kw)
    handles: dict[str, Any] = {}
    if len(merged) and hue in (None, FOLD):
        handles["merged"] = Line2D([], [], color="black", linewidth=2.2, marker="o", ms=3.5)
    by_hue = fold_handles(folds, hue, color_of) if hue not in (None, FOLD) else {}
    handles.update(by_hue)  # a colour per model: its merged curve
    if has_band:
        what = "range of folds" if lines else f"range of {n_curves} fold curves"
        handles[what] = Patch(color="0.5", alpha=0.25, lw=0)
    if lines and hue in (None, FOLD):
        handles.update(fold_handles(folds, hue, color_of))
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
    """Reliability diagram: the pooled curve (bold) first, the band of the folds around it.

    **Figure-level**: one panel per class (``col``), one colour per fold or per model
    (``hue``). In every panel the dotted diagonal is perfect calibration; the merged
    (pooled) curve is a bold line with markers, drawn on top and first in the legend, and a
    shaded band spans, bin by bin, the lowest to the highest observed fraction of positives
    among the folds (drawn at their mean predicted probability; bins with at least two
    folds). Each fold's curve is a thin line only when a panel has at most five of them;
    with more (ten folds, repeats, ten classes of rare positives whose fold curves jump
    from bin to bin) the band stands for them, so the panel is not a tangle of lines. A
    wide band says a pooled reliability diagram hides fold-to-fold differences. The
    curves are :func:`cvframe.scores.calibration_curve`.

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
    <<curve_facets>>
    <<plot_layout>>
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
    ['merged', 'range of folds', 'fold 0', 'fold 1']
    """
    columns = ("kind", "prob_pred", "prob_true")
    axes = ("mean predicted probability", "fraction of positives")
    compute = functools.partial(
        scores.calibration_curve, bins=bins, method="both", strategy=strategy
    )
    table = "scores.calibration_curve"
    pts = curve_table("calibration", data, locals(), columns, compute, table)
    return facet_curves(pts, locals(), _panel, axes)
