"""The paper's Figure 9 as numbers: the risk that unstratified k-fold CV leaves some fold
without positives, over the number of positives and of independent splits, as the tidy frame
:func:`cvframe.plot.fold_risk` draws."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import tidy
from .exact import p_fold_without_positives

__all__ = ["fold_risk_curve"]


def fold_risk_curve(
    n_pos: Any = None, *, n: int = 1000, k: int = 10, trials: Sequence[int] = (1, 1000)
) -> pd.DataFrame:
    """:func:`p_fold_without_positives` over ``n_pos`` x ``trials``, long (Figure 9).

    Parameters
    ----------
    n_pos : array-like of int, optional
        Numbers of positives in the data set (default 10 to 200).
    n, k : int
        Cases and folds.
    trials : sequence of int, default (1, 1000)
        Independent splits (repetitions, classes, data sets): one curve each.

    Returns
    -------
    pandas.DataFrame
        :func:`cvframe.tidy.fold_risk_table`: columns ``positives``, ``trials`` ("1 trial",
        "1000 trials", ...) and ``p``, one row per point; attrs ``n``, ``k``.

    Raises
    ------
    ValueError
        As :func:`p_fold_without_positives`: a count that is not a whole number or is out of
        range, naming the argument.

    References
    ----------
    .. [1] G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls in
       Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, Figure 9.

    Examples
    --------
    >>> from cvframe.simulation import fold_risk_curve
    >>> fold_risk_curve([10, 50], trials=(1, 10)).round(3)
       positives     trials      p
    0         10    1 trial  1.000
    1         50    1 trial  0.044
    2         10  10 trials  1.000
    3         50  10 trials  0.364
    """
    pos = np.atleast_1d(np.arange(10, 201) if n_pos is None else np.asarray(n_pos))
    t = np.atleast_1d(np.asarray(trials))
    p = p_fold_without_positives(pos[:, None], n=n, k=k, trials=t[None, :])
    risk = xr.DataArray(
        np.broadcast_to(p, (pos.size, t.size)),
        coords={"n_pos": pos, "trials": t},
        attrs={"n": n, "k": k},
    )
    return tidy.fold_risk_table(risk)
