"""Calibration of probability scores under cross-validation: Brier score and log-loss.

Forman & Scholz (2010, §2.4) separate two questions a cross-validation can ask of scores:
whether a model *ranks* positives ahead of negatives (AUC, computed per fold and averaged:
AUC_avg) and whether its scores are *calibrated* probabilities. AUC_merge, one ROC over the
pooled scores of all folds, mixes the second question into the first; a researcher who cares
about calibration "will use Brier score or such". This module gives that measure, with the
same frame, the same ``method="avg"|"merge"|"fold"`` and the same dims as
:func:`cvframe.scores.auc`.

Every quantity is a sum over samples, so each is computed as per-group sums
(``np.bincount`` over the (repeat, fold) groups of :func:`._frame.parse`); ``"avg"`` averages
the per-fold values, ``"merge"`` pools the sums of a repeat. A dask DataFrame is reduced
lazily to those per-group sums (one ``groupby().agg`` of dask, then ``compute``) and read by
the same code: a row of the reduced frame stands for all the samples of its group.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
import xarray as xr

from .. import _checks
from .._docs import doc, register
from .._labels.frame import FRAME_DIMS, Frame, by_frame_dims, is_dask_frame, parse, reads_dask
from ..errors import few
from ..schema import CLASS, FOLD, REPEAT
from .ranking import METHODS, UNDEFINED, Method, Undefined

__all__ = ["CALIBRATION_AVERAGES", "brier", "brier_decomposition", "log_loss"]

CalibrationAverage = Literal["macro", "weighted", "multiclass", None]

#: The ``average=`` values of the calibration scores.
CALIBRATION_AVERAGES = (None, "macro", "weighted", "multiclass")

_STATS = "cvframe_group_sums"  # attrs key of a frame of per-group sums (a reduced dask frame)
_PRE = "__cvframe_"  # prefix of the sum columns of such a frame
_HARD = r"score column\(s\) .* hold only the values 0 and 1"  # hard 0/1 scores are fine here

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


# ------------------------------------------------------------------------------------------
# Reading the frame: one class's rows as sums (a sample is a row with n = 1)
# ------------------------------------------------------------------------------------------


@dataclass
class _Rows:
    """One class's rows: samples of a plain frame, or per-group sums of a reduced one."""

    y: np.ndarray  # 1.0 where the row's label is the class
    n: np.ndarray  # samples in the row
    s1: np.ndarray  # sum of the scores
    s2: np.ndarray  # sum of the squared scores
    lp: np.ndarray | None  # sum of -log(clip(s))
    lq: np.ndarray | None  # sum of -log(clip(1 - s))
    b: np.ndarray | None  # bin of the row (an integer code, or the score for bins=None)


def _eps(eps: Any) -> float:
    if isinstance(eps, str) and eps == "auto":
        return float(np.finfo(np.float64).eps)
    return _checks.real(
        "eps",
        eps,
        0,
        0.5,
        low_open=True,
        high_open=True,
        fix='Pass "auto" (the float64 machine epsilon, as scikit-learn) or a small number.',
    )


def _bins(bins: Any) -> int | None:
    if bins is None:
        return None
    return _checks.integer(
        "bins", bins, low=1, fix="bins is the number of equal-width bins over [0, 1], or None."
    )


def _bin_of(s: Any, bins: int | None) -> Any:
    """Equal-width bin of a probability (1.0 in the last bin); the score itself for None."""
    if bins is None:
        return s
    return np.minimum(np.floor(s * bins), bins - 1)


def _check_probabilities(name: str, lo: float, hi: float, bad: int = 0) -> None:
    if bad:
        raise ValueError(
            f"score column {name!r} has {bad} NaN or infinite scores; every tested sample "
            "needs a finite score. Drop those rows or fix the model's output."
        )
    if lo < 0.0 or hi > 1.0:
        raise ValueError(
            f"score column {name!r} has scores outside [0, 1] (min {lo:g}, max {hi:g}): the "
            "Brier score and log-loss need probabilities (predict_proba), not decision "
            "values. Pass score= naming probability columns, or calibrate the model "
            "(sklearn.calibration.CalibratedClassifierCV)."
        )


