"""The .632 and .632+ bootstrap estimates of the error rate from a cube with a ``subset`` dim.

Run the out-of-bag bootstrap with training-set outcomes recorded::

    frame = cvframe.cross_validate(est, X, y, cv=Bootstrap(200, random_state=0),
                                   return_train=True)
    frame.cv.counts().cv.bootstrap_632(plus=True)

Every bootstrap split is a ``fold``; ``subset="test"`` holds its out-of-bag outcomes and
``subset="train"`` the resubstitution outcomes on the bootstrap sample as drawn.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from . import metrics, reduce
from ._core import checks as _checks
from ._core.docs import doc
from ._core.types import Dims
from .errors import CountsError, few
from .schema import (
    CLASS,
    CONFUSION,
    COUNTS,
    FOLD,
    SUBSET,
    check_structure,
    read_counts,
    where_text,
)

#: The metrics a sample's outcome adds to (accuracy, error): the .632 weights apply to them.
_PER_SAMPLE = [m for m, e in metrics.by_kind("count").items() if e.per_sample]

__all__ = ["bootstrap_632", "no_information_rate"]

#: Weight of the out-of-bag error: 1 - e**-1 rounded as in Efron (1983).
W_TEST = 0.632
W_TRAIN = 0.368


@doc
def bootstrap_632(
    ds: xr.Dataset, metric: str = "error", plus: bool = False, *, dim: Dims = FOLD
) -> xr.DataArray:
    r"""The .632 (or .632+) bootstrap estimate of the error rate.

    ``ds`` needs a ``subset`` dim with ``"test"`` (out-of-bag outcomes of each bootstrap split)
    and ``"train"`` (resubstitution outcomes on the bootstrap sample as drawn, duplicates
    counted), as :func:`cvframe.cross_validate` records with ``return_train=True``. Every
    split is one entry of ``dim`` (``fold``).

    With :math:`e^{(b)}_{test}` and :math:`e^{(b)}_{train}` the error rates of split
    :math:`b = 1..B`:

    .. math::

        \widehat{Err}^{(.632)} = \frac{1}{B}\sum_b \left(0.632\, e^{(b)}_{test}
            + 0.368\, e^{(b)}_{train}\right)
            = 0.368\,\overline{err} + 0.632\,\widehat{Err}^{(1)}

    with :math:`\overline{err}` the mean training-set error and :math:`\widehat{Err}^{(1)}`
    the mean out-of-bag error. ``plus=True`` gives Efron & Tibshirani's (1997) .632+, which
    moves the weight towards the out-of-bag error when the model overfits:

    .. math::

        \hat\gamma = \sum_c p_c (1 - q_c), \qquad
        \widehat{Err}^{(1)\prime} = \min(\widehat{Err}^{(1)}, \hat\gamma), \\
        \hat R' = \frac{\widehat{Err}^{(1)\prime} - \overline{err}}
            {\hat\gamma - \overline{err}}
            \text{ if } \widehat{Err}^{(1)} > \overline{err} \text{ and }
            \hat\gamma > \overline{err}, \text{ else } 0, \\
        \hat w = \frac{0.632}{1 - 0.368 \hat R'}, \qquad
        \widehat{Err}^{(.632+)} = (1 - \hat w)\,\overline{err}
            + \hat w\,\widehat{Err}^{(1)\prime}.

    :math:`\hat\gamma` is the no-information error rate (:func:`no_information_rate`, with
    :math:`p_c` and :math:`q_c` the shares of class :math:`c` among the true labels and the
    predictions) of the training-set outcomes pooled over the splits (the resubstitution
    fit, as in Efron & Tibshirani). Since :math:`0 \le \hat R' \le 1`, :math:`\hat w` runs
    from 0.632 (no overfitting) to 1 (:math:`\widehat{Err}^{(1)\prime}` alone); whenever
    the out-of-bag error exceeds the training error and stays below :math:`\hat\gamma`,
    .632+ >= .632.

    The error rate follows the task: binary — the misclassification rate
    :math:`(FP + FN)/n` (``class`` of length 1 kept); multiclass (single-label) —
    :math:`1 - \sum_c TP_c / n` with ``class`` reduced; multilabel — each label's own error
    :math:`(FP_c + FN_c)/n`, ``class`` kept (:math:`\hat\gamma` per task as there).

    Parameters
    ----------
    ds : xarray.Dataset
        Counts cube with a ``subset`` dim holding "test" and "train".
    metric : {"error", "accuracy"}, default "error"
        ``"accuracy"`` returns one minus the error estimate.
    plus : bool, default False
        The .632+ estimate instead of .632.
    dim : str or sequence of str, default "fold"
        The dim(s) holding the bootstrap splits; reduced. Every other dim (``repeat``,
        ``model``, ...) is kept.

    Returns
    -------
    xarray.DataArray
        float64 over the kept dims; ``attrs`` ``method`` ("bootstrap_632" or
        "bootstrap_632_plus"), ``metric`` and ``reduced_dims``.

    Raises
    ------
    CountsError
        No ``subset`` dim or no "test"/"train" entry; a split with an empty test or training
        set; a cube with several classes and no ``task`` attr.

    Notes
    -----
    The training-set error is on the bootstrap sample as drawn, so a sample drawn twice counts
    twice (as the evaluation-of-learning slides define it); Efron & Tibshirani's
    :math:`\overline{err}` uses one fit on the full data instead, which
    :func:`cvframe.cross_validate` does not make. The per-split average of the .632
    combination equals the combination of the averages (it is linear); .632+ is not linear
    and is computed from the averages, as defined.

    References
    ----------
    Efron, B. (1983). Estimating the error rate of a prediction rule: improvement on
    cross-validation. JASA 78(382), 316-331.
    Efron, B. & Tibshirani, R. (1997). Improvements on cross-validation: the .632+ bootstrap
    method. JASA 92(438), 548-560.

    Examples
    --------
    Two bootstrap splits of a binary task, as counts:

    >>> import pandas as pd, cvframe
    >>> from cvframe.bootstrap import bootstrap_632
    >>> df = pd.DataFrame({"subset": ["test", "test", "train", "train"],
    ...                    "fold": [0, 1, 0, 1], "class": [1, 1, 1, 1],
    ...                    "tp": [10, 12, 30, 29], "fp": [4, 3, 0, 1],
    ...                    "fn": [3, 5, 0, 0], "tn": [20, 18, 70, 70]})
    >>> ds = cvframe.from_counts(df)
    >>> e = bootstrap_632(ds)
    >>> round(e.item(), 4)  # 0.632 * mean(7/37, 8/38) + 0.368 * mean(0/100, 1/100)
    0.1282
    >>> round(bootstrap_632(ds, plus=True).item(), 4)
    0.154
    """
    _checks.choice("metric", metric, _PER_SAMPLE)
    plus = _checks.flag("plus", plus)
    test, train = _subsets(ds)
    dims = reduce.fold_dims(test, dim)  # the splits, never the classes
    task = _task(ds)
    err1 = _error(test, task, "test", dims)
    err_bar = _error(train, task, "train", dims)
    if not plus:
        est = W_TEST * err1 + W_TRAIN * err_bar
    else:
        gamma = no_information_rate(train, dim=dims)
        err1p = np.minimum(err1, gamma)
        ok = (err1 > err_bar) & (gamma > err_bar)
        r = xr.where(ok, (err1p - err_bar) / xr.where(ok, gamma - err_bar, 1.0), 0.0)
        w = W_TEST / (1.0 - W_TRAIN * r)
        est = (1.0 - w) * err_bar + w * err1p
    if metric == "accuracy":
        est = 1.0 - est
    name = "bootstrap_632_plus" if plus else "bootstrap_632"
    est = est.astype(np.float64).rename(name)
    est.attrs = {"method": name, "metric": metric, "reduced_dims": ",".join(map(str, dims))}
    return est


@doc
def no_information_rate(ds: xr.Dataset, dim: Dims = FOLD) -> xr.DataArray:
    r"""The no-information error rate :math:`\hat\gamma` from the confusion marginals.

    Counts are pooled over ``dim``; with :math:`p_c = (TP_c + FN_c)/n` (true share of class
    :math:`c`) and :math:`q_c = (TP_c + FP_c)/n` (predicted share),
    :math:`\hat\gamma = \sum_c p_c (1 - q_c)` for single-label multiclass cubes (``class``
    reduced) and :math:`p_c(1 - q_c) + (1 - p_c) q_c` per class for binary and multilabel
    cubes. It is the error rate the same predictions would have if they were independent of
    the true classes (Efron & Tibshirani 1997, eq. 27). Only the four counts are needed; the
    ``confusion`` variable, when present, has the same marginals.

    Parameters
    ----------
    ds : xarray.Dataset
        Counts cube (without ``subset``, or select one first).
    dim : str or sequence of str, default "fold"
        Dims pooled before the marginals are taken.

    Returns
    -------
    xarray.DataArray
        float64.

    Examples
    --------
    >>> import cvframe
    >>> from cvframe.bootstrap import no_information_rate
    >>> ds = cvframe.datasets.slides_confusion()
    >>> round(no_information_rate(ds).item(), 4)  # 1 - p_e of Cohen's kappa
    0.59
    """
    counts = read_counts(ds)  # the values checked as every aggregation checks them
    dims = _checks.dims(ds["tp"], dim)
    task = _task(ds)
    c = {v: counts[v].astype(np.float64).sum(dims) for v in COUNTS}
    n = c["tp"] + c["fp"] + c["fn"] + c["tn"]
    if bool((n == 0).any()):
        raise CountsError(
            "no tested samples after pooling; the no-information rate needs at least one."
        )
    p = (c["tp"] + c["fn"]) / n
    q = (c["tp"] + c["fp"]) / n
    if task == "multiclass":
        out = (p * (1.0 - q)).sum(CLASS)
    else:
        out = p * (1.0 - q) + (1.0 - p) * q
    out = out.rename("no_information_rate")
    out.attrs = {"method": "no_information_rate", "reduced_dims": ",".join(map(str, dims))}
    return out


def _subsets(ds: xr.Dataset) -> tuple[xr.Dataset, xr.Dataset]:
    if not isinstance(ds, xr.Dataset):
        check_structure(ds)  # raises the TypeError with the fix
    if SUBSET not in ds.dims:
        raise CountsError(
            f"ds has no {SUBSET!r} dim (dims {tuple(ds.dims)}); the .632 bootstrap needs the "
            "out-of-bag ('test') and training-set ('train') outcomes of every split: run "
            "cvframe.cross_validate(..., cv=Bootstrap(...), return_train=True) and "
            "frame.cv.counts()."
        )
    have = [str(s) for s in ds[SUBSET].values] if SUBSET in ds.coords else []
    missing = [s for s in ("test", "train") if s not in have]
    if missing:
        raise CountsError(
            f"{SUBSET!r} holds {few(have)} but needs {missing} too; record training-set "
            "outcomes with cross_validate(..., return_train=True)."
        )
    test = ds.isel({SUBSET: have.index("test")}, drop=True)
    train = ds.isel({SUBSET: have.index("train")}, drop=True)
    check_structure(test)
    return test, train


def _task(ds: xr.Dataset) -> str:
    task = ds.attrs.get("task")
    if task in ("binary", "multiclass", "multilabel"):
        return str(task)
    if ds.sizes[CLASS] == 1:
        return "binary"
    if CONFUSION in ds.data_vars:
        return "multiclass"
    raise CountsError(
        f"ds has {ds.sizes[CLASS]} classes but no 'task' attr; set ds.attrs['task'] to "
        "'multiclass' (single-label) or 'multilabel' so the error rate is defined."
    )


def _error(ds: xr.Dataset, task: str, subset: str, dims: tuple[str, ...]) -> xr.DataArray:
    """The mean over the splits of their error rates (the one fold mean of
    :func:`cvframe.reduce.error_rate`); raises on an empty split (its rate is undefined)."""
    ds = ds.assign_attrs(task=task)
    empty = (ds.tp + ds.fp + ds.fn + ds.tn == 0).any(CLASS)  # the same n for every class
    if bool(empty.any()):
        raise CountsError(
            f"{int(empty.sum())} split(s) have an empty {subset} set ({where_text(empty)}); the "
            "bootstrap error rate is undefined there. Drop those folds with "
            "ds.drop_sel(fold=[...]) or redraw the splits."
        )
    return reduce.error_rate(ds, "avg", list(dims), zero_division=np.nan).astype(np.float64)
