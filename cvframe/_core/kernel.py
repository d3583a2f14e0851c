r"""The fold-aggregation kernel: count arrays in, every fold aggregation out; no xarray.

:func:`fold_aggregates` takes the four counts with the **fold on the last axis** and returns,
per cell, the metric pooled over the folds (``"tp_fp"``), its mean over the real folds
(``"avg"``), F of the mean precision and recall (``"pr_re"``) and both means over the folds
where the metric is defined (``"avg_skip"``, ``"pr_re_skip"``), from one pass. Arithmetic
(the same in both engines, so they agree bit for bit): float64 counts; a per-fold value is
``num / den`` of :data:`cvframe.formulas.METRIC_SPECS` (``fill`` where ``den == 0``); a fold
is real unless its four counts are 0; sums run in fold order and a mean is ``sum / count``;
pooled float64 sums are exact while ``k * max(count) < 2**53`` (reported to the caller).

Two engines: a compiled pass (numba, the ``fast`` extra) and numpy, which give the same
numbers; ``CVFRAME_KERNEL=numpy`` or ``numba`` (or :data:`ENGINE`) forces one. Under
``"auto"`` (the default) the decision is made for the work of a whole call (every class,
chunk and model of it: :func:`plan`), against what loading numba costs a process that has
not loaded it yet (:data:`NUMBA_LOAD_SECONDS`, measured) and what the compiled pass saves
per value of each kind of pass (:data:`SAVED_PER_VALUE`, measured): numba is loaded when the
call saves more than the load costs, and then every pass of the call runs compiled.
Compiled functions are cached on disk (:func:`jit`): a fresh process loads, not compiles.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import CountsError
from ..formulas import METRIC_SPECS, f_from_pr

__all__ = [
    "AGGREGATIONS",
    "ENGINE",
    "METRIC_CODES",
    "NUMBA_LOAD_SECONDS",
    "NUMBA_LOAD_SIZE",
    "NUMBA_MIN_SIZE",
    "SAVED_PER_VALUE",
    "cell_values",
    "engine",
    "fold_aggregates",
    "have_numba",
    "load_pays",
    "plan",
    "pooled_exact",
]

#: The fold aggregations :func:`fold_aggregates` computes, in the order of its output rows.
AGGREGATIONS = ("tp_fp", "avg", "pr_re", "avg_skip", "pr_re_skip")
#: Metric codes of the compiled loop (from the one metric table, :data:`formulas.METRIC_SPECS`;
#: a metric over every class has no branch: :mod:`cvframe.reduce.whole` computes it).
METRIC_CODES = {name: spec.code for name, spec in METRIC_SPECS.items() if not spec.over_classes}
#: "auto" (numba when installed and it pays for the call's work), "numba" or "numpy".
ENGINE = os.environ.get("CVFRAME_KERNEL", "auto")
#: Smallest pass (values) run compiled under ``ENGINE="auto"`` once numba is loaded: below
#: it, calling into the compiled pass costs more than it saves.
NUMBA_MIN_SIZE = 1 << 16
#: CPU seconds a process spends the first time it runs a compiled pass: importing numba
#: (about 0.2 s) and its registries, and reading the cached pass from disk. Measured in
#: fresh processes on the 2-core reference machine (``benchmarks/bench_kernel.py`` measures
#: it, and the values below, on the machine it runs on).
NUMBA_LOAD_SECONDS = 0.7
#: CPU seconds the compiled pass saves per value over numpy, by kind of pass: ``"fold"``
#: (:func:`fold_aggregates`, per cell and fold), ``"rank"`` (the sort and counting passes of
#: the ranking metrics, per score) and ``"count"`` (the counting pass of the counts cube,
#: per row). Measured at 10^6-10^7 values on the reference machine.
SAVED_PER_VALUE = {"fold": 26e-9, "rank": 50e-9, "count": 4e-9}
#: Values of a fold aggregation from which loading numba pays (the break-even of
#: :data:`NUMBA_LOAD_SECONDS` and the ``"fold"`` saving; :func:`load_pays` for the others).
NUMBA_LOAD_SIZE = math.ceil(NUMBA_LOAD_SECONDS / SAVED_PER_VALUE["fold"])
#: Values (cells x folds) the numpy engine processes at once.
_NUMPY_BLOCK = 1 << 17
#: Pooled float sums are exact below this.
_EXACT = 1 << 53


def have_numba() -> bool:
    """True when numba is installed (the compiled passes are available); does not import it."""
    if "numba" in sys.modules:
        return sys.modules["numba"] is not None
    try:
        return importlib.util.find_spec("numba") is not None
    except (ImportError, ValueError):
        return False


def load_pays(work: int, kind: str = "fold") -> bool:
    """Whether ``work`` values of passes of ``kind`` (:data:`SAVED_PER_VALUE`) save more
    than loading numba costs (:data:`NUMBA_LOAD_SECONDS`).

    >>> load_pays(10**9, "rank"), load_pays(10**5, "count")
    (True, False)
    """
    if kind not in SAVED_PER_VALUE:
        raise ValueError(f"kind={kind!r} must be one of {sorted(SAVED_PER_VALUE)}.")
    return work * SAVED_PER_VALUE[kind] >= NUMBA_LOAD_SECONDS


def engine(size: int, kind: str = "fold") -> str:
    """The engine of one compiled pass over ``size`` values: ``"numba"`` or ``"numpy"``
    (:func:`fold_aggregates` here, the ranking passes of ``cvframe.scores`` (``kind="rank"``)
    and the counting pass of ``cvframe.build`` (``kind="count"``)).

    ``"auto"``: numpy below :data:`NUMBA_MIN_SIZE`; numba when it is loaded already (by
    :func:`plan` for the call this pass belongs to, or earlier in the process) or the pass
    alone pays for loading it (:func:`load_pays`), numpy otherwise. The engines give the
    same numbers, so the passes of one call may differ in engine.
    """
    choice = ENGINE
    if choice not in ("auto", "numba", "numpy"):
        raise ValueError(f"CVFRAME_KERNEL={choice!r} must be 'auto', 'numba' or 'numpy'.")
    if choice == "numpy" or (choice == "auto" and size < NUMBA_MIN_SIZE):
        return "numpy"
    loaded = sys.modules.get("numba") is not None
    if choice == "auto" and not loaded and not load_pays(size, kind):
        return "numpy"
    if have_numba():
        return "numba"
    if choice == "numba":
        raise ImportError("CVFRAME_KERNEL='numba' but numba is not installed (pip install numba).")
    return "numpy"


def plan(work: int, kind: str = "fold") -> str:
    """The engine of a whole call: its passes of ``kind`` over ``work`` values in all (every
    class, chunk and model). When numba pays for that work (:func:`engine` of ``work``) it
    is loaded now, so every pass of the call runs compiled, each one however small it is
    (from :data:`NUMBA_MIN_SIZE`); else the passes decide one by one, as small passes that
    do not pay for loading numba: numpy. Returns the engine the call's large passes use.
    """
    which = engine(work, kind)
    if which == "numba" and sys.modules.get("numba") is None:
        import numba  # noqa: F401  - the passes load their cached code from here
    return which


def _ratio(num: np.ndarray, den: np.ndarray, fill: float) -> np.ndarray:
    out = np.full(np.shape(den), fill, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _num_den(metric: str, beta: float, tp: Any, fp: Any, fn: Any, tn: Any) -> tuple[Any, Any]:
    """The metric's numerator and denominator (:data:`METRIC_SPECS`), the counts spread in."""
    return METRIC_SPECS[metric].num_den(tp, fp, fn, tn, beta)


