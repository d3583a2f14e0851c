r"""Intervals of pooled count metrics (F_tp,fp, pooled precision, recall, accuracy, micro
averages): the posterior of the pooled confusion cells and the bootstrap stratified within
folds, both vectorised over every kept dim (``model``, ``class``, ``trial``, ...).

**Posterior** (Goutte & Gaussier 2005). The pooled cells of one pass over the data
(:math:`TP, FP, FN, TN`) are a multinomial sample; with the prior
:math:`\mathrm{Dirichlet}(\lambda, \lambda, \lambda, \lambda)`, :math:`\lambda = 1/2`, the
posterior of the cell probabilities is :math:`\mathrm{Dirichlet}(TP+\lambda, \ldots)`. A metric
that is a share of some cells, :math:`x/(x+y)` (precision :math:`TP/(TP+FP)`, recall,
specificity, accuracy), then has the posterior
:math:`\mathrm{Beta}(x + \lambda_x, y + \lambda_y)` (:math:`\lambda_x` = :math:`\lambda`
times the cells in :math:`x`), and F is a monotone function of one such share, the Jaccard
index :math:`J = TP/(TP+FP+FN)`:

.. math:: F = \frac{2J}{1+J}, \qquad J \sim \mathrm{Beta}(TP + \tfrac12,\; FP + FN + 1),

so its equal-tailed quantiles are exact (no Monte Carlo). :math:`F_\beta` with
:math:`\beta \ne 1` and class averages (macro, weighted) use Monte-Carlo draws of the
Dirichlet (gamma variates, a fixed seed): of the whole confusion matrix of a single-label
multiclass cube (the classes' counts move together; a weighted average weighs by the drawn
supports), else of each class's one-vs-all cells independently. Where the numerator
cells are 0 the lower end is 0, where the other cells are 0 the upper end is 1 (Brown, Cai
& DasGupta 2001).

**Stratified bootstrap.** Resampling the tested samples of one fold within each true class
draws :math:`TP^* \sim \mathrm{Bin}(P_i, TP_i/P_i)` and
:math:`FP^* \sim \mathrm{Bin}(N_i, FP_i/N_i)` per fold :math:`i`: the bootstrap stratified
within fold x class, drawn from the counts alone; the percentile interval of the pooled
metric over ``n_boot`` draws.

Repeated CV re-tests the same samples in every repeat, so the counts of all repeats are not
``repeats`` times the evidence: the posterior uses the per-repeat pooled counts averaged over
the repeats (the counts of one pass), the bootstrap the per-repeat intervals' ends averaged.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import xarray as xr

from .. import formulas
from ..schema import CLASS, CONFUSION, FOLD, PRED, REPEAT, TRUE, read_counts

__all__ = ["LAMBDA", "SHARES", "bootstrap", "one_pass", "posterior"]

#: The Dirichlet prior weight of every confusion cell (Jeffreys).
LAMBDA = 0.5
#: Metrics that are a share x / (x + y) of the pooled cells: (cells of x, cells of y).
SHARES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "precision": (("tp",), ("fp",)),
    "recall": (("tp",), ("fn",)),
    "specificity": (("tn",), ("fp",)),
    "accuracy": (("tp", "tn"), ("fp", "fn")),
    "f": (("tp",), ("fp", "fn")),  # the Jaccard index J; F = 2J / (1 + J)
}


def one_pass(ds: xr.Dataset) -> dict[str, xr.DataArray]:
    """The pooled counts of one pass over the data: summed over ``fold``, then averaged over
    ``repeat`` (each repeat tests every sample once), float64."""
    c = read_counts(ds)
    out = {}
    for name in ("tp", "fp", "fn", "tn"):
        total = formulas.as_float(c[name]).sum(FOLD)
        out[name] = total.mean(REPEAT) if REPEAT in total.dims else total
    return out


def _one_pass_confusion(ds: xr.Dataset) -> xr.DataArray:
    """The confusion matrix summed over ``fold`` and averaged over ``repeat`` (float64)."""
    conf = formulas.as_float(ds[CONFUSION]).fillna(0.0).sum(FOLD)
    return conf.mean(REPEAT) if REPEAT in conf.dims else conf


def _quantiles(a: Any, b: Any, alpha: float) -> tuple[Any, Any]:
    from scipy.special import betaincinv

    def q(p: float) -> xr.DataArray:
        return xr.apply_ufunc(betaincinv, a, b, p, dask="parallelized", output_dtypes=[float])

    return q(alpha / 2), q(1 - alpha / 2)


def _micro(cells: dict[str, xr.DataArray], task: Any) -> dict[str, xr.DataArray]:
    """Counts summed over the classes; single-label multiclass: correct and wrong samples
    (micro F = precision = recall = accuracy there: each error is one FP and one FN)."""
    if task == "multiclass":
        correct = cells["tp"].sum(CLASS)
        wrong = cells["fn"].sum(CLASS)
        zero = xr.zeros_like(correct)
        return {"tp": correct, "fp": wrong, "fn": zero, "tn": zero, "_accuracy": correct}
    return {k: v.sum(CLASS) for k, v in cells.items()}


def posterior(
    ds: xr.Dataset,
    name: str,
    average: str | None,
    level: float,
    beta: float,
    n_draws: int,
    seed: int,
) -> tuple[xr.DataArray, xr.DataArray, dict[str, Any]]:
    """Lower and upper ends of the posterior interval of pooled ``name`` (one pass)."""
    alpha = 1.0 - level
    cells = one_pass(ds)
    task = ds.attrs.get("task")
    info: dict[str, Any] = {"prior": f"Dirichlet({LAMBDA}) on every confusion cell"}
    if name == "accuracy" and task == "multiclass":
        correct = cells["tp"].sum(CLASS)
        total = cells["tp"].sum(CLASS) + cells["fn"].sum(CLASS)
        lo, hi = _quantiles(correct + LAMBDA, total - correct + LAMBDA, alpha)
        return (*_ends(lo, hi, correct, total - correct), info)
    multi = ds.sizes.get(CLASS, 1) > 1 and average is not None
    if multi and average == "micro":
        cells = _micro(cells, task)
        if "_accuracy" in cells:
            cells.pop("_accuracy")
            name = "accuracy" if name in ("f", "precision", "recall", "accuracy") else name
            correct, wrong = cells["tp"], cells["fp"]
            lo, hi = _quantiles(correct + LAMBDA, wrong + LAMBDA, alpha)
            return (*_ends(lo, hi, correct, wrong), info)
        multi = False
    if multi or (name == "f" and beta != 1.0):
        info.update(draws=n_draws, random_state=seed)
        conf = None
        if multi and task == "multiclass" and CONFUSION in ds:
            conf = _one_pass_confusion(ds)
            info["prior"] = f"Dirichlet({LAMBDA}) on every cell of the confusion matrix"
        args = (name, average if multi else None, alpha, beta, n_draws, seed, conf)
        lo, hi = _monte_carlo(cells, *args)
        return lo, hi, info
    num_cells, other_cells = SHARES[name]
    x = sum(cells[k] for k in num_cells)
    y = sum(cells[k] for k in other_cells)
    lo, hi = _quantiles(x + LAMBDA * len(num_cells), y + LAMBDA * len(other_cells), alpha)
    lo, hi = _ends(lo, hi, x, y)
    if name == "f":
        lo, hi = 2 * lo / (1 + lo), 2 * hi / (1 + hi)
    return lo, hi, info


def _ends(lo: Any, hi: Any, x: Any, y: Any) -> tuple[Any, Any]:
    """0 below when no cell of the share's numerator was seen, 1 above when no other was."""
    return xr.where(x == 0, 0.0, lo), xr.where(y == 0, 1.0, hi)