def _read(
    df: pd.DataFrame,
    labels: Sequence[Hashable] | None,
    pos_label: Hashable | None,
    y_true: str,
    fold: str,
    repeat: str | None,
    score: str,
    eps: float | None = None,
    bins: int | None | bool = False,
) -> tuple[Frame, list[_Rows]]:
    """Parse the frame (labels, folds, repeats as everywhere) and every class's rows.

    ``eps`` given: the log terms are read; ``bins`` not False: the bin of every row.
    """
    reduced = bool(df.attrs.get(_STATS))
    view = df
    if reduced:
        view = df.drop(columns=[c for c in df.columns if str(c).startswith(_PRE)])
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_HARD, category=UserWarning)
        fr = parse(view, labels, pos_label, y_true, fold, repeat, score)
    rows = []
    for name, y, s, (lo, hi) in zip(fr.score_cols, fr.ys, fr.scores, fr.ranges, strict=True):
        yf = y.astype(np.float64)
        if reduced:
            sums = {k: df[f"{_PRE}{k}:{name}"].to_numpy(np.float64) for k in ("s1", "s2")}
            _check_probabilities(
                name,
                float(df[f"{_PRE}min:{name}"].min()),
                float(df[f"{_PRE}max:{name}"].max()),
                int(df[f"{_PRE}bad:{name}"].sum()),
            )
            n = df[f"{_PRE}n"].to_numpy(np.float64)
            lp = lq = b = None
            if eps is not None:
                lp = df[f"{_PRE}lp:{name}"].to_numpy(np.float64)
                lq = df[f"{_PRE}lq:{name}"].to_numpy(np.float64)
            if bins is not False:
                b = df[f"{_PRE}bin:{name}"].to_numpy(np.float64)
            rows.append(_Rows(yf, n, sums["s1"], sums["s2"], lp, lq, b))
            continue
        _check_probabilities(name, lo, hi)
        lp = lq = b = None
        if eps is not None:
            lp = -np.log(np.clip(s, eps, 1 - eps))
            lq = -np.log(np.clip(1 - s, eps, 1 - eps))
        if bins is not False:
            b = _bin_of(s, bins)
        rows.append(_Rows(yf, np.ones(len(s)), s, s * s, lp, lq, b))
    return fr, rows


def _from_dask(
    ddf: Any,
    y_true: str,
    fold: str,
    repeat: str | None,
    score: str,
    eps: float | None,
    bins: int | None | bool,
) -> pd.DataFrame:
    """A dask frame reduced lazily to per-group sums, one dask ``groupby().agg`` computed.

    The groups are the frame dims, repeat, fold, label (and, for the decomposition, the bin
    of every score column); a score column of the result holds its group's mean score, so
    the frame is parsed like the original one.
    """
    cols = list(ddf.columns)
    for name, arg in ((y_true, "y_true"), (fold, "fold")):
        if name not in cols:
            raise ValueError(
                f"{arg}={name!r} is not a column of the predictions frame (columns: "
                f"{few(cols)}); pass {arg}= with the name of the column that holds it."
            )
    keys = [d for d in FRAME_DIMS if d in cols]
    if repeat is not None and repeat in cols:
        keys.append(repeat)
    keys += [fold, y_true]
    scored = [c for c in cols if c == score or (isinstance(c, str) and c.startswith(score + "_"))]
    new: dict[str, Any] = {f"{_PRE}n": 1}
    agg: dict[str, str] = {f"{_PRE}n": "sum"}
    bin_keys = []
    for c in scored:
        s = ddf[c].astype("float64")
        finite = s.notnull() & (s.abs() != np.inf)
        clean = s.where(finite, 0.0)
        parts = {
            "s1": (clean, "sum"),
            "s2": (clean * clean, "sum"),
            "bad": ((~finite).astype("int64"), "sum"),
            "min": (s, "min"),
            "max": (s, "max"),
        }
        if eps is not None:
            clipped = clean.clip(lower=eps, upper=1 - eps)
            parts["lp"] = (-np.log(clipped), "sum")
            parts["lq"] = (-np.log((1 - clean).clip(lower=eps, upper=1 - eps)), "sum")
        for k, (v, how) in parts.items():
            new[f"{_PRE}{k}:{c}"] = v
            agg[f"{_PRE}{k}:{c}"] = how
        if bins is not False:
            new[f"{_PRE}bin:{c}"] = _bin_of(clean, bins)
            bin_keys.append(f"{_PRE}bin:{c}")
    grouped = ddf.assign(**new).groupby(keys + bin_keys, dropna=False, observed=True)
    out = grouped.agg(agg).compute().reset_index()
    for c in scored:
        out[c] = out[f"{_PRE}s1:{c}"] / out[f"{_PRE}n"]
    out.attrs = {**dict(getattr(ddf, "attrs", {}) or {}), _STATS: True}
    return out


