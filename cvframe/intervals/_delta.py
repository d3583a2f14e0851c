r"""The normal approximation of a pooled count metric's posterior, on the scale of its range:
the interval of class averages (macro, weighted), of metrics of every class at once
(Matthews correlation, balanced accuracy, error) and of :math:`F_\beta` with
:math:`\beta \ne 1` when the data have several classes.

The pooled cells of one pass are a multinomial sample: the :math:`C \times C` confusion
matrix of single-label data (``n`` samples), or, without it (multilabel data, counts typed by
hand), each class's four one-vs-all cells (``n`` samples each, the classes independent). For
a metric :math:`g` of the cell shares :math:`p` (homogeneous of degree 0, so the same of the
counts), the first-order variance of :math:`g(\hat p)` is

.. math:: \widehat{\mathrm{Var}}\,g = \frac1n\Big(\sum_j d_j^2\,\hat p_j
          - \big(\sum_j d_j\,\hat p_j\big)^2\Big), \qquad d_j = \partial g/\partial p_j,

summed over the independent tables. It is also the variance of the normal approximation of
the posterior of :math:`g` under a Dirichlet prior of vanishing weight (the Bayesian bootstrap
of the cells, Rubin 1981): no pseudo-count moves the estimate, however many cells the matrix
has. The derivatives come from the metric's one formula (:func:`cvframe.measure.pooled_counts`)
by forward differences over each class's ``tp``, ``fp``, ``fn``, ``tn``; a cell of the
confusion matrix moves them by the chain rule: an error (true :math:`i`, predicted
:math:`j`) is one FN of :math:`i`, one FP of :math:`j` and one TN of every other class.

The interval is built on the logit of the metric's range mapped to (0, 1)
(:math:`\log\frac{1+r}{1-r}` for a correlation in [-1, 1]), which keeps it inside the range:
:math:`u = (g - a)/(b - a)`, :math:`\mathrm{expit}(\mathrm{logit}\,u \pm z\,se_u/(u(1-u)))`,
centred on the estimate. Where the estimate is at an end of the range or its variance is 0
(no error seen), the centre and the variance are those of the cells with two pseudo-counts
spread evenly over every table's cells (the total weight of Jeffreys' prior on a 2 x 2 table),
and the end at the estimate is the estimate.

Reference: Y. Takahashi, M. Yamamoto, H. Kuchiba and T. Koyama (2022), Confidence interval for
micro-averaged F1 and macro-averaged F1 scores, Applied Intelligence 52, 4961-4972 (the delta
method of the multinomial confusion matrix); D. B. Rubin (1981), The Bayesian bootstrap,
Annals of Statistics 9(1).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import formulas, measure, metrics
from .._core.quantiles import z_quantile

#: Step of the forward differences, in shares of a table's samples.
STEP = 1e-7
#: Pseudo-counts spread over the cells of a table where the estimate is at an end of the
#: range (Jeffreys' prior on a 2 x 2 table weighs 2 in all).
PSEUDO = 2.0
#: The class averages whose derivatives follow from each class's own (:func:`partials`).
SEPARABLE = ("macro", "weighted")
#: Values held at once by the differences of a class average (bounds their memory).
BUDGET = 4_000_000
_CELLS = ("tp", "fp", "fn", "tn")


def _values(metric: str, cells: dict[str, np.ndarray], average: Any, beta: float) -> Any:
    """The metric of cells (..., C): per class (..., C) with ``average=None`` (a per-class
    metric), else one value (...)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        kernel = metrics.REGISTRY[metric].kernel
        if average is None and not formulas.METRIC_SPECS[kernel].over_classes:
            return np.asarray(formulas.metric(kernel, *(cells[k] for k in _CELLS), beta=beta))
        return measure.pooled_counts(metric, cells, average, beta, binary=False)


def _over_classes(metric: str) -> bool:
    return formulas.METRIC_SPECS[metrics.REGISTRY[metric].kernel].over_classes