def cell_values(
    tp: Any, fp: Any, fn: Any, tn: Any, metric: str, beta: float = 1.0, fill: float = 0.0
) -> np.ndarray:
    """The metric of every cell (no reduction): ``num / den``, ``fill`` where ``den == 0``.

    >>> cell_values(np.array([2, 0]), np.array([0, 0]), np.array([2, 0]), np.array([6, 9]), "f")
    array([0.66666667, 0.        ])
    """
    f64 = [np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn)]
    num, den = _num_den(metric, beta, *f64)
    return _ratio(num, den, fill)


def _numpy_pass(
    counts: list[np.ndarray], metric: str, beta: float, fill: float, want: tuple[str, ...]
) -> np.ndarray:
    """All aggregations of (cells, k) counts: fold-major float copies, column sums in order."""
    m = counts[0].shape[0]
    tp, fp, fn, tn = (np.ascontiguousarray(x.T, dtype=np.float64) for x in counts)
    out = np.full((len(AGGREGATIONS), m), np.nan)
    real = (tp != 0) | (fp != 0) | (fn != 0) | (tn != 0)
    all_real = bool(real.all())
    n_real = np.full(m, float(tp.shape[0])) if all_real else real.sum(axis=0).astype(np.float64)

    def mean(x: np.ndarray, keep: np.ndarray | None, n: np.ndarray) -> np.ndarray:
        total = (x if keep is None else np.where(keep, x, 0.0)).sum(axis=0)
        return _ratio(total, n, fill)

    if "tp_fp" in want:
        sums = [x.sum(axis=0) for x in (tp, fp, fn, tn)]
        out[0] = _ratio(*_num_den(metric, beta, *sums), fill)
    skip = "avg_skip" in want or "pr_re_skip" in want
    if skip:
        keep = ~METRIC_SPECS[metric].undefined(tp, fp, fn, tn)
        if not all_real:
            keep &= real
        n_keep = keep.sum(axis=0).astype(np.float64)
    if "avg" in want or "avg_skip" in want:
        x = _ratio(*_num_den(metric, beta, tp, fp, fn, tn), fill)
        if "avg" in want:
            out[1] = mean(x, None if all_real else real, n_real)
        if "avg_skip" in want:
            out[3] = mean(x, keep, n_keep)
    if "pr_re" in want or "pr_re_skip" in want:
        p = _ratio(tp, tp + fp, fill)
        r = _ratio(tp, tp + fn, fill)
        if "pr_re" in want:
            sel = None if all_real else real
            out[2] = f_from_pr(mean(p, sel, n_real), mean(r, sel, n_real), beta)
        if "pr_re_skip" in want:
            out[4] = f_from_pr(mean(p, keep, n_keep), mean(r, keep, n_keep), beta)
    return out


