r"""The fold-aggregation kernel: count arrays in, every fold aggregation out; no xarray.

:func:`fold_aggregates` takes the four counts as arrays whose **last axis is the fold**
(several fold dims flattened into it) and returns, per cell of the other axes, the metric
pooled over the folds (``"tp_fp"``), its mean over the real folds (``"avg"``), F of the
mean precision and mean recall (``"pr_re"``) and both means over the folds where the
metric is defined (``"avg_skip"``, ``"pr_re_skip"``). The per-fold values are computed
once and every aggregation is accumulated from them in the same pass. Dims, attrs,
warnings and the ``zero_division`` policy live one layer up, in :mod:`cvframe.reduce`.

Arithmetic (the same in both engines, so they agree bit for bit):

- counts become float64; a per-fold value is ``num / den`` where ``den != 0`` and ``fill``
  where ``den == 0``, with the formulas of :mod:`cvframe.formulas`
  (F: ``num = (1 + b^2) TP``, ``den = (1 + b^2) TP + b^2 FN + FP``);
- a fold is *real* unless its four counts are all 0; sums over folds run in fold order
  (fold 0 first), and a mean is ``sum / count`` (``fill`` when the count is 0);
- pooled counts are summed as float64, which is exact when ``k * max(count) < 2**53``
  (:func:`fold_aggregates` reports whether that holds; the caller sums exactly otherwise).

Two engines: a compiled single pass (numba, when installed: the ``fast`` extra) and a
numpy fallback. ``CVFRAME_KERNEL=numpy`` in the environment (or :data:`ENGINE` set to
``"numpy"``) forces numpy; the compiled pass is used for inputs of at least
:data:`NUMBA_MIN_SIZE` values, below which importing numba would cost more than it saves.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .errors import CountsError

__all__ = [
    "AGGREGATIONS",
    "ENGINE",
    "METRIC_CODES",
    "NUMBA_MIN_SIZE",
    "cell_values",
    "engine",
    "fold_aggregates",
    "have_numba",
    "pooled_exact",
]

#: The fold aggregations :func:`fold_aggregates` computes, in the order of its output rows.
AGGREGATIONS = ("tp_fp", "avg", "pr_re", "avg_skip", "pr_re_skip")
#: Metric codes of the compiled loop.
METRIC_CODES = {"f": 0, "precision": 1, "recall": 2, "specificity": 3, "accuracy": 4}
#: "auto" (numba when installed and the input is large enough), "numba" or "numpy".
ENGINE = os.environ.get("CVFRAME_KERNEL", "auto")
#: Smallest input (cells x folds) the compiled pass is used for under ``ENGINE="auto"``.
NUMBA_MIN_SIZE = 1 << 16
#: Values (cells x folds) the numpy engine processes at once.
_NUMPY_BLOCK = 1 << 17
#: Pooled float sums are exact below this.
_EXACT = 1 << 53

_compiled: Any = None


def have_numba() -> bool:
    """True when numba can be imported (the compiled passes are available)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def engine(size: int) -> str:
    """The engine of every compiled pass for an input of ``size`` values: ``"numba"`` or
    ``"numpy"`` (:func:`fold_aggregates` here, the ranking passes of ``cvframe.scores``)."""
    choice = ENGINE
    if choice not in ("auto", "numba", "numpy"):
        raise ValueError(f"CVFRAME_KERNEL={choice!r} must be 'auto', 'numba' or 'numpy'.")
    if choice == "numpy" or (choice == "auto" and size < NUMBA_MIN_SIZE):
        return "numpy"
    if have_numba():
        return "numba"
    if choice == "numba":
        raise ImportError("CVFRAME_KERNEL='numba' but numba is not installed (pip install numba).")
    return "numpy"


# --- per-fold values ------------------------------------------------------------------------


