"""Comparing models across data sets (Demšar 2006): Friedman's test on the ranks, the
Iman-Davenport F and the post-hoc Nemenyi (all pairs) or Holm (against a baseline) tests;
formulas in :func:`cvframe.compare.compare`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import xarray as xr

from .. import measure
from ..schema import CLASS, REPEAT
from ._common import Outcome, Request, average_info, dataset_scores, diff, pairs
from .fold import counts_cube

__all__ = ["adjust_classes", "friedman", "holm", "run"]


def _scores(req: Request) -> tuple[xr.DataArray, dict[str, str]]:
    """One score per model and data set (mean over repeats), and how classes were compared."""
    if req.entry.kind == "score":
        if not req.is_frame:
            raise ValueError(
                f"metric={req.metric!r} needs scores: pass the predictions frame, not the "
                "counts cube."
            )
        cols = {k: req.cols[k] for k in ("y_true", "fold", "repeat", "score")}
        val = measure.frame(req.data, req.name, req.variant, pos_label=req.pos_label, **cols)
        return (val.mean(REPEAT) if REPEAT in val.dims else val), {}
    ds = counts_cube(req)
    return dataset_scores(ds, req), average_info(ds[CLASS].values, req)


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values along the last axis.

    >>> holm(np.array([0.01, 0.04, 0.03])).round(2).tolist()
    [0.03, 0.06, 0.06]
    """
    order = np.argsort(p, axis=-1)
    m = p.shape[-1]
    srt = np.take_along_axis(p, order, -1) * (m - np.arange(m))
    adj = np.minimum(np.maximum.accumulate(srt, axis=-1), 1.0)
    out = np.empty_like(adj)
    np.put_along_axis(out, order, adj, -1)
    return out


def _ties(a: np.ndarray) -> np.ndarray:
    srt = np.sort(a, axis=-1)
    out = np.zeros(a.shape[:-1])
    for idx in np.ndindex(*a.shape[:-1]):
        _, cnt = np.unique(srt[idx], return_counts=True)
        out[idx] = (cnt**3 - cnt).sum()
    return out


def friedman(
    score: xr.DataArray, dim: str, level: float
) -> tuple[xr.DataArray, dict[str, xr.DataArray], float, float]:
    """Mean ranks, Friedman's and Iman-Davenport's statistics, the rank SE and the CD."""
    from scipy import stats

    k, n = score.sizes[dim], score.sizes["dataset"]
    ranks = xr.apply_ufunc(
        lambda a: stats.rankdata(-a, axis=-1),
        score,
        input_core_dims=[[dim]],
        output_core_dims=[[dim]],
    ).transpose(*score.dims)
    mean_rank = ranks.mean("dataset")
    tie = xr.apply_ufunc(_ties, ranks, input_core_dims=[[dim]]).sum("dataset")
    corr = 1 - tie / (n * k * (k * k - 1))
    chi2 = (12 * n / (k * (k + 1)) * ((mean_rank**2).sum(dim) - k * (k + 1) ** 2 / 4)) / corr
    with np.errstate(divide="ignore", invalid="ignore"):
        ff = (n - 1) * chi2 / (n * (k - 1) - chi2)
    omnibus = {
        "friedman_statistic": chi2,
        "friedman_p_value": xr.apply_ufunc(lambda x: stats.chi2.sf(x, k - 1), chi2),
        "iman_davenport_statistic": ff,
        "iman_davenport_p_value": xr.apply_ufunc(
            lambda x: stats.f.sf(x, k - 1, (k - 1) * (n - 1)), ff
        ),
    }
    se = math.sqrt(k * (k + 1) / (6 * n))
    q = float(stats.studentized_range.ppf(level, k, np.inf)) / math.sqrt(2)
    return mean_rank, omnibus, se, q * se


