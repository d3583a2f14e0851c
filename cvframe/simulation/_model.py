"""The simulated CV design: its arguments, its parameters and the distributions it uses.

Numpy and scipy only. Every argument check of the simulation layer goes through
:func:`check_int`, :func:`check_real` and :func:`check_flag`, which apply the shared checks of
:mod:`cvframe._core.checks` and report a wrong type as a ``ValueError`` too: the simulation
functions promise a ``ValueError`` naming the argument for every invalid value
(``trials=True``, ``k=2.5``, ``stratified="yes"``, ...).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from scipy.special import gammaln

from .._core import checks as _checks
from ..errors import few

REFERENCE = (
    'G. Forman and M. Scholz, "Apples-to-Apples in Cross-Validation Studies: Pitfalls in '
    'Classifier Performance Measurement", ACM SIGKDD Explorations 12(1), 2010, Section 4.'
)


def _as_value_error(check: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        return check(*args, **kwargs)
    except TypeError as err:
        raise ValueError(str(err)) from None


#: The default ground-truth F of :func:`cvframe.simulate` and :func:`cvframe.bias_study`.
DEFAULT_F = 0.8
#: The most Monte-Carlo trials a study runs: beyond, it would not finish (nor fit in memory).
MAX_TRIALS = 2**40


def check_trials(value: Any) -> int:
    """The number of Monte-Carlo trials, ``1 <= trials <= MAX_TRIALS``."""
    fix = (
        "A Monte-Carlo standard error shrinks as 1/sqrt(trials): 10**6 trials give about three "
        "decimals; for the exact values of F_tp,fp, F_avg and F_pr,re use exact=True."
    )
    return check_int("trials", value, 1, MAX_TRIALS, fix=fix)


def check_int(
    name: str, value: Any, low: int | None, high: int | None = None, fix: str = ""
) -> int:
    """An integer argument in ``[low, high]``; bools and non-integral numbers are refused.

    >>> check_int("trials", True, 1)
    Traceback (most recent call last):
    ...
    ValueError: trials=True must be an integer, not a bool.
    """
    return int(_as_value_error(_checks.integer, name, value, low, high, fix=fix))


def check_real(name: str, value: Any, low: float, high: float, *, high_open: bool) -> float:
    """A finite real argument in ``(low, high)`` or ``(low, high]``."""
    return float(
        _as_value_error(_checks.real, name, value, low, high, low_open=True, high_open=high_open)
    )


def check_flag(name: str, value: Any) -> bool:
    """True or False (numpy bools too); anything else is a ValueError naming ``name``."""
    return bool(_as_value_error(_checks.flag, name, value))


def grid(name: str, values: Any) -> list[Any]:
    """The values of one grid axis: a number or a flat list of distinct ones."""
    if np.ndim(values) > 1:
        raise ValueError(
            f"{name} has shape {np.shape(values)}; give a number or a flat list of values."
        )
    vals = [values] if np.ndim(values) == 0 else list(np.ravel(values))
    if not vals:
        raise ValueError(f"{name} is empty; give at least one value.")
    vals = [v.item() if isinstance(v, np.generic) else v for v in vals]
    if len(set(vals)) < len(vals):
        twice = [v for i, v in enumerate(vals) if v in vals[:i]]
        raise ValueError(f"{name} repeats the values {few(twice)}; give each value once.")
    return vals


def rates(f: float, precision: Any, recall: Any) -> tuple[float, float, float]:
    """(F, precision, recall) of the simulated classifier from ``f`` and the optional rates.

    Neither rate: precision = recall = ``f`` (the paper's model). One rate: the other solves
    ``2PR/(P + R) = f``. Both: they define the classifier and ``F = 2PR/(P + R)``; an ``f``
    other than its default 0.8 that disagrees is an error.

    >>> rates(0.8, None, None)
    (0.8, 0.8, 0.8)
    >>> [round(x, 4) for x in rates(0.8, 0.9, None)]
    [0.8, 0.9, 0.72]
    >>> [round(x, 4) for x in rates(0.8, 0.6, 0.9)]
    [0.72, 0.6, 0.9]
    """
    if precision is None and recall is None:
        return f, f, f
    p = None if precision is None else check_real("precision", precision, 0.0, 1.0, high_open=False)
    r = None if recall is None else check_real("recall", recall, 0.0, 1.0, high_open=False)
    if p is not None and r is not None:
        derived = 2 * p * r / (p + r)
        if not math.isclose(f, derived, abs_tol=1e-9) and f != DEFAULT_F:
            raise ValueError(
                f"f={f!r} disagrees with precision={p!r} and recall={r!r}, whose F is "
                f"{derived:.6g}; give f with one of precision and recall, or both rates "
                "without f."
            )
        return derived, p, r
    name, given = ("precision", p) if p is not None else ("recall", r)
    assert given is not None
    inv = 2.0 / f - 1.0 / given
    if inv < 1.0 - 1e-12 or given <= f / 2:
        low = f / (2 - f)
        raise ValueError(
            f"{name}={given!r} cannot give f={f!r}: with F = 2PR/(P+R) the other rate would "
            f"be {'above 1' if inv < 1 and inv > 0 else 'negative or infinite'}; use "
            f"{name} between {low:.4g} and 1 for f={f!r}."
        )
    other = 1.0 / max(inv, 1.0)
    return (f, given, other) if name == "precision" else (f, other, given)


@dataclass(frozen=True)
class Model:
    """One simulated CV design: ``n`` cases, ``pos`` positives, ``k`` folds, ground truth f.

    ``recall_given`` and ``precision_given`` are None when they equal ``f`` (the paper's
    classifier, precision = recall = f); otherwise ``f = 2PR/(P + R)``.
    """

    n: int
    prevalence: float
    f: float
    k: int
    stratified: bool
    recall_given: float | None = None
    precision_given: float | None = None

    @classmethod
    def make(
        cls,
        n: Any,
        prevalence: Any,
        f: Any,
        k: Any,
        stratified: Any,
        precision: Any = None,
        recall: Any = None,
    ) -> Model:
        n = check_int("n", n, 2, fix="A data set needs at least 2 cases for 2 folds.")
        prevalence = check_real("prevalence", prevalence, 0.0, 1.0, high_open=True)
        f = check_real("f", f, 0.0, 1.0, high_open=False)
        k = check_int("k", k, 2, n, fix=f"Use between 2 and n={n} folds.")
        f, prec, rec = rates(f, precision, recall)
        same = all(math.isclose(x, f, rel_tol=0, abs_tol=1e-12) for x in (prec, rec))
        given = (None, None) if same else (rec, prec)
        model = cls(n, prevalence, f, k, check_flag("stratified", stratified), *given)
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
        fps = pos * rec * (1.0 - prec) / prec
        if fps > neg:
            what = (
                f"f={f!r} is too low for prevalence={prevalence!r}: precision = recall = f"
                if given == (None, None)
                else f"precision={prec:.6g} with recall={rec:.6g} is too low for "
                f"prevalence={prevalence!r}: it"
            )
            raise ValueError(
                f"{what} needs P*recall*(1-precision)/precision = {fps:g} false positives out "
                f"of only {neg} negatives; raise precision (or f), or the prevalence."
            )
        return model

    @property
    def recall(self) -> float:
        """Ground-truth recall: the probability that a positive becomes a true positive."""
        return self.f if self.recall_given is None else self.recall_given

    @property
    def precision(self) -> float:
        """Ground-truth precision: expected TP over expected predicted positives."""
        return self.f if self.precision_given is None else self.precision_given

    @property
    def pos(self) -> int:
        """Positives ``P = round(n * prevalence)`` (halves round up)."""
        return int(math.floor(self.n * self.prevalence + 0.5))

    @property
    def neg(self) -> int:
        return self.n - self.pos

    @property
    def q(self) -> float:
        """Probability that a negative becomes a false positive, ``P R (1-Pr)/(Pr N)``.

        With precision = recall = f this is the paper's ``P(1-f)/N``.
        """
        if self.recall_given is None:
            return self.pos * (1.0 - self.f) / self.neg
        p, r = self.precision, self.recall
        return self.pos * r * (1.0 - p) / (p * self.neg)

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


def as_seed(seed: Any) -> np.random.SeedSequence:
    """``seed`` (None, a non-negative int or a SeedSequence) as a SeedSequence."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is None:
        return np.random.SeedSequence()
    whole = isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_))
    if whole and int(seed) >= 0:
        return np.random.SeedSequence(int(seed))
    raise ValueError(
        f"seed={seed!r} must be None, a non-negative integer or a numpy.random.SeedSequence."
    )


