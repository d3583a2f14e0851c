r"""Intervals of pooled count metrics (F_tp,fp, pooled precision, recall, accuracy, class
averages, metrics of every class at once): the posterior of the pooled confusion cells
(Goutte & Gaussier 2005; the Beta quantiles of a metric that is a monotone function of a
share of cells, :attr:`~cvframe.formulas.MetricSpec.share`, in :func:`cvframe.interval`)
and the bootstrap stratified within folds, both vectorised over every kept dim (``model``,
``class``, ``trial``, ...).

In single-label multiclass data every micro average is a function of the share of correct
samples (each error is one FP and one FN), and so is accuracy. The Monte-Carlo posterior
(:math:`F_\beta` with :math:`\beta \ne 1`, class averages, metrics of every class at once)
draws the Dirichlet as gamma variates with a fixed seed: of the whole confusion matrix of a
single-label multiclass cube (the classes' counts move together; a weighted average weighs
by the drawn supports), of the four cells of a binary cube, else of each class's one-vs-all
cells independently. Where the numerator cells are 0 the lower end is 0, where the other
cells are 0 the upper end is 1 (Brown, Cai & DasGupta 2001).

The bootstrap draws :math:`TP^* \sim \mathrm{Bin}(P_i, TP_i/P_i)` and
:math:`FP^* \sim \mathrm{Bin}(N_i, FP_i/N_i)` per fold :math:`i` (the tested samples of a
fold resampled within each true class, from the counts alone): the percentile interval of
the pooled metric over ``n_boot`` draws. Repeats re-test the same samples: the posterior
uses the per-repeat pooled counts averaged over the repeats (one pass), the bootstrap the
per-repeat intervals' ends averaged.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import xarray as xr

from .. import formulas, measure, metrics
from ..schema import CLASS, CONFUSION, FOLD, PRED, REPEAT, TRUE, read_counts
from . import _delta
from .shared import Ask, whole

#: The Dirichlet prior weight of every confusion cell (Jeffreys).
LAMBDA = 0.5
_CELLS = ("tp", "fp", "fn", "tn")


def interval(
    ds: xr.Dataset, metric: str, method: str, ask: Ask
) -> tuple[xr.DataArray, xr.DataArray, xr.DataArray, dict[str, Any]]:
    """Estimate (mean over repeats of the pooled metric) and the interval of a pooled metric."""
    ask = ask._replace(average=ask.average if ds.sizes.get(CLASS, 1) > 1 else None)
    est = measure.cube(
        ds, metric, "tp_fp", ask.average, beta=ask.beta, zero_division=ask.zero_division
    )
    est = est.mean(REPEAT) if REPEAT in est.dims else est
    if method == "bootstrap":
        lo, hi, info = bootstrap(ds, metric, ask)
    else:
        lo, hi, info = posterior(ds, metric, ask, est)
    # the interval holds its estimate: an end that passes it (a level far below 0.95, the
    # mean over repeats against the counts of one pass) is moved to it
    inside = est.notnull()
    lo = xr.where(inside & (lo > est), est, lo)
    hi = xr.where(inside & (hi < est), est, hi)
    return est, lo, hi, info


def one_pass(ds: xr.Dataset) -> dict[str, xr.DataArray]:
    """The pooled counts of one pass over the data: summed over ``fold``, then averaged over
    ``repeat`` (each repeat tests every sample once), float64."""
    c = read_counts(ds)
    out = {}
    for name in _CELLS:
        total = formulas.as_float(c[name]).sum(FOLD)
        out[name] = total.mean(REPEAT) if REPEAT in total.dims else total
    return out


def _one_pass_confusion(ds: xr.Dataset) -> xr.DataArray:
    """The confusion matrix summed over ``fold`` and averaged over ``repeat`` (float64)."""
    conf = formulas.as_float(ds[CONFUSION]).fillna(0.0).sum(FOLD)
    return conf.mean(REPEAT) if REPEAT in conf.dims else conf


def _quantiles(a: Any, b: Any, level: float) -> tuple[Any, Any]:
    from scipy.special import betaincinv

    def q(p: float) -> xr.DataArray:
        return xr.apply_ufunc(betaincinv, a, b, p, dask="parallelized", output_dtypes=[float])

    return q((1 - level) / 2), q((1 + level) / 2)


def _ends(lo: Any, hi: Any, x: Any, y: Any) -> tuple[Any, Any]:
    """0 below when no cell of the share's numerator was seen, 1 above when no other was."""
    return xr.where(x == 0, 0.0, lo), xr.where(y == 0, 1.0, hi)


