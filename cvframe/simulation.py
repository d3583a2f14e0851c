"""Simulated cross-validation: the bias and spread of every F-measure estimator.

The model is Forman & Scholz (2010, Section 4.2): a data set of ``n`` cases, ``P`` of them
positive, is split into ``k`` folds; a classifier with ground-truth precision = recall = ``f``
turns each positive of a fold into a true positive with probability ``f`` and each negative
into a false positive with probability ``q = P(1 - f)/N`` (so the expected false positives
``P(1 - f)`` make the expected precision ``f``). A simulated experiment is an ordinary counts
cube with a ``trial`` dimension, so the estimators under test are the very same cube methods
(:func:`cvframe.reduce.f_methods`) a user applies to real folds.

Public functions: :func:`simulate` (the cube), :func:`bias_study` (relative bias and
spread of the five estimators over a grid, exact where tractable, Monte Carlo otherwise,
chunked on dask) and :func:`p_fold_without_positives` (the paper's Figure 9).

How the draws are made (and what is guaranteed)
-----------------------------------------------
Every random quantity is drawn by inverse-CDF lookup from 32-bit uniforms of one
``numpy.random.PCG64`` stream per seed: trial ``t`` always uses the uniforms at stream
positions ``t*D .. t*D + D - 1`` (``D = 2k`` stratified, ``3k - 1`` unstratified), reached with
``PCG64.advance``. Hence a cube is bit-for-bit the same whatever ``chunks=`` is, and a chunk
of trials can be generated anywhere (a thread, a cluster worker) without the others. Outcome
probabilities are resolved to ``2**-32`` (outcomes rarer than about ``2.3e-10`` are never
drawn); the lookup uses a guide table (Chen & Asau 1974) so a draw costs a
table read, not a search. When the lookup tables would be too large (folds of many
thousands of cases), the draws fall back to ``numpy.random.Generator.binomial`` and
``multivariate_hypergeometric`` with one stream per block of trials; results are then
reproducible for a given ``seed`` and ``chunks`` but depend on ``chunks``.
"""
from __future__ import annotations

import functools
import math
import numbers
import operator
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np
import xarray as xr
from scipy.special import gammaln

from .errors import few
from .schema import CLASS, FOLD, TRIAL

__all__ = ["ESTIMATORS", "bias_study", "p_fold_without_positives", "simulate",
           "study_for_netcdf"]

#: The five fold aggregations of Forman & Scholz (2010), in the order of SPEC section 3.
ESTIMATORS = ("f_tp_fp", "f_avg", "f_pr_re", "f_avg_skip", "f_pr_re_skip")
#: Estimators whose mean and standard deviation have an exact (summed) value.
EXACT_ESTIMATORS = ("f_tp_fp", "f_avg")
#: Trials generated at once inside one chunk (bounds temporary memory to ~100 MB at k=10).
_BLOCK = 1 << 17
#: Largest lookup table (entries) before the draws fall back to numpy's samplers.
_TABLE_LIMIT = 1 << 23
#: Guide-table entries per lookup (4 MB of int16): buckets per row = this / rows, <= 2**16.
_GUIDE_LIMIT = 1 << 21
_TWO32 = 1 << 32

_REFERENCE = (
    "G. Forman and M. Scholz, \"Apples-to-Apples in Cross-Validation Studies: Pitfalls in "
    "Classifier Performance Measurement\", ACM SIGKDD Explorations 12(1), 2010, Section 4."
)


# --------------------------------------------------------------------------------------------
# arguments
# --------------------------------------------------------------------------------------------
def _int_arg(name: str, value: Any, low: int, high: int | None = None, fix: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer():
            value = int(float(value))
        else:
            raise ValueError(f"{name}={value!r} must be an integer{fix and '; ' + fix}.")
    value = operator.index(value)
    if value < low or (high is not None and value > high):
        rng = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name}={value!r} must be {rng}{fix and '; ' + fix}.")
    return int(value)


def _real_arg(name: str, value: Any, lo: float, hi: float, hi_closed: bool) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    x = float(value) if ok else float("nan")
    if not (ok and math.isfinite(x) and lo < x and (x <= hi if hi_closed else x < hi)):
        rng = f"0 < {name} {'<=' if hi_closed else '<'} {hi:g}"
        raise ValueError(f"{name}={value!r} is out of range; it must satisfy {rng}.")
    return x


@dataclass(frozen=True)
class _Model:
    """One simulated CV design: ``n`` cases, ``pos`` positives, ``k`` folds, ground truth f."""

    n: int
    prevalence: float
    f: float
    k: int
    stratified: bool

    @classmethod
    def make(cls, n: Any, prevalence: Any, f: Any, k: Any, stratified: Any) -> _Model:
        n = _int_arg("n", n, 2, fix="a data set needs at least 2 cases for 2 folds")
        prevalence = _real_arg("prevalence", prevalence, 0.0, 1.0, hi_closed=False)
        f = _real_arg("f", f, 0.0, 1.0, hi_closed=True)
        k = _int_arg("k", k, 2, n, fix=f"use between 2 and n={n} folds")
        if not isinstance(stratified, (bool, np.bool_)):
            raise ValueError(f"stratified={stratified!r} must be True or False.")
        model = cls(n, prevalence, f, k, bool(stratified))
        pos, neg = model.pos, model.neg
        if pos < 1:
            raise ValueError(
                f"prevalence={prevalence!r} gives round(n*prevalence) = 0 positives of n={n}; "
                "at least one positive is needed: raise prevalence to at least "
                f"{0.5 / n:.3g} or n."
            )
        if neg < 1:
            raise ValueError(
                f"prevalence={prevalence!r} gives {pos} positives of n={n}, no negatives; "
                f"lower prevalence below {1 - 0.5 / n:.6g}."
            )
        if pos * (1.0 - f) > neg:
            raise ValueError(
                f"f={f!r} is too low for prevalence={prevalence!r}: precision = recall = f "
                f"needs P(1-f) = {pos * (1 - f):g} false positives out of only {neg} negatives; "
                f"use f >= {1 - neg / pos:.4g}."
            )
        return model

    @property
    def pos(self) -> int:
        """Positives ``P = round(n * prevalence)`` (halves round up)."""
        return int(math.floor(self.n * self.prevalence + 0.5))

    @property
    def neg(self) -> int:
        return self.n - self.pos

    @property
    def q(self) -> float:
        """Probability that a negative becomes a false positive, ``P(1-f)/N``."""
        return self.pos * (1.0 - self.f) / self.neg

    @cached_property
    def sizes(self) -> np.ndarray:
        """Fold sizes ``n // k``, the first ``n % k`` folds one larger."""
        return self.n // self.k + (np.arange(self.k) < self.n % self.k)

    @cached_property
    def strat_pos(self) -> np.ndarray:
        """Stratified positives per fold: dealt round-robin, so they differ by at most 1."""
        return self.pos // self.k + (np.arange(self.k) < self.pos % self.k)

    @property
    def draws_per_trial(self) -> int:
        return 2 * self.k + (0 if self.stratified else self.k - 1)