def _average_partials(
    metric: str, cells: dict[str, np.ndarray], average: str, beta: float, g0: Any
) -> dict[str, np.ndarray]:
    r"""Derivatives of a class average :math:`G = \sum_c w_c g_c` of a per-class metric by
    the chain rule, from each class's own derivatives (O(C) where the general differences
    cost O(C^2)): macro :math:`w_c = 1/C`; weighted :math:`w_c = s_c/S` by the supports
    :math:`s_c = TP_c + FN_c`, whose own derivative adds :math:`(g_c - G)/S` to ``tp`` and
    ``fn`` (:func:`cvframe.measure.average_classes`)."""
    _, own = partials(metric, cells, None, beta)
    per = _values(metric, cells, None, beta)
    n_class = per.shape[-1]
    if average == "macro":
        return {k: own[k] / n_class for k in _CELLS}
    support = cells["tp"] + cells["fn"]
    total = support.sum(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(total > 0, support / total, 0.0)
        moved = np.where(total > 0, (per - g0[:, None]) / total, 0.0)
    return {k: w * own[k] + (moved if k in ("tp", "fn") else 0.0) for k in _CELLS}


def partials(
    metric: str, cells: dict[str, np.ndarray], average: Any, beta: float, generic: bool = False
) -> tuple[Any, dict[str, np.ndarray]]:
    """The metric of cell shares (L, C) and its derivatives by each class's ``tp``, ``fp``,
    ``fn``, ``tn`` (forward differences): (L, C) arrays; of a per-class metric, each class's
    value by its own cells; of its macro or weighted average, by the chain rule
    (:func:`_average_partials`; ``generic``: by moving each class's cells in turn, what the
    tests compare it with)."""
    g0 = _values(metric, cells, average, beta)
    out = {}
    if np.ndim(g0) == cells["tp"].ndim:  # per class: each class reads its own cells only
        for k in _CELLS:
            moved = dict(cells, **{k: cells[k] + STEP})
            diff = (_values(metric, moved, average, beta) - g0) / STEP
            out[k] = np.broadcast_to(diff, g0.shape)
        return g0, out
    if average in SEPARABLE and not _over_classes(metric) and not generic:
        return g0, _average_partials(metric, cells, average, beta, g0)
    n_lead, n_class = cells["tp"].shape
    step = max(1, BUDGET // (n_class * n_class))
    for k in _CELLS:
        parts = []
        for s in range(0, n_lead, step):
            block = {c: v[s : s + step, None, :] for c, v in cells.items()}
            bump = block[k] + STEP * np.eye(n_class)  # (L, C moved, C)
            g = _values(metric, dict(block, **{k: bump}), average, beta)
            diff = (g - g0[s : s + step, None]) / STEP  # (L, 1) when ``k`` is not read
            parts.append(np.broadcast_to(diff, bump.shape[:2]))
        out[k] = np.concatenate(parts, axis=0)
    return g0, out


def _blocks_variance(
    metric: str, cells: dict[str, np.ndarray], average: Any, beta: float
) -> tuple[Any, Any]:
    r"""Metric and variance when each class's four cells (L, C) are an independent
    multinomial of their own total :math:`n_c` (shares of the largest total :math:`N`, so a
    class average weighs the classes as the counts do; by the shares of its own table,
    :math:`q = pN/n_c`, a class's term is :math:`((n_c/N)\sum d^2 p - (\sum d p)^2)/n_c`)."""
    n = np.asarray(cells["tp"] + cells["fp"] + cells["fn"] + cells["tn"])  # (L, C)
    top = n.max(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = {k: np.where(top > 0, cells[k] / top, 0.0) for k in _CELLS}
    g0, d = partials(metric, p, average, beta)
    first = sum(np.where(p[k] > 0, d[k], 0.0) * p[k] for k in _CELLS)
    second = sum(np.where(p[k] > 0, d[k], 0.0) ** 2 * p[k] for k in _CELLS)
    with np.errstate(invalid="ignore", divide="ignore"):
        per = np.where(n > 0, (second * n / top - first**2) / n, 0.0)
    return g0, per if np.ndim(g0) == per.ndim else per.sum(-1)


def _matrix_variance(metric: str, conf: np.ndarray, average: Any, beta: float) -> tuple[Any, Any]:
    """Metric and variance when the (L, C, C) confusion matrix (true x predicted) is one
    multinomial of its ``n`` samples."""
    n = conf.sum((-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = conf / np.where(n > 0, n, 1.0)[:, None, None]
    tp = np.diagonal(p, axis1=-2, axis2=-1)
    fn, fp = p.sum(-1) - tp, p.sum(-2) - tp
    cells = {"tp": tp, "fp": fp, "fn": fn, "tn": 1.0 - tp - fp - fn}
    g0, d = partials(metric, cells, average, beta)
    if np.ndim(g0) == tp.ndim:  # per class: each class's one-vs-all cells are a multinomial
        first = sum(np.where(cells[k] > 0, d[k], 0.0) * cells[k] for k in _CELLS)
        second = sum(np.where(cells[k] > 0, d[k], 0.0) ** 2 * cells[k] for k in _CELLS)
        return g0, (second - first**2) / n[:, None]
    t_tn = d["tn"]
    rest = t_tn.sum(-1)[:, None, None] - t_tn[:, :, None] - t_tn[:, None, :]
    cell = d["fn"][:, :, None] + d["fp"][:, None, :] + rest  # an error: true i, predicted j
    diag = d["tp"] + t_tn.sum(-1)[:, None] - t_tn  # a correct sample of class c
    idx = np.arange(p.shape[-1])
    cell[:, idx, idx] = diag
    cell = np.where(p > 0, cell, 0.0)
    first, second = (cell * p).sum((-2, -1)), (cell**2 * p).sum((-2, -1))
    return g0, (second - first**2) / n


def _logit_ends(
    centre: Any, se: Any, z: float, bounds: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray]:
    """``centre +- z se`` on the logit of the range ``bounds`` mapped to (0, 1)."""
    a, b = bounds
    if not (math.isfinite(a) and math.isfinite(b)):
        return centre - z * se, centre + z * se
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        u = (centre - a) / (b - a)
        s = se / (b - a) / (u * (1.0 - u))
        mid = np.log(u / (1.0 - u))
        lo, hi = (1.0 / (1.0 + np.exp(-(mid + sign * z * s))) for sign in (-1.0, 1.0))
    return a + (b - a) * lo, a + (b - a) * hi


def interval(
    metric: str,
    estimate: np.ndarray,
    *,
    cells: dict[str, np.ndarray] | None = None,
    conf: np.ndarray | None = None,
    average: Any,
    beta: float,
    level: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper ends around ``estimate`` (L[, C]) from the one-pass confusion matrix
    ``conf`` (L, C, C) or the classes' independent cells ``cells`` (L, C)."""
    bounds = metrics.REGISTRY[metric].bounds
    z = z_quantile(level)

    def ends(extra: float) -> tuple[Any, Any]:
        if conf is not None:
            g, var = _matrix_variance(metric, conf + extra / conf[0].size, average, beta)
        else:
            assert cells is not None
            smooth = {k: v + extra / len(_CELLS) for k, v in cells.items()}
            g, var = _blocks_variance(metric, smooth, average, beta)
        return g, np.sqrt(np.maximum(var, 0.0))

    est = np.asarray(estimate, dtype=np.float64)
    _, se = ends(0.0)
    lo, hi = _logit_ends(est, se, z, bounds)
    a, b = bounds
    edge = np.isfinite(est) & ((est <= a) | (est >= b) | ~(se > 0))
    if edge.any():  # at an end of the range, or no error seen: the smoothed cells
        g, se_s = ends(PSEUDO)
        lo_s, hi_s = _logit_ends(g, se_s, z, bounds)
        lo = np.where(edge, np.fmin(lo_s, est), lo)
        hi = np.where(edge, np.fmax(hi_s, est), hi)
    return lo, hi
