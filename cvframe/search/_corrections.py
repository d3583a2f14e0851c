"""A fitted search's correction of the winner's curse (:mod:`.curse` applied to the
out-of-fold predictions of :class:`~cvframe.search.PooledSearchCV` and of
:class:`~cvframe.search.PooledThresholdClassifierCV`), and the tidy band of a tuned
threshold that :func:`cvframe.plot.threshold_band` draws."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from sklearn.utils.validation import check_is_fitted

from .. import measure, metrics
from .._core import checks as _checks
from ..schema import CLASS, FOLD, REPEAT
from .curse import RESAMPLE, correct, count_path, cube_sums, per_sample_cube, presence

__all__ = ["BAND_POINTS", "Chosen", "search_correction", "threshold_band", "threshold_correction"]

_THRESHOLD = "threshold"


@dataclass(frozen=True)
class Chosen:
    """What a search stores of its correction: the numbers, every candidate's share of the
    bootstrap wins (in the search's candidate order; 0 for a candidate left out) and the
    candidate chosen on each bootstrap sample."""

    summary: dict[str, Any]
    wins: np.ndarray
    chosen: np.ndarray
    labels: list[Any]


def _skipped(naive: float, n_candidates: int, labels: list[Any], why: str, lev: float) -> Chosen:
    nan = math.nan
    summary: dict[str, Any] = dict.fromkeys(("score", "low", "high", "se", "bias"), nan)
    summary.update(level=lev, naive=naive, n_bootstraps=0, method=why)
    return Chosen(summary, np.full(n_candidates, np.nan), np.array([], dtype=int), labels)


def search_correction(
    search: Any, design: Any, names: list[Any], labels: list[Any], scoring: Any
) -> Chosen:
    """BBC-CV of a fitted :class:`~cvframe.search.PooledSearchCV` from its ``predictions_``
    (``names``: the candidates of its cube, ``labels``: of every candidate; ``scoring``: the
    resolved scoring the best candidate was chosen by; None for a callable ``refit``)."""
    n_all = len(labels)
    if scoring is None:
        why = "not computed: a callable refit picks the best candidate, not a scoring"
        return _skipped(math.nan, n_all, labels, why, 0.95)
    naive = float(search.best_score_)
    entry = getattr(scoring, "entry", None)
    if int(search.n_bootstraps) == 0:
        return _skipped(naive, n_all, labels, "skipped: n_bootstraps=0", 0.95)
    if entry is not None and entry.kind == "score":
        why = (
            f"not computed: {metrics.display(scoring.metric)} ranks scores, and the correction "
            "resamples counts; use a count scoring (e.g. 'f1') to have it"
        )
        return _skipped(naive, n_all, labels, why, 0.95)
    frame = search.predictions_
    if frame is None:
        return _skipped(naive, n_all, labels, "not computed: no candidate was fitted", 0.95)
    beta = _checks.beta(search.beta) if design.task == "multilabel" else 1.0
    kw = {"labels": None if design.task == "binary" else design.universe, "pos_label": design.pos}
    cube, _ = per_sample_cube(frame, candidate="param", beta=beta, **kw)
    cube = cube.sel(param=names)
    path: Any = None
    if entry is not None and design.task != "multilabel":
        b = _checks.beta(search.beta)
        path = count_path(cube, "param", scoring.metric, scoring.average, b, scoring.sign)
    if path is None:  # a callable, a sample-based or multilabel scoring: the cube's own path
        build = cube_sums(cube, "param")

        def values(ds: xr.Dataset) -> np.ndarray:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = search._metric(ds, scoring)
            return np.asarray(out.sel(param=names).transpose(REPEAT, "param").values)

        path = (build, values, presence(cube))
    sums, values_fn, valid = path
    seed = search.random_state if isinstance(search.random_state, (int, np.integer)) else 0
    bounds = (-math.inf, math.inf)
    if entry is not None:
        lo, hi = entry.bounds
        bounds = (lo, hi) if scoring.sign > 0 else (-hi, -lo)
    out = correct(
        cube.sizes[FOLD],
        sums,
        values_fn,
        valid,
        naive,
        n_bootstraps=search.n_bootstraps,
        bounds=bounds,
        random_state=seed,
    )
    where = [labels.index(str(nm)) for nm in names]
    wins = np.zeros(n_all)
    wins[where] = np.bincount(out.chosen, minlength=len(names)) / max(len(out.chosen), 1)
    chosen = np.asarray(where)[out.chosen]
    return Chosen(out.summary(), wins, chosen, labels)


#: At most this many thresholds carry the band of the pooled curve (``score_band_``).
BAND_POINTS = 200


def threshold_correction(
    clf: Any, thresholds: np.ndarray, metric: str | None, sign: float
) -> tuple[Chosen, pd.DataFrame, np.ndarray]:
    """BBC-CV of a fitted :class:`~cvframe.search.PooledThresholdClassifierCV`: the candidates
    are the thresholds, the samples those of ``cv_predictions_`` (each with all its repeats).

    Returns the correction (``chosen``: the threshold chosen on each bootstrap sample), the
    band of the pooled curve (``threshold``, ``low``, ``high``: the 95 % percentile band of
    the pooled metric at each of at most :data:`BAND_POINTS` thresholds over the bootstrap
    samples) and the thresholds of the bootstrap choices. ``sign``: -1 for a cost or a
    lower-is-better metric (values are ``sign * metric``, higher is better)."""
    df = clf.cv_predictions_
    naive = float(clf.best_score_)
    t = np.asarray(thresholds, dtype=np.float64)
    labels = [float(x) for x in t]
    n_b = int(clf.n_bootstraps)
    if n_b == 0:
        out = _skipped(naive, len(t), labels, "skipped: n_bootstraps=0", 0.95)
        return out, pd.DataFrame(columns=["threshold", "low", "high"]), np.array([])
    ids = df["sample"].to_numpy() if "sample" in df.columns else np.arange(len(df))
    uniq, row_sample = np.unique(ids, return_inverse=True)
    y = (df["y_true"] == clf.pos_label_).to_numpy()
    s = df["score"].to_numpy(np.float64)
    order = np.argsort(-s, kind="stable")
    row_sample, y_sorted, s_sorted = row_sample[order], y[order], s[order]
    # rows with score >= t: the first `at` rows of the descending order
    at = np.searchsorted(-s_sorted, -t, side="right")
    width = len(t)

    def sums(w: np.ndarray) -> dict[str, np.ndarray]:
        rw = w[:, row_sample].astype(np.float64)
        pos_w = rw * y_sorted
        cum_tp = np.concatenate([np.zeros((len(w), 1)), np.cumsum(pos_w, axis=1)], axis=1)
        cum_all = np.concatenate([np.zeros((len(w), 1)), np.cumsum(rw, axis=1)], axis=1)
        tp = cum_tp[:, at]
        fp = cum_all[:, at] - tp
        p = pos_w.sum(axis=1, keepdims=True)
        neg = rw.sum(axis=1, keepdims=True) - p
        return {
            k: v[..., None] for k, v in (("tp", tp), ("fp", fp), ("fn", p - tp), ("tn", neg - fp))
        }

    def values(c: dict[str, np.ndarray]) -> np.ndarray:
        if metric is not None:
            b = _checks.beta(clf.beta)
            with np.errstate(invalid="ignore", divide="ignore"):
                return sign * measure.pooled_counts(metric, c, None, b, True)
        ds = xr.Dataset(
            {
                k: ((RESAMPLE, REPEAT, FOLD, "threshold", CLASS), v[:, None, None])
                for k, v in c.items()
            },
            attrs={"task": "binary"},
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cost = clf._values(ds, None, "tp_fp")
        return sign * np.asarray(cost.transpose(RESAMPLE, "threshold").values)

    def valid(c: dict[str, np.ndarray]) -> np.ndarray:
        one = {k: v[:, 0, 0] for k, v in c.items()}
        return np.asarray(((one["tp"] + one["fn"]) > 0) & ((one["fp"] + one["tn"]) > 0))

    band_at = np.unique(np.linspace(0, width - 1, min(width, BAND_POINTS)).round().astype(int))
    kept: list[np.ndarray] = []
    lo_b, hi_b = metrics.REGISTRY[metric].bounds if metric is not None else (0.0, math.inf)
    bounds = (lo_b, hi_b) if sign > 0 else (-hi_b, -lo_b)
    seed = clf.random_state if isinstance(clf.random_state, (int, np.integer)) else 0
    res = correct(
        len(uniq),
        sums,
        values,
        valid,
        sign * naive,
        n_bootstraps=n_b,
        bounds=bounds,
        random_state=seed,
        keep=lambda vin: kept.append(vin[:, band_at]),
    )
    summary = res.summary()
    if sign < 0:  # back to the metric's (or the cost's) own units
        summary.update(score=-res.score, low=-res.high, high=-res.low, naive=naive)
        summary["bias"] = naive - summary["score"]
    band_vals = sign * np.concatenate(kept, axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lo_q, hi_q = np.nanquantile(band_vals, [0.025, 0.975], axis=0)
    band = pd.DataFrame({"threshold": t[band_at], "low": lo_q, "high": hi_q})
    chosen_t = t[res.chosen]
    wins = np.bincount(res.chosen, minlength=len(t)) / max(len(res.chosen), 1)
    return Chosen(summary, wins, chosen_t, labels), band, chosen_t


def threshold_band(clf: Any) -> pd.DataFrame:
    """The pooled curve of a fitted threshold search with its bootstrap band, tidy.

    What :func:`cvframe.plot.threshold_band` draws: the pooled metric (or expected cost) at
    every candidate threshold, the 95 % band of that curve over the bootstrap samples of
    the out-of-fold predictions (at up to 200 thresholds; NaN elsewhere), and in ``attrs``
    the chosen threshold, the 95 % range of the thresholds chosen on the bootstrap samples
    (the threshold's own variability), the per-fold choices, and the chosen threshold's
    score corrected for the choice with its interval (BBC-CV: the choice remade on every
    bootstrap sample, so the interval includes the threshold's variability).

    Parameters
    ----------
    clf : PooledThresholdClassifierCV
        Fitted (with ``n_bootstraps > 0`` for the band).

    Returns
    -------
    pandas.DataFrame
        ``threshold``, ``score``, ``low``, ``high``; ``attrs``: ``scoring``,
        ``best_threshold``, ``best_score``, ``corrected``, ``corrected_low``,
        ``corrected_high``, ``threshold_low``, ``threshold_high``, ``fold_thresholds``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> import cvframe
    >>> from cvframe.search import threshold_band
    >>> X, y = make_classification(300, weights=[0.85], random_state=0)
    >>> clf = cvframe.PooledThresholdClassifierCV(LogisticRegression(), cv=5).fit(X, y)
    >>> band = threshold_band(clf)
    >>> list(band.columns), round(band.attrs["best_threshold"], 3)
    (['threshold', 'score', 'low', 'high'], 0.314)
    """
    check_is_fitted(clf, "score_band_")
    frame = clf.score_band_.copy()
    s = clf.selection_corrected_
    frame.attrs.update(
        scoring=clf.scoring_,
        best_threshold=float(clf.best_threshold_),
        best_score=float(clf.best_score_),
        corrected=float(s["score"]),
        corrected_low=float(s["low"]),
        corrected_high=float(s["high"]),
        threshold_low=float(clf.threshold_bootstrap_["low"]),
        threshold_high=float(clf.threshold_bootstrap_["high"]),
        fold_thresholds=clf.thresholds_per_fold_[_THRESHOLD].dropna().tolist(),
    )
    return frame