# --------------------------------------------------------------------------------------------
# inverse-CDF lookup on 32-bit uniforms
# --------------------------------------------------------------------------------------------
class _Lookup:
    """Draw from one of several discrete distributions on 0..m by a guide-table lookup.

    ``pmf`` is (rows, m + 1). ``draw(row, u)`` returns, for uniform integers ``u`` in
    [0, 2**32), the value ``v`` with ``thr[row, v-1] <= u < thr[row, v]`` where ``thr`` is the
    CDF scaled to 2**32. A guide of ``2**bits`` buckets per row gives ``v`` directly unless a
    CDF step falls inside the bucket; those few draws are finished by a short scan.
    """

    def __init__(self, pmf: np.ndarray) -> None:
        pmf = np.clip(np.nan_to_num(np.asarray(pmf, dtype=float)), 0.0, None)
        rows, width = pmf.shape
        pmf[pmf.sum(axis=1) <= 0, 0] = 1.0  # impossible rows (never used): a point mass at 0
        cdf = np.cumsum(pmf, axis=1)
        cdf /= cdf[:, -1:]
        thr = np.minimum(np.rint(cdf * _TWO32), _TWO32).astype(np.uint64)
        thr[:, -1] = _TWO32
        self.width = width
        self.thr = thr.ravel()
        bits = int(np.clip(np.floor(np.log2(max(_GUIDE_LIMIT // max(rows, 1), 1))), 6, 16))
        self.bits = bits
        self.shift = np.uint32(32 - bits)
        nb = 1 << bits
        w = _TWO32 >> bits
        # lo[j] = #{v: thr_v <= j*w}; hi[j] = #{v: thr_v <= (j+1)*w - 1}, by counting buckets.
        r = np.repeat(np.arange(rows), width)
        ceil_b = (thr.ravel() + np.uint64(w - 1)) // np.uint64(w)
        floor_b = thr.ravel() // np.uint64(w)
        lo = np.bincount(r * (nb + 1) + ceil_b.astype(np.int64), minlength=rows * (nb + 1))
        hi = np.bincount(r * (nb + 1) + floor_b.astype(np.int64), minlength=rows * (nb + 1))
        lo = np.cumsum(lo.reshape(rows, nb + 1), axis=1)[:, :nb]
        hi = np.cumsum(hi.reshape(rows, nb + 1), axis=1)[:, :nb]
        dtype = np.int16 if width < (1 << 15) else np.int32
        self.guide = np.where(hi > lo, ~lo, lo).astype(dtype).ravel()

    def draw(self, row_base: np.ndarray, row: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Values for uniforms ``u``; ``row_base`` is ``row << bits`` (uint32), broadcast."""
        v = self.guide[row_base + (u >> self.shift)]
        amb = np.flatnonzero(v < 0)
        if amb.size:
            vv = ~v.ravel()[amb].astype(np.int64)
            uu = np.broadcast_to(u, v.shape).ravel()[amb].astype(np.uint64)
            rr = np.broadcast_to(row, v.shape).ravel()[amb].astype(np.int64) * self.width
            todo = np.arange(amb.size)
            while todo.size:
                step = self.thr[rr[todo] + vv[todo]] <= uu[todo]
                todo = todo[step]
                vv[todo] += 1
            flat = v.reshape(-1)
            flat[amb] = vv
        return v


def _binom_pmf(trials: np.ndarray, p: float, width: int) -> np.ndarray:
    """pmf of Binomial(trials[r], p) on 0..width-1, one row per entry of ``trials``."""
    x = np.arange(width)
    return _binom(x[None, :], np.asarray(trials)[:, None], p)


# --------------------------------------------------------------------------------------------
# the generator
# --------------------------------------------------------------------------------------------
class _Tables:
    """The lookup tables of one model (they do not depend on the seed; cached per model)."""

    def __init__(self, m: _Model) -> None:
        s_max = int(m.sizes.max())
        if m.stratified:
            neg = m.sizes - m.strat_pos
            tp_rows, tp_row = np.unique(m.strat_pos, return_inverse=True)
            fp_rows, fp_row = np.unique(neg, return_inverse=True)
            fp_w = int(neg.max()) + 1
            size = len(fp_rows) * fp_w
        else:
            a_max = min(m.pos, s_max)
            tp_rows = np.arange(a_max + 1)
            fp_rows = np.arange(s_max + 1)
            fp_w = s_max + 1
            size = (s_max + 1) * fp_w + (m.k - 1) * (m.pos + 1) * (a_max + 1)
        self.fast = size <= _TABLE_LIMIT
        if not self.fast:
            return
        self.tp = _Lookup(_binom_pmf(tp_rows, m.f, int(tp_rows.max()) + 1))
        self.fp = _Lookup(_binom_pmf(fp_rows, m.q, fp_w))
        if m.stratified:
            self.tp_row, self.fp_row = tp_row, fp_row
            self.tp_base = tp_row.astype(np.uint32) << np.uint32(self.tp.bits)
            self.fp_base = fp_row.astype(np.uint32) << np.uint32(self.fp.bits)
        else:
            # fold i takes a ~ Hypergeom(remaining cases, remaining positives r, size_i)
            rem = m.n - np.concatenate([[0], np.cumsum(m.sizes)[:-1]])
            r = np.arange(m.pos + 1)
            a = np.arange(a_max + 1)
            pmf = [_hyper(a[None, :], rem[i], r[:, None], m.sizes[i]) for i in range(m.k - 1)]
            self.alloc = _Lookup(np.concatenate(pmf, axis=0))


@functools.lru_cache(maxsize=16)
def _tables(model: _Model) -> _Tables:
    return _Tables(model)


class _Sampler:
    """Generates any range of trials of one model from one seed's stream."""

    def __init__(self, model: _Model, seed: np.random.SeedSequence) -> None:
        self.model = model
        self.seed = seed
        self.tables = _tables(model)
        self.fast = self.tables.fast

    def uniforms(self, t0: int, t1: int) -> np.ndarray:
        """The 32-bit uniforms of trials t0..t1-1, shape (t1 - t0, D)."""
        d = self.model.draws_per_trial
        start, stop = t0 * d, t1 * d
        bg = np.random.PCG64(self.seed)
        bg.advance(start // 2)
        raw = bg.random_raw((stop + 1) // 2 - start // 2)
        u = raw.view(np.uint32)[start % 2: start % 2 + stop - start]
        return u.reshape(t1 - t0, d)

    def counts(self, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(tp, fp, pos, neg) per (trial, fold) for trials t0..t1-1, small int dtypes."""
        m = self.model
        if not self.fast:
            return self._counts_numpy(t0, t1)
        u = self.uniforms(t0, t1)
        k = m.k
        tb = self.tables
        if m.stratified:
            pos = np.broadcast_to(m.strat_pos, (t1 - t0, k))
            neg = np.broadcast_to(m.sizes - m.strat_pos, (t1 - t0, k))
            tp = tb.tp.draw(tb.tp_base, tb.tp_row, u[:, :k])
            fp = tb.fp.draw(tb.fp_base, tb.fp_row, u[:, k:2 * k])
            return tp, fp, pos, neg
        pos = np.empty((t1 - t0, k), dtype=np.int32)
        left = np.full(t1 - t0, m.pos, dtype=np.int32)
        bits = np.uint32(tb.alloc.bits)
        for i in range(k - 1):
            row = (i * (m.pos + 1) + left).astype(np.uint32)
            pos[:, i] = tb.alloc.draw(row << bits, row, u[:, 2 * k + i])
            left -= pos[:, i]
        pos[:, k - 1] = left
        neg = m.sizes[None, :] - pos
        tp_row = pos.astype(np.uint32)
        fp_row = neg.astype(np.uint32)
        tp = tb.tp.draw(tp_row << np.uint32(tb.tp.bits), tp_row, u[:, :k])
        fp = tb.fp.draw(fp_row << np.uint32(tb.fp.bits), fp_row, u[:, k:2 * k])
        return tp, fp, pos, neg

    def _counts_numpy(self, t0: int, t1: int
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        m = self.model
        child = np.random.SeedSequence(self.seed.entropy,
                                       spawn_key=(*self.seed.spawn_key, 2**31, t0, t1))
        rng = np.random.Generator(np.random.PCG64(child))
        t = t1 - t0
        if m.stratified:
            pos = np.broadcast_to(m.strat_pos, (t, m.k))
        else:
            pos = rng.multivariate_hypergeometric(m.sizes, m.pos, size=t)
        neg = m.sizes[None, :] - pos
        return rng.binomial(pos, m.f), rng.binomial(neg, m.q), pos, neg


def _as_seed(seed: Any) -> np.random.SeedSequence:
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and int(seed) >= 0:
        return np.random.SeedSequence(int(seed))
    raise ValueError(
        f"seed={seed!r} must be None, a non-negative integer or a numpy.random.SeedSequence."
    )


def _seed_attr(ss: np.random.SeedSequence) -> str:
    key = ",".join(str(x) for x in ss.spawn_key)
    return f"SeedSequence(entropy={ss.entropy}" + (f", spawn_key=({key},))" if key else ")")


def _cube(tp: Any, fp: Any, fn: Any, tn: Any, t0: int, model: _Model, seed: str) -> xr.Dataset:
    """Wrap (trial, fold) arrays as a binary counts cube over (trial, fold, class)."""
    t = tp.shape[0]
    dims = (TRIAL, FOLD, CLASS)
    data = {name: (dims, arr[:, :, None]) for name, arr in
            (("tp", tp), ("fp", fp), ("fn", fn), ("tn", tn))}
    from . import __version__

    return xr.Dataset(
        data,
        coords={TRIAL: np.arange(t0, t0 + t), FOLD: np.arange(model.k), CLASS: [1]},
        attrs={
            "task": "binary", "pos_label": 1,
            "stratified": "yes" if model.stratified else "no",
            "splitter": (f"simulated {'stratified ' if model.stratified else ''}{model.k}-fold "
                         f"CV of n={model.n}, {model.pos} positives, f={model.f:g}"),
            "simulation": (f"Forman & Scholz (2010) model: TP ~ Binomial(positives in fold, f), "
                           f"FP ~ Binomial(negatives in fold, P(1-f)/N = {model.q:.6g})"),
            "sim_n": model.n, "sim_prevalence": model.prevalence, "sim_f": model.f,
            "sim_k": model.k, "sim_positives": model.pos, "seed": seed,
            "cvframe_version": __version__,
        },
    )


def _block_arrays(sampler: _Sampler, t0: int, t1: int) -> tuple[np.ndarray, ...]:
    tp, fp, pos, neg = sampler.counts(t0, t1)
    tp = tp.astype(np.int64)
    fp = fp.astype(np.int64)
    return tp, fp, pos - tp, neg - fp


def simulate(n: int = 1000, prevalence: float = 0.05, f: float = 0.8, k: int = 10,
             trials: int = 100_000, stratified: bool = True, seed: Any = None,
             chunks: int | None = None) -> xr.Dataset:
    r"""Simulate ``trials`` repetitions of k-fold cross-validation of a classifier of known F.

    The model of Forman & Scholz (2010, Section 4.2): ``P = round(n * prevalence)`` positives
    (halves round up) and ``N = n - P`` negatives are dealt to ``k`` folds of sizes
    ``n // k`` or ``n // k + 1``; a classifier with ground-truth precision = recall = ``f``
    gives, independently per fold :math:`i`,

    .. math::

        TP_i \sim \mathrm{Bin}(P_i, f), \qquad
        FP_i \sim \mathrm{Bin}\!\left(N_i, \frac{P(1-f)}{N}\right),

    :math:`FN_i = P_i - TP_i`, :math:`TN_i = N_i - FP_i`. Stratified folds spread positives
    and negatives as evenly as possible (each within 1 of the others); unstratified folds are a
    uniformly random partition of the ``n`` cases into folds of the same sizes, so the
    positives per fold follow the multivariate hypergeometric distribution and folds without
    positives occur as they do in reality.

    Parameters
    ----------
    n : int
        Cases in the data set, ``>= 2``.
    prevalence : float
        Share of positives, ``0 < prevalence < 1``, with ``round(n * prevalence) >= 1`` and at
        least one negative.
    f : float
        Ground-truth F-measure (= precision = recall), ``0 < f <= 1``; it also needs
        ``P (1 - f) <= N`` (a precision of ``f`` must be reachable).
    k : int
        Folds, ``2 <= k <= n``.
    trials : int
        Repetitions of the whole cross-validation, ``>= 1``.
    stratified : bool
        Stratified folds (True) or a random partition (False).
    seed : None, int or numpy.random.SeedSequence
        Makes the cube reproducible; ``None`` draws fresh entropy, which is recorded in
        ``attrs["seed"]`` so the cube can still be regenerated.
    chunks : int, optional
        Trials per chunk of a dask-backed (lazy) cube. The values do not depend on
        ``chunks`` (see the module notes).

    Returns
    -------
    xarray.Dataset
        A counts cube: int64 ``tp``, ``fp``, ``fn``, ``tn`` over (``trial``, ``fold``,
        ``class``), ``class`` = ``[1]``, attrs ``task="binary"``, ``pos_label=1``,
        ``stratified`` "yes"/"no", the model parameters (``sim_*``) and ``seed``.

    Raises
    ------
    ValueError
        Naming the argument, when one of the conditions above fails.

    Notes
    -----
    Every ``ds.cv`` method applies to the result; ``ds.cv.f_methods(zero_division=0.0)`` gives
    the five estimators per trial. Precision is undefined in a fold with no predicted
    positives and recall in a fold with no positives (unstratified only, or ``k > P``).

    See Also
    --------
    bias_study : the estimators' relative bias and spread over a grid of models.

    References
    ----------
    .. [1] G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls in
       Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, Section 4.

    Examples
    --------
    >>> import cvframe
    >>> ds = cvframe.simulate(n=1000, prevalence=0.05, f=0.8, trials=4, seed=0)
    >>> dict(ds.sizes)
    {'trial': 4, 'fold': 10, 'class': 1}
    >>> (ds.tp + ds.fn).sum("fold").values.ravel().tolist()   # 50 positives in every trial
    [50, 50, 50, 50]
    >>> (ds.tp + ds.fp + ds.fn + ds.tn).isel(trial=0).values.ravel().tolist()
    [100, 100, 100, 100, 100, 100, 100, 100, 100, 100]
    """
    model = _Model.make(n, prevalence, f, k, stratified)
    trials = _int_arg("trials", trials, 1)
    ss = _as_seed(seed)
    sampler = _Sampler(model, ss)
    seed_attr = _seed_attr(ss)
    if chunks is not None:
        chunks = _int_arg("chunks", chunks, 1)
        return _lazy_cube(sampler, trials, chunks, seed_attr)
    out = [np.empty((trials, model.k), dtype=np.int64) for _ in range(4)]
    step = _BLOCK if sampler.fast else min(_BLOCK, trials)
    for t0 in range(0, trials, step):
        t1 = min(trials, t0 + step)
        for o, a in zip(out, _block_arrays(sampler, t0, t1)):
            o[t0:t1] = a
    return _cube(out[0], out[1], out[2], out[3], 0, model, seed_attr)


def _lazy_cube(sampler: _Sampler, trials: int, chunks: int, seed_attr: str) -> xr.Dataset:
    import dask.array as da

    k = sampler.model.k

    def gen(block: np.ndarray) -> np.ndarray:
        if block.size == 0:
            return np.empty((0, k, 4), dtype=np.int64)
        t0, t1 = int(block[0]), int(block[-1]) + 1
        out = np.empty((t1 - t0, k, 4), dtype=np.int64)
        for s0 in range(t0, t1, _BLOCK):
            s1 = min(t1, s0 + _BLOCK)
            out[s0 - t0:s1 - t0] = np.stack(_block_arrays(sampler, s0, s1), axis=-1)
        return out

    idx = da.arange(trials, chunks=chunks, dtype=np.int64)
    arr = idx.map_blocks(gen, new_axis=[1, 2], chunks=(idx.chunks[0], (k,), (4,)),
                         dtype=np.int64, meta=np.empty((0, 0, 0), dtype=np.int64))
    return _cube(arr[:, :, 0], arr[:, :, 1], arr[:, :, 2], arr[:, :, 3], 0, sampler.model,
                 seed_attr)


# --------------------------------------------------------------------------------------------
# exact expectations
# --------------------------------------------------------------------------------------------
def _support(m: int, p: float) -> np.ndarray:
    """Values of Binomial(m, p) that carry all but a negligible (< 1e-25) share of the mass."""
    if m <= 2000:
        return np.arange(m + 1)
    mean, sd = m * p, math.sqrt(m * p * (1 - p))
    lo = max(0, int(mean - 12 * sd - 40))
    hi = min(m, int(mean + 12 * sd + 40))
    return np.arange(lo, hi + 1)


def _lcomb(a: Any, b: Any) -> Any:
    return gammaln(np.asarray(a) + 1.0) - gammaln(np.asarray(b) + 1.0) - gammaln(
        np.asarray(a) - np.asarray(b) + 1.0)


def _binom(x: np.ndarray, m: Any, p: float) -> np.ndarray:
    """Binomial pmf by log-gamma (vectorised, 0 outside the support)."""
    x, m = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(m, dtype=float))
    ok = (x >= 0) & (x <= m)
    xs, ms = np.where(ok, x, 0.0), np.where(ok, m, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = _lcomb(ms, xs) + xs * np.log(p) + (ms - xs) * np.log1p(-p)
    if p <= 0.0 or p >= 1.0:
        edge = xs == (0.0 if p <= 0.0 else ms)
        return np.where(ok & edge, 1.0, 0.0)
    return np.where(ok, np.exp(lp), 0.0)


def _hyper(a: Any, total: Any, good: Any, draws: Any) -> np.ndarray:
    """Hypergeometric pmf P(a good among ``draws`` from ``total`` with ``good`` good ones)."""
    a, total, good, draws = np.broadcast_arrays(*(np.asarray(v, dtype=float)
                                                  for v in (a, total, good, draws)))
    ok = (a >= 0) & (a <= good) & (draws - a >= 0) & (draws - a <= total - good) & \
        (good <= total) & (draws <= total)
    z = np.where(ok, 0.0, 0.0)
    a_, t_, g_, d_ = (np.where(ok, v, z) for v in (a, total, good, draws))
    lp = _lcomb(g_, a_) + _lcomb(t_ - g_, d_ - a_) - _lcomb(t_, d_)
    return np.where(ok, np.exp(lp), 0.0)


def _f_moments(a: int, b: int, f: float, q: float) -> tuple[float, float]:
    """E[F] and E[F^2] of one fold (or the pooled folds) with ``a`` positives, ``b`` negatives.

    ``F = 2 TP / (TP + a + FP)`` with TP ~ Bin(a, f), FP ~ Bin(b, q); 0 when TP = 0, which is
    what ``zero_division=0`` gives whenever precision or recall is undefined.
    """
    if a == 0:
        return 0.0, 0.0
    t = _support(a, f)
    x = _support(b, q)
    pt = _binom(t, a, f)
    px = _binom(x, b, q)
    F = 2.0 * t[:, None] / (t[:, None] + a + x[None, :])
    return float(pt @ F @ px), float(pt @ (F * F) @ px)


def _p_invalid(a: np.ndarray, b: np.ndarray, f: float, q: float) -> np.ndarray:
    """P(V = 0) of a fold: no positives, or no predicted positive (TP = FP = 0)."""
    a = np.asarray(a)
    b = np.asarray(b)
    with np.errstate(divide="ignore"):
        p0 = np.exp(a * np.log1p(-f) if f < 1 else np.where(a > 0, -np.inf, 0.0)) * \
            np.exp(b * np.log1p(-q))
    return np.where(a == 0, 1.0, p0)


def _exact(model: _Model) -> dict[str, float]:
    """Exact mean and std of F_tp,fp and F_avg, and P(some fold invalid), under the model."""
    m = model
    f, q, k = m.f, m.q, m.k
    out: dict[str, float] = {}
    e1, e2 = _f_moments(m.pos, m.neg, f, q)
    out["f_tp_fp_mean"], out["f_tp_fp_std"] = e1, math.sqrt(max(e2 - e1 * e1, 0.0))
    if m.stratified:
        pos = m.strat_pos
        neg = m.sizes - pos
        types = {(int(a), int(b)) for a, b in zip(pos, neg)}
        mom = {t: _f_moments(*t, f, q) for t in types}
        mean = sum(mom[(int(a), int(b))][0] for a, b in zip(pos, neg)) / k
        var = sum(mom[(int(a), int(b))][1] - mom[(int(a), int(b))][0] ** 2
                  for a, b in zip(pos, neg)) / k ** 2
        p_ok = float(np.prod(1.0 - _p_invalid(pos, neg, f, q)))
    else:
        sizes = [int(s) for s in m.sizes]
        g1: dict[int, np.ndarray] = {}
        g2: dict[int, np.ndarray] = {}
        for s in set(sizes):
            a = np.arange(min(m.pos, s) + 1)
            mo = np.array([_f_moments(int(ai), s - int(ai), f, q) for ai in a])
            g1[s], g2[s] = mo[:, 0], mo[:, 1]

        def marg(s: int) -> np.ndarray:
            return _hyper(np.arange(len(g1[s])), m.n, m.pos, s)

        ef = {s: float(marg(s) @ g1[s]) for s in g1}
        ef2 = {s: float(marg(s) @ g2[s]) for s in g1}
        mean = sum(ef[s] for s in sizes) / k

        def cross(s: int, t: int) -> float:
            """E[F_i F_j] for two distinct folds of sizes s and t."""
            a = np.arange(len(g1[s]))
            h = marg(s)
            b = np.arange(len(g1[t]))
            cond = _hyper(b[None, :], m.n - s, m.pos - a[:, None], t)
            return float((h * g1[s]) @ (cond @ g1[t]))

        var = 0.0
        counts = {s: sizes.count(s) for s in g1}
        for s in g1:
            var += counts[s] * (ef2[s] - ef[s] ** 2)
            for t in g1:
                pairs = counts[s] * (counts[t] - (s == t))
                if pairs:
                    var += pairs * (cross(s, t) - ef[s] * ef[t])
        var /= k ** 2
        p_ok = _alloc_expectation(m, lambda a, s: 1.0 - _p_invalid(a, s - a, f, q))
    out["f_avg_mean"], out["f_avg_std"] = mean, math.sqrt(max(var, 0.0))
    out["p_undefined"] = float(min(max(1.0 - p_ok, 0.0), 1.0))
    return out


def _alloc_expectation(m: _Model, factor: Any) -> float:
    """E[prod_i factor(a_i, s_i)] over a uniformly random partition into folds of ``m.sizes``.

    A dynamic programme over folds on the number of positives still to place: fold i takes
    ``a ~ Hypergeom(remaining cases, remaining positives, size_i)``.
    """
    w = np.zeros(m.pos + 1)
    w[m.pos] = 1.0
    rem = m.n
    r = np.arange(m.pos + 1)
    for i, s in enumerate(int(x) for x in m.sizes):
        new = np.zeros_like(w)
        for a in range(min(s, m.pos) + 1):
            if i < m.k - 1:
                p = _hyper(a, rem, r[a:], s)
            else:
                p = (r[a:] == a) * 1.0
            new[: m.pos + 1 - a] += w[a:] * p * float(factor(np.array(a), s))
        w = new
        rem -= s
    return float(w.sum())


# --------------------------------------------------------------------------------------------
# folds without positives (Figure 9)
# --------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4096)
def _p_empty_exact(n_pos: int, n: int, k: int) -> float:
    big, small = n // k + 1, n // k
    n_big, n_small = n % k, k - n % k
    total = math.comb(n, n_pos)
    acc = 0
    for j1 in range(n_big + 1):
        for j2 in range(n_small + 1):
            if j1 == j2 == 0:
                continue
            left = n - j1 * big - j2 * small
            if left < n_pos:
                continue
            term = math.comb(n_big, j1) * math.comb(n_small, j2) * math.comb(left, n_pos)
            acc += term if (j1 + j2) % 2 else -term
    return float(Fraction(acc, total))


def p_fold_without_positives(n_pos: Any, n: int = 1000, k: int = 10, trials: Any = 1) -> Any:
    r"""Probability that unstratified k-fold CV leaves some fold without positives.

    The ``n`` cases, ``n_pos`` of them positive, are split uniformly at random into ``k``
    folds of sizes ``n // k`` or ``n // k + 1``. By inclusion–exclusion over the set
    :math:`J` of folds left empty (sizes :math:`s_j`),

    .. math::

        p = \sum_{\emptyset \ne J \subseteq \{1..k\}} (-1)^{|J|+1}
            \binom{n - \sum_{j \in J} s_j}{n_{pos}} \Big/ \binom{n}{n_{pos}},

    evaluated in exact integer arithmetic. With ``trials > 1`` the result is the probability
    that it happens in at least one of ``trials`` independent splits, :math:`1-(1-p)^{trials}`
    (the paper's Figure 9, right-hand curve).

    Parameters
    ----------
    n_pos : int or array-like of int
        Positives in the data set, ``0 <= n_pos <= n`` (0 gives 1: every fold lacks them).
    n : int
        Cases in the data set, ``>= 2``.
    k : int
        Folds, ``2 <= k <= n``.
    trials : int or array-like of int
        Independent splits (repetitions, classes, data sets), ``>= 1``; broadcast with
        ``n_pos``.

    Returns
    -------
    float or numpy.ndarray
        The probability, shaped like ``n_pos`` broadcast with ``trials``.

    Notes
    -----
    A fold without positives has undefined recall and undefined AUC; stratified CV avoids it
    whenever ``n_pos >= k``.

    References
    ----------
    .. [1] G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls in
       Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, Figure 9.

    Examples
    --------
    >>> from cvframe import p_fold_without_positives
    >>> round(p_fold_without_positives(20), 4)     # 10 folds of 100 cases, 20 positives
    0.7772
    >>> p_fold_without_positives([5, 9, 50, 100]).round(4).tolist()
    [1.0, 1.0, 0.0443, 0.0001]
    >>> round(p_fold_without_positives(50, trials=10), 3)   # in at least one of 10 splits
    0.364
    """
    n = _int_arg("n", n, 2)
    k = _int_arg("k", k, 2, n, fix=f"use between 2 and n={n} folds")
    pos = np.asarray(n_pos)
    if pos.dtype.kind == "f" and np.all(np.isfinite(pos)) and np.all(pos == np.round(pos)):
        pos = pos.astype(np.int64)
    if pos.dtype.kind not in "iu":
        raise ValueError(f"n_pos={few(np.ravel(pos))} must be integers (positives in the data).")
    bad = (pos < 0) | (pos > n)
    if bad.any():
        raise ValueError(f"n_pos has values {few(pos[bad])} outside [0, n={n}].")
    tr = np.asarray(trials)
    if tr.dtype.kind == "f" and np.all(np.isfinite(tr)) and np.all(tr == np.round(tr)):
        tr = tr.astype(np.int64)
    if tr.dtype.kind not in "iu" or (tr < 1).any():
        raise ValueError(f"trials={few(np.ravel(tr))} must be integers >= 1.")
    uniq, inv = np.unique(pos, return_inverse=True)
    p = np.array([_p_empty_exact(int(u), n, k) for u in uniq])[inv].reshape(pos.shape)
    p, tr = np.broadcast_arrays(p, tr)
    with np.errstate(divide="ignore"):
        out = np.where(p >= 1.0, 1.0, -np.expm1(tr * np.log1p(-np.minimum(p, 1.0))))
    return float(out) if out.ndim == 0 else out


# --------------------------------------------------------------------------------------------
# the bias study
# --------------------------------------------------------------------------------------------
#: Trials per task of a bias study: large enough that the per-call overhead of the cube methods
#: is small, small enough to keep a task's memory near 100 MB.
_STUDY_CHUNK = 1 << 16
_LOCAL_SCHEDULERS = ("threads", "threading", "sync", "synchronous", "single-threaded",
                     "processes")


def _point_seed(root: np.random.SeedSequence, model: _Model) -> np.random.SeedSequence:
    """The stream of one grid point: keyed by its parameters, not by its place in the grid."""
    key = (int(model.stratified), int(round(model.prevalence * 1e12)),
           int(round(model.f * 1e12)), model.n, model.k)
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, *key))


def _mc_chunk(model: _Model, seed: np.random.SeedSequence, t0: int, t1: int) -> np.ndarray:
    """Monte-Carlo sums of one chunk of trials: per estimator [count, S1..S4] of (F - f), and
    the number of trials with an invalid fold. Uses the cube methods on the simulated cube."""
    from . import reduce

    sampler = _Sampler(model, seed)
    tp, fp, fn, tn = _block_arrays(sampler, t0, t1)
    invalid = ((tp + fp == 0) | (tp + fn == 0)).any(axis=1)  # V = 0 somewhere in the trial
    cube = _cube(tp, fp, fn, tn, t0, model, _seed_attr(seed))
    est = reduce.f_methods(cube, FOLD, zero_division=0.0)
    out = np.zeros((len(ESTIMATORS) + 1, 5))
    for i, name in enumerate(ESTIMATORS):
        x = np.asarray(est[name].values, dtype=float).ravel()
        d = x[np.isfinite(x)] - model.f
        d2 = d * d
        out[i] = (d.size, d.sum(), d2.sum(), (d2 * d).sum(), (d2 * d2).sum())
    out[-1, :2] = (t1 - t0, float(invalid.sum()))
    return out


def _exact_task(model: _Model) -> dict[str, float]:
    return _exact(model)


def _grid(name: str, values: Any) -> list[Any]:
    vals = [values] if np.ndim(values) == 0 else list(np.ravel(values))
    if not vals:
        raise ValueError(f"{name} is empty; give at least one value.")
    return list(dict.fromkeys(v.item() if isinstance(v, np.generic) else v for v in vals))


def _run(tasks: list[tuple[Any, ...]], scheduler: Any, progress: Any) -> list[Any]:
    """Run ``(func, *args)`` tasks on dask (threads, or a distributed cluster)."""
    from tqdm.auto import tqdm

    bar = tqdm(total=len(tasks), desc="bias_study", unit="task",
               disable=(None if progress is None else not progress))
    try:
        try:
            import dask
        except ImportError:  # dask is optional: run in this thread
            out = []
            for func, *args in tasks:
                out.append(func(*args))
                bar.update()
            return out
        if scheduler is None or (isinstance(scheduler, str)
                                 and scheduler in _LOCAL_SCHEDULERS):
            from dask.callbacks import Callback

            class _Bar(Callback):  # type: ignore[misc]
                def _posttask(self, key: Any, result: Any, dsk: Any, state: Any,
                              id: Any) -> None:
                    if isinstance(key, tuple) and str(key[0]).startswith("task"):
                        bar.update()

            delayed = [dask.delayed(func, pure=False)(*args, dask_key_name=("task", i))
                       for i, (func, *args) in enumerate(tasks)]
            with _Bar():
                return list(dask.compute(*delayed, scheduler=scheduler or "threads"))
        from distributed import Client, as_completed

        own = isinstance(scheduler, str)
        client = Client(scheduler) if own else scheduler
        try:
            futures = [client.submit(func, *args, pure=False) for func, *args in tasks]
            index = {f.key: i for i, f in enumerate(futures)}
            out = [None] * len(tasks)
            for fut in as_completed(futures):
                out[index[fut.key]] = fut.result()
                bar.update()
            return out
        finally:
            if own:
                client.close()
    finally:
        bar.close()


def bias_study(prevalence: Any = (0.01, 0.02, 0.03, 0.04, 0.05), f: Any = 0.8,
               stratified: Any = (True, False), n: int = 1000, k: int = 10,
               trials: int = 100_000, exact: bool = True, seed: Any = None,
               scheduler: Any = None, *, chunks: int = _STUDY_CHUNK,
               progress: bool | None = None) -> xr.Dataset:
    r"""Relative bias and spread of the five F-measure estimators under simulated CV.

    For every combination of ``stratified``, ``prevalence`` and ``f`` it simulates ``trials``
    repetitions of ``k``-fold CV over ``n`` cases (:func:`simulate`), applies the five fold
    aggregations — the cube method :func:`cvframe.reduce.f_methods` with
    ``zero_division=0.0`` — to every trial and summarises

    .. math::

        \text{rel\_bias} = \frac{\bar F - f}{f}, \qquad
        \text{rel\_std} = \frac{\operatorname{sd}(F)}{f}.

    Exact values replace the Monte-Carlo ones where they are tractable (``exact=True``):
    :math:`F_{tp,fp}` by summing over the binomial distributions of the pooled TP and FP
    (stratification does not change them); :math:`F_{avg}` per fold type, with the
    hypergeometric mixture (and pairwise fold covariances) for unstratified folds; and
    ``p_undefined`` by a product over folds (stratified) or a dynamic programme over the
    random partition (unstratified). :math:`F_{pr,re}` and the skipping methods are Monte Carlo.

    Parameters
    ----------
    prevalence, f : float or sequence of float
        Grid of positive shares and ground-truth F values (see :func:`simulate`).
    stratified : bool or sequence of bool
        Fold allocation(s) to study.
    n, k : int
        Cases and folds.
    trials : int
        Monte-Carlo trials per grid point (generated ``chunks`` at a time, so memory stays
        bounded at any count).
    exact : bool
        Use the exact values where tractable (the Monte-Carlo ones are kept beside them).
    seed : None, int or numpy.random.SeedSequence
        Root seed; each grid point draws from its own stream keyed by its parameters, so a
        point's numbers do not change when the grid around it does, nor with ``chunks`` or
        the scheduler.
    scheduler : None, str or distributed.Client
        ``None`` runs on dask's threads on this machine; ``"sync"`` or ``"processes"`` pick
        another local dask scheduler; any other string is a ``dask.distributed`` scheduler
        address (``"tcp://host:8786"``) to run on a cluster; a ``Client`` is used as is.
    chunks : int
        Trials per task.
    progress : bool, optional
        Show a tqdm progress bar (``None``: when writing to a terminal).

    Returns
    -------
    xarray.Dataset
        Over (``stratified``, ``prevalence``, ``f``, ``estimator``):

        - ``rel_bias``, ``rel_std`` — exact where ``exact`` is True, else Monte Carlo;
        - ``rel_bias_mc``, ``rel_std_mc`` and their Monte-Carlo standard errors
          ``rel_bias_se``, ``rel_std_se`` (``sd/sqrt(T)`` and the delta-method
          ``sqrt((m4 - sd^4) / (4 sd^2 T))``, over ``f``);
        - ``exact`` (bool) — whether ``rel_bias`` and ``rel_std`` are exact;

        and over (``stratified``, ``prevalence``, ``f``): ``p_undefined`` (share of trials
        with a fold where precision or recall is undefined; exact when ``exact``),
        ``p_undefined_mc``, ``p_undefined_se``; ``positives`` over ``prevalence``. The
        ``stratified`` coordinate holds booleans (write with ``stratified`` mapped to
        "yes"/"no" for netCDF, as ``cvframe simulate`` does). attrs record ``n``, ``k``,
        ``trials``, ``seed`` and ``zero_division``.

    Raises
    ------
    ValueError
        Naming the argument and the grid point when a combination is invalid.

    See Also
    --------
    simulate, cvframe.reduce.f_methods

    References
    ----------
    .. [1] G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls in
       Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, Section 4,
       Figures 4-8.

    Examples
    --------
    >>> import cvframe
    >>> st = cvframe.bias_study(prevalence=0.05, f=0.8, stratified=True, trials=2000,
    ...                         seed=0, progress=False)
    >>> dict(st.rel_bias.sizes)
    {'stratified': 1, 'prevalence': 1, 'f': 1, 'estimator': 5}
    >>> st.exact.sel(stratified=True, prevalence=0.05, f=0.8).values.tolist()
    [True, True, False, False, False]
    >>> round(st.rel_bias.sel(stratified=True, prevalence=0.05, f=0.8,
    ...                       estimator="f_tp_fp").item(), 5)   # exact: tiny
    -0.00023
    """
    prevs = _grid("prevalence", prevalence)
    fs = _grid("f", f)
    strats = _grid("stratified", stratified)
    for sv in strats:
        if not isinstance(sv, (bool, np.bool_)):
            raise ValueError(f"stratified has non-boolean values {few(strats)}; use True/False.")
    trials = _int_arg("trials", trials, 1)
    chunks = _int_arg("chunks", chunks, 1)
    if not isinstance(exact, (bool, np.bool_)):
        raise ValueError(f"exact={exact!r} must be True or False.")
    root = _as_seed(seed)
    models = {}
    for sv in strats:
        for pv in prevs:
            for fv in fs:
                try:
                    models[(sv, pv, fv)] = _Model.make(n, pv, fv, k, sv)
                except ValueError as err:
                    raise ValueError(
                        f"{err} (grid point stratified={sv}, prevalence={pv}, f={fv})"
                    ) from None
    tasks: list[tuple[Any, ...]] = []
    slots: list[tuple[Any, ...]] = []
    for key, model in models.items():
        ss = _point_seed(root, model)
        for t0 in range(0, trials, chunks):
            tasks.append((_mc_chunk, model, ss, t0, min(trials, t0 + chunks)))
            slots.append(("mc", key))
        if exact:
            tasks.append((_exact_task, model))
            slots.append(("exact", key))
    results = _run(tasks, scheduler, progress)

    shape = (len(strats), len(prevs), len(fs))
    sums = {key: np.zeros((len(ESTIMATORS) + 1, 5)) for key in models}
    exacts: dict[Any, dict[str, float]] = {}
    for (kind, key), res in zip(slots, results):
        if kind == "mc":
            sums[key] += res
        else:
            exacts[key] = res
    ne = len(ESTIMATORS)
    var = {name: np.full(shape + (ne,), np.nan) for name in
           ("rel_bias", "rel_std", "rel_bias_mc", "rel_std_mc", "rel_bias_se", "rel_std_se")}
    is_exact = np.zeros(shape + (ne,), dtype=bool)
    p_und, p_und_mc, p_und_se = (np.full(shape, np.nan) for _ in range(3))
    for (sv, pv, fv), model in models.items():
        idx = (strats.index(sv), prevs.index(pv), fs.index(fv))
        s = sums[(sv, pv, fv)]
        cnt = s[:ne, 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            m1 = s[:ne, 1] / cnt
            raw2, raw3, raw4 = s[:ne, 2] / cnt, s[:ne, 3] / cnt, s[:ne, 4] / cnt
            pvar = np.maximum(raw2 - m1 ** 2, 0.0)
            m4 = raw4 - 4 * m1 * raw3 + 6 * m1 ** 2 * raw2 - 3 * m1 ** 4
            sd = np.sqrt(pvar * cnt / np.maximum(cnt - 1, 1))
            var["rel_bias_mc"][idx] = m1 / fv
            var["rel_std_mc"][idx] = sd / fv
            var["rel_bias_se"][idx] = sd / np.sqrt(cnt) / fv
            var["rel_std_se"][idx] = np.sqrt(np.maximum(m4 - pvar ** 2, 0.0)
                                             / (4 * pvar * cnt)) / fv
        var["rel_bias"][idx] = var["rel_bias_mc"][idx]
        var["rel_std"][idx] = var["rel_std_mc"][idx]
        t_all, t_bad = s[-1, 0], s[-1, 1]
        p_und_mc[idx] = t_bad / t_all
        p_und_se[idx] = math.sqrt(p_und_mc[idx] * (1 - p_und_mc[idx]) / t_all)
        p_und[idx] = p_und_mc[idx]
        if exact:
            ex = exacts[(sv, pv, fv)]
            for name in EXACT_ESTIMATORS:
                j = ESTIMATORS.index(name)
                var["rel_bias"][idx + (j,)] = (ex[f"{name}_mean"] - fv) / fv
                var["rel_std"][idx + (j,)] = ex[f"{name}_std"] / fv
                is_exact[idx + (j,)] = True
            p_und[idx] = ex["p_undefined"]
    dims4 = ("stratified", "prevalence", "f", "estimator")
    dims3 = dims4[:3]
    from . import __version__

    data: dict[str, Any] = {name: (dims4, arr) for name, arr in var.items()}
    data["exact"] = (dims4, is_exact)
    data["p_undefined"] = (dims3, p_und)
    data["p_undefined_mc"] = (dims3, p_und_mc)
    data["p_undefined_se"] = (dims3, p_und_se)
    data["positives"] = (("prevalence",), np.array([int(math.floor(n * p + 0.5))
                                                    for p in prevs], dtype=np.int64))
    st = xr.Dataset(
        data,
        coords={"stratified": np.array(strats, dtype=bool),
                "prevalence": np.array(prevs, dtype=float), "f": np.array(fs, dtype=float),
                "estimator": list(ESTIMATORS)},
        attrs={"n": int(n), "k": int(k), "trials": trials, "seed": _seed_attr(root),
               "zero_division": "0.0", "method": "bias_study",
               "description": "Relative bias (mean - f)/f and relative std sd/f of five "
                              "F-measure fold aggregations under simulated k-fold CV.",
               "reference": _REFERENCE, "cvframe_version": __version__},
    )
    _describe(st)
    return st


def _describe(st: xr.Dataset) -> None:
    notes = {
        "rel_bias": "(mean F - f)/f: exact where `exact`, else Monte Carlo",
        "rel_std": "std(F)/f (ddof=1 for Monte Carlo): exact where `exact`",
        "rel_bias_mc": "Monte-Carlo (mean F - f)/f",
        "rel_std_mc": "Monte-Carlo std(F)/f",
        "rel_bias_se": "Monte-Carlo standard error of rel_bias_mc",
        "rel_std_se": "Monte-Carlo standard error of rel_std_mc (delta method)",
        "exact": "rel_bias and rel_std are exact (summed over the model's distributions)",
        "p_undefined": "P(some fold has undefined precision or recall); exact if exact=True",
        "p_undefined_mc": "Monte-Carlo share of trials with an undefined fold",
        "p_undefined_se": "binomial standard error of p_undefined_mc",
        "positives": "positives in the data set, round(n * prevalence)",
    }
    for name, text in notes.items():
        st[name].attrs["description"] = text


def study_for_netcdf(study: xr.Dataset) -> xr.Dataset:
    """A copy of a :func:`bias_study` result that netCDF can store: booleans as "yes"/"no".

    >>> import cvframe
    >>> st = cvframe.bias_study(prevalence=0.05, f=0.8, trials=10, seed=0, progress=False)
    >>> study_for_netcdf(st).stratified.values.tolist()
    ['yes', 'no']
    """
    out = study.copy()
    if "exact" in out:
        out["exact"] = out["exact"].copy(data=np.where(out["exact"].values, "yes", "no"))
    return out.assign_coords(stratified=np.where(study.stratified.values, "yes", "no"))
