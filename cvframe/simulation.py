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
drawn); the lookup uses a guide table (Devroye 1986, Section III.2.4) so a draw costs a
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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np
import xarray as xr
from scipy import stats

from .errors import check_choice, few
from .schema import CLASS, FOLD, TRIAL

__all__ = ["ESTIMATORS", "bias_study", "p_fold_without_positives", "simulate"]

#: The five fold aggregations of Forman & Scholz (2010), in the order of SPEC section 3.
ESTIMATORS = ("f_tp_fp", "f_avg", "f_pr_re", "f_avg_skip", "f_pr_re_skip")
#: Estimators whose mean and standard deviation have an exact (summed) value.
EXACT_ESTIMATORS = ("f_tp_fp", "f_avg")
#: Trials generated at once inside one chunk (bounds temporary memory to ~100 MB at k=10).
_BLOCK = 1 << 17
#: Largest lookup table (entries) before the draws fall back to numpy's samplers.
_TABLE_LIMIT = 1 << 23
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
            value = int(value)
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
        pmf = np.clip(np.asarray(pmf, dtype=float), 0.0, None)
        rows, width = pmf.shape
        cdf = np.cumsum(pmf, axis=1)
        cdf /= cdf[:, -1:]
        thr = np.minimum(np.rint(cdf * _TWO32), _TWO32).astype(np.uint64)
        thr[:, -1] = _TWO32
        self.width = width
        self.thr = thr.ravel()
        bits = int(np.clip(np.floor(np.log2(max(_TABLE_LIMIT // max(rows, 1), 1))), 6, 16))
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
    return stats.binom.pmf(x[None, :], np.asarray(trials)[:, None], p)


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
            pmf = [stats.hypergeom.pmf(a[None, :], rem[i], r[:, None], m.sizes[i])
                   for i in range(m.k - 1)]
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

    def _counts_numpy(self, t0: int, t1: int) -> tuple[np.ndarray, ...]:
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
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and seed >= 0:
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
    return _cube(*out, 0, model, seed_attr)


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
