"""Exact expectations of the simulated CV model, and Figure 9's probability.

Numpy and scipy only. :func:`moments` sums the model's distributions for the mean and standard
deviation of F_tp,fp and F_avg and for the probability of an undefined fold;
:func:`p_fold_without_positives` is the probability that an unstratified split leaves a fold
without positives.
"""

from __future__ import annotations

import functools
import math
from decimal import Context, Decimal, localcontext
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.special import gammaln

from ..errors import few
from ._model import Model, binom, check_int, hyper

__all__ = [
    "EXACT_WORK",
    "RISK_WORK",
    "fold_risks",
    "moments",
    "p_fold_without_positives",
    "risks_tractable",
    "tractable",
]


def _support(m: int, p: float) -> np.ndarray:
    """Values of Binomial(m, p) that carry all but a negligible (< 1e-25) share of the mass."""
    if m <= 2000:
        return np.arange(m + 1)
    mean, sd = m * p, math.sqrt(m * p * (1 - p))
    lo = max(0, int(mean - 12 * sd - 40))
    hi = min(m, int(mean + 12 * sd + 40))
    return np.arange(lo, hi + 1)


def _f_moments(a: int, b: int, f: float, q: float) -> tuple[float, float]:
    """E[F] and E[F^2] of one fold (or the pooled folds) with ``a`` positives, ``b`` negatives.

    ``F = 2 TP / (TP + a + FP)`` with TP ~ Bin(a, f), FP ~ Bin(b, q) (``f`` is the recall:
    the probability that a positive becomes a true positive); 0 when TP = 0, which is
    what ``zero_division=0`` gives whenever precision or recall is undefined.
    """
    if a == 0:
        return 0.0, 0.0
    t, x = _support(a, f), _support(b, q)
    pt, px = binom(t, a, f), binom(x, b, q)
    F = 2.0 * t[:, None] / (t[:, None] + a + x[None, :])
    return float(pt @ F @ px), float(pt @ (F * F) @ px)


def _p_no_pred(a: Any, b: Any, f: float, q: float) -> np.ndarray:
    """P(TP = FP = 0) of a fold with ``a`` positives and ``b`` negatives (``f``: recall)."""
    a, b = np.asarray(a), np.asarray(b)
    with np.errstate(divide="ignore"):
        p0 = np.exp(a * np.log1p(-f) if f < 1 else np.where(a > 0, -np.inf, 0.0))
        return np.asarray(p0 * np.exp(b * np.log1p(-q)))


def _p_invalid(a: np.ndarray, b: np.ndarray, f: float, q: float) -> np.ndarray:
    """P(V = 0) of a fold: no positives, or no predicted positive (TP = FP = 0)."""
    return np.where(np.asarray(a) == 0, 1.0, _p_no_pred(a, b, f, q))


#: The most summed terms :func:`tractable` lets :func:`moments` take on unstratified folds
#: (about a third of a second).
EXACT_WORK = 3_000_000


def tractable(model: Model) -> bool:
    """Whether :func:`moments` finishes in well under a second for ``model``.

    Stratified folds always; unstratified ones sum a fold's F over every count of positives
    it may hold, about ``sum_a (a + 1)(s - a + 1)`` terms per fold size ``s``.
    """
    if model.stratified:
        return True
    s = int(model.sizes.max())
    a = np.arange(min(model.pos, s) + 1, dtype=float)
    return float(((a + 1) * (s - a + 1)).sum()) <= EXACT_WORK


#: The largest allocation table (folds' positive counts x positives left) of the exact
#: "some fold without predicted positives" of unstratified folds.
RISK_WORK = 4_000_000


def risks_tractable(model: Model) -> bool:
    """Whether :func:`fold_risks` is cheap (stratified folds always; unstratified ones while
    the dynamic programme's table stays below :data:`RISK_WORK` entries)."""
    s = int(model.sizes.max())
    return model.stratified or (min(s, model.pos) + 1) * (model.pos + 1) <= RISK_WORK