def _loop(tp, fp, fn, tn, code, b2, fill, out):  # pragma: no cover
    """One pass over (cells, k) counts: every aggregation of every cell (compiled by numba);
    returns the smallest and largest count (are pooled float sums exact?)."""
    m, k = tp.shape
    lo = hi = tp[0, 0] * 0

    def num_den(a, b, c, d):  # the branch of every metric code: (num, den)
        if code == 0:
            num = (1.0 + b2) * a
            return num, num + b2 * c + b
        if code == 1:
            return a, a + b
        if code == 2:
            return a, a + c
        if code == 3:
            return d, d + b
        if code == 4:
            return a + d, a + b + c + d
        if code == 5:
            return a, a + b + c
        return np.nan, 1.0  # a metric without a branch here: NaN (the metric-table test fails)

    def mean(total, n):
        return total / n if n != 0 else fill

    def f_pr(mp, mr):
        den = b2 * mp + mr
        return (1.0 + b2) * mp * mr / den if den != 0 else 0.0

    for j in range(m):
        s_tp = s_fp = s_fn = s_tn = s_x = s_p = s_r = k_x = k_p = k_r = 0.0
        n_real = n_keep = 0
        for i in range(k):
            a_raw, b_raw, c_raw, d_raw = tp[j, i], fp[j, i], fn[j, i], tn[j, i]
            lo = min(lo, a_raw, b_raw, c_raw, d_raw)
            hi = max(hi, a_raw, b_raw, c_raw, d_raw)
            a, b, c, d = float(a_raw), float(b_raw), float(c_raw), float(d_raw)
            s_tp, s_fp, s_fn, s_tn = s_tp + a, s_fp + b, s_fn + c, s_tn + d
            if a == 0 and b == 0 and c == 0 and d == 0:
                continue  # not a fold
            n_real += 1
            num, den = num_den(a, b, c, d)
            x = num / den if den != 0 else fill
            s_x += x
            p = r = 0.0
            if code == 0:
                p = a / (a + b) if a + b != 0 else fill
                r = a / (a + c) if a + c != 0 else fill
                s_p += p
                s_r += r
                bad = not (a + b > 0 and a + c > 0)
            else:
                bad = den == 0
            if not bad:
                n_keep += 1
                k_x += x
                k_p += p
                k_r += r
        num, den = num_den(s_tp, s_fp, s_fn, s_tn)
        out[0, j] = num / den if den != 0 else fill
        out[1, j] = mean(s_x, n_real)
        out[3, j] = mean(k_x, n_keep)
        if code == 0:
            out[2, j] = f_pr(mean(s_p, n_real), mean(s_r, n_real))
            out[4, j] = f_pr(mean(k_p, n_keep), mean(k_r, n_keep))
    return lo, hi


def compiled(build: Callable[[Callable[[Any], Any]], Any]) -> Callable[[], Any]:
    """A loader of compiled passes: its first call imports numba and returns
    ``build(jit)`` (``jit(fn)``: ``fn`` compiled with numba's on-disk cache, see :func:`jit`),
    or False when numba is not installed; later calls return the same."""

    @functools.cache
    def load() -> Any:
        try:
            import numba
        except ImportError:
            return False
        return build(functools.partial(jit, numba))

    return load