def run(req: Request) -> Outcome:
    """Friedman's test over ``dataset``, Nemenyi/Holm post-hoc and the critical difference."""
    from scipy import stats

    score, classes = _scores(req)
    dim = req.dim
    if dim not in score.dims:
        raise ValueError(f"dim={dim!r} is not a dimension of the data (dims {score.dims}).")
    models = list(score[dim].values)
    ia, ib = pairs(models, req.baseline, dim)
    if "dataset" not in score.dims or score.sizes["dataset"] < 2:
        raise ValueError(
            f"test='friedman' compares {dim}s across data sets and needs a 'dataset' dim with "
            f"at least two data sets (got {score.sizes.get('dataset', 0)}). Ranking the "
            f"{dim}s per fold (folds as blocks) is not valid: the folds of one data set share "
            "training data and are not independent blocks. For one data set use "
            "test='corrected_t' (per-fold values) or 'bootstrap' (pooled metrics), or "
            "test='auto'."
        )
    if bool(score.isnull().any()):
        raise ValueError("test='friedman' needs a score for every model and data set (got NaN).")
    k = score.sizes[dim]
    mean_rank, omnibus, se, cd = friedman(score, dim, req.level)
    rank_diff = diff(-mean_rank, dim, ia, ib)  # > 0: the model ranks better than the baseline
    z = rank_diff / se
    if req.baseline is None:
        p_pair = xr.apply_ufunc(
            lambda zz: stats.studentized_range.sf(np.abs(zz) * math.sqrt(2), k, np.inf), z
        )
        sig = np.abs(rank_diff) > cd
        posthoc, how = "nemenyi", "Nemenyi (all pairs)"
    else:
        raw = xr.apply_ufunc(lambda zz: 2 * stats.norm.sf(np.abs(zz)), z)
        p_pair = xr.apply_ufunc(
            holm, raw, input_core_dims=[["contrast"]], output_core_dims=[["contrast"]]
        ).transpose(*raw.dims)
        sig = p_pair < 1 - req.level
        posthoc, how = "holm", "Holm-adjusted z (vs baseline)"
    d = diff(score, dim, ia, ib)
    out: dict[str, Any] = dict(difference=d, mean=d.mean("dataset"), rank=mean_rank)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["effect_size"] = d.mean("dataset") / d.std("dataset", ddof=1)
    out.update(rank_difference=rank_diff, low=rank_diff - cd, high=rank_diff + cd)
    out.update(statistic=z, p_value=p_pair)
    out.update(significant=sig, **omnibus, critical_difference=xr.DataArray(cd))
    interval = "rank difference +/- the Nemenyi critical difference"
    info = dict(posthoc=posthoc, n_datasets=score.sizes["dataset"], interval=interval)
    info["effect_size"] = (
        "Cohen's d_z over data sets: mean / sd (ddof=1) of the per-data-set differences "
        "of the score; rank_difference is the difference of mean ranks"
    )
    return Outcome(out, models, ia, ib, {**info, "p_value": how, **classes})


def adjust_classes(out: xr.Dataset) -> xr.Dataset:
    """Per-class p-values adjusted for the number of tests (Holm), when classes are kept.

    The family is every (contrast, class, ...) p-value of the result; ``p_value_raw`` keeps
    the unadjusted ones and ``significant`` follows the adjusted.
    """
    if CLASS not in out.dims or out.sizes[CLASS] < 2 or "p_value" not in out:
        return out
    if out.attrs["test"] == "friedman":  # its post-hoc p-values are adjusted per class
        return out
    raw = out["p_value"]
    flat = raw.values.ravel()
    ok = np.isfinite(flat)
    adj = flat.copy()
    if ok.any():
        adj[ok] = holm(flat[ok])
    out = out.assign(p_value_raw=raw, p_value=raw.copy(data=adj.reshape(raw.shape)))
    out["significant"] = out["p_value"] < 1 - out.attrs["level"]
    out.attrs["correction"] = (
        f"Holm over the {flat.size} (contrast, class) p-values; p_value_raw unadjusted"
    )
    return out
