"""Calibration of probability scores under cross-validation: Brier score and log-loss.

A cross-validation can ask of scores whether a model *ranks* positives ahead of negatives
(AUC) and whether its scores are *calibrated* probabilities; AUC_merge mixes the second
question into the first, and who cares about calibration "will use Brier score or such"
(Forman & Scholz 2010, §2.4). These are specs of the one score driver (:mod:`._driver`),
with the frame, ``method`` and dims of :func:`cvframe.scores.auc`, computed from per-group
sums (:mod:`._sums`; a dask DataFrame is reduced lazily to them).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr

from .._core import checks as _checks
from .._core.docs import doc, register, section
from .._core.labels.frame import Frame, FrameArgs, is_dask_frame
from ..schema import CLASS, FOLD, REPEAT
from ._driver import Method, Metric, Undefined, check, dataset, run
from ._parsed import by_frame_dims, read, reads_dask
from ._sums import Rows, from_dask, rows
from ._sums import groups as row_groups
from .curves import curve_rows
from .thresholds import CURVE_KINDS, CurveMethod

__all__ = ["CALIBRATION_AVERAGES", "brier", "brier_decomposition", "calibration_curve", "log_loss"]

CalibrationAverage = Literal["macro", "weighted", "multiclass", None]

#: The ``average=`` values of the calibration scores.
CALIBRATION_AVERAGES = (None, "macro", "weighted", "multiclass")


register(
    {
        "calibration_method_params": """\
method : {"avg", "merge", "fold"}
    ``"avg"``: per fold, then the mean over the folds of each repeat; ``"merge"``: once
    over the pooled samples of all folds of a repeat (a mean over samples, so folds of
    different sizes weigh by their size); ``"fold"``: the per-fold values (the ``fold``
    dimension is kept).
undefined : {"skip", "nan"}
    Accepted for the signature :func:`cvframe.scores.auc` has. A mean over samples is
    defined on every fold that tested a sample -- also a fold without positives of a
    class -- and a fold without samples is not a fold (it has no row), so no cell is
    ever undefined and no warning is emitted.
average : {None, "macro", "weighted", "multiclass"}
    ``None`` keeps ``class`` (one-vs-all per class); ``"macro"`` is the unweighted mean
    over classes, ``"weighted"`` weighs each class by its support (positives, pooled over
    the folds of a repeat; per fold for ``method="fold"``); ``"multiclass"`` is the
    score of the whole probability vector (see Notes). For a binary frame (one score
    column) every average returns the positive class's value.""",
        "calibration_refs": """\
.. [1] G. W. Brier, "Verification of forecasts expressed in terms of probability",
   Monthly Weather Review 78(1), 1950.
.. [2] A. H. Murphy, "A new vector partition of the probability score", Journal of
   Applied Meteorology 12(4), 1973.
.. [3] D. B. Stephenson, C. A. S. Coelho and I. T. Jolliffe, "Two extra components in
   the Brier score decomposition", Weather and Forecasting 23(4), 2008.
.. [4] G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls
   in Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, §2.4
   and §3.2.""",
    }
)
register({"calibration_references": section("References", "calibration_refs")})


def _eps(eps: Any) -> float:
    if isinstance(eps, str) and eps == "auto":
        return float(np.finfo(np.float64).eps)
    fix = 'Pass "auto" (the float64 machine epsilon, as scikit-learn) or a small number.'
    return _checks.real("eps", eps, 0, 0.5, low_open=True, high_open=True, fix=fix)


def _bins(bins: Any) -> int | None:
    if bins is None:
        return None
    return _checks.integer(
        "bins", bins, low=1, fix="bins is the number of equal-width bins over [0, 1], or None."
    )


def _sum(g: np.ndarray, n_groups: int, w: np.ndarray) -> np.ndarray:
    return np.bincount(g, weights=w, minlength=n_groups)


Terms = Callable[[np.ndarray, int, np.ndarray, Rows], dict[str, np.ndarray]]


