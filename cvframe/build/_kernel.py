"""The counting kernel: numpy (and dask) arrays in, count arrays out; no pandas, no xarray.

Errors are :class:`cvframe.CountsError`; on dask they are raised when the block is computed.

Labels and groups arrive as integer codes; one combined index
:math:`((g_0 \\cdot s_1 + g_1) \\cdot s_2 + \\dots)` is counted by one ``bincount``. Integer
inputs skip the coding step altogether (:func:`fast_confusion`): the index runs over each
array's raw value range, computed block by block so it stays in cache.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import CountsError

__all__ = [
    "BLOCK",
    "bincount",
    "blocked_count",
    "check_indicator",
    "check_weights",
    "combined_index",
    "fast_confusion",
    "is_dask",
    "ova_from_confusion",
    "range_codes",
]

#: Rows per block: the index arithmetic of one block stays in cache.
BLOCK = 1 << 16

#: Horner sums of the fast path stay below this (no int64 wrap-around).
_SAFE = 1 << 62


def is_dask(x: Any) -> bool:
    return type(x).__module__.startswith("dask")


# --- checks that also run lazily on dask ----------------------------------------------------------


def _bad_weights(w: np.ndarray) -> np.ndarray:
    return ~np.isfinite(w) | (w < 0)


def weights_error(w: np.ndarray) -> str:
    bad = _bad_weights(w)
    shown = ", ".join(repr(float(v)) for v in w[bad][:5])
    return (
        f"sample_weight has {int(bad.sum())} NaN, infinite or negative values [{shown}]; "
        "weights must be finite and >= 0."
    )


def check_weights(w: Any) -> Any:
    """Weights as float64; NaN/inf/negative raise (dask: when the block is computed)."""
    if is_dask(w):

        def check(block: np.ndarray) -> np.ndarray:
            if _bad_weights(block).any():
                raise CountsError(weights_error(block))
            return block

        return w.astype("float64").map_blocks(check, dtype="float64")
    w = np.asarray(w, dtype="float64")
    if _bad_weights(w).any():
        raise CountsError(weights_error(w))
    return w


def indicator_error(name: str, values: np.ndarray) -> str:
    bad = np.unique(values[(values != 0) & (values != 1)])[:5]
    return (
        f"multilabel {name} has non-indicator values {bad.tolist()}; 2-D labels must be "
        "0/1 (e.g. sklearn.preprocessing.MultiLabelBinarizer)."
    )


def check_indicator(arr: Any, name: str) -> Any:
    """A 0/1 indicator array as int8; other values raise (dask: when computed)."""
    if is_dask(arr):

        def check(block: np.ndarray) -> np.ndarray:
            if ((block != 0) & (block != 1)).any():
                raise CountsError(indicator_error(name, block))
            return block.astype(np.int8)

        return arr.map_blocks(check, dtype=np.int8)
    arr = np.asarray(arr)
    if ((arr != 0) & (arr != 1)).any():
        raise CountsError(indicator_error(name, arr))
    return arr.astype(np.int8)


# --- counting -------------------------------------------------------------------------------------


def bincount(index: Any, weights: Any, size: int) -> Any:
    if is_dask(index):
        import dask.array as da

        return da.bincount(index, weights=weights, minlength=size)
    out = np.bincount(index, weights=weights, minlength=size)
    return out if weights is not None else out.astype(np.int64, copy=False)


def combined_index(parts: list[tuple[Any, int]]) -> Any:
    """Row-major index over codes: ((c0 * s1 + c1) * s2 + ...), int64."""
    idx = parts[0][0].astype(np.int64)
    for codes, size in parts[1:]:
        if is_dask(idx):
            idx = idx * size + codes
        else:
            idx *= size
            idx += codes
    return idx


def blocked_count(
    arrays: list[np.ndarray], sizes: list[int], offset: int, w: Any, total: int, n: int
) -> np.ndarray:
    """Counts of the combined index of ``arrays``, one cache-sized block at a time.

    Few bins: each block is counted and added (the index never goes to memory). Many bins:
    the blocks' indices fill one int64 array and a single ``bincount`` counts it.
    """
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


def raw_int(a: Any) -> np.ndarray | None:
    """``a`` as a 1-D integer numpy array usable in index arithmetic, else None."""
    if not isinstance(a, np.ndarray) or a.ndim != 1 or a.dtype.kind not in "iub":
        return None
    if a.dtype.kind == "u" and a.dtype.itemsize == 8:
        return None
    return a.view(np.uint8) if a.dtype.kind == "b" else a


def blocked_bounds(arrays: list[np.ndarray], n: int) -> list[tuple[int, int]]:
    """(min, max) of every array, block by block."""
    lows = [np.iinfo(np.int64).max] * len(arrays)
    highs = [np.iinfo(np.int64).min] * len(arrays)
    for start in range(0, n, BLOCK):
        for j, a in enumerate(arrays):
            block = a[start : start + BLOCK]
            lows[j] = min(lows[j], int(block.min()))
            highs[j] = max(highs[j], int(block.max()))
    return list(zip(lows, highs, strict=False))


def range_codes(a: Any, n: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes of a plain integer array over the values that occur, and those values (sorted).

    Counting instead of hashing: one pass for the range, one ``bincount`` over it for the
    values that occur, one look-up for the codes. None when ``a`` is not a plain integer
    array or its range is much wider than ``n`` (hashing is cheaper then).
    """
    arr = raw_int(a)
    if arr is None or n == 0:
        return None
    ((lo, hi),) = blocked_bounds([arr], n)
    if hi - lo + 1 > max(4 * n, 1 << 16):
        return None
    shifted = arr.astype(np.intp, copy=False) if lo == 0 else np.subtract(arr, lo, dtype=np.intp)
    present = np.bincount(shifted, minlength=hi - lo + 1) > 0
    values = np.flatnonzero(present)
    lut = np.cumsum(present, dtype=np.int64) - 1
    size = len(values)
    dt = np.int8 if size <= 127 else np.int16 if size <= 32767 else np.int32
    return lut.astype(dt)[shifted], values + lo


