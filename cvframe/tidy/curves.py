"""The tidy frames of a predictions frame with scores: ROC curves with their AUC
(:func:`roc_table`) and the cost-sensitive ROC (:func:`cost_roc_table`). The numbers come
from :mod:`cvframe.scores`."""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from dataclasses import fields
from typing import Any

import numpy as np
import pandas as pd

from .. import scores
from .._core.checks import choice
from .._core.docs import doc
from .._core.labels.frame import FrameArgs, is_dask_frame
from ..schema import FOLD

__all__ = ["FRAME_ARGS", "PARTS", "cost_roc_table", "frame_args", "in_memory", "roc_table"]

#: The rows of :func:`cost_roc_table`, by its ``part`` column.
PARTS = ("roc", "hull", "optimum")

#: The column arguments every reader of a predictions frame with scores takes.
FRAME_ARGS = tuple(f.name for f in fields(FrameArgs))


def frame_args(df: Any, scope: dict[str, Any]) -> dict[str, Any]:
    """The :data:`FRAME_ARGS` of a caller's ``locals()``, to pass on to :mod:`cvframe.scores`;
    ``repeat`` becomes None when the frame has no such column (no repeat dim then)."""
    kw = {k: scope[k] for k in FRAME_ARGS}
    if kw["repeat"] is not None and kw["repeat"] not in getattr(df, "columns", ()):
        kw["repeat"] = None
    return kw


def in_memory(df: Any) -> Any:
    """A dask DataFrame computed once (a tidy frame holds every point); anything else as is."""
    return df.compute() if is_dask_frame(df) else df


@doc
def roc_table(
    df: pd.DataFrame,
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> pd.DataFrame:
    r"""Every fold's ROC curve and each repeat's merged curve, each point with its curve's AUC.

    The points of :func:`cvframe.scores.roc` with one more column ``auc``: for a fold curve
    the fold's AUC (:func:`cvframe.scores.auc` with ``method="fold"``), for a merged curve
    AUC_merge of its repeat (``method="merge"``), the Mann-Whitney statistic

    .. math:: AUC = \frac{1}{n_1 n_0} \sum_{i \in +} \sum_{j \in -}
              \left([s_i > s_j] + \tfrac12 [s_i = s_j]\right).

    A dask DataFrame is computed once. Curves of folds without positives or negatives are
    left out with one :class:`~cvframe.UndefinedMetricWarning` (as in ``scores.roc``).

    Parameters
    ----------
    df : pandas.DataFrame or dask.dataframe.DataFrame
        A predictions frame with scores (see :func:`cvframe.scores.roc`).
    <<frame_columns>>

    Returns
    -------
    pandas.DataFrame
        Columns of :func:`cvframe.scores.roc` (``model``..., ``kind``, ``repeat``, ``fold``,
        ``class``, ``threshold``, ``fpr``, ``tpr``) and ``auc``.

    References
    ----------
    <<reference>>
    (There: §3.2.)

    <<score_examples>>
    >>> t = roc_table(df)
    >>> t.groupby(["kind", "fold"], dropna=False)["auc"].first().tolist()
    [0.75, 1.0, 0.6875]
    """
    df = in_memory(df)
    kw = frame_args(df, locals())
    return scores.roc(df, auc=True, **kw)  # one parse, one sort per class and kind


@doc
def cost_roc_table(
    df: pd.DataFrame,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    prevalence: float | None = None,
    method: str = "merge",
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> pd.DataFrame:
    r"""The ROC curves, their convex hulls and optimal operating points as one long frame.

    What :func:`cvframe.plot.cost_roc` draws, one row per point, its ``part`` saying which:
    ``"roc"`` the ROC points (:func:`cvframe.scores.roc`), ``"hull"`` the vertices of their
    convex hull (:func:`cvframe.scores.roc_hull`), ``"optimum"`` the vertex of least
    expected cost :math:`EC = c_{FN}\,\pi\,(1 - TPR) + c_{FP}\,(1 - \pi)\,FPR`
    (:func:`cvframe.scores.optimal_operating_point`) with its iso-cost line
    :math:`TPR = slope \cdot FPR + intercept`. One curve per fold (``method="fold"``) or
    per repeat's pooled scores (``method="merge"``). A dask DataFrame is computed once;
    curves of folds without positives or negatives are left out with one
    :class:`~cvframe.UndefinedMetricWarning` (as in ``scores.roc``).

    Parameters
    ----------
    df : pandas.DataFrame or dask.dataframe.DataFrame
        A predictions frame with scores.
    cost_fp, cost_fn, prevalence :
        As in :func:`cvframe.scores.optimal_operating_point` (prevalence: default the
        data's).
    method : {"merge", "fold"}, default "merge"
        The pooled curve of each repeat, or one curve per fold.
    <<frame_columns>>

    Returns
    -------
    pandas.DataFrame
        Columns: the stacked dims (``model``, ...), ``part``, ``kind`` (``"fold"`` or
        ``"merged"``), ``repeat`` (when present), ``fold`` (``<NA>`` on merged curves),
        ``class``, ``threshold``, ``fpr``, ``tpr`` and, on ``"optimum"`` rows (NaN
        elsewhere), ``expected_cost``, ``prevalence``, ``slope``, ``intercept``. Attrs:
        ``cost_fp``, ``cost_fn``, ``method``.

    <<cost_references>>

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 0, 0, 0],
    ...                    "y_true": [1, 1, 0, 1, 0, 1, 0],
    ...                    "score": [0.95, 0.8, 0.75, 0.6, 0.5, 0.4, 0.2]})
    >>> t = cost_roc_table(df, cost_fp=1, cost_fn=1)
    >>> t.groupby("part", sort=False).size().to_dict()
    {'roc': 8, 'hull': 4, 'optimum': 1}
    >>> t[t.part == "optimum"][["threshold", "fpr", "tpr", "expected_cost"]].round(4)
        threshold  fpr  tpr  expected_cost
    12        0.8  0.0  0.5         0.2857
    """
    method = choice("method", method, ("merge", "fold"))
    df = in_memory(df)
    kw = frame_args(df, locals())
    kind = "merged" if method == "merge" else "fold"
    pts = scores.roc(df, **kw)
    with warnings.catch_warnings():
        # the same undefined curves scores.roc has just warned about
        warnings.simplefilter("ignore")
        hull = scores.roc_hull(df, method, **kw)
        opt = scores.optimal_operating_point(df, cost_fp, cost_fn, prevalence, method, **kw)
    best = opt.to_dataframe().reset_index()
    best = best[np.isfinite(best["expected_cost"])].assign(kind=kind)
    if FOLD not in best.columns:
        best[FOLD] = pd.Series(pd.NA, index=best.index, dtype="Int64")
    parts = [
        pts[pts["kind"] == kind].assign(part="roc"),
        hull.assign(part="hull"),
        best.assign(part="optimum"),
    ]
    out = pd.concat([p for p in parts if len(p)], ignore_index=True)
    cols = list(pts.columns)
    front = cols[: cols.index("kind")]  # the stacked dims (model, ...)
    out = out[[*front, "part", *[c for c in out.columns if c not in (*front, "part")]]]
    out.attrs = {"cost_fp": opt.attrs["cost_fp"], "cost_fn": opt.attrs["cost_fn"], "method": method}
    return out