#: Gamma variates drawn at once by the Monte-Carlo posterior (bounds its memory, ~40 MB each).
DRAW_BUDGET = 5_000_000


def _draw_values(
    rng: np.random.Generator,
    n_draws: int,
    arrays: dict[str, np.ndarray],
    conf: np.ndarray | None,
    name: str,
    average: str | None,
    beta: float,
) -> np.ndarray:
    """(n_draws, L[, C]) values of the metric under Dirichlet draws of L cells' counts."""
    if conf is not None:  # one Dirichlet over the whole confusion matrix
        g = rng.standard_gamma(conf + LAMBDA, size=(n_draws, *conf.shape))
        tp = np.diagonal(g, axis1=-2, axis2=-1)
        fn, fp = g.sum(-1) - tp, g.sum(-2) - tp
        draws = {"tp": tp, "fp": fp, "fn": fn, "tn": g.sum((-2, -1))[..., None] - tp - fp - fn}
    else:  # one Dirichlet per class over its one-vs-all cells
        draws = {
            k: rng.standard_gamma(a + LAMBDA, size=(n_draws, *a.shape)) for k, a in arrays.items()
        }
    with np.errstate(invalid="ignore", divide="ignore"):
        vals = np.asarray(
            formulas.metric(name, *(draws[k] for k in ("tp", "fp", "fn", "tn")), beta=beta)
        )
        if average == "weighted":  # the supports of the draw: the population's, not the data's
            support = draws["tp"] + draws["fn"]
            return np.asarray((vals * support).sum(-1) / support.sum(-1))
    return vals.mean(-1) if average is not None else vals


