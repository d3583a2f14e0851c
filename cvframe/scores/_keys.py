"""The packed keys of the score metrics: one sort of ``group | score | label | low``.

One class's scores are packed with their group (high bits), the order-preserving bits of
the float64 score and the label (lowest bit) into one ``uint64`` key, sorted once (numpy:
``ndarray.sort``; compiled: the radix sort of :mod:`._radix`, the same order); scores too
wide for the key are replaced by their dense ranks first.
With ``low=`` (the fold codes, in the lowest bits) the one sort orders each repeat for the
merged metric and :func:`partition` regroups it per fold by a stable counting pass. When the
group bits do not fit beside the score, label and low bits (wide-ranged scores with a repeat
column), a counting pass groups the keys and each group is sorted on its own: still one sort
of every key, in the same order.
The numpy passes and their numba twins (:func:`kernel`) live together so the engines cannot
drift apart (the tests compare them bit for bit); :func:`cvframe._core.kernel.engine` chooses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from .._core.kernel import compiled, engine
from . import _radix

__all__ = ["ONE", "Packing", "kernel", "pack", "pack_signed", "partition", "sorted_keys"]

ONE = np.uint64(1)

_MASK = np.uint64((1 << 63) - 1)
#: Most groups sorted one by one when their bits do not fit in the key (else dense ranks).
_SEGMENTS = 1024
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
    """:func:`pack` for scores of both signs without masked passes (``A ^ sign`` is
    ``-1 - A`` for negatives); None when a score is 0 (the general path handles zeros)."""
    key = np.abs(s)  # new array; -0.0 becomes 0.0
    m = _bits(float(key.min()))
    if m == 0:
        return None
    b = key.view(np.int64)
    sign = np.right_shift(s.view(np.int64), 63)  # -1 for negatives, 0 for positives
    np.bitwise_xor(b, sign, out=b)
    packing = _packing(lo, hi, m)
    np.bitwise_and(sign, _as_int64(2 * m - 1), out=sign)
    np.add(b, sign, out=b)
    u = key.view(np.uint64)
    np.add(u, np.uint64((packing.L + 1 - m) % _WRAP), out=u)
    return u, packing, sign


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
    packing = _packing(lo, hi, m)
    big_l = packing.L
    np.add(key, np.uint64((big_l + 1 - m) % _WRAP), out=key)
    if has_neg:
        np.subtract(np.uint64((2 * big_l) % _WRAP), key, out=key, where=s < 0.0)
    if nz is not None:
        np.copyto(key, np.uint64(big_l), where=~nz)
    return key, packing, None


#: The compiled twins (``min_bits``, ``keys``, ``scatter``, ``auc_both``, ``delong``), or
#: False without numba; each gives the integers (``delong``: the floats) of its numpy pass.
kernel: Callable[[], Any] = compiled(
    lambda jit: SimpleNamespace(**_passes(jit), auc_both=_auc_both(jit), delong=_delong(jit))
)


def _passes(jit: Any) -> dict[str, Any]:
    """The compiled ``min_bits``, ``keys`` and ``scatter`` of :func:`kernel`."""
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

    return {"min_bits": min_bits, "keys": keys, "scatter": scatter}


def _auc_both(jit: Any) -> Any:
    """The compiled ``auc_both`` of :func:`kernel`."""
    one = np.uint64(1)

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

    return auc_both


def _delong(jit: Any) -> Any:
    """The compiled ``delong`` of :func:`kernel`."""
    one = np.uint64(1)

    @jit
    def delong(key, bounds, npos, nneg, var):
        # per group (bounds), DeLong's variance from the runs of tied scores of the sorted
        # (group | score | label) keys: the arithmetic of Ranked.delong, in its order
        for g in range(bounds.shape[0] - 1):
            a, b = bounds[g], bounds[g + 1]
            n1, n0 = npos[g], nneg[g]
            if n1 < 2 or n0 < 2:
                var[g] = np.nan
                continue
            s10 = 0.0
            s01 = 0.0
            for sweep in range(2):  # the means, then the squared deviations from them
                if sweep == 1:
                    m10, m01 = s10 / n1, s01 / n0
                    s10 = 0.0
                    s01 = 0.0
                p_before = 0
                n_before = 0
                i = a
                while i < b:
                    z = key[i] >> one
                    j = i
                    p_run = 0
                    while j < b and (key[j] >> one) == z:
                        p_run += np.int64(key[j] & one)
                        j += 1
                    n_run = (j - i) - p_run
                    if p_run > 0:
                        v = (n_before + 0.5 * n_run) / n0
                        if sweep == 0:
                            s10 += p_run * v
                        else:
                            d = v - m10
                            d *= d
                            d *= p_run
                            s10 += d
                    if n_run > 0:
                        v = 1.0 - (p_before + 0.5 * p_run) / n1
                        if sweep == 0:
                            s01 += n_run * v
                        else:
                            d = v - m01
                            d *= d
                            d *= n_run
                            s01 += d
                    p_before += p_run
                    n_before += n_run
                    i = j
            var[g] = s10 / (n1 - 1) / n1 + s01 / (n0 - 1) / n0
        return var

    return delong


def _packing(lo: float, hi: float, m: int) -> Packing:
    """The :class:`Packing` of scores in [lo, hi] whose smallest non-zero magnitude has the
    bits ``m``; without positives the largest key is a zero's (L) or the smallest magnitude's."""
    big_l = _bits(lo) - m + 1 if lo < 0.0 else 0
    span = big_l + 1 + (_bits(hi) - m) if hi > 0.0 else big_l if hi == 0.0 else big_l - 1
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
    """Stable counting pass: sorted ``high | value (shift bits) | low (lbits)`` keys as
    ``g << shift | value``, ``g = high * n_low + low``, grouped by g and in key order within
    a group; ``counts[g]``: the keys of group g. O(n): no comparison sort."""
    n_groups = n_high * n_low
    vmask = np.uint64((1 << shift) - 1)
    rshift = np.uint64(shift + lbits)
    if engine(len(key), "rank") == "numba":
        starts = np.zeros(n_groups, dtype=np.int64)
        np.cumsum(counts[:-1], out=starts[1:])
        return kernel().scatter(
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


def _segments(
    key: np.ndarray, g: np.ndarray, n_groups: int, carry: np.ndarray | None, compiled: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Keys without group bits, put in group order by a stable counting pass (a radix sort of
    the small group codes) and sorted within each group: the order of the packed
    ``group | key`` sort. Returns the keys, the group bounds and ``carry`` in that order.
    ``compiled``: both passes compiled (:func:`._radix.sort_segments`)."""
    bounds = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(g, minlength=n_groups), out=bounds[1:])
    if compiled:
        key, carry = _radix.sort_segments(key, g, bounds, carry)
        return key, bounds, carry
    order = np.argsort(_small(g, n_groups), kind="stable")
    key = np.take(key, order)
    carry = None if carry is None else np.take(carry, order)
    del order
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        if b - a < 2:
            continue
        if carry is None:
            key[a:b].sort()
        else:
            o = np.argsort(key[a:b], kind="stable")
            key[a:b], carry[a:b] = key[a:b][o], carry[a:b][o]
    return key, bounds, carry


