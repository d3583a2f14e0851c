"""The F-measure surface (Forman & Scholz 2010, Figure 1): F over precision × recall, and over
false × true positive rate at a given prevalence. The values come from
:func:`cvframe.formulas.f_from_pr` and :func:`cvframe.formulas.f_from_rates`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _checks, formulas
from ._style import finish, new_axes

__all__ = ["f_surface"]

KINDS = ("pr", "roc")


def f_surface(
    kind: str = "roc",
    prevalence: float = 0.1,
    beta: float = 1.0,
    ax: Any = None,
    *,
    levels: int | Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
    resolution: int = 301,
    cmap: str = "viridis",
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

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls in
    Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, Figure 1.

    Examples
    --------
    >>> import cvframe
    >>> ax = cvframe.plot.f_surface("roc", prevalence=0.01)
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('false positive rate', 'true positive rate')
    >>> ax.get_title()
    'F1 at 1% positives'
    """
    kind = _checks.choice("kind", kind, KINDS)
    b = _checks.beta(beta)
    pi = _checks.real("prevalence", prevalence, 0.0, 1.0, low_open=True, high_open=True)
    n = _checks.integer("resolution", resolution, low=3)
    lines: int | list[float]
    if isinstance(levels, (int, np.integer, bool)):
        lines = _checks.integer("levels", levels, low=1)
    else:
        lines = [_checks.real("levels", v, 0.0, 1.0) for v in levels]
        if not lines:
            raise ValueError("levels=[] is empty; give the F values to draw, or an int.")
    grid = np.linspace(0.0, 1.0, n)
    x, y = np.meshgrid(grid, grid)
    if kind == "pr":
        z = formulas.f_from_pr(y, x, b)  # x: recall, y: precision
        xlabel, ylabel = "recall", "precision"
        title = f"F{b:g} over precision and recall"
    else:
        z = formulas.f_from_rates(y, x, pi, b)  # x: FPR, y: TPR
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
