r"""The winner's curse of choosing on pooled out-of-fold predictions, and its correction.

A search reports the pooled score of the candidate it chose; the maximum of many noisy
estimates is biased upwards, even when every candidate is equally good. The bootstrap bias
corrected cross-validation (BBC-CV) of Tsamardinos, Greasidou & Borboudakis (2018) corrects it
from the out-of-fold predictions the search already has, with no refit: draw bootstrap
samples of the tested samples; on each, choose the best candidate on the in-bag samples and
score that choice on the out-of-bag ones,

.. math:: \hat\theta_{BBC} = \frac1B \sum_{b=1}^{B}
          M\big(\text{out-of-bag}_b;\ \arg\max_c M(\text{in-bag}_b; c)\big).

The choice is made on resampled data, and the score on samples that did not take part in it,
so the selection's optimism is not scored. Its interval here is not the paper's percentile
interval of the out-of-bag values (those are scores of about 37 % of the samples, so the
interval is too wide: 99.7-100 % coverage at nominal 95 % in the docs' null study) but
:math:`\hat\theta_{BBC} \pm z\,\widehat{se}`, with the standard error of half-sampling (the
delete-d jackknife with d = n/2, Shao & Wu 1989, consistent for statistics as rough as a
choice): the estimate recomputed on random halves of the samples, with the same bootstrap
weights restricted to each half,

.. math:: \widehat{se}^2 = \frac{1}{H - 1}\sum_{h=1}^{H} (\hat\theta_h - \bar\theta)^2 .

A half of n samples varies about the whole as much as the whole about the truth
(:math:`\sigma^2(1/m - 1/n) = \sigma^2/n` at :math:`m = n/2`), so no rescaling is needed.

The functions here take the per-sample sums of a search (every variable of a counts cube is a
sum over samples) and a function from resampled sums to the candidates' values; the search
modules call them. :func:`selection_corrected` applies them to a predictions frame with a
``param`` column, as the search's ``predictions_``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import measure, metrics
from .._core import checks as _checks
from .._core.quantiles import level as _level
from .._core.quantiles import z_quantile
from ..build.predictions import frame_cube
from ..schema import CLASS, FOLD, REPEAT

__all__ = [
    "BOOTSTRAPS",
    "HALVES",
    "REFERENCES",
    "Correction",
    "correct",
    "count_path",
    "cube_sums",
    "presence",
    "selection_corrected",
]

#: Bootstrap samples of a correction by default (the paper's B).
BOOTSTRAPS = 1000
#: Random halves of the samples whose spread gives the standard error (five splits in two).
HALVES = 10
#: Share of the bootstrap samples (at least 50) each half recomputes the estimate with.
HALF_SHARE = 0.1
#: At most this many weights (bootstraps x samples) are held at once.
_CHUNK = 4_000_000
#: The dimension of the resamples in a cube of resampled sums.
RESAMPLE = "resample"
#: What the correction cites.
REFERENCES = (
    'I. Tsamardinos, E. Greasidou and G. Borboudakis, "Bootstrapping the out-of-sample '
    'predictions for efficient and accurate cross-validation", Machine Learning 107, '
    '1895-1922, 2018 (BBC-CV). J. Shao and C. F. J. Wu, "A general theory for jackknife '
    'variance estimation", Annals of Statistics 17(3), 1176-1197, 1989 (half-sampling).'
)


@dataclass(frozen=True)
class Correction:
    """The chosen candidate's score corrected for the choice (BBC-CV), with its interval.

    Attributes
    ----------
    score : float
        The bias-corrected estimate of the chosen configuration's score.
    low, high : float
        Its interval at ``level``: ``score -/+ z * se``, clipped to the metric's range.
    se : float
        The half-sampling standard error.
    level : float
    naive : float
        The chosen candidate's pooled score (what ``best_score_`` reports).
    wins : numpy.ndarray
        For every candidate, the share of bootstrap samples on which it is chosen.
    chosen : numpy.ndarray
        The candidate chosen on each bootstrap sample (index).
    oob : numpy.ndarray
        The out-of-bag score of each bootstrap sample's choice (NaN where the out-of-bag
        samples lack a class).
    n_bootstraps : int
        Bootstrap samples with a defined out-of-bag score (those averaged).
    """

    score: float
    low: float
    high: float
    se: float
    level: float
    naive: float
    wins: np.ndarray = field(repr=False)
    chosen: np.ndarray = field(repr=False)
    oob: np.ndarray = field(repr=False)
    n_bootstraps: int = 0

    @property
    def bias(self) -> float:
        """The naive score minus the corrected one: the winner's curse measured."""
        return self.naive - self.score

    def summary(self) -> dict[str, Any]:
        """The numbers as a dict (what the searches store in ``selection_corrected_``)."""
        return {
            "score": self.score,
            "low": self.low,
            "high": self.high,
            "se": self.se,
            "level": self.level,
            "naive": self.naive,
            "bias": self.bias,
            "n_bootstraps": self.n_bootstraps,
            "method": "BBC-CV (Tsamardinos et al. 2018), half-sampling interval",
        }


