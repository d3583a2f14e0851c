r"""Score metrics from counts: a frame reduced to its score counts, and what binning costs.

:func:`score_counts` reduces a predictions frame (pandas, or dask in one pass over its
partitions) to one row per (``model``..., ``repeat``, ``fold``, ``class``, distinct score,
``y_true``) with its count: the table every score metric reads exactly
(:func:`cvframe.scores.parse`), and what :func:`cvframe.sql.score_counts` gets from an
engine. :func:`auc_tie_bound` says how far the AUC of such a table can be from the AUC of
scores that break its ties: for a table of rounded (binned) scores, the largest error that
rounding can have made.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import pandas as pd
import xarray as xr

from .._core.docs import doc
from .._core.labels.frame import FrameArgs
from . import _counted
from ._driver import Method, Metric, Undefined, ranked, run
from ._parsed import by_frame_dims
from ._rank import Ranked
from .curves import WHY

__all__ = ["auc_tie_bound", "score_counts"]


def tie_bound(r: Ranked) -> tuple[np.ndarray, np.ndarray]:
    r"""(bound, n_pos) per group: :math:`\sum_j pos_j\,neg_j / (2 n_+ n_-)` over the runs
    of tied scores (the runs of a score-count table answer with their own method)."""
    value, npos, nneg = r.auc()
    bs, be, bg = r.blocks()
    cp = r.cp
    pos = cp[be] - cp[bs]
    tied = np.bincount(bg, weights=pos * ((be - bs) - pos), minlength=r.n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        bound = np.where(np.isnan(value), np.nan, tied / (2.0 * npos * nneg))
    return bound, npos


TIE_BOUND = Metric("auc_tie_bound", WHY, ranked(tie_bound), averages=(None,))


@doc
@by_frame_dims
def auc_tie_bound(
    df: pd.DataFrame,
    method: Method = "merge",
    undefined: Undefined = "skip",
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> xr.DataArray:
    r"""How far the AUC can move when the ties of the scores are broken: the error bound of
    binned (rounded) scores.

    For one fold (or the merged folds of a repeat, ``method="merge"``) with :math:`n_+`
    positives, :math:`n_-` negatives and runs :math:`j` of tied scores holding
    :math:`pos_j` positives and :math:`neg_j` negatives,

    .. math:: B = \frac{\sum_j pos_j\, neg_j}{2\, n_+ n_-}.

    AUC counts a tied (positive, negative) pair one half; any scores that order the samples
    the same way between runs, and in any way within them, have an AUC within :math:`\pm B`
    of it. So when a run is a bin -- scores rounded to ``digits`` decimals
    (:func:`cvframe.sql.score_counts`, :func:`score_counts`) keep their order and only tie
    the samples of a bin -- the AUC of the unrounded scores lies in :math:`AUC \pm B`, and
    :math:`B` is read off the rounded table alone. Spark's fixed 1,000 bins
    (``BinaryClassificationEvaluator``) state no such bound.

    <<frame_parameters>>
    method : {"merge", "avg", "fold"}, default "merge"
        The bound of AUC_merge (per repeat), of AUC_avg (the mean of the folds' bounds: a
        bound of the mean) or of every fold.
    undefined : {"skip", "nan"}
        As in :func:`cvframe.scores.auc`: where AUC is undefined so is the bound.

    Returns
    -------
    xarray.DataArray
        As :func:`cvframe.scores.auc` (over ``class``, plus ``repeat``, ``fold``, ``model``...).

    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0] * 6, "y_true": [0, 1, 0, 1, 1, 0],
    ...                    "score": [0.1, 0.12, 0.5, 0.52, 0.9, 0.3]})
    >>> rounded = df.assign(score=df.score.round(1))  # 0.1 ties 0.12, 0.5 ties 0.52
    >>> float(scores.auc(df, "merge").item()), float(scores.auc(rounded, "merge").item())
    (0.7777777777777778, 0.6666666666666666)
    >>> round(float(scores.auc_tie_bound(rounded).item()), 4)  # |0.7778 - 0.6667| <= B
    0.1111
    """
    args = FrameArgs.of(locals())
    return run(df, TIE_BOUND, (method,), undefined, None, args)[0]["auc_tie_bound"]


@doc
def score_counts(
    df: pd.DataFrame,
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
    digits: int | None = None,
) -> pd.DataFrame:
    r"""A predictions frame reduced to its score counts, which every score metric reads.

    One row per (``model``/``param``/``dataset``/``subset`` columns, ``repeat``, ``fold``,
    ``class``, distinct score, ``y_true``) with the number of samples, ``count``: the
    ``GROUP BY`` of :func:`cvframe.sql.score_counts` run here (pandas) or on a dask frame,
    one pass over its partitions, each partition counted where it lives. Passed where the
    frame goes, the table gives the frame's AUC_avg, AUC_merge, average precision, the
    ROC and PR curves, calibration, Brier, log-loss and DeLong's interval (see
    :func:`cvframe.scores.parse`): a score metric given a dask frame reduces it so.

    <<frame_parameters>>
    digits : int, optional
        Round the scores to that many decimals first: a smaller table, AUCs within
        :func:`auc_tie_bound` of the exact ones.

    Returns
    -------
    pandas.DataFrame
        Columns: the frame dims, ``repeat`` (when the frame has one), ``fold``, ``class``
        (one-vs-all frames: the class whose ``score_<label>`` the row counts; none for a
        binary frame), ``score``, ``y_true``, ``count``; ``attrs`` those of the frame, and
        ``"cvframe_score_counts": "count"`` (read as counts without ``count=``).

    Warns
    -----
    UserWarning
        When most scores are distinct (the table nearly as large as the frame), with the
        advice to round them.

    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 1, 1, 1], "y_true": [0, 1, 1, 0, 1, 0],
    ...                    "score": [0.2, 0.7, 0.7, 0.4, 0.9, 0.4]})
    >>> table = scores.score_counts(df)
    >>> table.sort_values(["fold", "score"])
       fold  score  y_true  count
    0     0    0.2       0      1
    1     0    0.7       1      2
    2     1    0.4       0      2
    3     1    0.9       1      1
    >>> float(scores.auc(table, "merge").item()) == float(scores.auc(df, "merge").item())
    True
    """
    args = FrameArgs.of(locals())
    return _counted.score_counts(df, **vars(args), digits=digits)
