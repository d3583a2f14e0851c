"""The cost (or metric) of a tuned threshold against the threshold, with its uncertainty. It
draws :func:`cvframe.search.threshold_band` (the pooled curve of a
:class:`~cvframe.search.PooledThresholdClassifierCV` with its bootstrap band, the chosen
threshold, its spread and the corrected score); it computes nothing."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ._style import finish, new_axes

__all__ = ["threshold_band"]


def threshold_band(
    data: pd.DataFrame,
    *,
    ax: Any = None,
    color: Any = None,
    label: str | None = None,
    **kwargs: Any,
) -> Any:
    """The pooled curve against the threshold, its 95 % bootstrap band, the chosen threshold
    with the range of the thresholds chosen on the bootstrap samples, and the chosen
    threshold's score corrected for the choice with its interval.

    **Axes-level**. Lines: the pooled metric (or expected cost) at every candidate
    threshold; shaded: its 95 % band over bootstrap samples of the out-of-fold
    predictions; vertical line and grey span: the chosen threshold and the 95 % range of
    the bootstrap choices; small ticks at the bottom: each fold's own choice; the point
    with an error bar: the BBC-CV corrected score at the chosen threshold and its interval
    (which includes the threshold's variability).

    Parameters
    ----------
    data : pandas.DataFrame
        :func:`cvframe.search.threshold_band` of a fitted threshold search (``threshold``,
        ``score``, ``low``, ``high`` and its ``attrs``).
    ax : matplotlib Axes, optional
    color : optional
        Colour of the curve and band (default: the first of the palette).
    label : str, optional
        Legend label of the curve (default: the scoring's name).
    **kwargs
        Passed to ``ax.plot`` for the curve.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> import cvframe
    >>> from cvframe.search import threshold_band as band_of
    >>> X, y = make_classification(300, weights=[0.85], random_state=0)
    >>> clf = cvframe.PooledThresholdClassifierCV(LogisticRegression(), cv=5).fit(X, y)
    >>> ax = cvframe.plot.threshold_band(band_of(clf))
    >>> ax.get_xlabel()
    'threshold'
    """
    need = {"threshold", "score", "low", "high"}
    if not isinstance(data, pd.DataFrame) or not need <= set(data.columns):
        raise ValueError(
            f"data must be the frame of cvframe.search.threshold_band(clf) with columns "
            f"{sorted(need)}; got {type(data).__name__}"
            + (f" with columns {list(data.columns)[:8]}" if isinstance(data, pd.DataFrame) else "")
            + "."
        )
    a = data.attrs
    if ax is None:
        ax = new_axes((6.0, 3.8))
    color = color if color is not None else "C0"
    name = a.get("scoring", "score")
    ax.plot(data["threshold"], data["score"], color=color, label=label or name, **kwargs)
    band = data.dropna(subset=["low", "high"])
    if len(band):
        ax.fill_between(
            band["threshold"], band["low"], band["high"], color=color, alpha=0.2,
            linewidth=0, label="95% bootstrap band",
        )  # fmt: skip
    if "best_threshold" in a:
        lo, hi = a.get("threshold_low"), a.get("threshold_high")
        if lo is not None and hi is not None and lo == lo and hi == hi:
            ax.axvspan(lo, hi, color="0.5", alpha=0.15, linewidth=0, label="threshold, 95% range")
        ax.axvline(a["best_threshold"], color="0.3", linestyle="--", linewidth=1)
        c, clo, chi = a.get("corrected"), a.get("corrected_low"), a.get("corrected_high")
        if c is not None and c == c:
            ax.errorbar(
                [a["best_threshold"]], [c], yerr=[[c - clo], [chi - c]], fmt="o", color="k",
                capsize=3, label=f"corrected {c:.3f} [{clo:.3f}, {chi:.3f}]",
            )  # fmt: skip
        folds = a.get("fold_thresholds") or []
        if folds:
            ax.plot(
                folds, [0.0] * len(folds), "|", color="0.2", markersize=10,
                transform=ax.get_xaxis_transform(), label="per-fold choices",
            )  # fmt: skip
    ax.set_xlabel("threshold")
    ax.set_ylabel("expected cost" if name == "expected_cost" else name)
    ax.legend(fontsize="small", frameon=False)
    return finish(ax)