def _monte_carlo(
    cells: dict[str, xr.DataArray],
    name: str,
    average: str | None,
    alpha: float,
    beta: float,
    n_draws: int,
    seed: int,
    confusion: xr.DataArray | None = None,
) -> tuple[xr.DataArray, xr.DataArray]:
    """Equal-tailed quantiles of the metric (class-averaged by ``average``) under Dirichlet
    draws: of the one-pass ``confusion`` matrix when given (single-label multiclass), else
    of every class's one-vs-all cells independently; a block of cells at a time."""
    order = [d for d in cells["tp"].dims if d != CLASS] + [CLASS]
    template = cells["tp"].transpose(*order)
    lead, n_class = template.shape[:-1], template.shape[-1]
    n_lead = math.prod(lead)
    arrays = {
        k: np.asarray(v.transpose(*order).values, dtype=np.float64).reshape(n_lead, n_class)
        for k, v in cells.items()
    }
    conf = None
    if confusion is not None:
        conf = np.asarray(confusion.transpose(*order[:-1], TRUE, PRED).values, dtype=np.float64)
        conf = conf.reshape(n_lead, *conf.shape[-2:])
    width = conf[0].size if conf is not None else 4 * n_class
    step = max(1, DRAW_BUDGET // (n_draws * width))
    rng = np.random.default_rng(seed)
    ends = []
    for s in range(0, n_lead, step):
        part = {k: a[s : s + step] for k, a in arrays.items()}
        block = None if conf is None else conf[s : s + step]
        vals = _draw_values(rng, n_draws, part, block, name, average, beta)
        ends.append(np.quantile(vals, [alpha / 2, 1 - alpha / 2], axis=0))
    lo, hi = np.concatenate(ends, axis=1)
    if average is not None:
        template = template.isel({CLASS: 0}, drop=True)
    return template.copy(data=lo.reshape(template.shape)), template.copy(
        data=hi.reshape(template.shape)
    )


def bootstrap(
    ds: xr.Dataset, name: str, level: float, beta: float, n_boot: int, seed: int
) -> tuple[xr.DataArray, xr.DataArray, dict[str, Any]]:
    """Percentile interval of pooled ``name`` under the bootstrap stratified within fold x
    class (one-vs-all counts of each class); repeats: the ends of each repeat's interval
    averaged."""
    alpha = 1.0 - level
    c = read_counts(ds)
    fields = {k: formulas.as_float(c[k]) for k in ("tp", "fp", "fn", "tn")}
    fields["is_fold"] = c.is_fold
    dims = [d for d in fields["tp"].dims if d != FOLD] + [FOLD]
    arr = {k: np.asarray(v.transpose(*dims).values) for k, v in fields.items()}
    pos, neg = arr["tp"] + arr["fn"], arr["fp"] + arr["tn"]
    rng = np.random.default_rng(seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_tp = np.where(pos > 0, arr["tp"] / np.where(pos > 0, pos, 1), 0.0)
        p_fp = np.where(neg > 0, arr["fp"] / np.where(neg > 0, neg, 1), 0.0)
    size = (n_boot, *pos.shape)
    tp = rng.binomial(pos.astype(np.int64), p_tp, size=size).sum(-1).astype(np.float64)
    fp = rng.binomial(neg.astype(np.int64), p_fp, size=size).sum(-1).astype(np.float64)
    fn, tn = pos.sum(-1) - tp, neg.sum(-1) - fp
    with np.errstate(invalid="ignore", divide="ignore"):
        vals = np.asarray(formulas.metric(name, tp, fp, fn, tn, beta=beta, fill=0.0))
    lo, hi = np.quantile(vals, [alpha / 2, 1 - alpha / 2], axis=0)
    template = fields["tp"].isel({FOLD: 0}, drop=True).transpose(*dims[:-1])
    low, high = template.copy(data=lo), template.copy(data=hi)
    if REPEAT in low.dims:
        low, high = low.mean(REPEAT), high.mean(REPEAT)
    return low, high, {"n_boot": n_boot, "random_state": seed}