def jit(numba: Any, fn: Any) -> Any:
    """``fn`` compiled by numba, cached on disk so a fresh process loads it instead of
    compiling: next to the source, else (a read-only install) in ``NUMBA_CACHE_DIR`` or the
    user's cache directory; compiled in memory when no location is writable."""
    try:
        return numba.njit(cache=True, nogil=True)(fn)
    except RuntimeError:  # numba: "cannot cache function ...: no locator available"
        return numba.njit(nogil=True)(fn)


#: The compiled loop, or False when numba is not installed (imported on first use).
_loop_compiled = compiled(lambda jit: jit(_loop))


def pooled_exact(
    counts: list[np.ndarray], metric: str, beta: float, fill: float, dims: Any = ("fold",)
) -> np.ndarray:
    """The pooled metric of (cells, k) counts from exact int64 sums (the slow, safe path);
    CountsError where an int64 sum overflows."""
    sums = []
    for name, x in zip(("tp", "fp", "fn", "tn"), counts, strict=True):
        total = x.sum(axis=-1)
        if x.dtype.kind == "i":
            approx = x.astype(np.float64).sum(axis=-1)
            if np.any(np.abs(total.astype(np.float64) - approx) > 1e-6 * np.abs(approx) + 1.0):
                raise CountsError(
                    f"the sum of {name} over {','.join(map(str, dims))} overflows int64; the "
                    "counts are too large to pool exactly (divide them by a common factor, or "
                    "convert the cube to float64 with ds.astype('float64') to accept rounding)."
                )
        sums.append(total.astype(np.float64))
    return _ratio(*_num_den(metric, beta, *sums), fill)


def fold_aggregates(
    tp: Any,
    fp: Any,
    fn: Any,
    tn: Any,
    metric: str = "f",
    want: tuple[str, ...] = AGGREGATIONS,
    *,
    beta: float = 1.0,
    fill: float = 0.0,
    use: str | None = None,
) -> tuple[dict[str, np.ndarray], bool]:
    """Every fold aggregation of ``metric`` for counts whose last axis is the fold.

    ``tp, fp, fn, tn``: int64 or float64 arrays ``(..., k)`` (padding already 0); ``want``:
    names of :data:`AGGREGATIONS` (``"pr_re"`` for F only); ``fill``: an undefined per-fold
    value and a mean over no folds; ``use``: force ``"numpy"`` or ``"numba"``. Returns
    ``({name: float64 array (...)}, exact)``, ``exact`` False when the pooled counts may not
    be exact float64 sums (a negative count or ``k * max >= 2**53``: pool them exactly).

    >>> tp, fp, fn, tn = (np.array([v]) for v in ([2, 0, 1], [1, 0, 0], [0, 1, 1], [7, 9, 8]))
    >>> out, exact = fold_aggregates(tp, fp, fn, tn, "f", ("tp_fp", "avg", "avg_skip"))
    >>> [round(float(out[name][0]), 4) for name in ("tp_fp", "avg", "avg_skip")], exact
    ([0.6667, 0.4889, 0.7333], True)
    """
    counts = [np.asarray(x) for x in (tp, fp, fn, tn)]
    ints = all(x.dtype.kind in "iu" for x in counts)
    counts = [x.astype(np.int64 if ints else np.float64, copy=False) for x in counts]
    shape = counts[0].shape
    lead, k = shape[:-1], shape[-1]
    m = int(np.prod(lead, dtype=np.int64))
    counts = [x.reshape(m, k) for x in counts]
    b2 = float(beta) ** 2
    which = use or engine(m * k)
    if m == 0 or k == 0:
        rows = np.full((len(AGGREGATIONS), m), float(fill))
        exact = True
    elif which == "numba":
        rows = np.full((len(AGGREGATIONS), m), np.nan)
        code = METRIC_SPECS[metric].code
        lo, hi = _loop_compiled()(*counts, code, b2, float(fill), rows)
        exact = not ints or (int(lo) >= 0 and int(hi) * k < _EXACT)
        if code != 0:
            rows[2] = rows[4] = np.nan
    else:
        rows = np.empty((len(AGGREGATIONS), m))
        step = max(1, _NUMPY_BLOCK // k)  # blocks of cells whose temporaries stay in cache
        for j in range(0, m, step):
            part = [x[j : j + step] for x in counts]
            rows[:, j : j + step] = _numpy_pass(part, metric, beta, float(fill), want)
        # the largest int64 count (2**63 or more when a count is negative), for pooled sums
        big = [x for x in counts if x.dtype.kind == "i" and x.size and "tp_fp" in want]
        exact = max((int(x.view(np.uint64).max()) for x in big), default=0) * k < _EXACT
    return {name: rows[AGGREGATIONS.index(name)].reshape(lead) for name in want}, exact
