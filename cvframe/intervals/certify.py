r"""Coverage simulated at a design: the classifiers of known confusion rates whose one-pass
counts :func:`cvframe.interval` (``certify=True``) and :func:`cvframe.coverage_study` (its
class and label designs) draw, and the share of simulated intervals that hold the truth.

A design is a fixed classifier tested once on every sample (the pooled counts of one pass
of cross-validation, which the posterior interval reads):

- **a confusion matrix** (single-label data): ``sizes[c]`` samples of true class ``c``, each
  predicted as class ``j`` with probability ``probs[c, j]``; the one-pass matrix is one
  multinomial draw per true class, :math:`(m_{c1}, \dots, m_{cC}) \sim
  \mathrm{Mult}(n_c, P_c)`. By the additivity of the multinomial it is the sum of the
  ``k`` folds' draws, whatever ``k``; the repeats of a repeated CV re-test the same samples,
  so a fixed classifier's one pass is every repeat's.
- **independent tables** (binary data, multilabel data, counts without a confusion matrix):
  per class or label ``c``, :math:`TP_c \sim \mathrm{Bin}(P_c, \rho_c)` and
  :math:`FP_c \sim \mathrm{Bin}(N_c, q_c)` (recall :math:`\rho_c`, false-positive rate
  :math:`q_c`), the classes independent.

The truth is the metric of the expected counts (:func:`cvframe.measure.cube` of the
expected cube: the number the estimate estimates). :func:`class_design` and
:func:`label_design` build the designs of a coverage study; :func:`observed_design` the one
of a cube: its class sizes and its observed rates, with :data:`PSEUDO` pseudo-counts spread
over each table's cells so that an error never seen stays possible. :func:`certificate`
counts the coverage (with its Monte-Carlo standard error) of an interval computed by the
caller on the simulated cubes, within :data:`BUDGET` cells.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from .. import formulas, measure, metrics
from ..errors import UndefinedMetricWarning, few
from ..schema import CLASS, CONFUSION, COUNTS, FOLD, PRED, REPEAT, TRIAL, TRUE, read_counts
from . import _auc, _pooled
from .shared import Ask

__all__ = [
    "BUDGET",
    "ERRORS",
    "PSEUDO",
    "Design",
    "certificate",
    "class_design",
    "label_design",
    "observed_design",
]

#: Pseudo-counts spread over the cells of each table of an observed design (Jeffreys' prior on
#: a 2 x 2 table weighs 2 in all).
PSEUDO = 2.0
#: Units of work of a certificate (:func:`trials_for`): about a second on one core, two at
#: most where the fewest trials cost more (many models of 100 classes).
BUDGET = 40_000_000
#: The fewest and the most trials of a certificate.
TRIALS = (100, 2000)
#: How a class's errors spread over the other classes (:func:`class_design`).
ERRORS = ("uniform", "nearby")
_DESIGN = "design"
#: The factor of the expected counts (:meth:`Design.expected`).
SCALE = 1e6


@dataclass(frozen=True)
class Design:
    """Fixed classifiers of known rates, one per design ``L``.

    ``matrix``: ``sizes`` (L, C) samples per true class and ``probs`` (L, C, C) the share of
    each true class predicted as each class. Else independent tables: ``sizes`` (L, C, 2)
    positives and negatives of each class and ``probs`` (L, C, 2) its recall and
    false-positive rate. ``task`` is the cube's (``"multiclass"``, ``"binary"``,
    ``"multilabel"``); ``classes`` the class labels.
    """

    sizes: np.ndarray
    probs: np.ndarray
    matrix: bool
    task: str
    classes: tuple[Any, ...]

    @property
    def n_design(self) -> int:
        return int(self.sizes.shape[0])

    @property
    def n_class(self) -> int:
        return int(self.sizes.shape[1])

    def cells(self) -> int:
        """Cells of one simulated cube of every design (what a trial costs)."""
        per = self.n_class**2 if self.matrix else 4 * self.n_class
        return self.n_design * per

    def expected(self) -> xr.Dataset:
        """The expected one-pass counts as a (design, fold, class) cube, times
        :data:`SCALE` and rounded: whole counts whose margins add up exactly (the metrics
        are ratios of counts, so the scale does not change them)."""
        if self.matrix:
            return _matrix_cube(np.round(SCALE * self.sizes[..., None] * self.probs), self)
        pos, neg = SCALE * self.sizes[..., 0], SCALE * self.sizes[..., 1]
        tp, fp = np.round(pos * self.probs[..., 0]), np.round(neg * self.probs[..., 1])
        return _tables_cube((tp, fp, pos - tp, neg - fp), self)

    def draw(self, trials: int, rng: np.random.Generator) -> xr.Dataset:
        """``trials`` simulated one-pass cubes (trial, design, fold, class)."""
        if self.matrix:
            n = np.broadcast_to(self.sizes, (trials, *self.sizes.shape))
            return _matrix_cube(rng.multinomial(n, self.probs), self)
        pos, neg = (
            np.broadcast_to(self.sizes[..., i], (trials, *self.sizes.shape[:-1])) for i in (0, 1)
        )
        tp = rng.binomial(pos, self.probs[..., 0])
        fp = rng.binomial(neg, self.probs[..., 1])
        return _tables_cube((tp, fp, pos - tp, neg - fp), self)


def _lead(shape: tuple[int, ...]) -> list[str]:
    return [TRIAL, _DESIGN][-len(shape) :] if shape else []


def _matrix_cube(conf: np.ndarray, design: Design) -> xr.Dataset:
    """A single-label cube of one fold from (..., L, C, C) confusion matrices."""
    lead = _lead(conf.shape[:-2])
    tp = np.diagonal(conf, axis1=-2, axis2=-1)
    fn, fp = conf.sum(-1) - tp, conf.sum(-2) - tp
    tn = conf.sum((-2, -1))[..., None] - tp - fp - fn
    dims = (*lead, FOLD, CLASS)
    data: dict[str, Any] = {
        k: (dims, v[..., None, :]) for k, v in zip(COUNTS, (tp, fp, fn, tn), strict=True)
    }
    data[CONFUSION] = ((*lead, FOLD, TRUE, PRED), conf[..., None, :, :])
    coords = {CLASS: list(design.classes), TRUE: list(design.classes), PRED: list(design.classes)}
    return xr.Dataset(data, coords={FOLD: [0], **coords}, attrs={"task": design.task})


def _tables_cube(cells: tuple[np.ndarray, ...], design: Design) -> xr.Dataset:
    """A cube of one fold from (..., L, C) counts of independent tables."""
    lead = _lead(cells[0].shape[:-1])
    dims = (*lead, FOLD, CLASS)
    data = {k: (dims, v[..., None, :]) for k, v in zip(COUNTS, cells, strict=True)}
    attrs: dict[str, Any] = {"task": design.task}
    if design.task == "binary":
        attrs["pos_label"] = design.classes[0]
    return xr.Dataset(data, coords={FOLD: [0], CLASS: list(design.classes)}, attrs=attrs)


def class_design(
    classes: int, n: int, accuracy: float, imbalance: float = 5.0, errors: str = "uniform"
) -> Design:
    r"""A single-label classifier of ``classes`` classes and overall accuracy ``accuracy``.

    Class shares fall geometrically from the largest to the smallest, ``imbalance`` times
    smaller (:math:`\pi_c \propto \text{imbalance}^{-c/(C-1)}`), class sizes ``n`` times the
    shares rounded (at least 1); per-class accuracy runs linearly from
    :math:`a + \delta` (largest class) to :math:`a - \delta` (smallest),
    :math:`\delta = \min(0.1, (1-a)/2)`, shifted so the expected overall accuracy is ``a``;
    a class's errors go to the other classes evenly (``errors="uniform"``) or mostly to its
    neighbours in a ring of the classes, halving with each step away (``"nearby"``: a few
    confusable classes, as in real confusion matrices).
    """
    w = float(imbalance) ** (-np.arange(classes) / max(classes - 1, 1))
    sizes = np.maximum(1, np.round(n * w / w.sum())).astype(np.int64)
    share = sizes / sizes.sum()
    delta = min(0.1, (1.0 - accuracy) / 2)
    acc = delta * np.linspace(1.0, -1.0, classes)
    acc = np.clip(accuracy + acc - float(share @ acc), 1e-3, 1.0 - 1e-6)
    ring = np.abs(np.arange(classes)[:, None] - np.arange(classes)[None, :])
    ring = np.minimum(ring, classes - ring)
    weight = np.ones_like(ring, dtype=np.float64) if errors == "uniform" else 0.5**ring
    np.fill_diagonal(weight, 0.0)
    probs = (1.0 - acc)[:, None] * weight / weight.sum(1, keepdims=True)
    probs[np.arange(classes), np.arange(classes)] = acc
    names = tuple(range(classes))
    return Design(sizes[None], probs[None], True, "multiclass", names)


def label_design(
    labels: int, n: int, prevalence: float, f: float, imbalance: float = 5.0
) -> Design:
    r"""``labels`` independent labels of ``n`` samples, each predicted with precision = recall
    = ``f`` (the model of Forman & Scholz 2010 per label): prevalences falling geometrically
    from ``prevalence`` to ``prevalence / imbalance``; :math:`P_c` = ``n`` times the
    prevalence rounded (at least 1), false-positive rate :math:`P_c(1-f)/N_c`. One label is
    the binary design."""
    w = float(imbalance) ** (-np.arange(labels) / max(labels - 1, 1))
    pos = np.maximum(1, np.round(n * prevalence * w)).astype(np.int64)
    neg = n - pos
    if (neg < 1).any() or (pos * (1 - f) > neg).any():
        raise ValueError(
            f"prevalence={prevalence!r} and f={f!r} with n={n!r} leave a label without "
            "negatives enough for its precision; lower prevalence or raise n."
        )
    rates = np.stack([np.full(labels, float(f)), pos * (1 - f) / neg], -1)
    task = "binary" if labels == 1 else "multilabel"
    names = (1,) if labels == 1 else tuple(range(labels))
    return Design(np.stack([pos, neg], -1)[None], rates[None], False, task, names)


def observed_design(ds: xr.Dataset) -> tuple[Design, xr.DataArray]:
    """The design of a cube's one pass per kept dim (flattened to ``design``): its class
    sizes and its observed rates smoothed by :data:`PSEUDO` pseudo-counts per table; and the
    (kept dims) template to put results back in."""
    c = read_counts(ds)
    names = tuple(ds[CLASS].values.tolist()) if CLASS in ds.coords else (1,)
    cells = {k: formulas.as_float(getattr(c, k)).sum(FOLD) for k in COUNTS}
    cells = {k: v.mean(REPEAT) if REPEAT in v.dims else v for k, v in cells.items()}
    order = [d for d in cells["tp"].dims if d != CLASS]
    template = cells["tp"].isel({CLASS: 0}, drop=True).transpose(*order)
    n_design = max(1, math.prod(template.shape))
    task = str(ds.attrs.get("task", "binary"))
    if task == "multiclass" and CONFUSION in ds and ds.sizes.get(CLASS, 1) > 1:
        conf = formulas.as_float(ds[CONFUSION]).fillna(0.0).sum(FOLD)
        conf = conf.mean(REPEAT) if REPEAT in conf.dims else conf
        shape = (n_design, *conf.shape[-2:])
        m = np.round(np.asarray(conf.transpose(*order, TRUE, PRED).values).reshape(shape))
        sizes = m.sum(-1).astype(np.int64)
        m = m + PSEUDO / m[0].size
        return Design(sizes, m / m.sum(-1, keepdims=True), True, task, names), template
    arr = {
        k: np.asarray(v.transpose(*order, CLASS).values).reshape(n_design, -1)
        for k, v in cells.items()
    }
    pos, neg = np.round(arr["tp"] + arr["fn"]), np.round(arr["fp"] + arr["tn"])
    half = PSEUDO / 4  # per cell of each 2 x 2 table
    rates = np.stack(
        [(arr["tp"] + half) / (pos + 2 * half), (arr["fp"] + half) / (neg + 2 * half)], -1
    )
    sizes = np.stack([pos, neg], -1).astype(np.int64)
    return Design(
        sizes, rates, False, task if task != "multiclass" else "multiclass", names
    ), template


def trials_for(design: Design, metric: str, average: Any, draws: int) -> int:
    """Trials of a certificate: as many as :data:`BUDGET` units of work allow, within
    :data:`TRIALS`. A trial costs four units per cell of its 2 x 2 tables, sixteen per cell
    of a confusion matrix (the cube, the one-pass matrix and its variance read every cell
    several times), 32 for a metric of every class at once (its derivatives move each
    class's cells in turn), and ``4 draws`` per cell when the interval draws Monte-Carlo
    values (``draws`` > 0)."""
    spec = formulas.METRIC_SPECS[metrics.REGISTRY[metric].kernel]
    cells = design.cells()
    if draws:
        cost = cells * 4.0 * draws
    elif design.matrix:
        cost = cells * (32.0 if spec.over_classes else 16.0)
    else:
        cost = cells * 4.0
    return int(np.clip(BUDGET // max(cost, 1.0), *TRIALS))


def certificate(
    design: Design,
    compute: Callable[[xr.Dataset], tuple[xr.DataArray, xr.DataArray, xr.DataArray]],
    truth_of: Callable[[xr.Dataset], xr.DataArray],
    trials: int,
    seed: Any,
) -> dict[str, Any]:
    """Coverage of the interval ``compute`` returns (estimate, lower, upper over ``trial``,
    ``design``[, ``class``]) on ``trials`` cubes drawn from ``design``, of the truth
    ``truth_of`` gives of the expected cube: ``coverage``, ``coverage_se``
    (:math:`\\sqrt{c(1-c)/t}`), ``holds_estimate`` (the share whose interval holds its own
    estimate), ``width``, ``trials`` (those with a finite interval) and ``truth``, each over
    ``design``[, ``class``]."""
    rng = np.random.default_rng(seed)
    truth = truth_of(design.expected())
    est, lo, hi = compute(design.draw(trials, rng))
    ok = xr.DataArray(np.isfinite(lo) & np.isfinite(hi))
    t = ok.sum(TRIAL)
    with np.errstate(invalid="ignore", divide="ignore"):
        cover = ((lo <= truth) & (truth <= hi)).where(ok).sum(TRIAL) / t
        holds = ((lo <= est) & (est <= hi)).where(ok).sum(TRIAL) / t
        width = (hi - lo).where(ok).sum(TRIAL) / t
    se = np.sqrt(cover * (1 - cover) / t)
    return {
        "coverage": cover,
        "coverage_se": se,
        "holds_estimate": holds,
        "width": width,
        "trials": t,
        "truth": truth,
    }


def truth_function(metric: str, average: Any, beta: float) -> Callable[[xr.Dataset], xr.DataArray]:
    """The metric of an expected cube, pooled, as :func:`cvframe.measure.cube` computes the
    estimate (undefined: 0)."""

    def truth(expected: xr.Dataset) -> xr.DataArray:
        avg = average if expected.sizes.get(CLASS, 1) > 1 else None
        return measure.cube(expected, metric, "tp_fp", avg, beta=beta, zero_division=0.0)

    return truth


def _back(values: xr.DataArray, template: xr.DataArray, like: xr.DataArray) -> xr.DataArray:
    """A (design[, class]) result as the kept dims of ``template`` (and ``like``'s class)."""
    if CLASS in values.dims:
        arr = values.transpose(_DESIGN, CLASS).values
        shape, dims = (*template.shape, arr.shape[-1]), (*template.dims, CLASS)
        coords: dict[Any, Any] = {d: template[d] for d in template.dims if d in template.coords}
        coords[CLASS] = like[CLASS].values
    else:
        arr = values.transpose(_DESIGN).values
        shape, dims = template.shape, template.dims
        coords = {d: template[d] for d in template.dims if d in template.coords}
    out = xr.DataArray(arr.reshape(shape), dims=dims, coords=coords)
    return out.transpose(*like.dims)


def counts(
    ds: xr.Dataset, metric: str, ask: Ask, like: xr.DataArray, *, draws: bool
) -> tuple[dict[str, xr.DataArray], dict[str, Any]]:
    """The certificate of a pooled count metric's posterior interval at the cube's own
    design: ``coverage`` and ``coverage_se`` shaped as ``like`` (the estimate), and the
    attrs that say how it was simulated (``draws``: the interval draws ``ask.n_draws``
    Monte-Carlo values per table)."""
    quiet = ask._replace(zero_division=0.0)

    def compute(sim: xr.Dataset) -> tuple[xr.DataArray, xr.DataArray, xr.DataArray]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            est, lo, hi, _ = _pooled.interval(sim, metric, "posterior", quiet)
        return est, lo, hi

    truth_of = truth_function(metric, ask.average, ask.beta)
    seed = ask.seed
    design, template = observed_design(ds)
    trials = trials_for(design, metric, ask.average, ask.n_draws if draws else 0)
    res = certificate(design, compute, truth_of, trials, seed)
    out = {k: _back(res[k], template, like) for k in ("coverage", "coverage_se")}
    sizes = design.sizes[0] if design.matrix else design.sizes[0, :, 0]
    n = int(design.sizes[0].sum()) if design.matrix else int(design.sizes[0, 0].sum())
    what = (
        f"{design.n_class} classes of {few(sizes.tolist())} samples"
        if design.matrix
        else f"{few(sizes.tolist())} positives"
    )
    folds, repeats = ds.sizes.get(FOLD, 1), ds.sizes.get(REPEAT, 1)
    model = (
        "a fixed classifier with the observed confusion rates"
        if design.matrix
        else "a fixed classifier with the observed recall and false-positive rate"
        + (" of each class, the classes independent" if design.n_class > 1 else "")
    )
    attrs = {
        "coverage_trials": int(res["trials"].min()),
        "coverage_design": (
            f"simulated at this design: n={n} ({what}), k={folds} folds, {repeats} "
            f"repeat(s); {model} ({PSEUDO:g} pseudo-counts spread over each table's "
            f"cells), its one-pass counts drawn {trials} times (k folds' draws add up to "
            "one per true class; the repeats re-test the same samples); truth = the metric "
            "of the expected counts"
        ),
    }
    return out, attrs


#: Scores a DeLong certificate draws at most (trials x samples x classes x designs): the
#: sort of each trial's scores bounds its time (about 2 s).
SCORE_BUDGET = 2_000_000
#: The fewest trials of a DeLong certificate.
SCORE_TRIALS = 40
#: Scores a DeLong certificate may draw at all (its fewest trials x samples x classes x
#: designs): a larger design is refused, naming the limit, rather than sorted for minutes
#: (10^6 samples of 10 classes took 22 s).
SCORE_LIMIT = 2 * SCORE_BUDGET


def tie_free_delong(s: np.ndarray, n_pos: int) -> tuple[np.ndarray, np.ndarray]:
    r"""AUC and DeLong variance of every row of continuous scores ``s`` (T, n) whose first
    ``n_pos`` columns are the positives: the placements of Sun & Xu (2014) from ranks
    (no ties), :math:`V_{10}(i) = (R_i - R^+_i)/n_0`, :math:`V_{01}(j) = 1 - (R_j -
    R^-_j)/n_1`, variance :math:`s^2_{10}/n_1 + s^2_{01}/n_0`; the simulated scores of a
    certificate, sorted with numpy (the data's own sort stays the one of
    :mod:`cvframe.scores`)."""
    n1, n0 = n_pos, s.shape[-1] - n_pos
    rank = np.argsort(np.argsort(s, axis=-1), axis=-1) + 1.0
    r_pos = np.argsort(np.argsort(s[:, :n1], axis=-1), axis=-1) + 1.0
    r_neg = np.argsort(np.argsort(s[:, n1:], axis=-1), axis=-1) + 1.0
    v10 = (rank[:, :n1] - r_pos) / max(n0, 1)
    v01 = 1.0 - (rank[:, n1:] - r_neg) / max(n1, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = v10.var(-1, ddof=1) / n1 + v01.var(-1, ddof=1) / n0
    return v10.mean(-1), var if n1 > 1 and n0 > 1 else np.full(len(s), np.nan)


def scores(
    per_class: dict[str, xr.DataArray],
    n: xr.DataArray,
    average: Any,
    level: float,
    like: xr.DataArray,
    seed: Any,
) -> tuple[dict[str, xr.DataArray], dict[str, Any]]:
    r"""The certificate of AUC_merge's DeLong interval at the frame's own design: per class
    ``n_pos`` positives scored :math:`N(d, 1)` and ``n - n_pos`` negatives :math:`N(0, 1)`,
    :math:`d = \sqrt2\,\Phi^{-1}(A)` of the observed AUC :math:`A` of one pass
    (``per_class``: ``auc`` and ``n_pos`` over the kept dims and ``class``; one pseudo-pair,
    :math:`(A n_1 n_0 + 1/2)/(n_1 n_0 + 1)`), the classes independent; the interval is
    :func:`._auc.logit_interval` of the class average :func:`._auc.combine`; ``like`` is the
    estimate."""
    from scipy.special import ndtri

    from .._core.quantiles import z_quantile

    a, p = per_class["auc"], per_class["n_pos"]
    order = [d for d in a.dims if d != CLASS] + [CLASS]
    template = a.isel({CLASS: 0}, drop=True).transpose(*order[:-1])
    n_design = max(1, math.prod(template.shape))
    a_np = np.asarray(a.transpose(*order).values, dtype=np.float64).reshape(n_design, -1)
    pos = np.round(np.asarray(p.transpose(*order).values, dtype=np.float64))
    pos = pos.reshape(n_design, -1)
    tot = np.asarray(n.transpose(*order[:-1]).values, dtype=np.float64).reshape(n_design, 1)
    neg = np.round(tot) - pos
    pairs = np.maximum(pos * neg, 1.0)
    a_design = (a_np * pairs + 0.5) / (pairs + 1.0)
    shift = np.sqrt(2.0) * ndtri(a_design)
    work = float(np.round(tot).sum() * pos.shape[-1])
    if work * SCORE_TRIALS > SCORE_LIMIT:
        raise ValueError(
            f"certify=True would sort {SCORE_TRIALS} x {work:,.0f} simulated scores, over the "
            f"certificate's limit of {SCORE_LIMIT:,}; at this size DeLong's normal "
            "approximation needs no simulation unless a class has few positives: pass "
            "certify=False, or certify a random subsample of the samples."
        )
    trials = int(np.clip(SCORE_BUDGET // max(work, 1.0), SCORE_TRIALS, TRIALS[1]))
    rng = np.random.default_rng(seed)
    est = np.empty((trials, *pos.shape))
    var = np.empty_like(est)
    for i, j in np.ndindex(*pos.shape):
        n1, n0 = int(pos[i, j]), int(neg[i, j])
        y = np.arange(n1 + n0) < n1
        s = rng.standard_normal((trials, n1 + n0))
        s[:, y] += shift[i, j]
        est[:, i, j], var[:, i, j] = tie_free_delong(s, n1)
    dims = (TRIAL, _DESIGN, CLASS)
    sim = [xr.DataArray(v, dims=dims) for v in (est, var, np.broadcast_to(pos, est.shape))]
    truth = [xr.DataArray(v, dims=dims[1:]) for v in (a_design, np.zeros_like(pos), pos)]
    avg, var_avg = _auc.combine(sim[0], sim[1], sim[2], average)
    true_auc = _auc.combine(truth[0], truth[1], truth[2], average)[0]
    lo, hi = _auc.logit_interval(avg, var_avg, z_quantile(level))
    ok = np.isfinite(lo) & np.isfinite(hi)
    t = ok.sum(TRIAL)
    cover = ((lo <= true_auc) & (true_auc <= hi) & ok).sum(TRIAL) / t
    se = np.sqrt(cover * (1 - cover) / t)
    if CLASS in cover.dims and CLASS not in like.dims:
        cover, se = cover.isel({CLASS: 0}, drop=True), se.isel({CLASS: 0}, drop=True)
    out = {k: _back(v, template, like) for k, v in (("coverage", cover), ("coverage_se", se))}
    attrs = {
        "coverage_trials": int(t.min()),
        "coverage_design": (
            f"simulated at this design: {few(pos[0].astype(int).tolist())} positives of "
            f"{int(np.round(tot[0, 0]))} samples per class; binormal scores of the observed "
            "AUC (positives N(d, 1), negatives N(0, 1), AUC = Phi(d / sqrt 2)), the classes "
            f"independent, drawn {trials} times; truth = that AUC"
        ),
    }
    return out, attrs