def _metric(
    name: str,
    terms: Terms,
    eps: float | None = None,
    bins: int | None | bool = False,
    extra: dict[str, Any] | None = None,
) -> Metric:
    """A calibration score as a spec of the one driver: ``terms(g, n_groups, n, rows)``
    gives its variables per group (``n``: samples per group, NaN for none)."""

    def values(fr: Frame, per_fold: bool, merged: bool) -> tuple[Any, Any]:
        per_class = rows(fr, eps, bins)
        out: list[list[dict[str, np.ndarray]] | None] = []
        for pf, wanted in ((True, per_fold), (False, merged)):
            if not wanted:
                out.append(None)
                continue
            groups = []
            for c, r in enumerate(per_class):
                g, k = row_groups(fr, c, pf)
                n = _sum(g, k, r.n)
                n[n == 0] = np.nan  # no samples: no fold, never divided by 0
                groups.append({**terms(g, k, n, r), "support": _sum(g, k, r.y * r.n)})
            out.append(groups)
        return out[0], out[1]

    def multiclass(fr: Frame, cubes: dict[str, xr.DataArray]) -> dict[str, xr.DataArray]:
        if "_true" in cubes:
            return {"value": cubes["_true"].sum(CLASS, skipna=False)}
        half = 0.5 if len(fr.classes) == 2 else 1.0  # scikit-learn's scale_by_half="auto"
        return {v: c.sum(CLASS, skipna=False) * half for v, c in cubes.items()}

    kw: dict[str, Any] = {"averages": CALIBRATION_AVERAGES, "hard_ok": True}
    return Metric(name, None, values, extra or {}, multiclass=multiclass, **kw)


def _squared(g: np.ndarray, k: int, n: np.ndarray, r: Rows) -> dict[str, np.ndarray]:
    return {"value": _sum(g, k, r.s2 - 2 * r.y * r.s1 + r.y * r.n) / n}


def _log(g: np.ndarray, k: int, n: np.ndarray, r: Rows) -> dict[str, np.ndarray]:
    assert r.lp is not None and r.lq is not None
    return {
        "value": _sum(g, k, r.y * r.lp + (1 - r.y) * r.lq) / n,
        "_true": _sum(g, k, r.y * r.lp) / n,
    }


def _lazy(func: Any, args: dict[str, Any]) -> Any:
    """``func`` (public, with its arguments ``args``) on a dask frame reduced lazily to
    per-group sums: one dask ``groupby``, then every frame dim split as for any frame."""
    args = dict(args)
    df = args.pop("df")
    eps = _eps(args["eps"]) if "eps" in args else None
    bins = _bins(args["bins"]) if "bins" in args else False
    check((args["method"],), args["undefined"], args["average"], averages=CALIBRATION_AVERAGES)
    columns = (args["y_true"], args["fold"], args["repeat"], args["score"])
    return func(from_dask(df, *columns, eps, bins), **args)


