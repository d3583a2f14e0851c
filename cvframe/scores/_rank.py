"""One class's scores ranked per group, from the one packed sort: ranks, tie runs, metrics.

:class:`Ranked` sorts the packed keys of :mod:`._keys` once; ranks, tie runs and per-group
sums are cumulative sums and ``searchsorted`` over that array (no loop over groups);
:meth:`Ranked.by_low` gives the per-fold order from the same sort, and :func:`auc_both` the
pooled and per-fold Mann-Whitney counts in one compiled pass (the same integers).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from .._core.kernel import engine
from ._keys import ONE, kernel, partition, sorted_keys

__all__ = ["Ranked", "auc_both", "delong_placements"]

_LITTLE = sys.byteorder == "little"


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
    """Pooled (per group) and per-(group, low) AUC and positives from one sort, in one
    compiled pass: the integers of :meth:`Ranked.auc` on ``Ranked(..., low=...)`` and its
    :meth:`~Ranked.by_low`. None where it does not apply (numpy engine, keys too wide)."""
    if engine(len(s), "rank") != "numba" or s.dtype != np.float64:
        return None
    sk = sorted_keys(s, lo, hi, y, g, n_groups, low, n_low, buffer)
    key, _, uniques, sbits, _, lbits, _, rbounds = sk
    del sk
    if uniques is not None:
        return None
    if rbounds is None:  # else the keys hold no group bits and their bounds are given
        rbounds = _bounds(key, n_groups, sbits + 1 + lbits)
    m_s2, m_pos, f_s2, f_pos = kernel().auc_both(key, rbounds, n_low, np.uint64(lbits))
    del key
    f_neg = low_counts - f_pos
    m_neg = np.diff(rbounds) - m_pos
    return (_auc_value(m_s2, m_pos, m_neg), m_pos), (_auc_value(f_s2, f_pos, f_neg), f_pos)


def _bounds(key: np.ndarray, n_groups: int, shift: int) -> np.ndarray:
    """Where the sorted keys of each group (the bits above ``shift``) start, and their end."""
    if n_groups == 1:
        return np.array([0, len(key)], dtype=np.int64)
    starts = np.arange(n_groups, dtype=np.uint64) << np.uint64(shift)
    return np.append(np.searchsorted(key, starts), len(key)).astype(np.int64)


def _by_low(
    key: np.ndarray, bounds: np.ndarray, counts: np.ndarray, n_low: int, lbits: int, shift: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`partition` of keys sorted per group without group bits: each group's part
    regrouped by low code (``low << shift | value``), with the bounds of every
    ``g * n_low + low`` group."""
    parts = [
        partition(key[a:b], counts[h * n_low : (h + 1) * n_low], n_low, lbits, shift, 1)
        for h, (a, b) in enumerate(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))
    ]
    low_bounds = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=low_bounds[1:])
    return np.concatenate(parts) if parts else key[:0].copy(), low_bounds


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
        weights: np.ndarray | None = None,
    ):
        """Sort once; ``low`` codes (with ``low_counts`` per ``g * n_low + low``) ride in the
        lowest bits for :meth:`by_low`; ``weights`` ride along for a weighted :meth:`auc`."""
        key, self.packing, self.uniques, self.sbits, scratch, lbits, w, bounds = sorted_keys(
            s, lo, hi, y, g, n_groups, low, n_low, carry=weights
        )
        self.w = w
        self.shift = self.sbits + 1
        self._scratch = scratch  # reused by the tie check
        self._low: tuple[np.ndarray, int, np.ndarray | None] | None = None
        if low is not None:
            low_bounds = None
            if lbits:
                assert low_counts is not None
                if bounds is None:
                    low_key = partition(key, low_counts, n_low, lbits, self.shift, n_groups)
                else:  # keys without group bits: regroup each group's part by low code
                    low_key, low_bounds = _by_low(key, bounds, low_counts, n_low, lbits, self.shift)
                np.right_shift(key, np.uint64(lbits), out=key)
            else:  # one low code: the same sort
                low_key, low_bounds = key, bounds
            self._low = (low_key, n_low, low_bounds)
        self._setup(key, n_groups, bounds)

    def by_low(self) -> Ranked:
        """The same scores by (group, low code, score, label) from the one sort (groups
        ``g * n_low + low``, by :func:`partition`). Can be called once."""
        assert self._low is not None, "by_low needs Ranked(..., low=codes)"
        key, n_low, bounds = self._low
        self._low = None
        out = Ranked.__new__(Ranked)
        out.packing, out.uniques = self.packing, self.uniques
        out.sbits, out.shift = self.sbits, self.shift
        out._scratch = self._scratch  # a temporary of the tie check: no state kept
        out._low, out.w = None, None
        out._setup(key, self.n_groups * n_low, bounds)
        return out

    def _setup(self, key: np.ndarray, n_groups: int, bounds: np.ndarray | None) -> None:
        """``bounds``: where each group starts when the keys hold no group bits."""
        n = len(key)
        self.key = key
        self.n = n
        self.n_groups = n_groups
        self.bounds = _bounds(key, n_groups, self.shift) if bounds is None else bounds
        self.size = np.diff(self.bounds)
        self._y: np.ndarray | None = None
        self._pos_idx: np.ndarray | None = None
        self._cp: np.ndarray | None = None
        self._blocks: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._ties: bool | None = None
        self._auc: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def release(self) -> None:
        """Drop what a sort kept for later metrics besides its keys (the scratch buffer, the
        sorted labels and positions of the positives, the cumulative positives, the runs of
        tied scores: up to 40 bytes per score): they are made again when asked. A frame
        parsed once keeps the sorts of every class, so it holds their keys only."""
        self._scratch = None
        self._y = self._pos_idx = self._cp = self._blocks = None

    @property
    def y(self) -> np.ndarray:
        """Sorted labels as bool (``flatnonzero`` is several times faster on bool)."""
        if self._y is None:
            if _LITTLE:  # the lowest byte of every key, as bool
                self._y = (self.key.view(np.uint8)[::8] & np.uint8(1)).view(np.bool_)
            else:
                self._y = (self.key & ONE).astype(np.bool_)
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
                close = d <= ONE
                del d, out
                inner = self.bounds[(self.bounds > 0) & (self.bounds < self.n)]
                close[inner - 1] = False  # a group's first element ties with no other group
                if close.any():
                    cand = np.flatnonzero(close)
                    self._ties = bool(
                        np.any((self.key[cand] >> ONE) == (self.key[cand + 1] >> ONE))
                    )
        return self._ties

    def blocks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Runs of equal (group, score): start, end (exclusive) and group of every run."""
        if self._blocks is None:
            z = self.key >> ONE
            new = np.empty(self.n, dtype=bool)
            new[0] = True
            np.not_equal(z[1:], z[:-1], out=new[1:])
            del z
            new[self.bounds[self.bounds < self.n]] = True  # runs end with their group
            bs = np.flatnonzero(new)
            be = np.append(bs[1:], self.n)
            bg = np.searchsorted(self.bounds, bs, side="right") - 1
            self._blocks = (bs, be, bg)
        return self._blocks

    def run_at(self, cut: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Start and end (exclusive) of the run of tied scores holding each position ``cut``."""
        bs, be, _ = self.blocks()
        b = np.searchsorted(bs, cut, side="right") - 1
        return bs[b], be[b]

    def block_scores(self, bs: np.ndarray) -> np.ndarray:
        """The score value of the runs starting at ``bs``."""
        r = (self.key[bs] >> ONE) & np.uint64((1 << self.sbits) - 1)
        if self.uniques is not None:
            return self.uniques[r.astype(np.int64)]
        return self.packing.decode(r)

    def _rank_sums(self) -> tuple[np.ndarray, np.ndarray]:
        """Per group: the number of positives and the sum of their sorted positions."""
        pos = self.pos_idx
        csum = np.concatenate([[0], np.cumsum(pos, dtype=np.int64)])
        pb = np.searchsorted(pos, self.bounds)
        return np.diff(pb), csum[pb[1:]] - csum[pb[:-1]]

    def auc(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(AUC, n_pos, n_neg) per group; AUC is NaN where n_pos or n_neg is 0.

        With weights, n_pos and n_neg are the weights of the positives and the negatives.
        Computed once per object (a report asks for AUC_merge and its DeLong variance).
        """
        if self._auc is None:
            self._auc = self._auc_of_groups()
        return self._auc

    def _auc_of_groups(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self.w is not None:
            return self._weighted_auc()
        if engine(self.n, "rank") == "numba":
            # the fused pass with one low code: the groups' own Mann-Whitney counts
            s2, npos, _, _ = kernel().auc_both(self.key, self.bounds, 1, np.uint64(0))
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

    def delong(self) -> dict[str, np.ndarray]:
        """Per group: AUC, positives and DeLong's variance of the AUC from the midrank
        placements (Sun & Xu 2014), read off the one sort: a positive's placement is the
        share of the group's negatives below it, a negative's the share of positives not
        below it, ties counting one half; every element of a run of tied scores has its
        run's placement. NaN variance where a group has fewer than 2 positives or 2
        negatives. The compiled engine reads the placements off the keys in one pass per
        group (the same arithmetic, in the same order)."""
        value, npos, nneg = self.auc()
        if self.w is None and engine(self.n, "rank") == "numba":
            var = np.empty(self.n_groups)
            kernel().delong(self.key, self.bounds, npos, nneg, var)
            return {"value": value, "support": npos, "var": var, "n_pos": npos}
        bs, be, bg = self.blocks()
        cp = self.cp
        start = self.bounds[bg]
        p_run = cp[be] - cp[bs]  # positives and negatives of every run
        n_run = (be - bs) - p_run
        p_before = cp[bs] - cp[start]  # positives and negatives of the group below the run
        n_before = (bs - start) - p_before
        return run_delong(value, npos, nneg, p_run, n_run, p_before, n_before, bg)

    def _weighted_auc(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Weighted Mann-Whitney count: every run of tied scores adds its positives' weight
        times the negatives' weight below it plus half of its own negatives' weight."""
        assert self.w is not None
        wp = np.where(self.y, self.w, 0.0)
        cp = np.concatenate([[0.0], np.cumsum(wp)])
        cn = np.concatenate([[0.0], np.cumsum(self.w - wp)])
        bs, be, bg = self.blocks()
        run_n = cn[be] - cn[bs]
        below = cn[bs] - cn[self.bounds[bg]]
        s = (cp[be] - cp[bs]) * (below + 0.5 * run_n)
        npos = cp[self.bounds[1:]] - cp[self.bounds[:-1]]
        nneg = cn[self.bounds[1:]] - cn[self.bounds[:-1]]
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.bincount(bg, weights=s, minlength=self.n_groups) / (npos * nneg)
        value[(npos <= 0) | (nneg <= 0)] = np.nan
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
        return precision_at(self, k, self.ties)

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


def delong_placements(s: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """DeLong's placement of every score of rows ``s`` (..., S) with labels ``pos`` (bool,
    the same shape), from one sort of each row: a positive's share of the row's negatives
    scored below it, a negative's share of its positives not below it, ties counting one half
    (NaN in a row without negatives, or without positives)."""
    shape = s.shape
    order = np.argsort(s, axis=-1, kind="stable")  # one sort a row
    ss, pp = np.take_along_axis(s, order, -1), np.take_along_axis(pos, order, -1)
    idx = np.broadcast_to(np.arange(shape[-1]), shape)
    first = np.ones(shape, dtype=bool)
    first[..., 1:] = ss[..., 1:] != ss[..., :-1]  # a run of tied scores starts here
    cp = np.cumsum(pp, axis=-1)  # positives up to and including each element
    if first.all():  # no ties: every run is one score
        start, p_before, p_run = idx, cp - pp, pp.astype(np.int64)
        size: np.ndarray | int = 1
    else:
        last = np.ones(shape, dtype=bool)
        last[..., :-1] = first[..., 1:]
        start = np.maximum.accumulate(np.where(first, idx, 0), axis=-1)
        end = np.flip(np.minimum.accumulate(np.flip(np.where(last, idx, shape[-1]), -1), -1), -1)
        p_before = np.take_along_axis(cp - pp, start, -1)
        p_run = np.take_along_axis(cp, end, -1) - p_before
        size = end + 1 - start
    n_before, n_run = start - p_before, size - p_run
    n1 = pos.sum(-1, keepdims=True).astype(np.float64)
    n0 = shape[-1] - n1
    with np.errstate(invalid="ignore", divide="ignore"):
        v_sorted = np.where(pp, (n_before + 0.5 * n_run) / n0, 1.0 - (p_before + 0.5 * p_run) / n1)
    v = np.empty(shape)
    np.put_along_axis(v, order, v_sorted, -1)
    return v


def run_delong(
    value: np.ndarray,
    npos: np.ndarray,
    nneg: np.ndarray,
    p_run: np.ndarray,
    n_run: np.ndarray,
    p_before: np.ndarray,
    n_before: np.ndarray,
    bg: np.ndarray,
) -> dict[str, np.ndarray]:
    """DeLong's variance of the AUC ``value`` of every group from its runs of tied scores:
    ``p_run``/``n_run`` positives and negatives of each run, ``p_before``/``n_before`` those
    of its group below it, ``bg`` its group. A positive's placement is the share of the
    group's negatives below it, a negative's the share of positives not below it, ties
    counting one half; each run's placement counts once per element it stands for. NaN
    where a group has fewer than 2 positives or 2 negatives (Sun & Xu 2014). The one
    arithmetic of the row sort (:class:`Ranked`) and of score counts
    (:class:`~._counted.Runs`)."""
    # only the runs holding positives (negatives) have a positive's (negative's) placement:
    # the others would add 0 to every sum
    p_at, n_at = np.flatnonzero(p_run), np.flatnonzero(n_run)
    bp, bn = bg[p_at], bg[n_at]
    groups = len(npos)
    with np.errstate(invalid="ignore", divide="ignore"):
        v10 = (n_before[p_at] + 0.5 * n_run[p_at]) / nneg[bp]  # a positive's placement
        v01 = 1.0 - (p_before[n_at] + 0.5 * p_run[n_at]) / npos[bn]  # a negative's
        var10 = _run_var(v10, p_run[p_at], bp, npos, groups)
        var01 = _run_var(v01, n_run[n_at], bn, nneg, groups)
        var = var10 / npos + var01 / nneg
    var = np.where((npos >= 2) & (nneg >= 2), var, np.nan)
    return {"value": value, "support": npos, "var": var, "n_pos": npos}


def _run_var(
    v: np.ndarray, count: np.ndarray, bg: np.ndarray, n: np.ndarray, groups: int
) -> np.ndarray:
    """Per group, the sample variance (ddof=1) of the run values ``v``, each counted
    ``count`` (> 0) times: the elements of the run it stands for."""
    mean = np.bincount(bg, weights=count * v, minlength=groups) / n
    dev = v - mean[bg]
    dev *= dev
    dev *= count
    return np.bincount(bg, weights=dev, minlength=groups) / (n - 1)


def precision_at(sorted_runs: Any, k: np.ndarray, ties: bool = True) -> np.ndarray:
    """Expected precision among the ``k`` top-scored samples of each group of a sort of
    scores (:class:`Ranked` of the rows or :class:`~._counted.Runs` of score counts: their
    ``n_groups``, ``size``, ``bounds``, ``cp_at`` and ``run_at``), the run of tied scores at
    the cut shared in proportion; NaN where k < 1 or the group has fewer than k samples.
    ``ties=False``: no run is tied, the cut falls between samples."""
    s = sorted_runs
    k = np.broadcast_to(np.asarray(k, dtype=np.int64), (s.n_groups,))
    ok = (k >= 1) & (k <= s.size)
    out = np.full(s.n_groups, np.nan)
    if not ok.any():
        return out
    ge = s.bounds[1:][ok]
    cut = ge - k[ok]
    if not ties:
        out[ok] = (s.cp_at(ge) - s.cp_at(cut)) / k[ok]
        return out
    s0, e0 = s.run_at(cut)
    c_ge, c_e0, c_s0 = s.cp_at(ge), s.cp_at(e0), s.cp_at(s0)
    out[ok] = ((c_ge - c_e0) + (c_e0 - c_s0) * (e0 - cut) / (e0 - s0)) / k[ok]
    return out