def _ratio(num: np.ndarray, den: np.ndarray, fill: float) -> np.ndarray:
    out = np.full(np.shape(den), fill, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _num_den(
    metric: str, b2: float, tp: Any, fp: Any, fn: Any, tn: Any
) -> tuple[np.ndarray, np.ndarray]:
    if metric == "f":
        num = (1.0 + b2) * tp
        return num, num + b2 * fn + fp
    if metric == "precision":
        return tp, tp + fp
    if metric == "recall":
        return tp, tp + fn
    if metric == "specificity":
        return tn, tn + fp
    return tp + tn, tp + fp + fn + tn


def _undefined(metric: str, tp: Any, fp: Any, fn: Any, tn: Any) -> np.ndarray:
    """Where the per-fold metric is undefined (for F: where precision or recall is)."""
    if metric == "f":
        return ~((tp + fp > 0) & (tp + fn > 0))
    return _num_den(metric, 1.0, tp, fp, fn, tn)[1] == 0


def cell_values(
    tp: Any, fp: Any, fn: Any, tn: Any, metric: str, beta: float = 1.0, fill: float = 0.0
) -> np.ndarray:
    """The metric of every cell (no reduction): ``num / den``, ``fill`` where ``den == 0``.

    >>> cell_values(np.array([2, 0]), np.array([0, 0]), np.array([2, 0]), np.array([6, 9]), "f")
    array([0.66666667, 0.        ])
    """
    f64 = [np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn)]
    num, den = _num_den(metric, float(beta) ** 2, *f64)
    return _ratio(num, den, fill)


def _f_from_pr(p: np.ndarray, r: np.ndarray, b2: float) -> np.ndarray:
    return _ratio((1.0 + b2) * p * r, b2 * p + r, 0.0)


# --- the numpy engine -------------------------------------------------------------------------