def _share(spec: formulas.MetricSpec, beta: float) -> Any:
    """The cells ``(x, y)`` of the share the metric is a monotone function of at this
    ``beta`` (None: none, the posterior is drawn)."""
    if spec.share is None or spec.over_classes:
        return None
    ones = (1.0, 1.0, 1.0, 1.0)
    return spec.share if spec.num_den(*ones, beta) == spec.num_den(*ones, 1.0) else None


def _at(spec: formulas.MetricSpec, beta: float, **cells: Any) -> Any:
    """The metric's formula of one sample's cells (those not given are 0): its value at a
    quantile of the share it is a monotone function of."""
    return formulas.metric(spec.name, *(cells.get(k, 0.0) for k in _CELLS), beta=beta)


def posterior(
    ds: xr.Dataset, metric: str, ask: Ask, estimate: xr.DataArray
) -> tuple[Any, Any, dict[str, Any]]:
    """Lower and upper ends of the posterior interval of pooled ``metric`` (one pass) around
    its ``estimate``."""
    average, level, beta = ask.average, ask.level, ask.beta
    spec = formulas.METRIC_SPECS[metrics.REGISTRY[metric].kernel]
    cells = one_pass(ds)
    single = ds.attrs.get("task") == "multiclass"
    n_class = ds.sizes.get(CLASS, 1)
    info: dict[str, Any] = {"prior": f"Dirichlet({LAMBDA}) on every confusion cell"}
    how = whole(metric)
    micro = average == "micro" and n_class > 1 and how != "all"
    if single and (how == "correct" or micro):
        # the share of correct samples: accuracy; every micro average is a function of it
        # (one sample's summed cells: each error is one FP and one FN)
        info["prior"] = f"Dirichlet({LAMBDA}) on the correct and the wrong samples"
        correct, wrong = cells["tp"].sum(CLASS), cells["fn"].sum(CLASS)
        lo, hi = _ends(*_quantiles(correct + LAMBDA, wrong + LAMBDA, level), correct, wrong)
        if how == "correct":
            return lo, hi, info
        ends = [_at(spec, beta, tp=q, fp=1 - q, fn=1 - q, tn=n_class - 2 + q) for q in (lo, hi)]
        return ends[0], ends[1], info
    if micro:
        cells, average, n_class = {k: v.sum(CLASS) for k, v in cells.items()}, None, 1
    share = _share(spec, beta)
    if share is not None and (average is None or n_class == 1):
        x = sum(cells[k] for k in share[0])
        y = sum(cells[k] for k in share[1])
        lo, hi = _quantiles(x + LAMBDA * len(share[0]), y + LAMBDA * len(share[1]), level)
        lo, hi = _ends(lo, hi, x, y)
        ends = [_at(spec, beta, **{share[0][0]: q, share[1][0]: 1 - q}) for q in (lo, hi)]
        return ends[0], ends[1], info
    conf = None
    if n_class > 1 and single and CONFUSION in ds:
        conf = _one_pass_confusion(ds)
    elif how == "all" and n_class > 1:
        raise ValueError(
            f"the posterior of {metrics.display(metric)} reads the whole confusion matrix, "
            f"which this cube does not hold (no {CONFUSION!r} variable of a single-label "
            "multiclass cube): build it with cvframe.from_predictions or frame.cv.counts()."
        )
    if n_class > 1:  # several classes: the normal approximation, no pseudo-count per cell
        info["prior"] = NORMAL_PRIOR
        info["approximation"] = NORMAL_MATRIX if conf is not None else NORMAL_BLOCKS
        lo, hi = _normal(cells, metric, ask._replace(average=average), conf, estimate)
        return lo, hi, info
    info.update(draws=ask.n_draws, random_state=ask.seed)
    lo, hi = _monte_carlo(cells, metric, ask._replace(average=average))
    return lo, hi, info


