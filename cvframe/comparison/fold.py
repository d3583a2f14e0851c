r"""Tests on per-fold values of a counts cube: the corrected repeated k-fold t-test (Nadeau &
Bengio 2003), the plain paired t-test, the 5x2cv t and F tests (Dietterich 1998, Alpaydin
1999) and the Bayesian correlated t-test (Benavoli et al. 2017); formulas in
:func:`cvframe.compare`."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import xarray as xr

from .. import build, reduce
from .._core import checks as _checks
from .._core.quantiles import t_quantile
from ..errors import user_stacklevel
from ..intervals.shared import corrected_moments, t_interval
from ..schema import CLASS, FOLD, REPEAT, read_counts, where_text
from ._common import Outcome, Request, average_info, diff, fold_values, frame_counts, pairs

__all__ = ["EFFECT_SIZE", "counts_cube", "paired_cube", "prepare", "run", "run_5x2cv", "run_bayes"]

#: What ``effect_size`` of the fold tests is.
EFFECT_SIZE = (
    "Cohen's d_z: mean / sd (ddof=1) of the paired per-fold differences over the repeats x "
    "folds ('mean' is the difference on the metric's scale)"
)


def counts_cube(req: Request) -> xr.Dataset:
    """The counts cube of the request: the cube itself, or the frame's (``dim`` a dimension)."""
    if not req.is_frame:
        return req.data
    df, dim = req.data, req.dim
    _checks.column(df, dim, "dim", "predictions frame")
    dims = [dim] + [d for d in build.FRAME_DIMS if d in df.columns and d != dim]
    cube, k = frame_counts(req, df, req.cols["fold"], req.cols["repeat"], dims)
    return cube if k is None else cube.isel({CLASS: [k]})


def paired_cube(req: Request) -> tuple[xr.Dataset, list[Any], list[int], list[int]]:
    """The cube of the request, its models and contrasts, checked paired: every model tested
    on the same folds (fold sizes and class supports equal)."""
    ds, dim = counts_cube(req), req.dim
    reduce.fold_dims(ds, "fold")
    if dim not in ds.dims:
        raise ValueError(
            f"dim={dim!r} is not a dimension of the cube (dims {tuple(ds.dims)}); a paired "
            "comparison needs the models on a dimension of their own: stack them with "
            f"xr.concat(..., dim=pd.Index(names, name={dim!r}))."
        )
    models = list(ds[dim].values)
    ia, ib = pairs(models, req.baseline, dim)
    c = read_counts(ds)
    size, fold = c.n.isel({CLASS: 0}, drop=True), c.is_fold.any(CLASS)
    checks = (
        ("folds (a fold present for one and absent for another)", fold.any(dim) != fold.all(dim)),
        ("test-fold sizes (tp+fp+fn+tn)", size.max(dim) != size.min(dim)),
        ("class supports (tp+fn)", (c.tp + c.fn).max(dim) != (c.tp + c.fn).min(dim)),
    )
    for what, bad in checks:
        if bool(bad.any()):
            raise ValueError(
                f"unpaired design: the {dim}s were not tested on the same folds — their "
                f"{what} differ at {where_text(bad)}. A paired comparison needs every {dim} "
                "fitted on the same splits (cvframe.cross_validate with several models does "
                "that)."
            )
    return ds, models, ia, ib


def prepare(req: Request) -> tuple[xr.Dataset, list[Any], list[int], list[int], xr.DataArray]:
    """:func:`paired_cube` and the per-fold differences of every contrast."""
    ds, models, ia, ib = paired_cube(req)
    return ds, models, ia, ib, diff(fold_values(ds, req), req.dim, ia, ib)


def _outcome(
    out: dict[str, xr.DataArray], d: xr.DataArray, ds: xr.Dataset, info: dict, req: Request
) -> dict[str, Any]:
    """Add the per-repeat difference, the effect size, the design's sizes and how classes
    were compared."""
    out["difference"] = d.mean(FOLD) if REPEAT in d.dims else d.mean(FOLD).expand_dims(REPEAT)
    obs = [x for x in (REPEAT, FOLD) if x in d.dims]
    with np.errstate(divide="ignore", invalid="ignore"):
        out["effect_size"] = d.mean(obs) / d.std(obs, ddof=1)
    info["effect_size"] = EFFECT_SIZE
    info.update(n_folds=ds.sizes[FOLD], n_repeats=ds.sizes.get(REPEAT, 1))
    info.update(average_info(ds[CLASS].values, req))
    return info