def _numpy_pass(
    counts: list[np.ndarray], metric: str, b2: float, fill: float, want: tuple[str, ...]
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
        out[0] = _ratio(*_num_den(metric, b2, *sums), fill)
    skip = "avg_skip" in want or "pr_re_skip" in want
    if skip:
        keep = ~_undefined(metric, tp, fp, fn, tn)
        if not all_real:
            keep &= real
        n_keep = keep.sum(axis=0).astype(np.float64)
    if "avg" in want or "avg_skip" in want:
        x = _ratio(*_num_den(metric, b2, tp, fp, fn, tn), fill)
        if "avg" in want:
            out[1] = mean(x, None if all_real else real, n_real)
        if "avg_skip" in want:
            out[3] = mean(x, keep, n_keep)
    if "pr_re" in want or "pr_re_skip" in want:
        p = _ratio(tp, tp + fp, fill)
        r = _ratio(tp, tp + fn, fill)
        if "pr_re" in want:
            sel = None if all_real else real
            out[2] = _f_from_pr(mean(p, sel, n_real), mean(r, sel, n_real), b2)
        if "pr_re_skip" in want:
            out[4] = _f_from_pr(mean(p, keep, n_keep), mean(r, keep, n_keep), b2)
    return out


def _max_count(counts: list[np.ndarray]) -> int:
    """Largest count (int64 counts); 2**63 or more when a count is negative."""
    top = 0
    for x in counts:
        if x.dtype.kind == "i" and x.size:
            top = max(top, int(x.view(np.uint64).max()))  # a negative count reads >= 2**63
    return top


# --- the compiled engine ------------------------------------------------------------------------


def _loop(tp, fp, fn, tn, code, b2, fill, out):  # pragma: no cover
    """One pass over (cells, k) counts: every aggregation of every cell (compiled by numba).

    Returns the smallest and the largest count (the caller checks that pooled float sums
    are exact).
    """
    m, k = tp.shape
    lo = tp[0, 0] * 0
    hi = tp[0, 0] * 0
    for j in range(m):
        s_tp = 0.0
        s_fp = 0.0
        s_fn = 0.0
        s_tn = 0.0
        n_real = 0
        n_keep = 0
        s_x = 0.0
        s_p = 0.0
        s_r = 0.0
        k_x = 0.0
        k_p = 0.0
        k_r = 0.0
        for i in range(k):
            a_raw = tp[j, i]
            b_raw = fp[j, i]
            c_raw = fn[j, i]
            d_raw = tn[j, i]
            lo = min(lo, a_raw, b_raw, c_raw, d_raw)
            hi = max(hi, a_raw, b_raw, c_raw, d_raw)
            a = float(a_raw)
            b = float(b_raw)
            c = float(c_raw)
            d = float(d_raw)
            s_tp += a
            s_fp += b
            s_fn += c
            s_tn += d
            if a == 0 and b == 0 and c == 0 and d == 0:
                continue  # not a fold
            n_real += 1
            if code == 0:
                num = (1.0 + b2) * a
                den = num + b2 * c + b
                bad = not (a + b > 0 and a + c > 0)
            elif code == 1:
                num = a
                den = a + b
                bad = den == 0
            elif code == 2:
                num = a
                den = a + c
                bad = den == 0
            elif code == 3:
                num = d
                den = d + b
                bad = den == 0
            else:
                num = a + d
                den = a + b + c + d
                bad = den == 0
            x = num / den if den != 0 else fill
            s_x += x
            p = 0.0
            r = 0.0
            if code == 0:
                p = a / (a + b) if a + b != 0 else fill
                r = a / (a + c) if a + c != 0 else fill
                s_p += p
                s_r += r
            if not bad:
                n_keep += 1
                k_x += x
                k_p += p
                k_r += r
        if code == 0:
            num = (1.0 + b2) * s_tp
            den = num + b2 * s_fn + s_fp
        elif code == 1:
            num = s_tp
            den = s_tp + s_fp
        elif code == 2:
            num = s_tp
            den = s_tp + s_fn
        elif code == 3:
            num = s_tn
            den = s_tn + s_fp
        else:
            num = s_tp + s_tn
            den = s_tp + s_fp + s_fn + s_tn
        out[0, j] = num / den if den != 0 else fill
        out[1, j] = s_x / n_real if n_real != 0 else fill
        out[3, j] = k_x / n_keep if n_keep != 0 else fill
        if code == 0:
            mp = s_p / n_real if n_real != 0 else fill
            mr = s_r / n_real if n_real != 0 else fill
            den = b2 * mp + mr
            out[2, j] = (1.0 + b2) * mp * mr / den if den != 0 else 0.0
            mp = k_p / n_keep if n_keep != 0 else fill
            mr = k_r / n_keep if n_keep != 0 else fill
            den = b2 * mp + mr
            out[4, j] = (1.0 + b2) * mp * mr / den if den != 0 else 0.0
    return lo, hi


def _loop_compiled() -> Any:
    """The compiled loop, or False when numba is not installed (imported on first use)."""
    global _compiled
    if _compiled is None:
        try:
            import numba
        except ImportError:
            _compiled = False
        else:
            try:  # cached on disk next to this file, or in the user's cache directory
                _compiled = numba.njit(cache=True, nogil=True)(_loop)
            except RuntimeError:  # no writable cache location: compile in memory
                _compiled = numba.njit(nogil=True)(_loop)
    return _compiled


def pooled_exact(
    counts: list[np.ndarray], metric: str, beta: float, fill: float, dims: Any = ("fold",)
) -> np.ndarray:
    """The pooled metric of (cells, k) counts from exact int64 sums (the slow, safe path).

    Raises CountsError where an int64 sum overflows (the exact sum and a float64 sum then
    differ by about 2**64).
    """
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
    return _ratio(*_num_den(metric, float(beta) ** 2, *sums), fill)


# --- the entry point ----------------------------------------------------------------------------


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

    Parameters
    ----------
    tp, fp, fn, tn : numpy.ndarray
        Counts of the same shape ``(..., k)``, int64 or float64 (all-NaN padding already
        replaced by 0).
    metric : {"f", "precision", "recall", "specificity", "accuracy"}
    want : tuple of str
        Aggregations to return, among :data:`AGGREGATIONS` (``"pr_re"`` for ``"f"`` only).
    beta : float
    fill : float
        The value of an undefined per-fold metric, and of a mean over no folds.
    use : {"numpy", "numba"}, optional
        Force an engine (default: :func:`engine`).

    Returns
    -------
    tuple
        ``({name: float64 array of shape (...)}, exact)`` where ``exact`` is False when the
        pooled counts may not be exact float64 sums (a count is negative or
        ``k * max(count) >= 2**53``): the caller then pools them exactly itself.

    Examples
    --------
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
        lo, hi = _loop_compiled()(*counts, METRIC_CODES[metric], b2, float(fill), rows)
        exact = not ints or (int(lo) >= 0 and int(hi) * k < _EXACT)
        if metric != "f":
            rows[2] = rows[4] = np.nan
    else:
        rows = np.empty((len(AGGREGATIONS), m))
        step = max(1, _NUMPY_BLOCK // k)  # blocks of cells whose temporaries stay in cache
        for j in range(0, m, step):
            part = [x[j : j + step] for x in counts]
            rows[:, j : j + step] = _numpy_pass(part, metric, b2, float(fill), want)
        top = _max_count(counts) if "tp_fp" in want else 0
        exact = top * k < _EXACT
    return {name: rows[AGGREGATIONS.index(name)].reshape(lead) for name in want}, exact