def fold_risks(model: Model) -> dict[str, float]:
    """Exact chances of a fold without positives and of one without predicted positives.

    ``p_fold_no_pos`` and ``p_fold_no_pred``: the probability that a fold (averaged over the
    folds) has no positives, and no predicted positives (TP = FP = 0); ``p_some_no_pos`` and
    ``p_some_no_pred``: that some fold of one k-fold split does. Stratified folds hold their
    dealt positives; unstratified ones the hypergeometric share of a random partition
    (``p_some_no_pos`` is then :func:`p_fold_without_positives`, the same computation).

    >>> from cvframe.simulation._model import Model
    >>> r = fold_risks(Model.make(1000, 0.02, 0.8, 10, False))
    >>> round(r["p_some_no_pos"], 4), round(r["p_fold_no_pos"], 4)
    (0.7772, 0.119)
    """
    m = model
    r, q = m.recall, m.q
    sizes = [int(s) for s in m.sizes]
    if m.stratified:
        pos = m.strat_pos
        no_pred = _p_no_pred(pos, m.sizes - pos, r, q)
        no_pos = (pos == 0).astype(float)
        some_no_pos = float(no_pos.max())
        some_no_pred = 1.0 - float(np.prod(1.0 - no_pred))
    else:
        per_no_pos, per_no_pred = {}, {}
        for s in set(sizes):
            a = np.arange(min(m.pos, s) + 1)
            h = hyper(a, m.n, m.pos, s)
            per_no_pos[s] = float(h[0])
            per_no_pred[s] = float(h @ _p_no_pred(a, s - a, r, q))
        no_pos = np.array([per_no_pos[s] for s in sizes])
        no_pred = np.array([per_no_pred[s] for s in sizes])
        some_no_pos = _p_empty(m.pos, m.n, m.k)
        ok = _alloc_expectation(m, lambda a, s: 1.0 - _p_no_pred(a, s - a, r, q))
        some_no_pred = 1.0 - ok
    return {
        "p_fold_no_pos": float(np.mean(no_pos)),
        "p_some_no_pos": float(min(max(some_no_pos, 0.0), 1.0)),
        "p_fold_no_pred": float(np.mean(no_pred)),
        "p_some_no_pred": float(min(max(some_no_pred, 0.0), 1.0)),
    }


def moments(model: Model) -> dict[str, float]:
    """Exact mean and std of F_tp,fp and F_avg, and P(some fold invalid), under the model.

    Exact for any precision and recall: only TP's success probability (the recall) and FP's
    (``q``) enter the sums.
    """
    m = model
    f, q, k = m.recall, m.q, m.k  # TP ~ Bin(positives, recall), FP ~ Bin(negatives, q)
    out: dict[str, float] = {}
    e1, e2 = _f_moments(m.pos, m.neg, f, q)
    out["f_tp_fp_mean"], out["f_tp_fp_std"] = e1, math.sqrt(max(e2 - e1 * e1, 0.0))
    if m.stratified:
        pos = m.strat_pos
        neg = m.sizes - pos
        types = {(int(a), int(b)) for a, b in zip(pos, neg, strict=True)}
        mom = {t: _f_moments(*t, f, q) for t in types}
        per = [mom[(int(a), int(b))] for a, b in zip(pos, neg, strict=True)]
        mean = sum(e1 for e1, _ in per) / k
        var = sum(e2 - e1**2 for e1, e2 in per) / k**2
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
            return hyper(np.arange(len(g1[s])), m.n, m.pos, s)

        ef = {s: float(marg(s) @ g1[s]) for s in g1}
        ef2 = {s: float(marg(s) @ g2[s]) for s in g1}
        mean = sum(ef[s] for s in sizes) / k

        def cross(s: int, t: int) -> float:
            """E[F_i F_j] for two distinct folds of sizes s and t."""
            a = np.arange(len(g1[s]))
            h = marg(s)
            b = np.arange(len(g1[t]))
            cond = hyper(b[None, :], m.n - s, m.pos - a[:, None], t)
            return float((h * g1[s]) @ (cond @ g1[t]))

        var = 0.0
        counts = {s: sizes.count(s) for s in g1}
        for s in g1:
            var += counts[s] * (ef2[s] - ef[s] ** 2)
            for t in g1:
                pairs = counts[s] * (counts[t] - (s == t))
                if pairs:
                    var += pairs * (cross(s, t) - ef[s] * ef[t])
        var /= k**2
        p_ok = _alloc_expectation(m, lambda a, s: 1.0 - _p_invalid(a, s - a, f, q))
    out["f_avg_mean"], out["f_avg_std"] = mean, math.sqrt(max(var, 0.0))
    out["p_undefined"] = float(min(max(1.0 - p_ok, 0.0), 1.0))
    return out


def _alloc_expectation(m: Model, factor: Any) -> float:
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
        top = min(s, m.pos) + 1
        if i < m.k - 1:  # every (a, r) of the fold at once; accumulated in order of a below
            table = hyper(np.arange(top)[:, None], rem, r[None, :], s)
        for a in range(top):
            p = table[a, a:] if i < m.k - 1 else (r[a:] == a) * 1.0
            new[: m.pos + 1 - a] += w[a:] * p * float(factor(np.array(a), s))
        w = new
        rem -= s
    return float(w.sum())