# ------------------------------------------------------------------------------------------
# Per-group sums, the cube, the fold reduction and the class average
# ------------------------------------------------------------------------------------------


def _group_ids(fr: Frame, per_fold: bool, n_rows: int) -> tuple[np.ndarray, int]:
    g, n_groups = fr.groups(per_fold)
    if g is None:
        return np.zeros(n_rows, dtype=np.int64), 1
    return g, n_groups


def _sum(g: np.ndarray, n_groups: int, w: np.ndarray) -> np.ndarray:
    return np.bincount(g, weights=w, minlength=n_groups)


def _samples(g: np.ndarray, n_groups: int, n: np.ndarray) -> np.ndarray:
    """Samples per group; NaN for a group without any (no fold: never divided by 0)."""
    out = _sum(g, n_groups, n)
    out[out == 0] = np.nan
    return out


def _cube(fr: Frame, per_fold: bool, per_class: list[np.ndarray]) -> xr.DataArray:
    """Per-class group arrays as a DataArray over (repeat?, fold?, class); groups without
    samples (a fold id another repeat has) are NaN and are no folds."""
    arr = np.stack(per_class, axis=-1).astype(np.float64)
    dims, coords, shape = [], {}, []
    if fr.rep_coord is not None:
        dims.append(REPEAT)
        coords[REPEAT] = fr.rep_coord
        shape.append(fr.n_reps)
    if per_fold:
        dims.append(FOLD)
        coords[FOLD] = fr.fold_coord
        shape.append(fr.n_folds)
    classes = np.asarray(fr.classes)
    if classes.dtype.kind in "USO":
        classes = np.asarray(fr.classes, dtype=object)
    dims.append(CLASS)
    coords[CLASS] = classes
    shape.append(len(fr.classes))
    out = xr.DataArray(arr.reshape(shape), dims=dims, coords=coords)
    if per_fold:
        present = fr.present.reshape(fr.n_reps, fr.n_folds)
        mask = xr.DataArray(present.reshape(shape[:-1]), dims=dims[:-1])
        out = out.where(mask).isel({FOLD: fr.fold_keep})
    return out


def _finish(
    fr: Frame,
    value: xr.DataArray,
    support: xr.DataArray,
    method: str,
    average: str | None,
    multiclass: xr.DataArray | None,
) -> tuple[xr.DataArray, list[str]]:
    """Mean over folds (``"avg"``) and the class average; ``multiclass`` replaces the class
    dim for ``average="multiclass"`` (a binary frame keeps its one class's value)."""
    reduced = []
    if average == "multiclass" and not fr.binary:
        assert multiclass is not None
        value = multiclass
    if method == "avg":
        value = value.mean(FOLD, skipna=True)
        support = support.sum(FOLD, skipna=True)
        reduced.append(FOLD)
    if average == "multiclass":
        value = value.sum(CLASS) if fr.binary else value
        reduced.append(CLASS)
    elif average == "macro":
        value = value.mean(CLASS)
        reduced.append(CLASS)
    elif average == "weighted":
        tot = support.sum(CLASS)
        value = (value * support).sum(CLASS) / tot.where(tot > 0)
        reduced.append(CLASS)
    return value, reduced


