"""The numpy core of the score metrics: packed keys, one sort, ranks and tie runs.

The scores of one class are packed with their group (repeat and fold, or repeat alone) and
their label into one ``uint64`` key -- group in the high bits, the order-preserving bit
pattern of the float64 score in the middle, the label in the lowest bit -- and sorted once
with ``ndarray.sort`` (a SIMD sort of plain integers, not an argsort). Ranks, tie runs and
per-group sums are then cumulative sums and ``searchsorted`` over that one sorted array;
there is no loop over groups. When the scores span more bits than the key has room for
(scores spreading over hundreds of binary orders of magnitude, or very many folds), the
scores are first replaced by their dense ranks (``np.unique``), which is exact but slower.

:meth:`Ranked.regroup` turns the per-fold sort into the pooled (per-repeat) one without
packing again: the fold bits are cleared and the already sorted runs are merged.

This module imports numpy only.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

__all__ = ["Packing", "Ranked", "pack", "pack_signed"]

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
    ):
        n = len(s)
        gbits = int(n_groups - 1).bit_length()
        key, self.packing, scratch = pack(s, lo, hi)
        sbits = int(self.packing.span).bit_length()
        self.uniques: np.ndarray | None = None
        if gbits + sbits + 1 > 64:  # too wide: exact dense ranks instead
            del key, scratch
            scratch = None
            self.uniques, inv = np.unique(s + 0.0, return_inverse=True)
            key = inv.astype(np.uint64).reshape(-1)
            sbits = int(len(self.uniques) - 1).bit_length()
        self.sbits = sbits
        self.shift = sbits + 1
        np.left_shift(key, _ONE, out=key)
        # labels 0/1 as int64 (y_true itself, often) or bool; same-dtype ops are fastest
        np.bitwise_or(key, y.view(np.uint64) if y.dtype == np.int64 else y, out=key)
        if gbits:
            assert g is not None  # several groups need group ids
            if scratch is None:
                scratch = np.empty(n, dtype=np.uint64)
            gk = scratch.view(np.uint64)
            np.left_shift(g.view(np.uint64), np.uint64(self.shift), out=gk)
            np.bitwise_or(key, gk, out=key)
        self._scratch = scratch  # reused by the tie check
        key.sort()
        self._setup(key, n_groups)

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

    def regroup(self, new_group: np.ndarray, n_new: int) -> Ranked:
        """The same scores sorted by coarser groups (e.g. per repeat instead of per fold).

        ``new_group[g]`` is the new group of old group ``g``; the new group ids must be
        non-decreasing in ``g`` (folds of a repeat are consecutive groups). The score and
        label bits are kept; each old group is an already sorted run, so the sort only
        merges runs. Consumes this object's key (the object must not be used afterwards).
        """
        new_group = np.asarray(new_group, dtype=np.uint64)
        out = Ranked.__new__(Ranked)
        out.packing, out.uniques = self.packing, self.uniques
        out.sbits, out.shift = self.sbits, self.shift
        key = self.key
        self.key = np.empty(0, dtype=np.uint64)
        np.bitwise_and(key, np.uint64((1 << self.shift) - 1), out=key)
        if n_new > 1:
            high = np.repeat(new_group << np.uint64(self.shift), self.size)
            np.bitwise_or(key, high, out=key)
            del high
        if n_new < self.n_groups:
            key.sort()
        out._scratch = self._scratch
        out._setup(key, n_new)
        return out

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
        with np.errstate(invalid="ignore", divide="ignore"):
            value = s2 / (2.0 * npos * nneg)
        value[(npos == 0) | (nneg == 0)] = np.nan
        return value, npos, nneg

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
