"""Test rows that duplicate a training row of their split: the ``train_duplicate`` column.

A model tested on a row it was trained on is tested on a sample it has seen: the "twinning"
leak, which flatters every metric. Twins are not only exact copies: the same record written
twice through different rounding, or a sample duplicated after a unit conversion, differs in
the last digits. A test row is a twin (:func:`train_duplicates`) when some training row of
its split equals it up to a relative :data:`RTOL` in every numeric feature and exactly in
every other one.

How, in bounded time: rows are hashed once (exact copies share a hash and a number); the
distinct rows are projected on one random direction of their features scaled to [-1, 1], so
two near-equal rows land within a known distance of each other, and only rows that close
(after a sort, by binary search) are compared feature by feature. Per split the training
rows' numbers are marked and each test row looks up its own and its near-equal partners':
O(n + pairs) per split. When the projection finds more candidate pairs than
:data:`PAIR_BUDGET` per row allows (features that are nearly constant), near duplicates are
not searched and ``attrs["train_duplicate"]`` says so; exact copies are always found.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["PAIR_BUDGET", "RTOL", "near_pairs", "row_hashes", "train_duplicates"]

#: Two numeric features are equal for twinning when they differ by at most this share of the
#: larger magnitude: ``|a - b| <= RTOL * max(|a|, |b|)`` (as ``math.isclose(rel_tol=...)``).
RTOL = 1e-6
#: Candidate pairs examined per distinct row, on average, before near duplicates are given up.
PAIR_BUDGET = 32
#: Rows per block of the projection and of the feature-by-feature comparison (bounds memory).
_BLOCK = 1 << 16


def row_hashes(X: Any) -> tuple[np.ndarray | None, str]:
    """One 64-bit hash per row of ``X`` (pandas' ``hash_pandas_object``, index ignored), or
    None with the reason when ``X`` is not a dense table (sparse matrices, ragged lists)."""
    table, how = _table(X)
    if table is None:
        return None, how
    return pd.util.hash_pandas_object(table, index=False).to_numpy(), how


def _table(X: Any) -> tuple[pd.DataFrame | None, str]:
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        return None, "skipped: X is a sparse matrix (its rows are not hashed)"
    try:
        if isinstance(X, pd.DataFrame):
            return X, "computed"
        return pd.DataFrame(np.asarray(X).reshape(len(X), -1), copy=False), "computed"
    except (TypeError, ValueError) as err:
        return None, f"skipped: the rows of X could not be hashed ({type(err).__name__})"


def _parts(X: Any, table: pd.DataFrame, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """The numeric features of ``rows`` as float64 (NaN kept) and the codes of their other
    features (None when all are numeric)."""
    if isinstance(X, np.ndarray) and X.dtype.kind in "iuf":  # no frame: index the array
        flat = X.reshape(len(X), -1)
        every = len(rows) == len(flat) and bool((rows == np.arange(len(rows))).all())
        return np.asarray(flat if every else flat[rows], dtype=np.float64), None
    sub = table.iloc[rows]
    numeric = [
        i
        for i, dt in enumerate(sub.dtypes)
        if pd.api.types.is_numeric_dtype(dt) and not pd.api.types.is_bool_dtype(dt)
    ]
    if not numeric and sub.shape[1] and all(dt.kind == "O" for dt in sub.dtypes):
        try:  # an object array of numbers (np.asarray of mixed input)
            return sub.to_numpy(dtype=np.float64), None
        except (TypeError, ValueError):
            pass
    num = sub.iloc[:, numeric].to_numpy(dtype=np.float64, na_value=np.nan)
    rest = [i for i in range(sub.shape[1]) if i not in set(numeric)]
    if not rest:
        return num, None
    keys = pd.util.hash_pandas_object(sub.iloc[:, rest], index=False).to_numpy()
    return num, pd.factorize(keys)[0].astype(np.int64)


def near_pairs(
    num: np.ndarray, keys: np.ndarray | None = None, rtol: float = RTOL, seed: int = 0
) -> tuple[np.ndarray, np.ndarray] | None:
    """The pairs ``(i, j)``, ``i < j``, of distinct rows of ``num`` equal up to ``rtol`` in
    every column (and with equal ``keys``); None when there are too many candidates.

    Every column is scaled by its largest magnitude (in a sample of rows), so ``z`` lies
    about in [-1, 1], and projected
    on two random directions; for each, rows ``a``, ``b`` with :math:`|a_j - b_j| \\le r
    \\max(|a_j|, |b_j|)` satisfy :math:`|p_a - p_b| \\le \\frac{r}{1-r} \\sum_j |w_j||z_{aj}|`,
    so the candidates of a row are found by binary search in the sorted first projection,
    those the second projection does not rule out are compared column by column (NaN
    equals NaN).

    >>> num = np.array([[1.0, 2.0], [1.0 + 1e-9, 2.0], [1.0, 2.1], [5.0, -1.0]])
    >>> [p.tolist() for p in near_pairs(num)]
    [[0], [1]]
    """
    u, d = num.shape
    if u < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    sample = num[:: max(1, u // _BLOCK)]  # any scale keeps the bound exact: a sample's
    with np.errstate(invalid="ignore"):  # NaN features: ignored by fmax, zeroed below
        scale = np.fmax(np.fmax.reduce(sample, axis=0), -np.fmin.reduce(sample, axis=0))
    scale = np.where((scale > 0) & np.isfinite(scale), scale, 1.0)
    w = np.random.default_rng(seed).standard_normal((d, 2)) / scale[:, None]  # two directions
    proj, bound = np.empty((u, 2)), np.empty((u, 2))
    with _one_thread():  # a thin product: BLAS threads only contend for the cores
        for start in range(0, u, _BLOCK):  # the projections, block by block (no n x d copy)
            block = num[start : start + _BLOCK]
            proj[start : start + _BLOCK] = block @ w
            bound[start : start + _BLOCK] = np.abs(block) @ np.abs(w)
    bad = ~np.isfinite(proj).all(axis=1) | ~np.isfinite(bound).all(axis=1)
    if bad.any():  # rows with NaN or infinite features: those features count 0 here
        rows = np.nan_to_num(num[bad], nan=0.0, posinf=0.0, neginf=0.0)
        proj[bad], bound[bad] = rows @ w, np.abs(rows) @ np.abs(w)
    # the bound, widened for the rounding of the dot products
    bound = bound * (rtol / (1 - rtol)) * (1 + 1e-6) + bound * 1e-12 + 1e-300
    p, reach = proj[:, 0].copy(), bound[:, 0].copy()
    q, spread = proj[:, 1].copy(), bound[:, 1].copy()  # filters the candidates of p
    order = np.argsort(p)
    ps, rs = p[order], reach[order]
    lo, hi = np.empty(u, np.int64), np.empty(u, np.int64)
    lo[order] = np.searchsorted(ps, ps - rs, "left")  # queries in sorted order: fast
    hi[order] = np.searchsorted(ps, ps + rs, "right")
    by_comp = order
    if keys is not None:  # sorted by key, then projection: a key's rows are one segment
        key = np.asarray(keys, np.int64)
        rank = np.empty(u, dtype=np.int64)
        rank[order] = np.arange(u)
        comp = key * u + rank
        by_comp = np.argsort(comp, kind="stable")
        cs = comp[by_comp]
        lo = np.searchsorted(cs, key * u + lo, "left")
        hi = np.searchsorted(cs, key * u + hi, "left")
    sizes = hi - lo
    total = int(sizes.sum()) - u
    if total > PAIR_BUDGET * u:
        return None
    firsts, seconds = [], []
    rows = np.flatnonzero(sizes > 1)
    for start in range(0, len(rows), _BLOCK):
        block = rows[start : start + _BLOCK]
        n_b = sizes[block]
        i = np.repeat(block, n_b)
        offs = np.arange(int(n_b.sum())) - np.repeat(np.cumsum(n_b) - n_b, n_b)
        j = by_comp[np.repeat(lo[block], n_b) + offs]
        keep = i < j
        keep &= np.abs(q[i] - q[j]) <= np.minimum(spread[i], spread[j])  # a second direction
        i, j = i[keep], j[keep]
        if i.size:
            ok = _close(num, i, j, rtol)
            firsts.append(i[ok])
            seconds.append(j[ok])
    if not firsts:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return np.concatenate(firsts), np.concatenate(seconds)


def _one_thread() -> Any:
    """One BLAS thread for the block (threadpoolctl, which scikit-learn installs)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - scikit-learn depends on it
        return contextlib.nullcontext()
    return threadpool_limits(1)


def _close(num: np.ndarray, i: np.ndarray, j: np.ndarray, rtol: float) -> np.ndarray:
    """Whether rows ``i`` and ``j`` agree up to ``rtol`` in every column, block by block."""
    out = np.empty(i.size, dtype=bool)
    step = max(1, _BLOCK * 16 // max(num.shape[1], 1))
    for start in range(0, i.size, step):
        a, b = num[i[start : start + step]], num[j[start : start + step]]
        with np.errstate(invalid="ignore"):
            near = np.abs(a - b) <= rtol * np.maximum(np.abs(a), np.abs(b))
        near |= (a == b) | (np.isnan(a) & np.isnan(b))
        out[start : start + step] = near.all(axis=1)
    return out


def train_duplicates(
    X: Any, splits: list[tuple[np.ndarray, np.ndarray]], return_train: bool
) -> tuple[np.ndarray | None, str]:
    """The ``train_duplicate`` column of one (model, candidate) block of the frame, and how
    it was made (``"computed"``, or why near duplicates or all rows were skipped).

    A test row is True when a training row of its split equals it, exactly or up to a
    relative :data:`RTOL` in every numeric feature (other features exactly); train rows
    (with ``return_train``) are False. Two different rows share a 64-bit hash with
    probability about ``2**-64`` per pair, which is ignored.

    >>> import numpy as np
    >>> X = np.array([[0, 1], [0, 1], [2, 3], [4, 5], [4 + 1e-9, 5]])
    >>> splits = [(np.array([0, 2, 4]), np.array([1, 3]))]
    >>> col, how = train_duplicates(X, splits, False)
    >>> col.tolist(), how
    ([True, True], 'computed')
    """
    table, how = _table(X)
    if table is None:
        return None, how
    h = pd.util.hash_pandas_object(table, index=False).to_numpy()
    codes, uniques = pd.factorize(h)  # equal rows, equal codes 0..u-1
    # a row of every code: factorize numbers codes by first appearance
    top = np.maximum.accumulate(codes)
    first = np.flatnonzero(np.r_[True, codes[1:] > top[:-1]]) if len(codes) else codes
    pairs = None
    if table.shape[1]:
        num, keys = _parts(X, table, first)
        pairs = near_pairs(num, keys) if num.shape[1] else None
        if pairs is None and num.shape[1]:
            how = (
                "computed (exact copies only: the features are too nearly constant for the "
                f"near-duplicate search within {PAIR_BUDGET} candidate pairs per row)"
            )
    seen = np.zeros(len(uniques), dtype=bool)
    parts = []
    for tr, te in splits:  # O(n + pairs) per split
        seen[:] = False
        seen[codes[tr]] = True
        twin = seen
        if pairs is not None and pairs[0].size:
            twin = seen.copy()
            a, b = pairs
            twin[a[seen[b]]] = True
            twin[b[seen[a]]] = True
        parts.append(twin[codes[te]])
    if return_train:
        parts += [np.zeros(tr.size, dtype=bool) for tr, _ in splits]
    return np.concatenate(parts), how