#: How the interval of several classes' cells is computed (``attrs["approximation"]``).
NORMAL_MATRIX = (
    "normal approximation on the logit scale of the metric's range (delta method of the "
    "multinomial one-pass confusion matrix)"
)
NORMAL_BLOCKS = (
    "normal approximation on the logit scale of the metric's range (delta method of each "
    "class's one-vs-all cells, the classes taken as independent)"
)
NORMAL_PRIOR = (
    "none (a Dirichlet prior of vanishing weight: the estimate is not moved); at an end of "
    f"the range, {_delta.PSEUDO:g} pseudo-counts spread over each table's cells"
)


def _flat(
    cells: dict[str, xr.DataArray], confusion: xr.DataArray | None
) -> tuple[xr.DataArray, dict[str, np.ndarray], np.ndarray | None]:
    """The cells as numpy arrays (L, C) with every kept dim flattened to L (class last), the
    confusion matrix as (L, C, C), and the (..., class) template they came from."""
    order = [d for d in cells["tp"].dims if d != CLASS] + [CLASS]
    template = cells["tp"].transpose(*order)
    n_lead, n_class = math.prod(template.shape[:-1]), template.shape[-1]
    arrays = {
        k: np.asarray(v.transpose(*order).values, dtype=np.float64).reshape(n_lead, n_class)
        for k, v in cells.items()
    }
    conf = None
    if confusion is not None:
        conf = np.asarray(confusion.transpose(*order[:-1], TRUE, PRED).values, dtype=np.float64)
        conf = conf.reshape(n_lead, *conf.shape[-2:])
    return template, arrays, conf


def _normal(
    cells: dict[str, xr.DataArray],
    metric: str,
    ask: Ask,
    confusion: xr.DataArray | None,
    estimate: xr.DataArray,
) -> tuple[xr.DataArray, xr.DataArray]:
    """The normal approximation's ends (:mod:`._delta`) around ``estimate``: of the one-pass
    ``confusion`` matrix when given (single-label multiclass), else of every class's
    one-vs-all cells independently."""
    template, arrays, conf = _flat(cells, confusion)
    if ask.average is not None or whole(metric) == "all":
        template = template.isel({CLASS: 0}, drop=True)
    n_lead = math.prod(template.shape[:-1]) if CLASS in template.dims else template.size
    est = np.asarray(estimate.transpose(*template.dims).values, dtype=np.float64)
    est = est.reshape(n_lead, -1) if CLASS in template.dims else est.reshape(n_lead)
    lo, hi = _delta.interval(
        metric,
        est,
        cells=None if conf is not None else arrays,
        conf=conf,
        average=ask.average,
        beta=ask.beta,
        level=ask.level,
    )
    return template.copy(data=lo.reshape(template.shape)), template.copy(
        data=hi.reshape(template.shape)
    )


#: Gamma variates drawn at once by the Monte-Carlo posterior (bounds its memory, ~40 MB each).
DRAW_BUDGET = 5_000_000


def _draw_values(
    rng: np.random.Generator, arrays: dict[str, Any], metric: str, ask: Ask
) -> np.ndarray:
    """(n_draws, L[, C]) values of the metric under Dirichlet draws of L tables' four cells."""
    n_draws, average, beta = ask.n_draws, ask.average, ask.beta
    draws = {k: rng.standard_gamma(a + LAMBDA, size=(n_draws, *a.shape)) for k, a in arrays.items()}
    with np.errstate(invalid="ignore", divide="ignore"):
        if average is None and whole(metric) != "all":  # per class
            kernel = metrics.REGISTRY[metric].kernel
            return np.asarray(formulas.metric(kernel, *(draws[k] for k in _CELLS), beta=beta))
        # a metric of both classes of the table
        return measure.pooled_counts(metric, draws, average, beta, binary=True)


