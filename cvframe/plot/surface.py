"""The F-measure surface (Forman & Scholz 2010, Figure 1): F over precision × recall, and over
false × true positive rate at a given prevalence. It draws :func:`cvframe.tidy.f_surface_table`
(values from :func:`cvframe.formulas.f_from_pr` and :func:`cvframe.formulas.f_from_rates`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import metrics, tidy
from .._core import checks as _checks
from .._core.docs import doc
from ._style import finish, new_axes

__all__ = ["f_surface"]


@doc
def f_surface(
    kind: str = "roc",
    prevalence: float = 0.1,
    beta: float = 1.0,
    ax: Any = None,
    *,
    levels: int | Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
    resolution: int = 301,
    cmap: str = "viridis",
    data: pd.DataFrame | None = None,
) -> Any:
    r"""Contour plot of the F-measure over precision × recall or over FPR × TPR.

    **Axes-level**: draws on ``ax`` (or a new figure) and returns it.

    - ``kind="pr"``: :math:`F_\beta = (1+\beta^2) P R / (\beta^2 P + R)` with recall on
      the x axis and precision on the y axis (Figure 1a; the prevalence plays no part);
    - ``kind="roc"``: F as a function of the false positive rate (x) and the true positive
      rate (y) at the given prevalence :math:`\pi`, with precision
      :math:`\pi\,TPR / (\pi\,TPR + (1-\pi)FPR)` (Figure 1b, drawn there at 1 % positives):
      the rarer the positives, the sharper F falls with any false positive rate.

    Parameters
    ----------
    kind : {"roc", "pr"}, default "roc"
    prevalence : float in (0, 1), default 0.1
        The share of positives (``kind="roc"`` only).
    beta : float, default 1
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure.
    levels : int or sequence of float, default 0.1, 0.2, ..., 0.9
        The F values of the labelled contour lines (an int: that many levels).
    resolution : int, default 301
        Grid points per axis.
    cmap : str, default "viridis"
    data : pandas.DataFrame, optional
        A :func:`cvframe.tidy.f_surface_table` to draw (``kind``, ``prevalence``, ``beta``
        and ``resolution`` are then the table's); default: that table computed from them.

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    <<reference>>
    (There: Figure 1.)

    Examples
    --------
    >>> import cvframe
    >>> ax = cvframe.plot.f_surface("roc", prevalence=0.01)
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('false positive rate', 'true positive rate')
    >>> ax.get_title()
    'F1 at 1% positives'
    """
    if data is None:
        data = tidy.f_surface_table(kind, prevalence, beta, resolution=resolution)
    x, y, z, kind = _grid(data)
    b, pi = data.attrs.get("beta", beta), data.attrs.get("prevalence", prevalence)
    lines: int | list[float]
    if isinstance(levels, (int, np.integer, bool)):
        lines = _checks.integer("levels", levels, low=1)
    else:
        lines = [_checks.real("levels", v, 0.0, 1.0) for v in levels]
        if not lines:
            raise ValueError("levels=[] is empty; give the F values to draw, or an int.")
    if kind == "pr":
        ylabel, xlabel = metrics.REGISTRY["f"].components
        title = f"F{b:g} over precision and recall"
    else:
        xlabel, ylabel = "false positive rate", "true positive rate"
        title = f"F{b:g} at {100 * pi:g}% positives"
    if ax is None:
        ax = new_axes((4.8, 4.0))
    filled = ax.contourf(x, y, z, levels=np.linspace(0.0, 1.0, 21), cmap=cmap, vmin=0, vmax=1)
    contours = ax.contour(x, y, z, levels=lines, colors="white", linewidths=0.8)
    ax.clabel(contours, fmt="%.2g", fontsize=9)
    ax.figure.colorbar(filled, ax=ax, label=f"F{b:g}", ticks=np.linspace(0, 1, 6))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.set_aspect("equal")
    return finish(ax)


def _grid(data: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """The x, y and F grids of an f_surface_table (a reshape), and its kind."""
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a cvframe.tidy.f_surface_table; got {type(data).__name__}.")
    kind = next((k for k, (x, y) in tidy.SURFACE_AXES.items() if {x, y, "f"} <= set(data)), None)
    if kind is None or data.empty:
        raise ValueError(
            f"data has the columns {list(data.columns)} ({len(data)} rows); f_surface draws "
            "cvframe.tidy.f_surface_table(kind): recall, precision, f or fpr, tpr, f."
        )
    xname, yname = tidy.SURFACE_AXES[kind]
    grid = data.pivot(index=yname, columns=xname, values="f")
    x, y = np.meshgrid(grid.columns.to_numpy(float), grid.index.to_numpy(float))
    return x, y, grid.to_numpy(float), kind
