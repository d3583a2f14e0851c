"""Plots of the simulation: the bias of the five methods (``bias``, Figures 4-8) and the risk
of a fold without positives (``fold_risk``, Figure 9). They draw
:func:`cvframe.tidy.bias_table` and :func:`cvframe.tidy.fold_risk_table`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from .. import tidy
from .._core.checks import choice
from .._core.docs import doc
from ..reduce import F_METHODS
from ..tidy import METHOD_LABELS
from . import _style

__all__ = ["bias", "fold_risk"]


@doc
def bias(
    study: Any,
    *,
    y: str = "rel_bias",
    x: str = "prevalence",
    hue: str | None = "estimator",
    col: str | None = "stratified",
    row: str | None = None,
    col_wrap: int | None = None,
    height: float = 3.2,
    aspect: float = 1.2,
    palette: Any = None,
    **kwargs: Any,
) -> Any:
    """Relative bias or relative std of the five F methods (Forman & Scholz 2010, Figs 4-8).

    **Figure-level**: a :func:`seaborn.relplot` of lines over :func:`cvframe.tidy.bias_table`:
    one colour per method, one column per ``stratified`` value, one row per value of the
    other grid dim (``f`` or ``prevalence``) when it has several.

    Parameters
    ----------
    study : xarray.Dataset or pandas.DataFrame
        The result of :func:`cvframe.bias_study` (dims ``stratified``, ``prevalence``,
        ``f``, ``estimator``), in memory (``stratified`` booleans) or read back from the
        file ``cvframe simulate --out`` writes ("yes"/"no"); both draw the same panels
        (see :func:`cvframe.tidy.bias_table`). Or that table, filtered with pandas.
    y : {"rel_bias", "rel_std", "p_undefined"}, default "rel_bias"
    x : {"prevalence", "f"}, default "prevalence"
        The x axis; the other one gets a facet row per value when it has several.
    hue, col, row : str, optional
        Columns of the table (default colour by ``estimator``, columns by ``stratified``).
    <<plot_col_wrap>>
    <<plot_size>>
    palette : seaborn palette, optional
        Default: one colour per method.
    **kwargs
        Passed to :func:`seaborn.relplot`.

    Returns
    -------
    seaborn.FacetGrid

    References
    ----------
    <<reference>>
    (There: Figures 4-8.)

    Examples
    --------
    >>> import numpy as np, xarray as xr, cvframe
    >>> est = ["f_tp_fp", "f_avg", "f_pr_re", "f_avg_skip", "f_pr_re_skip"]
    >>> study = xr.Dataset({"rel_bias": (("stratified", "prevalence", "f", "estimator"),
    ...                                  np.zeros((2, 3, 1, 5)))},
    ...                    coords={"stratified": [True, False],
    ...                            "prevalence": [0.01, 0.02, 0.05], "f": [0.8],
    ...                            "estimator": est})
    >>> g = cvframe.plot.bias(study)
    >>> [ax.get_title() for ax in g.axes.flat]
    ['stratified', 'unstratified']
    """
    _style.figure_level("bias", kwargs, "one panel per setting", height, aspect)
    seaborn = _style.sns()
    x = choice("x", x, ["prevalence", "f"])
    if isinstance(study, pd.DataFrame):
        y = choice("y", y, ["rel_bias", "rel_std", "p_undefined"])
        if y not in study.columns:
            raise ValueError(
                f"the table has no {y!r} column; pass cvframe.tidy.bias_table(study, y={y!r})."
            )
        frame = study.copy()
    else:
        frame = tidy.bias_table(study, y=y)
    other = "f" if x == "prevalence" else "prevalence"
    hue = hue if hue in frame.columns else None
    col = col if col in frame.columns else None
    _style.column_arg("row", row, frame)
    if row is None and col_wrap is None and other in frame.columns and frame[other].nunique() > 1:
        frame["_row"] = f"{other} = " + frame[other].map(lambda v: f"{v:g}")
        row = "_row"
    ylabel = {
        "rel_bias": "relative bias (mean - f) / f",
        "rel_std": "relative std (sd / f)",
        "p_undefined": "P(some fold undefined)",
    }[y]
    methods = hue == "estimator"
    kw: dict[str, Any] = {
        "style": hue,
        "markers": True,
        "dashes": False,
        "hue_order": [METHOD_LABELS[m] for m in F_METHODS if METHOD_LABELS[m] in set(frame[hue])]
        if methods
        else None,
        "facet_kws": {"sharey": y != "rel_bias"},
    } | kwargs
    n_col = frame[col].nunique() if col else 1
    g = seaborn.relplot(
        data=frame,
        kind="line",
        x=x,
        y=y,
        hue=hue,
        col=col,
        row=row,
        col_wrap=_style.wrap(n_col, col_wrap, row) if col else None,
        col_order=[v for v in ("stratified", "unstratified") if v in set(frame[col])]
        if col == "stratified"
        else None,
        palette=palette if palette is not None else (_style.method_palette() if methods else None),
        height=height,
        aspect=aspect,
        **kw,
    )
    xlabel = "prevalence (share of positives)" if x == "prevalence" else "ground-truth F"
    g.set_axis_labels(xlabel, ylabel)
    _style.set_titles(g, row, col, "", names={"_row": "", "stratified": ""})
    for axis in g.axes.flat:
        if y == "rel_bias":
            axis.axhline(0, color="0.6", linewidth=0.8, zorder=0)
        axis.yaxis.set_major_formatter(_style.percent())
        if x == "prevalence":
            axis.xaxis.set_major_formatter(_style.percent())
    return _style.finish(g)


def fold_risk(
    n_pos: Any = None,
    *,
    n: int = 1000,
    k: int = 10,
    trials: Sequence[int] = (1, 1000),
    ax: Any = None,
    data: pd.DataFrame | None = None,
    **kwargs: Any,
) -> Any:
    """Probability that unstratified k-fold CV leaves some fold without positives (Figure 9).

    Values from :func:`cvframe.p_fold_without_positives` (exact), one line per number of
    independent trials (splits, classes or data sets); the rows drawn are
    :func:`cvframe.simulation.fold_risk_curve`. **Axes-level**: draws on ``ax`` (or a new
    figure) and returns it.

    Parameters
    ----------
    n_pos : array-like of int, optional
        Numbers of positives on the x axis (default 10 to 200).
    n, k : int
        Cases and folds.
    trials : sequence of int, default (1, 1000)
    ax : matplotlib Axes, optional
    data : pandas.DataFrame, optional
        A :func:`cvframe.tidy.fold_risk_table` to draw (possibly filtered with pandas;
        ``n_pos``, ``n``, ``k`` and ``trials`` are then the table's); default: that table
        of ``n_pos`` x ``trials``.
    **kwargs
        Passed to :func:`seaborn.lineplot` (e.g. ``palette``, ``linewidth``).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import cvframe
    >>> ax = cvframe.plot.fold_risk(n_pos=[10, 20, 50, 100], n=1000, k=10)
    >>> ax.get_ylabel()
    'P(some fold has no positives)'
    """
    if data is None:
        from ..simulation import fold_risk_curve

        data = fold_risk_curve(n_pos, n=n, k=k, trials=trials)
    missing = {"positives", "trials", "p"} - set(getattr(data, "columns", ()))
    if missing:
        raise ValueError(
            f"data lacks the columns {sorted(missing)}; fold_risk draws "
            "cvframe.tidy.fold_risk_table (positives, trials, p)."
        )
    n, k = data.attrs.get("n", n), data.attrs.get("k", k)
    if ax is None:
        ax = _style.new_axes((6, 3.8))
    kw = {"hue": "trials", "style": "trials", "palette": "dark", "linewidth": 1.8} | kwargs
    _style.sns().lineplot(data=data, x="positives", y="p", ax=ax, **kw)
    ax.set_xlabel("positives in the data set")
    ax.set_ylabel("P(some fold has no positives)")
    ax.set_title(f"unstratified {k}-fold CV, n = {n}")
    ax.set_ylim(-0.02, 1.02)
    ax.yaxis.set_major_formatter(_style.percent())
    ax.grid(alpha=0.3)
    return _style.finish(ax)
