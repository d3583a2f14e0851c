"""The counting kernel: numpy (and dask) arrays in, count arrays out; no pandas, no xarray.

Errors are :class:`cvframe.CountsError`; on dask they are raised when the block is computed.

Labels and groups arrive as integer codes; one combined index
:math:`((g_0 \\cdot s_1 + g_1) \\cdot s_2 + \\dots)` is counted by one ``bincount``. Integer
inputs skip the coding step altogether (:func:`fast_confusion`): the index runs over each
array's raw value range, computed block by block so it stays in cache, or found by a
compiled pass (numba, cached on disk) that checks the ranges while it counts: one read of the
inputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _labels
from .._kernel import engine, jit
from ..errors import CountsError

#: Rows per block: the index arithmetic of one block stays in cache.
BLOCK = 1 << 16

#: Horner sums of the fast path stay below this (no int64 wrap-around).
_SAFE = 1 << 62


# --- checks that also run lazily on dask ----------------------------------------------------------


def check_lengths(lengths: dict[str, int], where: str = "") -> int:
    """The one length of the named inputs; a CountsError naming each length when they differ."""
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        raise CountsError(
            f"inputs differ in length{where}: {desc}; give one entry per tested sample."
        )
    return next(iter(lengths.values()))


def check_weights(w: Any) -> Any:
    """Weights as float64; NaN/inf/negative raise (dask: when the block is computed)."""

    def check(block: np.ndarray) -> np.ndarray:
        bad = ~np.isfinite(block) | (block < 0)
        if bad.any():
            raise CountsError(
                f"sample_weight has {int(bad.sum())} NaN, infinite or negative values "
                f"[{', '.join(repr(float(v)) for v in block[bad][:5])}]; weights must be "
                "finite and >= 0."
            )
        return block

    if _labels.is_dask(w):
        return w.astype("float64").map_blocks(check, dtype="float64")
    return check(np.asarray(w, dtype="float64"))


def check_indicator(arr: Any, name: str) -> Any:
    """A 0/1 indicator array as int8; other values raise (dask: when computed)."""

    def check(block: np.ndarray) -> np.ndarray:
        bad = (block != 0) & (block != 1)
        if bad.any():
            raise CountsError(
                f"multilabel {name} has non-indicator values {np.unique(block[bad])[:5].tolist()}"
                "; 2-D labels must be 0/1 (e.g. sklearn.preprocessing.MultiLabelBinarizer)."
            )
        return block.astype(np.int8)

    return arr.map_blocks(check, dtype=np.int8) if _labels.is_dask(arr) else check(np.asarray(arr))


# --- counting -------------------------------------------------------------------------------------


def bincount(index: Any, weights: Any, size: int) -> Any:
    if _labels.is_dask(index):
        import dask.array as da

        return da.bincount(index, weights=weights, minlength=size)
    out = np.bincount(index, weights=weights, minlength=size)
    return out if weights is not None else out.astype(np.int64, copy=False)


def combined_index(parts: list[tuple[Any, int]]) -> Any:
    """Row-major index over codes: ((c0 * s1 + c1) * s2 + ...), int64."""
    idx = parts[0][0].astype(np.int64)
    for codes, size in parts[1:]:
        if _labels.is_dask(idx):
            idx = idx * size + codes
        else:
            idx *= size
            idx += codes
    return idx


def blocked_count(
    arrays: list[np.ndarray], sizes: list[int], offset: int, w: Any, total: int, n: int
) -> np.ndarray:
    """Counts of the combined index of ``arrays``, one cache-sized block at a time (few bins:
    each block counted and added; many: the blocks' indices fill one array, counted once)."""
    accumulate = total <= BLOCK // 4
    out = np.zeros(total if accumulate else 0, dtype=np.float64 if w is not None else np.int64)
    idx = None if accumulate else np.empty(n, dtype=np.int64)
    buf = np.empty(min(BLOCK, n), dtype=np.int64)
    for start in range(0, n, BLOCK):
        stop = min(start + BLOCK, n)
        block = buf[: stop - start]
        block[...] = arrays[0][start:stop]
        for a, size in zip(arrays[1:], sizes[1:], strict=False):
            block *= size
            block += a[start:stop]
        if offset:
            block -= offset
        if idx is not None:
            idx[start:stop] = block
        else:
            out += np.bincount(block, weights=None if w is None else w[start:stop], minlength=total)
    if idx is not None:
        out = bincount(idx, w, total)
    return out


def _raw_int(a: Any) -> np.ndarray | None:
    """``a`` as a 1-D integer numpy array usable in index arithmetic, else None."""
    if not isinstance(a, np.ndarray) or a.ndim != 1 or a.dtype.kind not in "iub":
        return None
    if a.dtype.kind == "u" and a.dtype.itemsize == 8:
        return None
    return a.view(np.uint8) if a.dtype.kind == "b" else a


def _ranges(arrays: list[np.ndarray], start: int, stop: int) -> list[tuple[int, int]]:
    """(min, max) of each array's rows ``start:stop``, block by block (in cache)."""
    out = []
    for a in arrays:
        mm = [
            (int(b.min()), int(b.max()))
            for b in (a[i : i + BLOCK] for i in range(start, stop, BLOCK))
        ]
        out.append((min(m[0] for m in mm), max(m[1] for m in mm)))
    return out


def _union(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out = [(min(x[0], y[0]), max(x[1], y[1])) for x, y in zip(a, b, strict=True)]
    lo_l, hi_l = min(out[-2][0], out[-1][0]), max(out[-2][1], out[-1][1])
    out[-2:] = [(lo_l, hi_l)] * 2  # y_true and y_pred count over one common range
    return out


def _too_wide(bounds: list[tuple[int, int]], n: int) -> bool:
    sizes = [hi - lo + 1 for lo, hi in bounds]
    total = int(np.prod(sizes, dtype=np.float64))
    biggest = max(max(abs(lo), abs(hi)) for lo, hi in bounds)
    return total > max(4 * n, 1 << 22) or (biggest + 1) * total * 2 >= _SAFE


def _count_pass(a0, a1, a2, a3, lo, size, w, out):  # pragma: no cover - compiled by numba
    """Count the rows of four integer arrays into ``out``, the flat table over the ranges
    ``lo``, ``size``, and check the ranges in the same pass: returns how many values lie
    outside them (0: the counts are right). ``w``: weights, or an empty array (each row
    counts 1). The check is branch-free (a sum), so the loop stays one read of the inputs."""
    s0, s1, s2, s3 = np.uint64(size[0]), np.uint64(size[1]), np.uint64(size[2]), np.uint64(size[3])
    l0, l1, l2, l3 = lo[0], lo[1], lo[2], lo[3]
    last = np.uint64(len(out) - 1)
    weighted = len(w) > 0
    bad = 0
    for i in range(len(a0)):
        v0 = np.uint64(np.int64(a0[i]) - l0)
        v1 = np.uint64(np.int64(a1[i]) - l1)
        v2 = np.uint64(np.int64(a2[i]) - l2)
        v3 = np.uint64(np.int64(a3[i]) - l3)
        bad += (v0 >= s0) + (v1 >= s1) + (v2 >= s2) + (v3 >= s3)
        at = min(((v0 * s1 + v1) * s2 + v2) * s3 + v3, last)  # in the table, even when bad
        if weighted:
            out[at] += w[i]
        else:
            out[at] += 1
    return bad


_compiled_pass: Any = None


def _pass_compiled() -> Any:
    """The compiled counting pass (numba, cached on disk), or False without numba."""
    global _compiled_pass
    if _compiled_pass is None:
        try:
            import numba
        except ImportError:
            _compiled_pass = False
        else:
            _compiled_pass = jit(numba, _count_pass)
    return _compiled_pass


def compiled_count(
    arrays: list[np.ndarray], w: np.ndarray | None, n: int
) -> tuple[np.ndarray, list[tuple[int, int]]] | None:
    """Counts over the value ranges of ``arrays`` (at most 2 groups, y_true, y_pred) in one
    compiled pass that also checks the ranges, and those ranges.

    The ranges are guessed from a sample of rows spread over the input (sorted repeat and
    fold columns show their whole range there). When the pass finds a value outside them,
    the exact ranges are computed and the pass runs again; either way the ranges are the
    exact ``(min, max)`` of every array, as :func:`fast_confusion`'s numpy path finds them.
    None when numba is not installed, there are more than 2 groups or the ranges are wide.
    """
    if len(arrays) > 4 or n == 0:
        return None
    kernel = _pass_compiled()
    if kernel is False:
        return None
    step = max(1, n // BLOCK)
    bounds = _union(*[[(int(a[::step].min()), int(a[::step].max())) for a in arrays]] * 2)
    zero = np.broadcast_to(np.int64(0), (n,))  # an absent group: one value
    args = [zero] * (4 - len(arrays)) + [np.ascontiguousarray(a) for a in arrays]
    pad = [(0, 0)] * (4 - len(arrays))
    weights = np.empty(0) if w is None else np.ascontiguousarray(w, dtype=np.float64)
    for _attempt in range(2):
        if _too_wide(bounds, n):
            return None
        sizes = [hi - lo + 1 for lo, hi in pad + bounds]
        out = np.zeros(int(np.prod(sizes)), dtype=np.int64 if w is None else np.float64)
        lo = np.array([b[0] for b in pad + bounds], dtype=np.int64)
        if kernel(*args, lo, np.array(sizes, dtype=np.int64), weights, out) == 0:
            return out.reshape(sizes[len(pad) :]), bounds
        bounds = _union(*[_ranges(arrays, 0, n)] * 2)  # a value outside the guess: exact ranges
    raise AssertionError("the exact ranges hold every value")  # pragma: no cover


def fast_confusion(
    groups: list[Any], yt: Any, yp: Any, w: Any, n: int
) -> tuple[np.ndarray, list[np.ndarray], np.ndarray, np.ndarray, int] | None:
    r"""Count integer data in one pass without factorizing anything first.

    The combined index runs over each array's raw value range (Horner form). Returns ``(raw,
    group_values, present_true, present_pred, lo)``: counts over (groups..., true, pred) of
    the group values that occur (whatever their weight), those values, the labels that occur
    and the lowest label. None when an input is not a plain integer array or ranges are wide.

    Two engines (:func:`cvframe._kernel.engine`, the same counts): a compiled pass that
    checks the ranges as it counts (:func:`compiled_count`), and numpy: the ranges block by
    block, then the counts block by block (:func:`blocked_count`).
    """
    arrays = [a for a in (_raw_int(v) for v in (*groups, yt, yp)) if a is not None]
    if len(arrays) != len(groups) + 2:
        return None
    got = None
    if n and engine(n) == "numba":
        got = compiled_count(arrays, w, n)
    if got is not None:
        raw, bounds = got
    else:
        bounds = _union(*[_ranges(arrays, 0, n)] * 2)
        if _too_wide(bounds, n):
            return None  # too wide, or huge ids whose Horner sums could wrap around: code them
        sizes = [hi - lo + 1 for lo, hi in bounds]
        offset = bounds[0][0]
        for (lo, _), size in zip(bounds[1:], sizes[1:], strict=False):
            offset = offset * size + lo
        total = int(np.prod(sizes, dtype=np.float64))
        raw = blocked_count(arrays, sizes, offset, w, total, n).reshape(sizes)
    lo_l = bounds[-1][0]
    seen = raw
    if w is not None and bool((w == 0).any()):
        seen = _unweighted(arrays, bounds, n, got is not None)
    values = []
    for axis, (lo, _) in enumerate(bounds[:-2]):
        others = tuple(i for i in range(seen.ndim) if i != axis)
        present = np.flatnonzero(seen.any(axis=others))
        raw = np.take(raw, present, axis=axis)
        seen = np.take(seen, present, axis=axis) if seen is not raw else raw
        values.append(present + lo)
    lead = tuple(range(seen.ndim - 2))
    present_t = np.flatnonzero(seen.sum(axis=lead + (seen.ndim - 1,))) + lo_l
    present_p = np.flatnonzero(seen.sum(axis=lead + (seen.ndim - 2,))) + lo_l
    return raw, values, present_t, present_p, lo_l


def _unweighted(
    arrays: list[np.ndarray], bounds: list[tuple[int, int]], n: int, compiled: bool
) -> np.ndarray:
    """Row counts over the exact ``bounds`` (which rows occur, whatever their weight)."""
    sizes = [hi - lo + 1 for lo, hi in bounds]
    if compiled:
        got = compiled_count(arrays, None, n)
        if got is not None and got[1] == bounds:
            return got[0]
    offset = bounds[0][0]
    for (lo, _), size in zip(bounds[1:], sizes[1:], strict=False):
        offset = offset * size + lo
    total = int(np.prod(sizes, dtype=np.float64))
    return blocked_count(arrays, sizes, offset, None, total, n).reshape(sizes)


def take_labels(raw: np.ndarray, universe: list[Any], lo: int) -> np.ndarray:
    """The (…, true, pred) confusion of ``universe`` from counts over the label range from ``lo``.

    A label outside the observed range gets zero rows and columns.
    """
    size = raw.shape[-1]
    at = [
        int(u) - lo
        if isinstance(u, (int, np.integer, np.bool_, float))
        and float(u).is_integer()
        and 0 <= int(u) - lo < size
        else size
        for u in universe
    ]
    padded = np.pad(raw, [(0, 0)] * (raw.ndim - 2) + [(0, 1), (0, 1)])
    return padded[..., at, :][..., at]


# --- one-vs-all counts from confusion matrices ---------------------------------------------------


def ova_from_confusion(conf: Any) -> dict[str, Any]:
    """tp/fp/fn/tn over (..., class) from a (..., true, pred) confusion array.

    Float (weighted) confusions: a count whose cells are all zero is exactly 0, and none is
    negative (the rounding of ``tn``, found by subtraction, is removed or clipped).
    """
    if _labels.is_dask(conf):
        import dask.array as da

        c = conf.shape[-1]
        tp = da.where(np.eye(c, dtype=bool), conf, 0).sum(axis=-1)
    else:
        tp = np.diagonal(conf, axis1=-2, axis2=-1)
    pred_tot = conf.sum(axis=-2)
    true_tot = conf.sum(axis=-1)
    n = true_tot.sum(axis=-1)[..., None]
    fp, fn = pred_tot - tp, true_tot - tp
    if np.dtype(conf.dtype).kind != "f":
        # exact in integers, and no count is an elementwise step of another: a lazy cube's
        # Dataset then computes in one ``dask.compute`` (dask fuses such steps away)
        tn = n - pred_tot - true_tot + tp
    else:
        tn = n - tp - fp - fn
        nz = (conf != 0).astype(np.int64)
        nz_diag = (nz * np.eye(conf.shape[-1], dtype=np.int64)).sum(axis=-1)
        nz_tn = nz.sum(axis=(-2, -1))[..., None] - nz.sum(axis=-2) - nz.sum(axis=-1) + nz_diag
        zero = nz_tn == 0
        tn = (tn * ~zero).clip(0)
        fp, fn = fp.clip(0), fn.clip(0)
        tn = tn + 0.0  # no negative zeros
    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn}