def _weights(rng: np.random.Generator, b: int, n: int) -> np.ndarray:
    """``b`` bootstrap samples of ``n`` as in-bag multiplicities, (b, n) float32."""
    idx = rng.integers(0, n, (b, n)) + (np.arange(b) * n)[:, None]
    return np.bincount(idx.ravel(), minlength=b * n).reshape(b, n).astype(np.float32)


def _halves(rng: np.random.Generator, n: int, halves: int) -> np.ndarray:
    """``halves`` masks (halves, n): random splits of the samples in two, both halves kept."""
    masks = np.zeros((halves, n), dtype=np.float32)
    for h in range(0, halves, 2):
        first = rng.permutation(n)[: n // 2]
        masks[h, first] = 1.0
        if h + 1 < halves:
            masks[h + 1] = 1.0 - masks[h]
    return masks


def _choose(values: np.ndarray) -> np.ndarray:
    """The best candidate (last axis) of every resample: the first among ties, NaN last."""
    v = np.where(np.isnan(values), -np.inf, values)
    return np.argmax(v, axis=-1)


def _run(
    sums: Callable[[np.ndarray], Any],
    values: Callable[[Any], np.ndarray],
    valid: Callable[[Any], np.ndarray],
    weights: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Choice on the in-bag weights, out-of-bag value of it: (chosen, oob, valid, in-bag)."""
    vin = values(sums(weights))
    out = sums((weights == 0).astype(np.float32))
    vout = values(out)
    chosen = _choose(vin)
    oob = vout[np.arange(len(chosen)), chosen]
    ok = valid(out) & np.isfinite(oob)
    return chosen, np.where(ok, oob, np.nan), ok, vin


def correct(
    n: int,
    sums: Callable[[np.ndarray], Any],
    values: Callable[[Any], np.ndarray],
    valid: Callable[[Any], np.ndarray],
    naive: float,
    *,
    n_bootstraps: int = BOOTSTRAPS,
    level: float = 0.95,
    bounds: tuple[float, float] = (-math.inf, math.inf),
    random_state: Any = 0,
    keep: Callable[[np.ndarray], None] | None = None,
) -> Correction:
    """BBC-CV of ``n`` samples with a half-sampling interval.

    Parameters
    ----------
    n : int
        The samples resampled (each once, whatever the repeats).
    sums : callable
        Weights (R, n) -> the weighted sums over the samples, a dict of arrays (R, ...).
    values : callable
        Sums -> the candidates' values (R, C), higher is better.
    valid : callable
        Sums -> (R,) whether the resample's value is defined (every class present).
    naive : float
        The chosen candidate's score on all samples.
    n_bootstraps, level, bounds, random_state
        Bootstrap samples, confidence level, the metric's range, the seed.
    keep : callable, optional
        Called with the in-bag values (R, C) of every chunk of full bootstrap samples.

    Returns
    -------
    Correction
    """
    b_total = _checks.integer("n_bootstraps", n_bootstraps, low=20)
    rng = np.random.default_rng(random_state)
    chunk = max(1, min(b_total, _CHUNK // max(n, 1)))
    chosen, oob, ok = [], [], []
    masks = _halves(rng, n, HALVES)
    half_sum = np.zeros(HALVES)
    half_n = np.zeros(HALVES)
    b_half = min(b_total, max(50, int(HALF_SHARE * b_total)))
    done = 0
    while done < b_total:
        b = min(chunk, b_total - done)
        w = _weights(rng, b, n)
        c, v, good, vin = _run(sums, values, valid, w)
        if keep is not None:
            keep(vin)
        chosen.append(c)
        oob.append(v)
        ok.append(good)
        # the same bootstrap weights restricted to each half: (halves * b, n)
        step = max(1, _CHUNK // max(n * HALVES, 1))
        for s in range(0, max(0, min(b, b_half - done)), step):
            stop = min(s + step, b, b_half - done)
            part = (w[None, s:stop, :] * masks[:, None, :]).reshape(-1, n)
            inside = np.repeat(masks, stop - s, axis=0)
            vin_h = values(sums(part))
            out = sums(((part == 0) & (inside > 0)).astype(np.float32))
            vout_h = values(out)
            ch = _choose(vin_h)
            val = vout_h[np.arange(len(ch)), ch]
            good_h = valid(out) & np.isfinite(val)
            val = np.where(good_h, val, 0.0).reshape(HALVES, -1)
            half_sum += val.sum(axis=1)
            half_n += good_h.reshape(HALVES, -1).sum(axis=1)
        done += b
    chosen_a, oob_a, ok_a = (np.concatenate(x) for x in (chosen, oob, ok))
    n_ok = int(ok_a.sum())
    lev = _level(level)
    if n_ok == 0:
        score = se = low = high = math.nan
    else:
        score = float(np.mean(oob_a[ok_a]))
        with np.errstate(invalid="ignore", divide="ignore"):
            theta_h = half_sum / half_n
        theta_h = theta_h[np.isfinite(theta_h)]
        se = float(np.std(theta_h, ddof=1)) if theta_h.size > 1 else math.nan
        z = z_quantile(lev)
        low = float(np.clip(score - z * se, *bounds))
        high = float(np.clip(score + z * se, *bounds))
    n_cand = int(np.max(chosen_a)) + 1 if chosen_a.size else 0
    wins = np.bincount(chosen_a, minlength=n_cand) / max(len(chosen_a), 1)
    return Correction(score, low, high, se, lev, float(naive), wins, chosen_a, oob_a, n_ok)


# --- a search's predictions: the per-sample sums of its counts cube ---------------------------


def per_sample_cube(
    frame: pd.DataFrame,
    *,
    candidate: str,
    labels: Any = None,
    pos_label: Hashable | None = None,
    beta: float = 1.0,
) -> tuple[xr.Dataset, np.ndarray]:
    """The counts cube of a predictions frame with one cell per (candidate, tested sample),
    the repeats summed (each sample is tested once per repeat): the ``fold`` dim holds the
    samples. Returns the cube and the sample ids."""
    if "sample" in frame.columns:
        ids = frame["sample"].to_numpy()
    else:  # one repeat: a sample is a row of its candidate
        ids = frame.groupby(candidate, observed=True).cumcount().to_numpy()
    part = frame.assign(**{FOLD: ids})
    part = part.drop(columns=[c for c in (REPEAT, "sample") if c in part.columns])
    cube = frame_cube(part, labels=labels, pos_label=pos_label, dims=[candidate], beta=beta)
    return cube, cube[FOLD].to_numpy()


def cube_sums(cube: xr.Dataset, candidate: str) -> Callable[[np.ndarray], xr.Dataset]:
    """Weights (R, n) -> the cube of the weighted sums over the samples: ``repeat`` holds the
    resamples, ``fold`` is one cell; every variable of a counts cube is a sum over samples."""
    n = cube.sizes[FOLD]
    parts, cols = [], 0
    binary = cube.attrs.get("task") == "binary"
    for name, da in cube.data_vars.items():
        if FOLD in da.dims and not (binary and name == "confusion"):  # binary: tp/fp/fn/tn say it
            rest = [d for d in da.dims if d != FOLD]
            arr = np.asarray(da.transpose(FOLD, *rest).values).reshape(n, -1)
            shape = da.transpose(FOLD, *rest).shape[1:]
            parts.append((name, rest, shape, da.dtype, cols, arr.shape[1]))
            cols += arr.shape[1]
    stacked = np.concatenate(
        [np.asarray(cube[p[0]].transpose(FOLD, *p[1]).values).reshape(n, -1) for p in parts], axis=1
    )
    # float32 sums of whole numbers are exact below 2**24
    exact32 = float(np.abs(stacked).sum(axis=0).max(initial=0.0)) * n < 2**24
    stacked = stacked.astype(np.float32 if exact32 else np.float64)
    coords = {k: v for k, v in cube.coords.items() if FOLD not in v.dims}

    def build(w: np.ndarray) -> xr.Dataset:
        r = w.shape[0]
        total = w.astype(stacked.dtype, copy=False) @ stacked
        out = {}
        for name, rest, shape, dtype, start, width in parts:
            s = total[:, start : start + width].reshape(r, 1, *shape)
            if dtype.kind in "iu":
                s = np.rint(s).astype(np.int64)
            out[name] = ((REPEAT, FOLD, *rest), s, dict(cube[name].attrs))  # e.g. F's beta
        ds = xr.Dataset(out, coords=coords, attrs=dict(cube.attrs))
        order = [d for d in (candidate, REPEAT, FOLD) if d in ds.dims]
        return ds.transpose(*order, ...)

    return build


def presence(cube: xr.Dataset) -> Callable[[xr.Dataset], np.ndarray]:
    """Resampled cube -> (R,) whether every class with cases in ``cube`` has a case in the
    resample (a binary cube: the positive class and the negatives too)."""
    binary = cube.attrs.get("task") == "binary"
    pos_all = (cube.tp + cube.fn).sum(FOLD)
    wanted = pos_all > 0

    def check(ds: xr.Dataset) -> np.ndarray:
        one = ds.isel({FOLD: 0})
        ok = ((one.tp + one.fn) > 0) | ~wanted
        if binary:
            ok = ok & ((one.fp + one.tn) > 0)
        return np.asarray(ok.all([d for d in ok.dims if d != REPEAT]).values)

    return check


def count_path(
    cube: xr.Dataset, candidate: str, metric: str, average: str | None, beta: float, sign: float
) -> tuple[Callable[[np.ndarray], dict[str, np.ndarray]], Callable[..., np.ndarray], Any] | None:
    """The numpy path of a count metric (no xarray per resample): weights -> tp/fp/fn/tn sums
    (R, candidates, classes), their values by :func:`cvframe.measure.pooled_counts`, and the
    check that every class is present. None where the cube path is needed (multiclass
    accuracy: total correct over total; sample-based metrics)."""
    entry = metrics.REGISTRY[metric]
    task = cube.attrs.get("task")
    if entry.kind != "count" or task not in ("binary", "multiclass"):
        return None
    if entry.kernel == "accuracy" and task != "binary":
        return None
    n = cube.sizes[FOLD]
    tp, fp, fn, tn = (
        np.asarray(cube[v].transpose(FOLD, candidate, CLASS).values)
        for v in ("tp", "fp", "fn", "tn")
    )
    shape = tp.shape[1:]
    pos = (tp + fn)[:, 0, :]  # every candidate sees the same samples: (n, classes)
    total = (tp + fp + fn + tn)[:, 0, :1]
    # tp and fp per candidate, the positives of each class and the cases: fn and tn follow
    stacked = np.concatenate([tp.reshape(n, -1), fp.reshape(n, -1), pos, total], axis=1)
    exact32 = float(np.abs(stacked).sum(axis=0).max(initial=0.0)) * n < 2**24
    stacked = stacked.astype(np.float32 if exact32 else np.float64)
    wanted = pos.sum(axis=0) > 0  # classes with cases
    binary = task == "binary"
    width, k = tp[0].size, shape[-1]

    def sums(w: np.ndarray) -> dict[str, np.ndarray]:
        s = w.astype(stacked.dtype, copy=False) @ stacked
        t, f = (s[:, i * width : (i + 1) * width].reshape(-1, *shape) for i in (0, 1))
        p = s[:, 2 * width : 2 * width + k][:, None, :]
        m = s[:, -1:][:, None, :]
        return {"tp": t, "fp": f, "fn": p - t, "tn": m - p - f}

    def values(c: dict[str, np.ndarray]) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return sign * measure.pooled_counts(metric, c, average, beta, binary)

    def valid(c: dict[str, np.ndarray]) -> np.ndarray:
        one = {k: v[:, 0, :] for k, v in c.items()}  # every candidate sees the same samples
        ok = ((one["tp"] + one["fn"]) > 0) | ~wanted
        if binary:
            ok &= (one["fp"] + one["tn"]) > 0
        return np.asarray(ok.all(axis=1))

    return sums, values, valid


def selection_corrected(
    frame: pd.DataFrame,
    scoring: str = "f_tp_fp",
    *,
    average: str | None = None,
    beta: float = 1.0,
    pos_label: Hashable | None = None,
    candidate: str = "param",
    n_bootstraps: int = BOOTSTRAPS,
    level: float = 0.95,
    random_state: Any = 0,
) -> Correction:
    r"""The winner's curse of choosing the best candidate of a predictions frame, corrected.

    The frame holds every candidate's out-of-fold predictions (one row per candidate and
    tested sample, a ``candidate`` column: the ``predictions_`` of
    :class:`~cvframe.search.PooledSearchCV`). The naive score is the best candidate's pooled
    metric; the corrected one is the BBC-CV estimate of the chosen configuration's score,
    with a half-sampling interval (see the module's description). No model is refitted.

    Parameters
    ----------
    frame : pandas.DataFrame
        ``y_true``, ``y_pred``, ``candidate`` (and ``sample``, ``repeat``, ``fold`` when
        there are repeats: a sample is resampled with all its repeats).
    scoring : str, default "f_tp_fp"
        A count metric of :data:`cvframe.metrics.REGISTRY`, by any name; a lower-is-better
        one is negated, as a search ranks it.
    average : {None, "macro", "micro", "weighted"}
        The class average of a multiclass frame.
    beta : float
    pos_label : label, optional
    candidate : str, default "param"
    n_bootstraps : int, default 1000
    level : float, default 0.95
    random_state : int or None, default 0

    Returns
    -------
    Correction
        ``score``, ``low``, ``high``, ``se``, ``naive``, ``bias`` (naive - corrected),
        ``wins`` (each candidate's share of bootstrap wins, in the frame's candidate order).

    References
    ----------
    I. Tsamardinos, E. Greasidou and G. Borboudakis, "Bootstrapping the out-of-sample
    predictions for efficient and accurate cross-validation", Machine Learning 107, 2018.
    J. Shao and C. F. J. Wu, Annals of Statistics 17(3), 1989.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(500) < 0.2
    >>> frame = pd.concat([pd.DataFrame({"param": f"c{c}", "sample": np.arange(500),
    ...     "fold": np.arange(500) % 5, "y_true": y.astype(int),
    ...     "y_pred": (np.where(y, rng.random(500) < 0.7, rng.random(500) < 0.075)).astype(int)})
    ...     for c in range(10)])
    >>> out = selection_corrected(frame, n_bootstraps=200)
    >>> out.naive > out.score   # the best of ten equal candidates looks better than it is
    True
    """
    _checks.column(frame, candidate, "candidate")
    r = metrics.resolve(scoring, argument="scoring")
    entry = r.entry
    if entry.kind != "count":
        raise ValueError(
            f"scoring={scoring!r} ({metrics.display(r.metric)}) is not a count metric; "
            "selection_corrected resamples the counts of the predictions."
        )
    names = list(pd.unique(frame[candidate]))
    sign = 1.0 if entry.higher_is_better else -1.0
    cube, _ = per_sample_cube(frame, candidate=candidate, pos_label=pos_label, beta=beta)
    cube = cube.sel({candidate: names})
    b = _checks.beta(beta)
    path: Any = count_path(cube, candidate, r.metric, average, b, sign)
    if path is None:
        build = cube_sums(cube, candidate)

        def values(ds: xr.Dataset) -> np.ndarray:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = measure.cube(ds, r.metric, "tp_fp", average, beta=b, zero_division=0.0)
            if CLASS in out.dims:
                if out.sizes[CLASS] != 1:
                    raise ValueError(
                        f"scoring={scoring!r} gives a value per class; pass average='macro', "
                        "'micro' or 'weighted'."
                    )
                out = out.isel({CLASS: 0}, drop=True)
            return sign * np.asarray(out.transpose(REPEAT, candidate).values)

        path = (build, values, presence(cube))
    sums, values_fn, valid = path
    full = values_fn(sums(np.ones((1, cube.sizes[FOLD]), dtype=np.float32)))[0]
    best = int(_choose(full[None])[0])
    lo, hi = entry.bounds
    bounds = (lo, hi) if sign > 0 else (-hi, -lo)
    return correct(
        cube.sizes[FOLD],
        sums,
        values_fn,
        valid,
        float(full[best]),
        n_bootstraps=n_bootstraps,
        level=level,
        bounds=bounds,
        random_state=random_state,
    )