def seed_attr(ss: np.random.SeedSequence) -> str:
    """How a seed is recorded in ``attrs["seed"]`` (enough to regenerate the draws)."""
    key = ",".join(str(x) for x in ss.spawn_key)
    return f"SeedSequence(entropy={ss.entropy}" + (f", spawn_key=({key},))" if key else ")")


# --- distributions --------------------------------------------------------------------------
def _lcomb(a: Any, b: Any) -> Any:
    a, b = np.asarray(a), np.asarray(b)
    return gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0)


def binom(x: np.ndarray, m: Any, p: float) -> np.ndarray:
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


def hyper(a: Any, total: Any, good: Any, draws: Any) -> np.ndarray:
    """Hypergeometric pmf P(a good among ``draws`` from ``total`` with ``good`` good ones)."""
    a, total, good, draws = np.broadcast_arrays(
        *(np.asarray(v, dtype=float) for v in (a, total, good, draws))
    )
    ok = (a >= 0) & (a <= good) & (draws - a >= 0) & (draws - a <= total - good)
    ok &= (good <= total) & (draws <= total)
    a_, t_, g_, d_ = (np.where(ok, v, 0.0) for v in (a, total, good, draws))
    lp = _lcomb(g_, a_) + _lcomb(t_ - g_, d_ - a_) - _lcomb(t_, d_)
    return np.where(ok, np.exp(lp), 0.0)