# --- folds without positives (Figure 9) --------------------------------------------------------
#: Up to this many cases the inclusion-exclusion runs on exact integers (math.comb of at most
#: a few thousand bits); beyond, on decimals with a precision chosen from the cancellation.
_EXACT_N = 5_000
#: The truncated sum stops once the next terms are below 2**-_TOL_BITS of the result.
_TOL_BITS = 64
_PI = Decimal(
    "3.14159265358979323846264338327950288419716939937510"
    "58209749445923078164062862089986280348253421170679"
)
#: Bernoulli numbers B_2 .. B_28 (numerator, denominator) for Stirling's series.
_BERNOULLI = [
    Fraction(b).as_integer_ratio()
    for b in "1/6 -1/30 1/42 -1/30 5/66 -691/2730 7/6 -3617/510 43867/798 -174611/330 854513/138 "
    "-236364091/2730 8553103/6 -23749461029/870".split()
]


@functools.lru_cache(maxsize=1 << 16)
def _lfact(m: int, prec: int) -> Decimal:
    """ln(m!) to ``prec`` significant digits (exact factorial below 1000, else Stirling)."""
    ctx = Context(prec=prec + 5)
    if m < 1000:
        return Decimal(math.factorial(m)).ln(ctx)
    x = Decimal(m)
    out = ctx.subtract(ctx.multiply(x, x.ln(ctx)), x)
    out = ctx.add(out, ctx.divide(ctx.multiply(2 * _PI, x).ln(ctx), 2))
    for j, (num, den) in enumerate(_BERNOULLI, 1):
        term = ctx.multiply(Decimal(den * 2 * j * (2 * j - 1)), ctx.power(x, 2 * j - 1))
        out = ctx.add(out, ctx.divide(Decimal(num), term))
    return out


def _log_ratio(n: int, n_pos: int, s: int) -> float:
    """log of P(a given set of ``s`` cases holds no positive) = C(n-s, n_pos)/C(n, n_pos)."""
    if n - s < n_pos:
        return -math.inf
    return float(
        gammaln(n - s + 1) - gammaln(n - s - n_pos + 1) - gammaln(n + 1) + gammaln(n - n_pos + 1)
    )


@functools.lru_cache(maxsize=4096)
def _p_empty(n_pos: int, n: int, k: int) -> float:
    """P(some fold has no positive); bounded work whatever ``n``, ``k`` and ``n_pos``."""
    small, n_big = divmod(n, k)
    big, n_small = small + 1, k - n_big
    if n_pos < k:  # pigeonhole (n_pos = 0 included): some fold surely has none
        return 1.0
    if n - n_pos < small:  # too few negatives to fill any fold
        return 0.0
    # Fold-empty indicators are negatively associated (sampling without replacement), so
    # P(no fold empty) <= prod_i (1 - e_i). When that is below 2**-(_TOL_BITS + 4), the
    # probability is 1 to double precision; otherwise lam = sum_i e_i <= ~47 bounds both the
    # number of inclusion-exclusion orders needed and their cancellation.
    e_small = math.exp(_log_ratio(n, n_pos, small))
    e_big = math.exp(_log_ratio(n, n_pos, big)) if n_big else 0.0
    log_q = n_small * math.log1p(-e_small) + n_big * math.log1p(-e_big)
    if log_q < -(_TOL_BITS + 4) * math.log(2):
        return 1.0
    lam = n_small * e_small + n_big * e_big
    if n <= _EXACT_N:
        den: Any = math.comb(n, n_pos)

        def term(t: int) -> Any:
            return math.comb(n - t, n_pos)

        zero: Any = 0
        ctx = None
    else:
        prec = 25 + math.ceil(lam / math.log(10)) + len(str(n)) + 2 * (len(str(n)) + 2)
        ctx = Context(prec=prec)
        log_den = ctx.subtract(_lfact(n, prec), _lfact(n - n_pos, prec))
        den = Decimal(1)

        def term(t: int) -> Any:
            log_t = ctx.subtract(_lfact(n - t, prec), _lfact(n - t - n_pos, prec))
            return ctx.exp(ctx.subtract(log_t, log_den))

        zero = Decimal(0)
    # Inclusion-exclusion over the set J of empty folds, grouped by m = |J| (j1 big and m-j1
    # small folds, t cases): Bonferroni's inequalities bound the error after order m by the
    # sum of order m + 1, and the orders decrease once past their peak.
    with localcontext(ctx or Context()):
        partial, prev = zero, None
        for m in range(1, k + 1):
            s = zero
            for j1 in range(max(0, m - n_small), min(m, n_big) + 1):
                t = j1 * big + (m - j1) * small
                if n - t < n_pos:
                    break
                s += math.comb(n_big, j1) * math.comb(n_small, m - j1) * term(t)
            if s == 0:
                break
            partial = partial + s if m % 2 else partial - s
            if prev is not None and s <= prev and s * (1 << _TOL_BITS) <= partial:
                break
            prev = s
    if ctx is None:
        return float(Fraction(partial, den))
    return min(max(float(partial), 0.0), 1.0)


