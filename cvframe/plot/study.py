"""Plots of the simulation: the bias of the five methods (``bias``, Figures 4-8) and the risk
of a fold without positives (``fold_risk``, Figure 9). ``bias`` draws
:func:`cvframe.tidy.bias_table`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import tidy
from .._checks import choice
from ..reduce import F_METHODS
from ..tidy import METHOD_LABELS
from ._style import method_palette, percent, plt, sns

__all__ = ["bias", "fold_risk"]


def bias(
    study: xr.Dataset,
    *,
    y: str = "rel_bias",
    x: str = "prevalence",
    height: float = 3.2,
    aspect: float = 1.2,
) -> Any:
    """Relative bias or relative std of the five F methods (Forman & Scholz 2010, Figs 4-8).

    Parameters
    ----------
    study : xarray.Dataset
        The result of :func:`cvframe.bias_study` (dims ``stratified``, ``prevalence``,
        ``f``, ``estimator``), in memory (``stratified`` booleans) or read back from the
        file ``cvframe simulate --out`` writes ("yes"/"no"); both draw the same panels
        (see :func:`cvframe.tidy.bias_table`).
    y : {"rel_bias", "rel_std", "p_undefined"}, default "rel_bias"
    x : {"prevalence", "f"}, default "prevalence"
        The x axis; the other one gets a facet row per value when it has several.
    height, aspect : float

    Returns
    -------
    seaborn.FacetGrid
        One column per ``stratified`` value.

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
    seaborn = sns()
    x = choice("x", x, ["prevalence", "f"])
    frame = tidy.bias_table(study, y=y)
    other = "f" if x == "prevalence" else "prevalence"
    row = None
    if other in frame.columns and frame[other].nunique() > 1:
        frame["_row"] = f"{other} = " + frame[other].map(lambda v: f"{v:g}")
        row = "_row"
    ylabel = {
        "rel_bias": "relative bias (mean - f) / f",
        "rel_std": "relative std (sd / f)",
        "p_undefined": "P(some fold undefined)",
    }[y]
    hue = "estimator" if "estimator" in frame.columns else None
    col = "stratified" if "stratified" in frame.columns else None
    g = seaborn.relplot(
        data=frame,
        kind="line",
        x=x,
        y=y,
        hue=hue,
        style=hue,
        hue_order=[METHOD_LABELS[m] for m in F_METHODS] if hue else None,
        markers=True,
        dashes=False,
        col=col,
        row=row,
        col_order=[v for v in ("stratified", "unstratified") if v in set(frame[col])]
        if col
        else None,
        palette=method_palette() if hue else None,
        height=height,
        aspect=aspect,
        facet_kws={"margin_titles": row is not None, "sharey": y != "rel_bias"},
    )
    xlabel = "prevalence (share of positives)" if x == "prevalence" else "ground-truth F"
    g.set_axis_labels(xlabel, ylabel)
    g.set_titles(col_template="{col_name}", row_template="{row_name}")
    for axis in g.axes.flat:
        if y == "rel_bias":
            axis.axhline(0, color="0.6", linewidth=0.8, zorder=0)
        axis.yaxis.set_major_formatter(percent())
        if x == "prevalence":
            axis.xaxis.set_major_formatter(percent())
    return g


def fold_risk(
    n_pos: Any = None,
    *,
    n: int = 1000,
    k: int = 10,
    trials: Sequence[int] = (1, 1000),
    ax: Any = None,
) -> Any:
    """Probability that unstratified k-fold CV leaves some fold without positives (Figure 9).

    Values from :func:`cvframe.p_fold_without_positives` (exact), one line per number of
    independent trials (splits, classes or data sets).

    Parameters
    ----------
    n_pos : array-like of int, optional
        Numbers of positives on the x axis (default 10 to 200).
    n, k : int
        Cases and folds.
    trials : sequence of int, default (1, 1000)
    ax : matplotlib Axes, optional

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
    seaborn = sns()
    from ..simulation import p_fold_without_positives

    n_pos = np.arange(10, 201) if n_pos is None else np.asarray(n_pos)
    frames = []
    for t in trials:
        p = np.asarray(p_fold_without_positives(n_pos, n=n, k=k, trials=t), dtype=float)
        frames.append(
            pd.DataFrame(
                {
                    "positives": n_pos,
                    "p": np.broadcast_to(p, n_pos.shape),
                    "trials": f"{t} trial" + ("s" if t != 1 else ""),
                }
            )
        )
    frame = pd.concat(frames, ignore_index=True)
    if ax is None:
        _, ax = plt().subplots(figsize=(6, 3.8))
    seaborn.lineplot(
        data=frame,
        x="positives",
        y="p",
        hue="trials",
        style="trials",
        ax=ax,
        palette="dark",
        linewidth=1.8,
    )
    ax.set_xlabel("positives in the data set")
    ax.set_ylabel("P(some fold has no positives)")
    ax.set_title(f"unstratified {k}-fold CV, n = {n}")
    ax.set_ylim(-0.02, 1.02)
    ax.yaxis.set_major_formatter(percent())
    ax.grid(alpha=0.3)
    return ax
