"""Plots of a model comparison: paired differences with intervals, the critical-difference diagram.

Both draw the Dataset :func:`cvframe.compare.compare` returns; they compute nothing (the
means, intervals, p-values, ranks and the critical difference are the result's variables).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ._style import finish, new_axes

__all__ = ["critical_difference", "differences"]

CONTRAST = "contrast"


def _check_result(result: Any, name: str, need: tuple[str, ...]) -> None:
    if not isinstance(result, xr.Dataset) or CONTRAST not in result.dims:
        raise TypeError(
            f"{name} draws the result of cvframe.compare (a Dataset over 'contrast'); "
            f"got {type(result).__name__}."
        )
    missing = [v for v in need if v not in result]
    if missing:
        raise ValueError(
            f"result lacks {missing}; {name} needs the variables {list(need)} of a "
            "cvframe.compare result."
        )


def _tidy(result: xr.Dataset, variables: list[str]) -> pd.DataFrame:
    """One row per contrast (and per cell of any kept dim), with a readable row label."""
    frame = result[variables].to_dataframe().reset_index()
    other = [d for d in result[variables[0]].dims if d != CONTRAST and result.sizes[d] > 1]
    if other:
        frame["row"] = frame[CONTRAST].astype(str) + frame[other].astype(str).apply(
            lambda r: " [" + ", ".join(f"{d}={v}" for d, v in zip(other, r, strict=True)) + "]",
            axis=1,
        )
    else:
        frame["row"] = frame[CONTRAST].astype(str)
    return frame


def differences(
    result: xr.Dataset,
    *,
    ax: Any = None,
    annotate: bool = True,
    color: Any = None,
    **kwargs: Any,
) -> Any:
    """Paired differences with their intervals, one row per contrast, against zero.

    **Axes-level**: draws on ``ax`` (or a new figure) and returns it.

    Each row is a contrast ``model - baseline`` of the compare result: a point at ``mean``,
    a bar from ``low`` to ``high`` (the ``level`` interval of the test), a line at 0 (no
    difference) and, with ``annotate``, the p-value. Rows whose difference is significant
    are drawn filled, the others hollow. For a Friedman result the x axis is the mean-rank
    difference and the bars span it plus/minus the critical difference.

    Parameters
    ----------
    result : xarray.Dataset
        The return value of :func:`cvframe.compare.compare` (variables ``mean``, ``low``,
        ``high``, ``p_value``; ``significant`` when present). Any dim besides ``contrast``
        (``class``, ...) gives one row per cell.
    ax : matplotlib Axes, optional
    annotate : bool, default True
        Write ``p=...`` beside every row.
    color : matplotlib color, optional
    **kwargs
        Passed to ``Axes.errorbar``.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import numpy as np, pandas as pd, xarray as xr, cvframe
    >>> from cvframe.comparison import compare
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200); fold = np.arange(200) % 10
    >>> ds = xr.concat([cvframe.from_predictions(y, np.where(rng.random(200) < a, y, 1 - y),
    ...                 fold) for a in (0.7, 0.8, 0.9)],
    ...                dim=pd.Index(["a", "b", "c"], name="model"))
    >>> ax = cvframe.plot.differences(compare(ds, "f", baseline="a"))
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['b - a', 'c - a']
    """
    friedman = result.attrs.get("test") == "friedman"
    centre = "rank_difference" if friedman else "mean"
    _check_result(result, "differences", (centre, "low", "high", "p_value"))
    variables = [centre, "low", "high", "p_value"] + (
        ["significant"] if "significant" in result else []
    )
    frame = _tidy(result, variables)
    if ax is None:
        ax = new_axes((6.4, 1.2 + 0.45 * len(frame)))
    pos = np.arange(len(frame))[::-1]
    color = color or "C0"
    x = frame[centre].to_numpy(dtype=float)
    err = np.vstack([x - frame["low"].to_numpy(float), frame["high"].to_numpy(float) - x])
    sig = (
        frame["significant"].to_numpy(bool)
        if "significant" in frame
        else np.zeros(len(frame), bool)
    )
    kw = {"fmt": "none", "ecolor": color, "elinewidth": 1.5, "capsize": 4} | kwargs
    ax.errorbar(x, pos, xerr=np.abs(err), **kw)
    if sig.any():
        ax.scatter(x[sig], pos[sig], color=color, zorder=3, label="significant")
    if (~sig).any():
        ax.scatter(
            x[~sig],
            pos[~sig],
            facecolor="white",
            edgecolor=color,
            zorder=3,
            label="not significant",
        )
    ax.axvline(0, color="0.4", lw=1, ls="--")
    ax.set_yticks(pos, frame["row"].tolist())
    level = result.attrs.get("level", 0.95)
    test = result.attrs.get("test", "")
    metric = result.attrs.get("metric", "")
    what = "mean-rank difference (> 0: ranks better)" if friedman else f"difference in {metric}"
    ax.set_xlabel(f"{what}\n{float(level):.0%} interval ({test})")
    if annotate:
        for xi, yi, p in zip(frame["high"].to_numpy(float), pos, frame["p_value"], strict=True):
            if np.isfinite(p):
                ax.annotate(
                    f"p={p:.2g}",
                    (xi, yi),
                    xytext=(6, 0),
                    textcoords="offset points",
                    va="center",
                    fontsize=9,
                )
    ax.set_ylim(-0.7, len(frame) - 0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=9, frameon=False)
    return finish(ax)


def _cliques(ranks: np.ndarray, cd: float) -> list[tuple[int, int]]:
    """Maximal runs (i, j) of rank-sorted models whose rank span is below ``cd``."""
    runs: list[tuple[int, int]] = []
    n = len(ranks)
    for i in range(n):
        j = i
        while j + 1 < n and ranks[j + 1] - ranks[i] < cd:
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in runs):
            runs.append((i, j))
    return runs


def _model_names(result: xr.Dataset, rank: xr.DataArray, dim: str) -> list[Any]:
    """The model of every entry of ``rank``: its own coordinate, else read off the contrasts.

    A compare result holds ``dim`` as a coordinate along ``contrast`` (``a`` of ``a - b``)
    beside ``baseline`` (``b``); the model order of ``rank`` is recovered from them: for all
    pairs the first baseline then its partners; against one baseline, the models in order
    with the baseline put back where the rank differences say it was.
    """
    k = rank.sizes[dim]
    own = rank.coords.get(dim)
    if own is not None and own.dims == (dim,) and dim in rank.indexes:
        return list(own.values)
    if dim not in result.coords or "baseline" not in result.coords:
        return list(range(k))
    a = [str(v) for v in result[dim].values]
    b = [str(v) for v in result["baseline"].values]
    if len(set(b)) > 1 or len(a) == k * (k - 1) // 2 and k > 2:
        first = b[0]
        names = [first] + [x for x, y in zip(a, b, strict=True) if y == first]
        return names if len(names) == k else list(range(k))
    r = rank.values.astype(float)
    rd = result["rank_difference"].values.ravel() if "rank_difference" in result else None
    for pos in range(k):
        rest = np.delete(r, pos)
        if rd is None or np.allclose(rest, r[pos] - rd[: k - 1]):
            return a[:pos] + [b[0]] + a[pos:]
    return list(range(k))


def critical_difference(
    result: xr.Dataset, *, dim: str | None = None, ax: Any = None, **kwargs: Any
) -> Any:
    """The critical-difference diagram of a Friedman comparison across data sets (Demšar 2006).

    **Axes-level**: draws on ``ax`` (or a new figure) and returns it.

    Models are placed on the axis of their mean rank over data sets (1 = best, on the left);
    a bar shows the Nemenyi critical difference CD; a thick line joins every group of models
    whose mean ranks differ by less than CD (not significantly different).

    Parameters
    ----------
    result : xarray.Dataset
        ``cvframe.compare.compare(data, test="friedman")``: variables ``rank`` (mean rank per
        model) and ``critical_difference``.
    dim : str, optional
        The models' dimension of ``rank`` (default: the result's ``dim``, read from the
        contrast coordinates).
    ax : matplotlib Axes, optional
    **kwargs
        Passed to the ``Axes.plot`` calls of the clique lines.

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    Demšar, J. (2006). Statistical Comparisons of Classifiers over Multiple Data Sets. JMLR
    7, 1-30.

    Examples
    --------
    >>> import numpy as np, pandas as pd, xarray as xr
    >>> import cvframe
    >>> rank = xr.DataArray([1.2, 2.1, 2.7], dims="model", coords={"model": ["a", "b", "c"]})
    >>> res = xr.Dataset({"rank": rank, "critical_difference": 1.0,
    ...                   "p_value": ("contrast", [0.1])}, coords={"contrast": ["b - a"]},
    ...                  attrs={"test": "friedman"})
    >>> ax = cvframe.plot.critical_difference(res)
    >>> [t.get_text() for t in ax.texts if "(" in t.get_text()]
    ['a (1.20)', 'b (2.10)', '(2.70) c']
    """
    if not isinstance(result, xr.Dataset) or "rank" not in result:
        raise TypeError(
            "critical_difference draws the result of cvframe.compare(..., test='friedman') "
            f"(variables 'rank' and 'critical_difference'); got {type(result).__name__}"
            + (" without 'rank'" if isinstance(result, xr.Dataset) else "")
            + "."
        )
    rank = result["rank"]
    if dim is None:
        on_contrast = [
            str(n)
            for n, c in result.coords.items()
            if c.dims == (CONTRAST,) and n not in (CONTRAST, "baseline") and n in rank.dims
        ]
        big = [d for d in rank.dims if rank.sizes[d] > 1]
        dim = on_contrast[0] if on_contrast else str((big or list(rank.dims))[0])
    extra = [d for d in rank.dims if d != dim and rank.sizes[d] > 1]
    if extra:
        raise ValueError(
            f"rank has the dims {extra} besides {dim!r}; select one cell first, e.g. "
            f"result.sel({extra[0]}=...)."
        )
    rank = rank.squeeze([d for d in rank.dims if d != dim], drop=True)
    cd = float(result["critical_difference"].squeeze())
    labels = _model_names(result, rank, dim)
    order = np.argsort(rank.values, kind="stable")
    names = [str(labels[i]) for i in order]
    r = rank.values[order].astype(float)
    k = len(r)
    if ax is None:
        ax = new_axes((7, 1.6 + 0.3 * k))
    lo, hi = 1, max(k, int(np.ceil(r.max())))
    ax.set_xlim(lo - 0.3, hi + 0.3)
    ax.hlines(0, lo, hi, color="k", lw=1)
    for t in range(lo, hi + 1):
        ax.vlines(t, -0.05, 0.05, color="k", lw=1)
        ax.text(t, 0.12, str(t), ha="center", va="bottom", fontsize=9)
    half = (k + 1) // 2
    for i, (name, ri) in enumerate(zip(names, r, strict=True)):
        left = i < half
        level = -(0.35 + 0.3 * (i if left else k - 1 - i))
        x_text = lo - 0.2 if left else hi + 0.2
        ax.plot([ri, ri, x_text], [0, level, level], color="0.2", lw=0.8)
        label = f"{name} ({ri:.2f})" if left else f"({ri:.2f}) {name}"
        ax.text(x_text, level, label, ha="right" if left else "left", va="center", fontsize=9)
    ax.plot([lo, lo + cd], [0.55, 0.55], color="C3", lw=2)
    ax.text(lo + cd / 2, 0.62, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)
    kw = {"color": "k", "lw": 3, "solid_capstyle": "round"} | kwargs
    for n, (i, j) in enumerate(_cliques(r, cd)):
        y = -0.15 - 0.12 * n
        ax.plot([r[i] - 0.03, r[j] + 0.03], [y, y], **kw)
    ax.set_ylim(-(0.6 + 0.3 * half), 0.9)
    ax.axis("off")
    ax.set_title("Mean rank across data sets (1 = best); bars join models within CD", fontsize=9)
    return finish(ax)
