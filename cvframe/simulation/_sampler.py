"""Random draws of the simulated CV model: inverse-CDF lookup on 32-bit uniforms.

Numpy only. Every random quantity is drawn by inverse-CDF lookup from 32-bit uniforms of one
``numpy.random.PCG64`` stream per seed: trial ``t`` always uses the uniforms at stream
positions ``t*D .. t*D + D - 1`` (``D = 2k`` stratified, ``3k - 1`` unstratified), reached with
``PCG64.advance``. Hence a cube is bit-for-bit the same whatever ``chunks=`` is, and a chunk
of trials can be generated anywhere (a thread, a cluster worker) without the others. Outcome
probabilities are resolved to ``2**-32`` (outcomes rarer than about ``2.3e-10`` are never
drawn); the lookup uses a guide table (Chen & Asau 1974) so a draw costs a table read, not a
search. When the lookup tables would be too large (folds of many thousands of cases), the
draws fall back to ``numpy.random.Generator.binomial`` and ``multivariate_hypergeometric``
with one stream per block of trials; results are then reproducible for a given ``seed`` and
``chunks`` but depend on ``chunks``.
"""

from __future__ import annotations

import functools

import numpy as np

from ._model import Model, binom, hyper

#: Trials generated at once inside one chunk (bounds temporary memory to ~100 MB at k=10).
BLOCK = 1 << 17
#: Largest lookup table (entries) before the draws fall back to numpy's samplers.
TABLE_LIMIT = 1 << 23
#: Guide-table entries per lookup (4 MB of int16): buckets per row = this / rows, <= 2**16.
GUIDE_LIMIT = 1 << 21
_TWO32 = 1 << 32


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
        bits = int(np.clip(np.floor(np.log2(max(GUIDE_LIMIT // max(rows, 1), 1))), 6, 16))
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
            at = np.unravel_index(amb, v.shape)  # gather the few, never copy the whole block
            uu = np.broadcast_to(u, v.shape)[at].astype(np.uint64)
            rr = np.broadcast_to(row, v.shape)[at].astype(np.int64) * self.width
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
    return binom(np.arange(width)[None, :], np.asarray(trials)[:, None], p)


# --- the generator -----------------------------------------------------------------------------
class Tables:
    """The lookup tables of one model (they do not depend on the seed; cached per model)."""

    def __init__(self, m: Model) -> None:
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
        self.fast = size <= TABLE_LIMIT
        if not self.fast:
            return
        self.tp = _Lookup(_binom_pmf(tp_rows, m.recall, int(tp_rows.max()) + 1))
        self.fp = _Lookup(_binom_pmf(fp_rows, m.q, fp_w))
        if m.stratified:
            self.tp_row, self.fp_row = tp_row, fp_row
            self.tp_base = tp_row.astype(np.uint32) << np.uint32(self.tp.bits)
            self.fp_base = fp_row.astype(np.uint32) << np.uint32(self.fp.bits)
        else:
            self.alloc = _alloc_lookup(m.n, m.k, m.pos)


@functools.lru_cache(maxsize=8)
def _alloc_lookup(n: int, k: int, pos: int) -> _Lookup:
    """The fold allocation of positives (it does not depend on the classifier: shared by a
    grid's f values).

    Fold i takes a ~ Hypergeom(remaining cases, remaining positives r, size_i).
    """
    sizes = n // k + (np.arange(k) < n % k)
    a_max = min(pos, int(sizes.max()))
    rem = n - np.concatenate([[0], np.cumsum(sizes)[:-1]])
    r = np.arange(pos + 1)
    a = np.arange(a_max + 1)
    pmf = [hyper(a[None, :], rem[i], r[:, None], sizes[i]) for i in range(k - 1)]
    return _Lookup(np.concatenate(pmf, axis=0))


@functools.lru_cache(maxsize=16)
def tables(model: Model) -> Tables:
    return Tables(model)


class Sampler:
    """Generates any range of trials of one model from one seed's stream."""

    def __init__(self, model: Model, seed: np.random.SeedSequence) -> None:
        self.model = model
        self.seed = seed
        self.tables = tables(model)

    def uniforms(self, t0: int, t1: int) -> np.ndarray:
        """The 32-bit uniforms of trials t0..t1-1, shape (t1 - t0, D)."""
        d = self.model.draws_per_trial
        start, stop = t0 * d, t1 * d
        bg = np.random.PCG64(self.seed)
        bg.advance(start // 2)
        raw = bg.random_raw((stop + 1) // 2 - start // 2)
        u = raw.view(np.uint32)[start % 2 : start % 2 + stop - start]
        return u.reshape(t1 - t0, d)

    def counts(self, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(tp, fp, pos, neg) per (trial, fold) for trials t0..t1-1, small int dtypes."""
        m = self.model
        if not self.tables.fast:
            return self._counts_numpy(t0, t1)
        u = self.uniforms(t0, t1)
        k = m.k
        tb = self.tables
        if m.stratified:
            pos = np.broadcast_to(m.strat_pos, (t1 - t0, k))
            neg = np.broadcast_to(m.sizes - m.strat_pos, (t1 - t0, k))
            tp = tb.tp.draw(tb.tp_base, tb.tp_row, u[:, :k])
            fp = tb.fp.draw(tb.fp_base, tb.fp_row, u[:, k : 2 * k])
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
        fp = tb.fp.draw(fp_row << np.uint32(tb.fp.bits), fp_row, u[:, k : 2 * k])
        return tp, fp, pos, neg

    def _counts_numpy(
        self, t0: int, t1: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        m = self.model
        child = np.random.SeedSequence(
            self.seed.entropy, spawn_key=(*self.seed.spawn_key, 2**31, t0, t1)
        )
        rng = np.random.Generator(np.random.PCG64(child))
        t = t1 - t0
        if m.stratified:
            pos = np.broadcast_to(m.strat_pos, (t, m.k))
        else:
            pos = rng.multivariate_hypergeometric(m.sizes, m.pos, size=t)
        neg = m.sizes[None, :] - pos
        return rng.binomial(pos, m.recall), rng.binomial(neg, m.q), pos, neg


def block_arrays(
    sampler: Sampler, t0: int, t1: int, drawn: tuple[np.ndarray, ...] | None = None
) -> tuple[np.ndarray, ...]:
    """int64 (tp, fp, fn, tn) per (trial, fold) of trials t0..t1-1.

    ``drawn`` is ``sampler.counts(t0, t1)`` when the caller has it already.
    """
    tp, fp, pos, neg = sampler.counts(t0, t1) if drawn is None else drawn
    tp = tp.astype(np.int64)
    fp = fp.astype(np.int64)
    return tp, fp, pos - tp, neg - fp