@doc
@by_frame_dims
@reads_dask
def brier(
    df: pd.DataFrame,
    method: Method = "avg",
    undefined: Undefined = "skip",
    *,
    average: CalibrationAverage = None,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> xr.DataArray:
    r"""Brier score per fold, averaged over folds (Brier_avg) or over the merged samples.

    For one class, with :math:`p_i` the score (the predicted probability of the class) and
    :math:`y_i \in \{0, 1\}` whether sample :math:`i` belongs to it, over the :math:`n`
    samples of a fold (or, with ``method="merge"``, of all folds of a repeat):

    .. math:: BS = \frac{1}{n} \sum_{i=1}^{n} (p_i - y_i)^2 .

    :math:`BS_{avg} = \frac1k \sum_j BS^{(j)}` over the :math:`k` folds of a repeat;
    :math:`BS_{merge}` is the mean over the pooled samples (folds weigh by their size; with
    equal folds both agree). Lower is better; 0 is perfect, and always predicting the
    prevalence :math:`\bar y` scores :math:`\bar y(1-\bar y)`. Unlike AUC, Brier does not
    depend on how folds are merged (it is a mean of per-sample terms), and it measures
    calibration directly, the property AUC_merge only mixes into ranking (Forman & Scholz
    2010, §2.4).

    <<frame_parameters>>
    <<calibration_method_params>>

    Returns
    -------
    xarray.DataArray
        As :func:`cvframe.scores.auc`: over ``class`` (none with ``average``), plus ``repeat``,
        ``fold`` (``method="fold"``) and the frame's ``model``/``dataset``/``subset`` columns.

    Raises
    ------
    ValueError
        Scores outside [0, 1] (Brier needs probabilities; the message names the column),
        and every frame error of :func:`cvframe.scores.auc`.

    Notes
    -----
    ``average="multiclass"`` is the multiclass Brier score of Brier (1950), the sum over
    classes of the squared errors of each sample, :math:`\frac1n \sum_i \sum_c (p_{ic} -
    y_{ic})^2`, i.e. the sum of the one-vs-all values, in [0, 2]. With exactly two classes
    it is halved, as scikit-learn's ``brier_score_loss(..., scale_by_half="auto")`` (>= 1.7)
    does, so that it stays the usual binary score. Rows are not renormalized to sum to 1.
    A dask DataFrame is reduced lazily to per-group sums (one dask ``groupby``).

    See Also
    --------
    brier_decomposition : calibration and refinement.
    log_loss : the logarithmic scoring rule.
    sklearn.metrics.brier_score_loss : the same number for one fold.

    <<calibration_references>>

    <<probability_examples>>
    >>> scores.brier(df, method="fold").values.ravel().round(4).tolist()
    [0.1581, 0.2206]
    >>> round(scores.brier(df).item(), 4), round(scores.brier(df, method="merge").item(), 4)
    (0.1894, 0.1894)
    """
    if is_dask_frame(df):
        return _lazy(brier, locals())
    args = FrameArgs.of(locals())
    return run(df, _metric("brier", _squared), (method,), undefined, average, args)[0]["brier"]


@doc
@by_frame_dims
@reads_dask
def log_loss(
    df: pd.DataFrame,
    method: Method = "avg",
    undefined: Undefined = "skip",
    *,
    average: CalibrationAverage = None,
    eps: float | Literal["auto"] = "auto",
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> xr.DataArray:
    r"""Log-loss (cross-entropy) per fold, averaged over folds or over the merged samples.

    For one class (one-vs-all), with :math:`p_i` clipped to :math:`[\epsilon, 1-\epsilon]`:

    .. math:: LL = -\frac{1}{n} \sum_{i=1}^{n} \left(y_i \log p_i + (1-y_i)\log(1-p_i)\right),

    over the samples of a fold (``"avg"``, ``"fold"``) or of all folds of a repeat
    (``"merge"``). ``average="multiclass"`` is the multiclass log-loss
    :math:`-\frac1n \sum_i \log p_{i,y_i}` of the true class's probability (scikit-learn's
    ``log_loss``; rows are not renormalized). Natural logarithm; lower is better.

    <<frame_parameters>>
    <<calibration_method_params>>
    eps : float or "auto", default "auto"
        Probabilities are clipped to ``[eps, 1 - eps]`` so that a confident mistake costs
        a finite amount; ``"auto"`` is the float64 machine epsilon, as in scikit-learn
        >= 1.5. A number in (0, 0.5).

    Returns
    -------
    xarray.DataArray
        As :func:`brier`.

    Raises
    ------
    ValueError
        Scores outside [0, 1] (the message names the column), ``eps`` outside (0, 0.5).

    See Also
    --------
    brier : the quadratic scoring rule.
    sklearn.metrics.log_loss : the same number for one fold.

    <<calibration_references>>

    <<probability_examples>>
    >>> scores.log_loss(df, method="fold").values.ravel().round(4).tolist()
    [0.4723, 0.607]
    """
    if is_dask_frame(df):
        return _lazy(log_loss, locals())
    eps_value = _eps(eps)
    metric = _metric("log_loss", _log, eps_value, extra={"eps": eps_value})
    args = FrameArgs.of(locals())
    return run(df, metric, (method,), undefined, average, args)[0]["log_loss"]


#: The variables of :func:`brier_decomposition`, in order.
DECOMPOSITION = ("brier", "calibration", "refinement", "resolution", "uncertainty", "within_bin")


@doc
@by_frame_dims
@reads_dask
def brier_decomposition(
    df: pd.DataFrame,
    method: Method = "avg",
    undefined: Undefined = "skip",
    *,
    bins: int | None = 10,
    average: CalibrationAverage = None,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> xr.Dataset:
    r"""The Brier score split into calibration and refinement (Murphy's decomposition).

    The samples of a fold (or of a merged repeat) are put in bins :math:`k` by their score;
    bin :math:`k` holds :math:`n_k` samples with mean score :math:`\bar p_k` and share of
    positives :math:`\bar y_k`; :math:`\bar y` is the share of positives overall. Then,
    exactly,

    .. math::

        BS &= \underbrace{\tfrac1n \textstyle\sum_k n_k (\bar p_k - \bar y_k)^2}_{
              \text{calibration}}
            + \underbrace{\bar y (1-\bar y)}_{\text{uncertainty}}
            - \underbrace{\tfrac1n \textstyle\sum_k n_k (\bar y_k - \bar y)^2}_{
              \text{resolution}}
            + \underbrace{\tfrac1n \textstyle\sum_k \sum_{i \in k}
              \left[(p_i - \bar p_k)^2 - 2 (p_i - \bar p_k)(y_i - \bar y_k)\right]}_{
              \text{within\_bin}}

    and ``refinement = uncertainty - resolution + within_bin``, so ``brier = calibration +
    refinement`` holds to rounding for every bin choice. ``within_bin`` (the within-bin
    variance and covariance of Stephenson et al. 2008) is 0 when every bin holds a single
    score value -- ``bins=None`` bins by distinct score, Murphy's (1973) exact case --
    and small with equal-width bins. Calibration is 0 for perfectly calibrated scores;
    refinement is what remains when the scores are recalibrated per bin. ``"avg"`` averages
    each term over the folds (the identity survives: every term is linear).

    <<frame_parameters>>
    <<calibration_method_params>>
    bins : int or None, default 10
        Number of equal-width bins over [0, 1] (a score of 1 falls in the last bin); None
        bins by distinct score values (the exact Murphy decomposition).

    Returns
    -------
    xarray.Dataset
        Variables ``brier``, ``calibration``, ``refinement``, ``resolution``,
        ``uncertainty`` and ``within_bin``, each with the dims :func:`brier` returns.
        ``average="multiclass"`` sums every term over the classes (halved for two classes,
        as :func:`brier`).

    Raises
    ------
    ValueError
        Scores outside [0, 1]; ``bins`` < 1.

    See Also
    --------
    brier : the score alone.
    sklearn.calibration.calibration_curve : the points (:math:`\bar p_k`, :math:`\bar y_k`).

    <<calibration_references>>

    <<probability_examples>>
    >>> d = scores.brier_decomposition(df, method="merge", bins=2).squeeze()
    >>> {k: round(float(v), 4) for k, v in d.data_vars.items()}
    ... # doctest: +NORMALIZE_WHITESPACE
    {'brier': 0.1894, 'calibration': 0.0115, 'refinement': 0.1779, 'resolution': 0.0167,
     'uncertainty': 0.25, 'within_bin': -0.0555}
    >>> bool(abs(d.brier - d.calibration - d.refinement) < 1e-15)
    True
    """
    if is_dask_frame(df):
        return _lazy(brier_decomposition, locals())
    bins_value = _bins(bins)
    bins_attr = "distinct" if bins_value is None else bins_value
    metric = _metric("brier_decomposition", _murphy, None, bins_value, {"bins": bins_attr})
    args = FrameArgs.of(locals())
    (out,) = run(df, metric, (method,), undefined, average, args)
    return dataset(out, dict(out["brier"].attrs))


def _murphy(g: np.ndarray, n_groups: int, n_all: np.ndarray, r: Rows) -> dict[str, np.ndarray]:
    """The decomposition of one class per group, from per-(group, bin) sums."""
    assert r.b is not None
    _, bcode = np.unique(r.b, return_inverse=True)
    width = int(bcode.max()) + 1 if len(bcode) else 1
    cells, cell = np.unique(g.astype(np.int64) * width + bcode, return_inverse=True)
    cell_group = cells // width
    nk = np.bincount(cell, weights=r.n)
    pk = np.bincount(cell, weights=r.s1) / nk
    yk = np.bincount(cell, weights=r.y * r.n) / nk
    p2 = np.bincount(cell, weights=r.s2)
    py = np.bincount(cell, weights=r.y * r.s1)
    n = _sum(cell_group, n_groups, nk)
    with np.errstate(invalid="ignore", divide="ignore"):
        ybar = _sum(cell_group, n_groups, nk * yk) / n
        cal = _sum(cell_group, n_groups, nk * (pk - yk) ** 2) / n
        res = _sum(cell_group, n_groups, nk * (yk - ybar[cell_group]) ** 2) / n
        wb_k = (p2 - nk * pk**2) - 2 * (py - nk * pk * yk)
        within = _sum(cell_group, n_groups, wb_k) / n
    unc = ybar * (1 - ybar)
    brier = _squared(g, n_groups, n_all, r)["value"]
    return dict(zip(DECOMPOSITION, (brier, cal, unc - res + within, res, unc, within), strict=True))


def _edges(p: np.ndarray, bins: int, strategy: str, w: np.ndarray) -> np.ndarray:
    """scikit-learn's bin edges: equal widths over [0, 1], or the scores' quantiles (of the
    samples the rows stand for: ``w`` of each)."""
    if strategy != "quantile":
        return np.linspace(0.0, 1.0, bins + 1)
    percent = np.linspace(0, 1, bins + 1) * 100
    if bool((w == 1.0).all()):
        return np.percentile(p, percent)
    return _percentile(p, w, percent)


def _percentile(p: np.ndarray, w: np.ndarray, percent: np.ndarray) -> np.ndarray:
    """``np.percentile`` (method "linear") of the samples of scores ``p`` counted ``w``
    times each, without repeating them: numpy's virtual index, neighbours and
    interpolation, the neighbours found in the cumulative counts."""
    order = np.argsort(p, kind="stable")
    ps, cw = p[order], np.cumsum(w[order].astype(np.int64))
    n = int(cw[-1])
    virtual = (n - 1) * np.true_divide(percent, 100)
    prev = np.floor(virtual)
    nxt = prev + 1
    top = virtual >= n - 1
    prev[top] = nxt[top] = -1
    low, high = prev.astype(np.intp), nxt.astype(np.intp)
    gamma = virtual - low

    def at(i: np.ndarray) -> np.ndarray:  # the i-th sample in order (-1: the last)
        return ps[np.searchsorted(cw, np.where(i < 0, n - 1, i), side="right")]

    a, b = at(low), at(high)
    diff = b - a
    out = a + diff * gamma
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    return out


@doc
@by_frame_dims
def calibration_curve(
    df: pd.DataFrame,
    bins: int = 10,
    method: CurveMethod = "both",
    strategy: Literal["uniform", "quantile"] = "uniform",
    *,
    labels: Sequence[Hashable] | None = None,
    pos_label: Hashable | None = None,
    y_true: str = "y_true",
    fold: str = "fold",
    repeat: str | None = "repeat",
    score: str = "score",
) -> pd.DataFrame:
    r"""Reliability curve of every fold and of the pooled folds of each repeat.

    The scores of a curve fall into ``bins`` bins with edges :math:`e_0 < \dots < e_b`
    (``"uniform"``: :math:`e_j = j/b`; ``"quantile"``: the :math:`j/b` quantiles of the
    curve's own scores); a score goes to bin :math:`j` when :math:`e_j < p \le e_{j+1}`
    (:math:`p \le e_1` in the first). For every non-empty bin :math:`B_j`:

    .. math:: \bar p_j = \frac{1}{|B_j|}\sum_{i \in B_j} p_i,\qquad
        \bar y_j = \frac{1}{|B_j|}\sum_{i \in B_j} y_i,

    the mean predicted probability and the observed fraction of positives: scikit-learn's
    ``calibration_curve(y, p, n_bins=bins, strategy=strategy)`` per fold and on the merged
    scores. A calibrated model lies on the diagonal. Fold curves that scatter around a
    merged curve show how much of a pooled reliability diagram is fold-to-fold noise;
    folds shifted against each other are the miscalibration across folds that lowers
    AUC_merge (Forman & Scholz 2010, §3.2).

    <<frame_parameters>>
    bins : int, default 10
        Number of bins (>= 1).
    method : {"both", "fold", "merge"}, default "both"
        One curve per fold (``kind == "fold"``), per repeat's pooled scores
        (``"merged"``), or both.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins over [0, 1], or bins holding equal numbers of the curve's scores.

    Returns
    -------
    pandas.DataFrame
        Columns ``kind``, ``repeat`` (when present), ``fold`` (``<NA>`` on merged rows),
        ``class``, ``bin`` (0-based), ``bin_low``, ``bin_high`` (its edges), ``count``,
        ``prob_pred`` (:math:`\bar p_j`) and ``prob_true`` (:math:`\bar y_j`); empty bins
        have no row. The stacked dims (``model``, ...) first.

    Raises
    ------
    ValueError
        Scores outside [0, 1] (probabilities are needed; the message names the column), a
        bad ``bins``, ``method`` or ``strategy``, and the frame errors of
        :func:`cvframe.scores.auc`.

    See Also
    --------
    sklearn.calibration.calibration_curve
    brier_decomposition : the calibration term is the bins' weighted squared gap.
    cvframe.plot.calibration : the reliability diagram of this table.

    <<calibration_references>>

    <<probability_examples>>
    >>> cc = scores.calibration_curve(df, bins=2)
    >>> cc[cc.kind == "merged"][["bin", "count", "prob_pred", "prob_true"]].values.tolist()
    [[0.0, 3.0, 0.2833333333333333, 0.3333333333333333], [1.0, 5.0, 0.73, 0.6]]
    """
    n_bins = _checks.integer("bins", bins, low=1, fix="bins is the number of bins, e.g. 10.")
    _checks.choice("method", method, list(CURVE_KINDS))
    _checks.choice("strategy", strategy, ("uniform", "quantile"))
    fr = read(df, FrameArgs.of(locals()), hard_ok=True)
    per_class = rows(fr, None, False)  # checks that the scores are probabilities
    frames = []
    for kind, per_fold in CURVE_KINDS[method]:
        for ci, r in enumerate(per_class):
            g, n_groups = row_groups(fr, ci, per_fold)
            order = np.argsort(g, kind="stable")
            bounds = np.searchsorted(g[order], np.arange(n_groups + 1))
            values = fr.scores[ci]  # a row's score (of its samples, in a score-count table)
            cols: dict[str, list[np.ndarray]] = {k: [] for k in _CURVE_COLS}
            grp = []
            for h in range(n_groups):
                idx = order[bounds[h] : bounds[h + 1]]
                if not len(idx):
                    continue
                p, y, w = values[idx], r.y[idx], r.n[idx]
                edges = _edges(p, n_bins, strategy, w)
                ids = np.searchsorted(edges[1:-1], p)
                total = np.bincount(ids, weights=w, minlength=n_bins)
                nz = np.flatnonzero(total)
                row = (
                    nz.astype(np.float64),
                    edges[:-1][nz],
                    edges[1:][nz],
                    total[nz],
                    np.bincount(ids, weights=p * w, minlength=n_bins)[nz] / total[nz],
                    np.bincount(ids, weights=y * w, minlength=n_bins)[nz] / total[nz],
                )
                for k, v in zip(_CURVE_COLS, row, strict=True):
                    cols[k].append(v)
                grp.append(np.full(len(nz), h))
            if grp:
                data = {k: np.concatenate(v) for k, v in cols.items()}
                frames.append(curve_rows(fr, per_fold, kind, np.concatenate(grp), ci, data))
    out = pd.concat(frames, ignore_index=True)
    keys = [c for c in ("kind", REPEAT, FOLD) if c in out.columns]
    out = out.sort_values(keys, kind="stable", ignore_index=True)
    out["bin"] = out["bin"].astype(np.int64)
    out["count"] = out["count"].astype(np.int64)
    out.attrs = {"bins": n_bins, "strategy": strategy}
    return out


_CURVE_COLS = ("bin", "bin_low", "bin_high", "count", "prob_pred", "prob_true")