def _monte_carlo(
    cells: dict[str, xr.DataArray], metric: str, ask: Ask
) -> tuple[xr.DataArray, xr.DataArray]:
    """Equal-tailed quantiles of the metric under Dirichlet(1/2) draws of the four cells of
    one table (a binary cube, or the summed cells of a micro average), a block of tables at
    a time."""
    level, n_draws = ask.level, ask.n_draws
    template, arrays, _ = _flat(cells, None)
    n_lead = arrays["tp"].shape[0]
    step = max(1, DRAW_BUDGET // (n_draws * 4 * template.shape[-1]))
    rng = np.random.default_rng(ask.seed)
    ends = []
    for s in range(0, n_lead, step):
        part = {k: a[s : s + step] for k, a in arrays.items()}
        vals = _draw_values(rng, part, metric, ask)
        ends.append(np.quantile(vals, [(1 - level) / 2, (1 + level) / 2], axis=0))
    lo, hi = np.concatenate(ends, axis=1)
    if ask.average is not None or whole(metric) == "all":
        template = template.isel({CLASS: 0}, drop=True)
    return template.copy(data=lo.reshape(template.shape)), template.copy(
        data=hi.reshape(template.shape)
    )


def bootstrap(ds: xr.Dataset, metric: str, ask: Ask) -> tuple[Any, Any, dict[str, Any]]:
    """Percentile interval of pooled ``metric`` under the bootstrap stratified within fold x
    class (one-vs-all counts of each class; a binary cube's are all four cells); repeats: the
    ends of each repeat's interval averaged."""
    level, beta, n_boot, seed = ask.level, ask.beta, ask.n_draws, ask.seed
    how = whole(metric)
    if how is not None and ds.sizes.get(CLASS, 1) > 1 and ds.attrs.get("task") == "multiclass":
        raise ValueError(
            "method='bootstrap' resamples each class's one-vs-all counts; "
            f"{metrics.display(metric)} counts every sample once across the classes: use "
            "method='posterior'."
        )
    c = read_counts(ds)
    fields = {k: formulas.as_float(c[k]) for k in _CELLS}
    fields["is_fold"] = c.is_fold
    dims = [d for d in fields["tp"].dims if d not in (CLASS, FOLD)] + [CLASS, FOLD]
    arr = {k: np.asarray(v.transpose(*dims).values) for k, v in fields.items()}
    pos, neg = arr["tp"] + arr["fn"], arr["fp"] + arr["tn"]
    rng = np.random.default_rng(seed)
    p_tp, p_fp = formulas.safe_divide(arr["tp"], pos), formulas.safe_divide(arr["fp"], neg)
    size = (n_boot, *pos.shape)
    tp = rng.binomial(pos.astype(np.int64), p_tp, size=size).sum(-1).astype(np.float64)
    fp = rng.binomial(neg.astype(np.int64), p_fp, size=size).sum(-1).astype(np.float64)
    draws = {"tp": tp, "fp": fp, "fn": pos.sum(-1) - tp, "tn": neg.sum(-1) - fp}
    template = fields["tp"].isel({FOLD: 0}, drop=True).transpose(*dims[:-1])
    with np.errstate(invalid="ignore", divide="ignore"):
        if how == "all":  # one class of a binary cube: its negative class is added
            vals = measure.pooled_counts(metric, draws, None, beta, binary=True)
            template = template.isel({CLASS: 0}, drop=True)
        else:
            kernel = metrics.REGISTRY[metric].kernel
            vals = np.asarray(formulas.metric(kernel, *draws.values(), beta=beta, fill=0.0))
    lo, hi = np.quantile(vals, [(1 - level) / 2, (1 + level) / 2], axis=0)
    low, high = template.copy(data=lo), template.copy(data=hi)
    if REPEAT in low.dims:
        low, high = low.mean(REPEAT), high.mean(REPEAT)
    return low, high, {"n_boot": n_boot, "random_state": seed}