def p_fold_without_positives(n_pos: Any, n: int = 1000, k: int = 10, trials: Any = 1) -> Any:
    r"""Probability that unstratified k-fold CV leaves some fold without positives.

    The ``n`` cases, ``n_pos`` of them positive, are split uniformly at random into ``k``
    folds of sizes ``n // k`` or ``n // k + 1``. By inclusion–exclusion over the set
    :math:`J` of folds left empty (sizes :math:`s_j`),

    .. math::

        p = \sum_{\emptyset \ne J \subseteq \{1..k\}} (-1)^{|J|+1}
            \binom{n - \sum_{j \in J} s_j}{n_{pos}} \Big/ \binom{n}{n_{pos}},

    summed by order :math:`|J|` until Bonferroni's bound puts the remaining orders below
    :math:`2^{-64}` of the result: in exact integer arithmetic up to ``n = 5000``, in decimal
    arithmetic with enough digits for the cancellation beyond. With ``trials > 1`` the result
    is the probability that it happens in at least one of ``trials`` independent splits,
    :math:`1-(1-p)^{trials}` (the paper's Figure 9, right-hand curve).

    Parameters
    ----------
    n_pos : int or array-like of int
        Positives in the data set, ``0 <= n_pos <= n``.
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

    Raises
    ------
    ValueError
        Naming the argument: ``n``, ``k``, ``n_pos`` or ``trials`` not integers (bools
        included) or out of range.

    Notes
    -----
    The trivial cases are answered at once: fewer positives than folds (``n_pos < k``,
    ``n_pos = 0`` included) leave some fold without positives for certain (1.0), and fewer
    negatives than the smallest fold leave none (0.0). Otherwise the work per distinct
    ``n_pos`` is bounded whatever the size of ``n`` and ``k``: when the product of the
    per-fold probabilities of holding a positive (an upper bound of the probability that
    every fold holds one, the fold indicators being negatively associated) is below
    :math:`2^{-68}`, the answer is 1.0 to double precision; otherwise the sum needs at most a
    few hundred orders.

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
    >>> p_fold_without_positives(999, n=10**9, k=1000)      # fewer positives than folds
    1.0
    """
    n = check_int("n", n, 2)
    k = check_int("k", k, 2, n, fix=f"Use between 2 and n={n} folds.")
    pos = _whole("n_pos", n_pos, "positives in the data", 0, n).astype(np.int64)
    tr = _whole("trials", trials, "independent splits; bools are not counts", 1, None)
    try:
        shape = np.broadcast_shapes(pos.shape, tr.shape)
    except ValueError:
        raise ValueError(
            f"n_pos of shape {pos.shape} and trials of shape {tr.shape} do not broadcast "
            "together: give one trials per n_pos (same shape), or one number for all."
        ) from None
    uniq, inv = np.unique(pos, return_inverse=True)
    p = np.array([_p_empty(int(u), n, k) for u in uniq])[inv].reshape(pos.shape)
    p, tr = np.broadcast_to(p, shape), np.broadcast_to(tr.astype(np.float64), shape)
    with np.errstate(divide="ignore", over="ignore"):  # a huge trials: the power underflows
        out = np.where(p >= 1.0, 1.0, -np.expm1(tr * np.log1p(-np.minimum(p, 1.0))))
    return float(out) if out.ndim == 0 else out


def _whole(name: str, value: Any, what: str, low: int, high: int | None) -> np.ndarray:
    """``value`` as an array of whole numbers in ``[low, high]`` (``what`` they count): ints of
    any size or integral floats; each distinct value is checked as the scalar ``name``."""
    arr = np.asarray(value)
    if arr.dtype.kind not in "iufO":
        raise ValueError(f"{name}={few(arr.ravel())} must be integers ({what}), not {arr.dtype}.")
    whole = {v: check_int(name, v, None) for v in dict.fromkeys(arr.ravel().tolist())}
    bad = [w for w in whole.values() if w < low or (high is not None and w > high)]
    if bad:
        raise ValueError(f"{name} has values {few(bad)} outside [{low}, {high or 'inf'}] ({what}).")
    if arr.dtype.kind == "O":  # Python ints beyond int64: their size is all that matters here
        arr = np.array([float(whole[v]) for v in arr.ravel().tolist()]).reshape(arr.shape)
    return arr
