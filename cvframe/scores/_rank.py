"""The numpy core of the score metrics: packed keys, one sort, ranks and tie runs.

The scores of one class are packed with their group (repeat and fold, or repeat alone) and
their label into one ``uint64`` key -- group in the high bits, the order-preserving bit
pattern of the float64 score in the middle, the label in the lowest bit -- and sorted once
with ``ndarray.sort`` (a SIMD sort of plain integers, not an argsort). Ranks, tie runs and
per-group sums are then cumulative sums and ``searchsorted`` over that one sorted array;
there is no loop over groups. When the scores span more bits than the key has room for
(scores spreading over hundreds of binary orders of magnitude, or very many folds), the
scores are first replaced by their dense ranks (``np.unique``), which is exact but slower.

Both fold aggregations from one sort: with ``low=`` (the fold codes), the fold goes into the
*lowest* bits of the key, below the label, and the one sort orders the scores of each repeat
as the merged (pooled) metric needs them. The per-fold order is then a stable counting pass
by (repeat, fold) over that sorted array (:meth:`Ranked.by_low`): a counting sort keeps the
score order inside every fold, so no second sort is needed. The pass is one compiled loop
when numba is installed (the ``fast`` extra) and a radix ``argsort`` of the small fold codes
otherwise; both give the same array. For AUC, with numba, one compiled pass over the sorted
keys counts the pooled and the per-fold Mann-Whitney statistics at once (:func:`auc_both`):
the same integers as the rank sums of :meth:`Ranked.auc`, so the same values.
The engine is chosen by :func:`cvframe._kernel.engine`, the one rule of both compiled passes
(``CVFRAME_KERNEL=numpy`` forces numpy; small inputs use it too).

This module imports numpy only (numba lazily, when installed and the input is large).

(Over 700 lines: the numpy kernel, its compiled twin and the packing they share are kept
together so that the two engines cannot drift apart; the tests compare them bit for bit.)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from .._kernel import engine

__all__ = [
    "Packing",
    "Ranked",
    "auc_both",
    "pack",
    "pack_signed",
    "partition",
    "sorted_keys",
]

_ONE = np.uint64(1)
_LITTLE = sys.byteorder == "little"

_MASK = np.uint64((1 << 63) - 1)
_WRAP = 1 << 64


def _bits(x: float) -> int:
    """The IEEE bits of |x| as a Python int (monotone in |x|)."""
    return int(np.array(abs(x), dtype=np.float64).view(np.uint64)) & ((1 << 63) - 1)


@dataclass
class Packing:
    """How finite float64 scores became small order-preserving integers (and back).

    With M the smallest non-zero magnitude and A the bits of |x|: negative scores map to
    ``L - 1 - (A - M)`` (L slots, ``L = bits(|min|) - M + 1``), zero to ``L`` and positive
    scores to ``L + 1 + (A - M)``. The span is the largest key; scores that share a key are
    exactly equal.
    """

    M: int
    L: int
    span: int

    def decode(self, r: np.ndarray) -> np.ndarray:
        r = np.asarray(r, dtype=np.uint64)
        neg_a = np.uint64((self.M + self.L - 1) % _WRAP) - r
        pos_a = r + np.uint64((self.M - self.L - 1) % _WRAP)
        a = np.where(r < self.L, neg_a, pos_a).view(np.float64)
        return np.where(r < self.L, -a, np.where(r == self.L, 0.0, a))


def _as_u64(codes: np.ndarray) -> np.ndarray:
    """Non-negative integer codes as uint64 (a view when they are 64-bit already)."""
    if codes.dtype in (np.int64, np.uint64):
        return codes.view(np.uint64)
    return codes.astype(np.uint64)


def _as_int64(v: int) -> np.int64:
    v %= _WRAP
    return np.int64(v - _WRAP if v >= 1 << 63 else v)


def pack_signed(
    s: np.ndarray, lo: float, hi: float
) -> tuple[np.ndarray, Packing, np.ndarray] | None:
    """:func:`pack` for scores of both signs, without masked (branchy) passes.

    ``|s|`` gives A (and the new array); with ``sign = bits(s) >> 63`` (-1 for negatives),
    ``A ^ sign`` is ``-1 - A`` for negatives, and adding ``sign & (2M - 1)`` and a constant
    moves both signs to the layout of :class:`Packing`. Returns None when a score is 0
    (the general path handles zeros), else the keys, the packing and a scratch buffer.
    """
    key = np.abs(s)  # new array; -0.0 becomes 0.0
    m = _bits(float(key.min()))
    if m == 0:
        return None
    b = key.view(np.int64)
    sign = np.right_shift(s.view(np.int64), 63)  # -1 for negatives, 0 for positives
    np.bitwise_xor(b, sign, out=b)
    big_l = _bits(lo) - m + 1
    np.bitwise_and(sign, _as_int64(2 * m - 1), out=sign)
    np.add(b, sign, out=b)
    u = key.view(np.uint64)
    np.add(u, np.uint64((big_l + 1 - m) % _WRAP), out=u)
    return u, Packing(m, big_l, big_l + 1 + (_bits(hi) - m)), sign


def pack(s: np.ndarray, lo: float, hi: float) -> tuple[np.ndarray, Packing, np.ndarray | None]:
    """Scores as order-preserving uint64 keys 0..span (a new array), in a few in-place passes.

    Only the binary orders of magnitude the data use take key space, so scores crossing
    zero (decision functions) or containing exact zeros (probabilities) stay compact.
    """
    has_neg, has_pos = lo < 0.0, hi > 0.0
    if has_neg and has_pos:
        packed = pack_signed(s, lo, hi)
        if packed is not None:
            return packed
    key = np.add(s, 0.0).view(np.uint64)  # new array; -0.0 becomes 0.0
    if has_neg:
        np.bitwise_and(key, _MASK, out=key)  # A = bits of |x|
    nz = None
    if lo > 0.0:
        m = _bits(lo)
    elif hi < 0.0:
        m = _bits(hi)
    else:
        m = int(key.min()) if (has_neg and has_pos) else 0
        if m == 0:  # exact zeros: find the smallest non-zero
            nz = key != 0
            m = int(np.min(key, where=nz, initial=np.uint64(_WRAP - 1))) if nz.any() else 0
    big_l = _bits(lo) - m + 1 if has_neg else 0
    np.add(key, np.uint64((big_l + 1 - m) % _WRAP), out=key)
    if has_neg:
        np.subtract(np.uint64((2 * big_l) % _WRAP), key, out=key, where=s < 0.0)
    if nz is not None:
        np.copyto(key, np.uint64(big_l), where=~nz)
    span = big_l + 1 + (_bits(hi) - m) if has_pos else big_l - (nz is None)
    return key, Packing(m, big_l, span), None


# ------------------------------------------------------------------------------------------
# The stable counting pass by fold
# ------------------------------------------------------------------------------------------

_compiled: Any = None


def _kernel() -> Any:
    """The compiled passes (a namespace), or False when numba is not installed.

    ``min_bits``: the smallest non-zero magnitude (the packing's M); ``keys``: packing,
    label, low code and group of every row in one pass (the same keys as :func:`pack` and
    the shifts of :func:`sorted_keys`); ``scatter``: the counting pass of :func:`partition`;
    ``auc``: twice the Mann-Whitney count and the positives per group in one pass over the
    sorted keys (the integers :meth:`Ranked.auc` computes with numpy); ``auc_both``: the same
    for the pooled groups and their low-code subgroups at once (:func:`auc_both`).
    """
    global _compiled
    if _compiled is None:
        try:
            import numba
        except ImportError:
            _compiled = False
            return _compiled
        jit = numba.njit(cache=True, nogil=True)
        one = np.uint64(1)
        absmask = _MASK

        @jit
        def min_bits(s):  # the bits of the smallest non-zero |x| (0 when all are 0)
            b = s.view(np.uint64)
            m = np.uint64(0)
            for i in range(b.shape[0]):
                a = b[i] & absmask
                if a != 0 and (m == 0 or a < m):
                    m = a
            return m

        @jit
        def keys(s, y, low, g, m, big_l, lbits, gshift, has_low, has_g, key):
            b = s.view(np.uint64)
            for i in range(b.shape[0]):
                x = s[i]
                a = b[i] & absmask
                if x > 0:
                    k = big_l + one + (a - m)
                elif x < 0:
                    k = big_l - one - (a - m)
                else:
                    k = big_l
                k = (k << one) | np.uint64(y[i])
                if has_low:
                    k = (k << lbits) | np.uint64(low[i])
                if has_g:
                    k |= np.uint64(g[i]) << gshift
                key[i] = k
            return key

        @jit
        def scatter(key, starts, n_low, lbits, rshift, vmask, shift, grouped):
            out = np.empty_like(key)
            pos = starts.copy()
            lmask = (one << lbits) - one
            for i in range(key.shape[0]):
                k = key[i]
                g = np.int64(k & lmask)
                if grouped:
                    g += np.int64(k >> rshift) * n_low
                out[pos[g]] = ((k >> lbits) & vmask) | (np.uint64(g) << shift)
                pos[g] += 1
            return out

        @jit
        def auc(key, bounds):
            n_groups = bounds.shape[0] - 1
            s2 = np.zeros(n_groups, dtype=np.int64)
            npos = np.zeros(n_groups, dtype=np.int64)
            for gi in range(n_groups):
                below = 0
                acc = 0
                p_all = 0
                p_run = 0
                n_run = 0
                z = np.uint64(0)
                for i in range(bounds[gi], bounds[gi + 1]):
                    k = key[i]
                    if (k >> one) != z or i == bounds[gi]:  # a new run: count the last one
                        acc += p_run * (2 * below + n_run)  # ties count one half
                        below += n_run
                        p_all += p_run
                        p_run = 0
                        n_run = 0
                        z = k >> one
                    b = np.int64(k & one)
                    p_run += b
                    n_run += 1 - b
                s2[gi] = acc + p_run * (2 * below + n_run)
                npos[gi] = p_all + p_run
            return s2, npos

        @jit
        def auc_both(key, rbounds, n_low, lbits):
            # one pass over the (repeat | score | label | fold) sort: pooled and per-fold
            # Mann-Whitney counts at once; a fold's run of tied scores ends when its next
            # element has another score (its elements keep their order in the pooled sort)
            n_reps = rbounds.shape[0] - 1
            lmask = (one << lbits) - one
            vshift = lbits + one
            m_s2 = np.zeros(n_reps, dtype=np.int64)
            m_pos = np.zeros(n_reps, dtype=np.int64)
            f_s2 = np.zeros(n_reps * n_low, dtype=np.int64)
            f_pos = np.zeros(n_reps * n_low, dtype=np.int64)
            below = np.zeros(n_low, dtype=np.int64)
            p_run = np.zeros(n_low, dtype=np.int64)
            n_run = np.zeros(n_low, dtype=np.int64)
            last = np.zeros(n_low, dtype=np.uint64)
            seen = np.zeros(n_low, dtype=np.bool_)
            for r in range(n_reps):
                below[:] = 0
                p_run[:] = 0
                n_run[:] = 0
                seen[:] = False
                base = r * n_low
                start, end = rbounds[r], rbounds[r + 1]
                tied = False
                for i in range(start + 1, end):
                    if (key[i] >> vshift) == (key[i - 1] >> vshift):
                        tied = True
                        break
                if not tied:  # every run is one element: a positive counts the negatives below
                    mb = 0
                    for i in range(start, end):
                        k = key[i]
                        b = np.int64((k >> lbits) & one)
                        f = np.int64(k & lmask)
                        f_s2[base + f] += 2 * b * below[f]
                        f_pos[base + f] += b
                        below[f] += 1 - b
                        m_s2[r] += 2 * b * mb
                        m_pos[r] += b
                        mb += 1 - b
                    continue
                mb = 0
                mp = 0
                mn = 0
                mz = np.uint64(0)
                for i in range(start, end):
                    k = key[i]
                    z = k >> vshift
                    b = np.int64((k >> lbits) & one)
                    if z != mz or i == start:
                        m_s2[r] += mp * (2 * mb + mn)
                        m_pos[r] += mp
                        mb += mn
                        mp = 0
                        mn = 0
                        mz = z
                    mp += b
                    mn += 1 - b
                    f = np.int64(k & lmask)
                    if z != last[f] or not seen[f]:
                        f_s2[base + f] += p_run[f] * (2 * below[f] + n_run[f])
                        f_pos[base + f] += p_run[f]
                        below[f] += n_run[f]
                        p_run[f] = 0
                        n_run[f] = 0
                        last[f] = z
                        seen[f] = True
                    p_run[f] += b
                    n_run[f] += 1 - b
                m_s2[r] += mp * (2 * mb + mn)
                m_pos[r] += mp
                for f in range(n_low):
                    f_s2[base + f] += p_run[f] * (2 * below[f] + n_run[f])
                    f_pos[base + f] += p_run[f]
            return m_s2, m_pos, f_s2, f_pos

        _compiled = SimpleNamespace(
            min_bits=min_bits, keys=keys, scatter=scatter, auc=auc, auc_both=auc_both
        )
    return _compiled


def _packing(s: np.ndarray, lo: float, hi: float) -> Packing:
    """The :class:`Packing` :func:`pack` would choose, without building the keys."""
    if lo > 0.0:
        m = _bits(lo)
    elif hi < 0.0:
        m = _bits(hi)
    else:
        m = int(_kernel().min_bits(s))
    big_l = _bits(lo) - m + 1 if lo < 0.0 else 0
    if hi > 0.0:
        span = big_l + 1 + (_bits(hi) - m)
    else:  # no positives: the largest key is a zero's (L) or the smallest magnitude's
        span = big_l if (hi == 0.0) else big_l - 1
    return Packing(m, big_l, span)


def _small(codes: np.ndarray, n: int) -> np.ndarray:
    """Codes in the smallest unsigned dtype (<= 16 bits: numpy's stable sort is a radix sort)."""
    for dt in (np.uint8, np.uint16, np.uint32):
        if n <= np.iinfo(dt).max + 1:
            return codes.astype(dt)
    return codes


def partition(
    key: np.ndarray, counts: np.ndarray, n_low: int, lbits: int, shift: int, n_high: int
) -> np.ndarray:
    """Stable counting pass: sorted ``high | value | low`` keys regrouped by ``(high, low)``.

    ``key`` is sorted, holds a group code ``high`` (0..n_high-1) above ``shift + lbits``,
    the value (score and label, ``shift`` bits) and ``low`` (0..n_low-1, ``lbits`` bits).
    Returns ``g << shift | value`` with ``g = high * n_low + low``, ordered by g and, within
    a group, in the order of ``key`` (so still ascending by value). ``counts[g]`` is the
    number of keys of group g (known beforehand: the fold sizes are the same for every
    class). O(n): no comparison sort.
    """
    n_groups = n_high * n_low
    vmask = np.uint64((1 << shift) - 1)
    rshift = np.uint64(shift + lbits)
    if engine(len(key)) == "numba":
        starts = np.zeros(n_groups, dtype=np.int64)
        np.cumsum(counts[:-1], out=starts[1:])
        return _kernel().scatter(
            key, starts, n_low, np.uint64(lbits), rshift, vmask, np.uint64(shift), n_high > 1
        )
    lmask = np.uint64((1 << lbits) - 1)
    if n_high == 1:  # straight into the small dtype (fresh large arrays are costly)
        code = np.empty(len(key), dtype=_small(np.zeros(1, np.uint64), n_groups).dtype)
        np.bitwise_and(key, lmask, out=code, casting="unsafe")
    else:
        wide = np.right_shift(key, rshift)
        wide *= np.uint64(n_low)
        wide += key & lmask
        code = _small(wide, n_groups)
        del wide
    order = np.argsort(code, kind="stable")
    del code
    out = np.take(key, order)
    del order
    np.right_shift(out, np.uint64(lbits), out=out)
    np.bitwise_and(out, vmask, out=out)
    if n_groups > 1:  # group bits, one slice per group (np.repeat is slow here)
        ends = np.cumsum(counts)
        for gi in np.flatnonzero(counts):
            part = out[ends[gi] - counts[gi] : ends[gi]]
            np.bitwise_or(part, np.uint64(gi) << np.uint64(shift), out=part)
    return out


def sorted_keys(
    s: np.ndarray,
    lo: float,
    hi: float,
    y: np.ndarray,
    g: np.ndarray | None,
    n_groups: int,
    low: np.ndarray | None = None,
    n_low: int = 1,
    out: np.ndarray | None = None,
) -> tuple[np.ndarray, Packing, np.ndarray | None, int, np.ndarray | None, int]:
    """The one sort: ``group | score | label | low`` keys of one class, sorted.

    Returns the keys, the packing, the dense-rank uniques (None unless the key was too
    wide), the score bits, a scratch buffer (or None) and the number of low bits. ``out``
    (uint64, one per row) is used for the keys by the compiled path: reusing one buffer for
    every class spares the page faults of a fresh array per class.
    """
    n = len(s)
    gbits = int(n_groups - 1).bit_length()
    lbits = int(n_low - 1).bit_length() if low is not None else 0
    fast = engine(n) == "numba" and s.dtype == np.float64
    scratch: np.ndarray | None = None
    key: np.ndarray | None = None
    if fast:  # the packing first, then the whole key in one compiled pass
        s = np.ascontiguousarray(s)
        packing = _packing(s, lo, hi)
    else:
        key, packing, scratch = pack(s, lo, hi)
    sbits = int(packing.span).bit_length()
    uniques: np.ndarray | None = None
    if gbits + sbits + 1 + lbits > 64:  # too wide: exact dense ranks instead
        del key, scratch
        fast, scratch = False, None
        uniques, inv = np.unique(s + 0.0, return_inverse=True)
        key = inv.astype(np.uint64).reshape(-1)
        sbits = int(len(uniques) - 1).bit_length()
    shift = sbits + 1
    if fast:
        none = np.zeros(1, dtype=np.int64)
        key = _kernel().keys(
            s,
            np.ascontiguousarray(y),
            none if not lbits else np.ascontiguousarray(low),
            none if not gbits else np.ascontiguousarray(g),
            np.uint64(packing.M),
            np.uint64(packing.L),
            np.uint64(lbits),
            np.uint64(shift + lbits),
            lbits > 0,
            gbits > 0,
            np.empty(n, dtype=np.uint64) if out is None else out,
        )
    else:
        assert key is not None
        np.left_shift(key, _ONE, out=key)
        # labels 0/1 as int64 (y_true itself, often) or bool; same-dtype ops are fastest
        np.bitwise_or(key, y.view(np.uint64) if y.dtype == np.int64 else y, out=key)
        if lbits:
            assert low is not None
            np.left_shift(key, np.uint64(lbits), out=key)
            np.bitwise_or(key, _as_u64(low), out=key)
        if gbits:
            assert g is not None  # several groups need group ids
            gk = np.empty(n, dtype=np.uint64) if scratch is None else scratch.view(np.uint64)
            scratch = gk
            np.left_shift(_as_u64(g), np.uint64(shift + lbits), out=gk)
            np.bitwise_or(key, gk, out=key)
    assert key is not None
    key.sort()
    return key, packing, uniques, sbits, scratch, lbits


def _auc_value(s2: np.ndarray, npos: np.ndarray, nneg: np.ndarray) -> np.ndarray:
    """AUC from twice the Mann-Whitney count; NaN without positives or negatives."""
    with np.errstate(invalid="ignore", divide="ignore"):
        value = s2 / (2.0 * npos * nneg)
    value[(npos == 0) | (nneg == 0)] = np.nan
    return value


def auc_both(
    s: np.ndarray,
    lo: float,
    hi: float,
    y: np.ndarray,
    g: np.ndarray | None,
    n_groups: int,
    low: np.ndarray,
    n_low: int,
    low_counts: np.ndarray,
    buffer: np.ndarray | None = None,
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None:
    """Pooled (per group) and per-(group, low) AUC and positives from one sort, in one pass.

    The compiled path of ``Ranked(..., low=...)`` followed by :meth:`Ranked.auc` on it and on
    :meth:`Ranked.by_low`, without the counting pass: the same integers, so the same values.
    None when that path does not apply (numpy engine, keys too wide): use :class:`Ranked`.
    ``buffer``: a uint64 array of one element per row for the keys, reused across classes.
    """
    if engine(len(s)) != "numba" or s.dtype != np.float64:
        return None
    key, _, uniques, sbits, _, lbits = sorted_keys(s, lo, hi, y, g, n_groups, low, n_low, buffer)
    if uniques is not None:
        return None
    if n_groups == 1:
        rbounds = np.array([0, len(key)], dtype=np.int64)
    else:
        starts = np.arange(n_groups, dtype=np.uint64) << np.uint64(sbits + 1 + lbits)
        rbounds = np.append(np.searchsorted(key, starts), len(key)).astype(np.int64)
    m_s2, m_pos, f_s2, f_pos = _kernel().auc_both(key, rbounds, n_low, np.uint64(lbits))
    del key
    f_neg = low_counts - f_pos
    m_neg = np.diff(rbounds) - m_pos
    return (_auc_value(m_s2, m_pos, m_neg), m_pos), (_auc_value(f_s2, f_pos, f_neg), f_pos)


class Ranked:
    """One class's scores sorted by (group, score, label) in a single packed uint64 sort.

    ``key = group << (sb + 1) | (score bits - min) << 1 | label``: groups are contiguous
    (``bounds[g]:bounds[g + 1]``), scores ascend within a group, and within a run of tied
    scores the negatives come before the positives.
    """

    def __init__(
        self,
        s: np.ndarray,
        lo: float,
        hi: float,
        y: np.ndarray,
        g: np.ndarray | None,
        n_groups: int,
        low: np.ndarray | None = None,
        n_low: int = 1,
        low_counts: np.ndarray | None = None,
    ):
        """Sort once. With ``low`` (codes 0..n_low-1, e.g. the fold of every row, and
        ``low_counts``, the number of rows of every ``g * n_low + low``), the codes ride in
        the lowest key bits: this object is sorted by (group, score, label) and
        :meth:`by_low` gives the sort by (group, low, score, label) from the same sort."""
        key, self.packing, self.uniques, self.sbits, scratch, lbits = sorted_keys(
            s, lo, hi, y, g, n_groups, low, n_low
        )
        self.shift = self.sbits + 1
        self._scratch = scratch  # reused by the tie check
        self._low: tuple[np.ndarray, int] | None = None
        if low is not None:
            if lbits:
                assert low_counts is not None
                low_key = partition(key, low_counts, n_low, lbits, self.shift, n_groups)
                np.right_shift(key, np.uint64(lbits), out=key)
            else:  # one low code: the same sort
                low_key = key
            self._low = (low_key, n_low)
        self._setup(key, n_groups)

    def by_low(self) -> Ranked:
        """The same scores sorted by (group, low code, score, label), from the one sort.

        Group ``g * n_low + low``; the order within a group is that of this object's sort
        (a stable counting pass, :func:`partition`). Can be called once.
        """
        assert self._low is not None, "by_low needs Ranked(..., low=codes)"
        key, n_low = self._low
        self._low = None
        out = Ranked.__new__(Ranked)
        out.packing, out.uniques = self.packing, self.uniques
        out.sbits, out.shift = self.sbits, self.shift
        out._scratch = self._scratch  # a temporary of the tie check: no state kept
        out._low = None
        out._setup(key, self.n_groups * n_low)
        return out

    def _setup(self, key: np.ndarray, n_groups: int) -> None:
        n = len(key)
        self.key = key
        self.n = n
        self.n_groups = n_groups
        if n_groups == 1:
            self.bounds = np.array([0, n], dtype=np.int64)
        else:
            starts = np.arange(n_groups, dtype=np.uint64) << np.uint64(self.shift)
            self.bounds = np.append(np.searchsorted(key, starts), n).astype(np.int64)
        self.size = np.diff(self.bounds)
        self._y: np.ndarray | None = None
        self._pos_idx: np.ndarray | None = None
        self._cp: np.ndarray | None = None
        self._blocks: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._ties: bool | None = None

    # --- per-element views ------------------------------------------------------------
    @property
    def y(self) -> np.ndarray:
        """Sorted labels as bool (``flatnonzero`` is several times faster on bool)."""
        if self._y is None:
            if _LITTLE:  # the lowest byte of every key, as bool
                self._y = (self.key.view(np.uint8)[::8] & np.uint8(1)).view(np.bool_)
            else:
                self._y = (self.key & _ONE).astype(np.bool_)
        return self._y

    @property
    def pos_idx(self) -> np.ndarray:
        if self._pos_idx is None:
            self._pos_idx = np.flatnonzero(self.y)
        return self._pos_idx

    @property
    def npos(self) -> np.ndarray:
        return np.diff(np.searchsorted(self.pos_idx, self.bounds))

    @property
    def cp(self) -> np.ndarray:
        """cp[i] = number of positives among the first i sorted elements (length n + 1)."""
        if self._cp is None:
            cp = np.empty(self.n + 1, dtype=np.int64)
            cp[0] = 0
            np.cumsum(self.y, out=cp[1:])
            self._cp = cp
        return self._cp

    def cp_at(self, idx: np.ndarray) -> np.ndarray:
        """Number of positives among the first ``idx`` sorted elements (few lookups)."""
        return np.searchsorted(self.pos_idx, idx)

    @property
    def ties(self) -> bool:
        """Whether two elements of one group share a score (then runs need care)."""
        if self._ties is None:
            self._ties = False
            if self.n >= 2:
                out = None if self._scratch is None else self._scratch.view(np.uint64)[1:]
                d = np.subtract(self.key[1:], self.key[:-1], out=out)
                close = d <= _ONE
                del d, out
                if close.any():
                    cand = np.flatnonzero(close)
                    self._ties = bool(
                        np.any((self.key[cand] >> _ONE) == (self.key[cand + 1] >> _ONE))
                    )
        return self._ties

    def blocks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Runs of equal (group, score): start, end (exclusive) and group of every run."""
        if self._blocks is None:
            z = self.key >> _ONE
            new = np.empty(self.n, dtype=bool)
            new[0] = True
            np.not_equal(z[1:], z[:-1], out=new[1:])
            del z
            bs = np.flatnonzero(new)
            be = np.append(bs[1:], self.n)
            bg = np.searchsorted(self.bounds, bs, side="right") - 1
            self._blocks = (bs, be, bg)
        return self._blocks

    def block_scores(self, bs: np.ndarray) -> np.ndarray:
        """The score value of the runs starting at ``bs``."""
        r = (self.key[bs] >> _ONE) & np.uint64((1 << self.sbits) - 1)
        if self.uniques is not None:
            return self.uniques[r.astype(np.int64)]
        return self.packing.decode(r)

    # --- metrics per group --------------------------------------------------------------
    def _rank_sums(self) -> tuple[np.ndarray, np.ndarray]:
        """Per group: the number of positives and the sum of their sorted positions."""
        pos = self.pos_idx
        csum = np.concatenate([[0], np.cumsum(pos, dtype=np.int64)])
        pb = np.searchsorted(pos, self.bounds)
        return np.diff(pb), csum[pb[1:]] - csum[pb[:-1]]

    def auc(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(AUC, n_pos, n_neg) per group; AUC is NaN where n_pos or n_neg is 0."""
        if engine(self.n) == "numba":
            s2, npos = _kernel().auc(self.key, self.bounds)
            nneg = self.size - npos
            return _auc_value(s2, npos, nneg), npos, nneg
        ties = self.ties
        npos, sum_idx = self._rank_sums()
        nneg = self.size - npos
        # positives' count of negatives before them in their group (tied negatives included)
        s2 = 2 * (sum_idx - npos * self.bounds[:-1]) - npos * (npos - 1)
        if ties:
            bs, be, bg = self.blocks()
            cp = self.cp
            pb_ = cp[be] - cp[bs]
            corr = pb_ * (be - bs - pb_)  # tied (positive, negative) pairs per run
            s2 = s2 - np.bincount(bg, weights=corr, minlength=self.n_groups).astype(np.int64)
        return _auc_value(s2, npos, nneg), npos, nneg

    def average_precision(self) -> tuple[np.ndarray, np.ndarray]:
        """(AP, n_pos) per group, scikit-learn's step-wise definition; NaN without positives."""
        npos = self.npos
        if self.ties:
            bs, be, bg = self.blocks()
            cp = self.cp
            ge = self.bounds[bg + 1]
            tp_ge = cp[ge] - cp[bs]  # positives scored >= this run's score
            npos_b = cp[be] - cp[bs]
            hit = npos_b > 0
            w = npos_b[hit] * (tp_ge[hit] / (ge[hit] - bs[hit]))
            bg = bg[hit]
        else:  # every run is one element: only positives count
            pi = self.pos_idx
            pb = np.searchsorted(pi, self.bounds)
            bg = np.repeat(np.arange(self.n_groups), np.diff(pb))
            # positives at or above this one / samples at or above this one
            w = (pb[bg + 1] - np.arange(len(pi))) / (self.bounds[bg + 1] - pi)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.bincount(bg, weights=w, minlength=self.n_groups) / npos
        value[npos == 0] = np.nan
        return value, npos

    def precision_at(self, k: np.ndarray) -> np.ndarray:
        """Expected precision among the k top-scored of each group (ties at the cut shared).

        NaN where k < 1 or the group has fewer than k samples.
        """
        k = np.broadcast_to(np.asarray(k, dtype=np.int64), (self.n_groups,))
        ok = (k >= 1) & (k <= self.size)
        out = np.full(self.n_groups, np.nan)
        if not ok.any():
            return out
        ge = self.bounds[1:][ok]
        cut = ge - k[ok]
        if not self.ties:
            out[ok] = (self.cp_at(ge) - self.cp_at(cut)) / k[ok]
            return out
        bs, be, _ = self.blocks()
        b = np.searchsorted(bs, cut, side="right") - 1
        s0, e0 = bs[b], be[b]
        c_ge, c_e0, c_s0 = self.cp_at(ge), self.cp_at(e0), self.cp_at(s0)
        out[ok] = ((c_ge - c_e0) + (c_e0 - c_s0) * (e0 - cut) / (e0 - s0)) / k[ok]
        return out

    def curve(self) -> dict[str, np.ndarray]:
        """Every run as a ROC point, per group in descending score order."""
        bs, be, bg = self.blocks()
        cp = self.cp
        ge = self.bounds[bg + 1]
        tp = cp[ge] - cp[bs]
        fp = (ge - bs) - tp
        npos = self.npos
        nneg = self.size - npos
        order = np.lexsort((-np.arange(len(bs)), bg))
        return {
            "group": bg[order],
            "threshold": self.block_scores(bs[order]),
            "tp": tp[order],
            "fp": fp[order],
            "npos": npos,
            "nneg": nneg,
        }