def _attrs(fr: Frame, name: str, method: str, undefined: str, average: str | None) -> dict:
    return {
        "metric": name,
        "method": method,
        "undefined": undefined,
        "average": "none" if average is None else average,
        "n_undefined": 0,
        "task": "binary" if fr.binary else "multiclass",
        "score_columns": ",".join(fr.score_cols),
    }


def _check(method: Any, undefined: Any, average: Any) -> None:
    _checks.choice("method", method, METHODS)
    _checks.choice("undefined", undefined, UNDEFINED)
    _checks.choice("average", average, CALIBRATION_AVERAGES)


def _half(fr: Frame) -> float:
    """scikit-learn's ``scale_by_half="auto"``: the multiclass Brier of two classes is
    halved, so that it equals the binary Brier score of either class."""
    return 0.5 if len(fr.classes) == 2 else 1.0


def _support(fr: Frame, rows: list[_Rows], per_fold: bool) -> xr.DataArray:
    g, k = _group_ids(fr, per_fold, len(rows[0].n))
    return _cube(fr, per_fold, [_sum(g, k, r.y * r.n) for r in rows])


# ==========================================================================================
# Public functions
# ==========================================================================================


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

    Parameters
    ----------
    <<frame_params>>
    <<calibration_method_params>>

    Returns
    -------
    xarray.DataArray
        Over ``class`` (length 1 holding ``pos_label`` when binary), plus ``repeat`` when the
        frame has a repeat column, plus ``fold`` for ``method="fold"``, plus the frame's
        ``model``/``dataset``/``subset`` columns; without ``class`` when ``average`` is
        given. Attrs record ``metric``, ``method``, ``average`` and ``reduced_dims``.

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

    References
    ----------
    <<calibration_refs>>

    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 0.6, 0.7, 0.65, 0.9]})
    >>> scores.brier(df, method="fold").values.ravel().round(4).tolist()
    [0.1581, 0.2206]
    >>> round(scores.brier(df).item(), 4), round(scores.brier(df, method="merge").item(), 4)
    (0.1894, 0.1894)
    """
    _check(method, undefined, average)
    if is_dask_frame(df):
        reduced = _from_dask(df, y_true, fold, repeat, score, None, False)
        return brier(
            reduced,
            method,
            undefined,
            average=average,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )
    fr, rows = _read(df, labels, pos_label, y_true, fold, repeat, score)
    per_fold = method != "merge"
    g, k = _group_ids(fr, per_fold, len(rows[0].n))
    n = _samples(g, k, rows[0].n)
    se = [_sum(g, k, r.s2 - 2 * r.y * r.s1 + r.y * r.n) / n for r in rows]
    value = _cube(fr, per_fold, se)
    multi = value.sum(CLASS, skipna=False) * _half(fr)
    result, reduced = _finish(fr, value, _support(fr, rows, per_fold), method, average, multi)
    result.attrs = {**_attrs(fr, "brier", method, undefined, average)}
    result.attrs["reduced_dims"] = ",".join(reduced)
    result.name = "brier"
    return result


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

    Parameters
    ----------
    <<frame_params>>
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

    References
    ----------
    <<calibration_refs>>

    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 0.6, 0.7, 0.65, 0.9]})
    >>> scores.log_loss(df, method="fold").values.ravel().round(4).tolist()
    [0.4723, 0.607]
    """
    eps_value = _eps(eps)
    _check(method, undefined, average)
    if is_dask_frame(df):
        reduced = _from_dask(df, y_true, fold, repeat, score, eps_value, False)
        return log_loss(
            reduced,
            method,
            undefined,
            average=average,
            eps=eps,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )
    fr, rows = _read(df, labels, pos_label, y_true, fold, repeat, score, eps=eps_value)
    per_fold = method != "merge"
    g, k = _group_ids(fr, per_fold, len(rows[0].n))
    n = _samples(g, k, rows[0].n)
    ova, true_class = [], []
    for r in rows:
        assert r.lp is not None and r.lq is not None
        ova.append(_sum(g, k, r.y * r.lp + (1 - r.y) * r.lq) / n)
        true_class.append(_sum(g, k, r.y * r.lp) / n)
    value = _cube(fr, per_fold, ova)
    multi = _cube(fr, per_fold, true_class).sum(CLASS, skipna=False)
    result, reduced = _finish(fr, value, _support(fr, rows, per_fold), method, average, multi)
    result.attrs = {**_attrs(fr, "log_loss", method, undefined, average), "eps": eps_value}
    result.attrs["reduced_dims"] = ",".join(reduced)
    result.name = "log_loss"
    return result


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

    Parameters
    ----------
    <<frame_params>>
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

    References
    ----------
    <<calibration_refs>>

    Examples
    --------
    >>> import pandas as pd
    >>> from cvframe import scores
    >>> df = pd.DataFrame({"fold": [0, 0, 0, 0, 1, 1, 1, 1],
    ...                    "y_true": [0, 0, 1, 1, 0, 1, 0, 1],
    ...                    "score": [0.1, 0.4, 0.35, 0.8, 0.6, 0.7, 0.65, 0.9]})
    >>> d = scores.brier_decomposition(df, method="merge", bins=2).squeeze()
    >>> {k: round(float(v), 4) for k, v in d.data_vars.items()}
    ... # doctest: +NORMALIZE_WHITESPACE
    {'brier': 0.1894, 'calibration': 0.0115, 'refinement': 0.1779, 'resolution': 0.0167,
     'uncertainty': 0.25, 'within_bin': -0.0555}
    >>> bool(abs(d.brier - d.calibration - d.refinement) < 1e-15)
    True
    """
    bins_value = _bins(bins)
    _check(method, undefined, average)
    if is_dask_frame(df):
        reduced = _from_dask(df, y_true, fold, repeat, score, None, bins_value)
        return brier_decomposition(
            reduced,
            method,
            undefined,
            bins=bins,
            average=average,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )
    fr, rows = _read(df, labels, pos_label, y_true, fold, repeat, score, bins=bins_value)
    per_fold = method != "merge"
    g, k = _group_ids(fr, per_fold, len(rows[0].n))
    terms: dict[str, list[np.ndarray]] = {name: [] for name in DECOMPOSITION}
    for r in rows:
        for name, v in _murphy(g, k, r).items():
            terms[name].append(v)
    support = _support(fr, rows, per_fold)
    out = {}
    for name in DECOMPOSITION:
        value = _cube(fr, per_fold, terms[name])
        multi = value.sum(CLASS, skipna=False) * _half(fr)
        out[name], reduced = _finish(fr, value, support, method, average, multi)
    ds = xr.Dataset(out)
    ds.attrs = {
        **_attrs(fr, "brier_decomposition", method, undefined, average),
        "bins": "distinct" if bins_value is None else bins_value,
        "reduced_dims": ",".join(reduced),
    }
    return ds


def _murphy(g: np.ndarray, n_groups: int, r: _Rows) -> dict[str, np.ndarray]:
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
    n = np.bincount(cell_group, weights=nk, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        ybar = np.bincount(cell_group, weights=nk * yk, minlength=n_groups) / n
        cal = np.bincount(cell_group, weights=nk * (pk - yk) ** 2, minlength=n_groups) / n
        res = (
            np.bincount(cell_group, weights=nk * (yk - ybar[cell_group]) ** 2, minlength=n_groups)
            / n
        )
        wb_k = (p2 - nk * pk**2) - 2 * (py - nk * pk * yk)
        within = np.bincount(cell_group, weights=wb_k, minlength=n_groups) / n
        se = np.bincount(g, weights=r.s2 - 2 * r.y * r.s1 + r.y * r.n, minlength=n_groups)
        bs = se / n
    unc = ybar * (1 - ybar)
    return {
        "brier": bs,
        "calibration": cal,
        "refinement": unc - res + within,
        "resolution": res,
        "uncertainty": unc,
        "within_bin": within,
    }