def run(req: Request) -> Outcome:
    """The corrected repeated k-fold t-test, or (``test="t"``) the uncorrected one."""
    from scipy import stats

    ds, models, ia, ib, d = prepare(req)
    if req.test == "t":
        warnings.warn(
            "test='t' is the uncorrected paired t-test over folds: the folds share training "
            "data, so its type I error is far above 1 - level (Dietterich 1998). Use "
            "test='corrected_t'.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    mean, se, df, info = corrected_moments(d, ds, req.dim, req.test)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = xr.where(se > 0, mean / se, xr.where(mean == 0, 0.0, np.sign(mean) * np.inf))
    p = xr.apply_ufunc(lambda tt, dd: 2 * stats.t.sf(np.abs(tt), dd), t, df)
    out = t_interval(mean, se, df, req.level)
    out.update(statistic=t, p_value=p, significant=p < 1 - req.level)
    corrected = "corrected " if req.test != "t" else ""
    info["interval"] = f"{req.level:.0%} t interval with the {corrected}variance"
    return Outcome(out, models, ia, ib, _outcome(out, d, ds, info, req))


def run_bayes(req: Request) -> Outcome:
    r"""The Bayesian correlated t-test: the posterior of the mean difference is Student t with
    the corrected t-test's location, scale and df; :math:`P(\mu < -r)`,
    :math:`P(|\mu| \le r)`, :math:`P(\mu > r)` for the ROPE ``r`` and the credible interval."""
    from scipy import stats

    ds, models, ia, ib, d = prepare(req)
    mean, scale, df, info = corrected_moments(d, ds, req.dim, req.test)

    def cdf(v: float) -> xr.DataArray:
        with np.errstate(divide="ignore", invalid="ignore"):
            z = xr.where(scale > 0, (v - mean) / scale, np.sign(v - mean) * np.inf)
        z = xr.where((scale == 0) & (v == mean), 0.0, z)
        return xr.apply_ufunc(stats.t.cdf, z, df)

    left, right = cdf(-req.rope), cdf(req.rope)
    out = t_interval(mean, scale, df, req.level)
    out.update(p_left=left, p_rope=right - left, p_right=1.0 - right)
    info["rope"] = req.rope
    info["interval"] = f"{req.level:.0%} credible interval of the posterior Student t"
    return Outcome(out, models, ia, ib, _outcome(out, d, ds, info, req))


def run_5x2cv(req: Request) -> Outcome:
    """Dietterich's 5x2cv t and Alpaydin's combined F on (contrast, repeat=5, fold=2, ...)."""
    from scipy import stats

    ds, models, ia, ib, d = prepare(req)
    test, level = req.test, req.level
    n_rep = d.sizes.get(REPEAT, 1)
    if n_rep != 5 or d.sizes[FOLD] != 2 or bool(d.isnull().any()):
        raise ValueError(
            f"test={test!r} needs 5 repeats of 2-fold cross-validation with every fold present "
            f"(got {n_rep} repeat(s) x {d.sizes[FOLD]} fold(s)); run "
            "cross_validate(..., cv=2, repeats=5) or use test='corrected_t'."
        )
    s2 = ((d - d.mean(FOLD)) ** 2).sum(FOLD)
    mean = d.mean((REPEAT, FOLD))
    if test == "5x2cv_t":
        p11 = d.isel({REPEAT: 0, FOLD: 0}, drop=True)
        se = np.sqrt(s2.mean(REPEAT))
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = p11 / se
        p = xr.apply_ufunc(lambda tt: 2 * stats.t.sf(np.abs(tt), 5), stat)
        q = float(t_quantile(level, 5))
        low, high = p11 - q * se, p11 + q * se
        interval = f"{level:.0%} t interval around the first fold's difference (5 df)"
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = (d**2).sum((REPEAT, FOLD)) / (2 * s2.sum(REPEAT))
        p = xr.apply_ufunc(lambda ff: stats.f.sf(ff, 10, 5), stat)
        low = high = xr.full_like(mean, np.nan)
        interval = "none (the combined F test defines no interval)"
    out = {"mean": mean, "low": low, "high": high, "statistic": stat, "p_value": p}
    if test == "5x2cv_t":
        out["df"] = xr.full_like(mean, 5.0)
    out["significant"] = p < 1 - level
    return Outcome(out, models, ia, ib, _outcome(out, d, ds, {"interval": interval}, req))