Sorted = tuple[
    np.ndarray,
    Packing,
    np.ndarray | None,
    int,
    np.ndarray | None,
    int,
    np.ndarray | None,
    np.ndarray | None,
]


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
    carry: np.ndarray | None = None,
) -> Sorted:
    """The one sort: ``group | score | label | low`` keys of one class, sorted.

    Returns the keys, the packing, the dense-rank uniques (None unless the key was too
    wide), the score bits, a scratch buffer, the low bits, ``carry`` (values per row, e.g.
    weights) in the sorted order and the group bounds. ``out``: a key buffer reused across
    classes (compiled path). When the group bits do not fit beside the rest, the keys hold
    no group bits: they are grouped by a counting pass and sorted per group (the same
    order), and the bounds (else None) say where each group starts. The compiled engine
    sorts by a radix sort (:mod:`._radix`, the same order), numpy by ``ndarray.sort``.
    """
    n = len(s)
    gbits = int(n_groups - 1).bit_length()
    lbits = int(n_low - 1).bit_length() if low is not None else 0
    compiled = engine(n, "rank") == "numba"
    fast = compiled and s.dtype == np.float64
    scratch: np.ndarray | None = None
    key: np.ndarray | None = None
    if fast:  # the packing first, then the whole key in one compiled pass
        s = np.ascontiguousarray(s)
        m = _bits(lo) if lo > 0.0 else _bits(hi) if hi < 0.0 else int(kernel().min_bits(s))
        packing = _packing(lo, hi, m)
    else:
        key, packing, scratch = pack(s, lo, hi)
    sbits = int(packing.span).bit_length()
    uniques: np.ndarray | None = None
    by_segment = False
    if gbits + sbits + 1 + lbits > 64:
        if g is not None and n_groups <= _SEGMENTS and sbits + 1 + lbits <= 64:
            # few groups (repeats): group by a counting pass, then sort each group's keys
            by_segment, gbits = True, 0
        else:  # too wide: exact dense ranks instead
            del key, scratch
            fast, scratch = False, None
            uniques, inv = np.unique(s + 0.0, return_inverse=True)
            key = inv.astype(np.uint64).reshape(-1)
            sbits = int(len(uniques) - 1).bit_length()
    shift = sbits + 1
    if fast:
        none = np.zeros(1, dtype=np.int64)
        key = kernel().keys(
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
        np.left_shift(key, ONE, out=key)
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
    if by_segment:
        assert g is not None
        key, bounds, carry = _segments(key, g, n_groups, carry, compiled)
        return key, packing, uniques, sbits, scratch, lbits, carry, bounds
    if compiled:  # in place; the carry in the stable order of the keys (a new array)
        carry = _radix.sort(key, carry)
        return key, packing, uniques, sbits, scratch, lbits, carry, None
    if carry is None:
        key.sort()
        return key, packing, uniques, sbits, scratch, lbits, None, None
    order = np.argsort(key, kind="stable")
    return key[order], packing, uniques, sbits, scratch, lbits, carry[order], None