def _share_labels(bounds: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The two label arrays (last) count over one common range."""
    lo, hi = min(bounds[-2][0], bounds[-1][0]), max(bounds[-2][1], bounds[-1][1])
    return bounds[:-2] + [(lo, hi), (lo, hi)]


def _layout(bounds: list[tuple[int, int]], n: int) -> tuple[list[int], int, int] | None:
    """(sizes, offset, total) of the combined index over ``bounds``; None when too wide."""
    sizes = [hi - lo + 1 for lo, hi in bounds]
    total = int(np.prod(sizes, dtype=np.float64))
    if total > max(4 * n, 1 << 22):
        return None
    biggest = max(max(abs(lo), abs(hi)) for lo, hi in bounds)
    if (biggest + 1) * total * 2 >= _SAFE:
        return None  # huge ids: the Horner sums could wrap around; code them instead
    offset = bounds[0][0]
    for (lo, _), size in zip(bounds[1:], sizes[1:], strict=False):
        offset = offset * size + lo
    return sizes, offset, total


def fast_confusion(
    groups: list[Any], yt: Any, yp: Any, w: Any, n: int
) -> tuple[np.ndarray, list[np.ndarray], np.ndarray, np.ndarray, int] | None:
    r"""Count integer data in one pass without factorizing anything first.

    The combined index runs over the raw value range of each array,
    :math:`\sum_j (v_j - lo_j)\, s_j` in Horner form. Returns ``(raw, group_values,
    present_true, present_pred, lo)``: the counts over (groups..., true, pred) restricted to
    the group values that occur, those values, the labels that occur in ``yt``/``yp`` and the
    lowest label. A value occurs when a sample has it, whatever its weight (a zero weight
    never deletes a class or a group). None when an input is not a plain integer array or the
    value ranges are too wide; the coding path runs instead.
    """
    maybe = [raw_int(v) for v in groups] + [raw_int(yt), raw_int(yp)]
    arrays = [a for a in maybe if a is not None]
    if len(arrays) != len(maybe):
        return None
    bounds = _share_labels(blocked_bounds(arrays, n))
    lay = _layout(bounds, n)
    if lay is None:
        return None
    sizes, offset, total = lay
    raw = blocked_count(arrays, sizes, offset, w, total, n).reshape(sizes)
    seen = raw
    if w is not None and bool((w == 0).any()):
        seen = blocked_count(arrays, sizes, offset, None, total, n).reshape(sizes)
    lo_l = bounds[-1][0]
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


def take_labels(raw: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The (…, true, pred) confusion at ``positions`` of the raw label range.

    A position equal to the raw size (a declared label outside the observed range) gets
    zero rows and columns.
    """
    pad = [(0, 0)] * (raw.ndim - 2) + [(0, 1), (0, 1)]
    padded = np.pad(raw, pad)
    return padded[..., positions, :][..., positions]


# --- one-vs-all counts from confusion matrices ---------------------------------------------------


def ova_from_confusion(conf: Any) -> dict[str, Any]:
    """tp/fp/fn/tn over (..., class) from a (..., true, pred) confusion array.

    Float (weighted) confusions: a count whose cells are all zero is exactly 0 and no count
    is negative (``tn`` is found by subtraction; its rounding error is removed where the
    cells it sums are zero, and clipped at 0 elsewhere).
    """
    if is_dask(conf):
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
    if np.dtype(conf.dtype).kind == "f":
        nz = (conf != 0).astype(np.int64)
        nz_diag = (nz * np.eye(conf.shape[-1], dtype=np.int64)).sum(axis=-1)
        nz_tn = nz.sum(axis=(-2, -1))[..., None] - nz.sum(axis=-2) - nz.sum(axis=-1) + nz_diag
        zero = nz_tn == 0
        tn = (tn * ~zero).clip(0)
        fp, fn = fp.clip(0), fn.clip(0)
        tn = tn + 0.0  # no negative zeros
    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn}
