"""The ROC curves of a predictions frame with scores (``roc``): every fold's curve and the
merged one with their AUCs in the legend, one panel per class; it draws
:func:`cvframe.tidy.roc_table` (or the points of :func:`cvframe.scores.roc`)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import repeats, tidy
from .._core.docs import doc
from ..schema import FOLD
from ._facets import curve_keys, curve_table, draw_curves, facet_curves, fold_handles

__all__ = ["roc"]


#: Decimals of the AUCs in a legend: at least this many, more until the entries differ.
MIN_DIGITS, MAX_DIGITS = 2, 5


def _stats(values: np.ndarray | None) -> tuple[float, ...] | None:
    """The mean and sd (ddof=1) of the defined values, as :func:`cvframe.repeats.summary`
    gives them; one value alone; () when none is defined; None without AUCs."""
    if values is None:
        return None
    v = values[np.isfinite(values)]
    if len(v) <= 1:
        return tuple(float(x) for x in v)
    s = repeats.summary(xr.Dataset(), xr.DataArray(v, dims=FOLD), dim=FOLD)
    return float(s["mean"]), float(s["std"])


def digits(entries: list[tuple[float, ...] | None]) -> int:
    """The fewest decimals (2 to 5) that tell a panel's legend entries apart: entries whose
    numbers differ print differently, a value below 1 never prints as 1.00 (nor one above 0
    as 0.00), and a spread that is not 0 never prints as 0.00, so two models at AUC 0.9991
    and 0.9968 do not both read "1.00 ± 0.00".

    >>> digits([(0.91, 0.03), (0.85,)]), digits([(0.9991, 0.0004), (0.9968, 0.001)])
    (2, 4)
    """
    shown = [e for e in entries if e]
    for d in range(MIN_DIGITS, MAX_DIGITS + 1):
        texts = {tuple(f"{x:.{d}f}" for x in e) for e in shown}
        ok = len(texts) == len(set(shown))
        for x in (x for e in shown for x in e):
            text = float(f"{x:.{d}f}")
            if text in (0.0, 1.0) and x != text:
                ok = False  # 0.9996 as 1.00, or a spread of 0.0004 as 0.00
        if ok:
            return d
    return MAX_DIGITS


def _mean_sd(stats: tuple[float, ...] | None, d: int = MIN_DIGITS) -> str:
    """ "0.91 ± 0.03" with ``d`` decimals; one value alone; "undefined" for none."""
    if not stats:
        return "undefined"
    if len(stats) == 1:
        return f"{stats[0]:.{d}f}"
    return f"{stats[0]:.{d}f} ± {stats[1]:.{d}f}"


def _aucs(part: pd.DataFrame, keys: list[str]) -> np.ndarray | None:
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
    <<curve_facets>>
    <<plot_layout>>
    <<frame_columns>>
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.plot` of the fold curves (e.g. ``alpha``,
        ``linewidth``).

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
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 10.0, 10.5, 10.2, 11.0]})
    >>> g = df.cv.plot.roc()
    >>> g.ax.get_xlabel()
    'false positive rate'
    >>> [t.get_text() for t in g.ax.get_legend().get_texts()]
    ['fold 0 (AUC 0.75)', 'fold 1 (AUC 1.00)', 'merged (AUC 0.69)']
    """
    # a roc_table (AUC in the legends) or a scores.roc frame (curves only) is drawn as it is
    columns, axes = ("kind", "fpr", "tpr"), ("false positive rate", "true positive rate")
    pts = curve_table("roc", data, locals(), columns, tidy.roc_table, "tidy.roc_table")
    return facet_curves(pts, locals(), _panel, axes)


def _panel(
    axis: Any, data: pd.DataFrame, hue: str | None, color_of: dict[Any, Any], line_kw: Any
) -> tuple[dict[str, Any], str | None]:
    """One panel: the fold curves (thin), the merged curves (thick); its legend's entries
    (with the AUCs) and title."""
    from matplotlib.lines import Line2D

    keys, merged_keys = curve_keys(data)
    axis.plot([0, 1], [0, 1], color="0.8", linestyle=":", linewidth=1)
    xy = ("fpr", "tpr")
    folds, merged = draw_curves(axis, data, hue, color_of, xy, line_kw, {"linewidth": 2.2})
    if hue in (None, FOLD):
        seen: list[tuple[float, ...] | None] = []

        def label(text: str, part: pd.DataFrame) -> str:
            seen.append(_stats(_aucs(part, keys)))
            return text

        fold_handles(folds, hue, color_of, label)  # the AUCs the legend will show
        m_stats = _stats(_aucs(merged, merged_keys))
        d = digits([*seen, m_stats])
        handles = fold_handles(
            folds, hue, color_of, lambda t, p: _with_auc(t, _stats(_aucs(p, keys)), d)
        )
        n_merged = merged.groupby(merged_keys, sort=False, dropna=False).ngroups
        if n_merged:
            extra = f", {n_merged} repeats" if n_merged > 1 else ""
            handles[_with_auc("merged", m_stats, d, extra)] = Line2D(
                [], [], color="black", linewidth=2.2
            )
        return handles, None
    rows = []
    for level, color in color_of.items():
        if (folds[hue] == level).any() or (merged[hue] == level).any():
            f_auc = _stats(_aucs(folds[folds[hue] == level], keys))
            m_auc = _stats(_aucs(merged[merged[hue] == level], merged_keys))
            rows.append((level, color, f_auc, m_auc))
    d = digits([f + m if f is not None and m is not None else None for *_, f, m in rows])
    entries: dict[str, Any] = {}
    for level, color, f_auc, m_auc in rows:
        text = str(level)
        if f_auc is not None and m_auc is not None:
            text = f"{level}: {_mean_sd(f_auc, d)} | {_mean_sd(m_auc, d)}"
        entries[text] = Line2D([], [], color=color, linewidth=2.2)
    return entries, "AUC: folds | merged" if "auc" in data.columns else None


def _with_auc(label: str, stats: tuple[float, ...] | None, d: int, extra: str = "") -> str:
    """ "fold 3 (AUC 0.91)" with ``d`` decimals; the label alone (with ``extra`` in
    parentheses) without AUCs."""
    if stats is None:
        return f"{label} ({extra.lstrip(', ')})" if extra else label
    return f"{label} (AUC {_mean_sd(stats, d)}{extra})"
