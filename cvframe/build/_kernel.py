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

from .. import _labels
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


def fast_confusion(
    groups: list[Any], yt: Any, yp: Any, w: Any, n: int
) -> tuple[np.ndarray, list[np.ndarray], np.ndarray, np.ndarray, int] | None:
    r"""Count integer data in one pass without factorizing anything first.

    The combined index runs over each array's raw value range (Horner form). Returns ``(raw,
    group_values, present_true, present_pred, lo)``: counts over (groups..., true, pred) of
    the group values that occur (whatever their weight), those values, the labels that occur
    and the lowest label. None when an input is not a plain integer array or ranges are wide.
    """
    arrays = [a for a in (_raw_int(v) for v in (*groups, yt, yp)) if a is not None]
    if len(arrays) != len(groups) + 2:
        return None
    bounds = []
    for a in arrays:  # (min, max) block by block
        mm = [(int(b.min()), int(b.max())) for b in (a[i : i + BLOCK] for i in range(0, n, BLOCK))]
        bounds.append((min(m[0] for m in mm), max(m[1] for m in mm)))
    lo_l, hi_l = min(bounds[-2][0], bounds[-1][0]), max(bounds[-2][1], bounds[-1][1])
    bounds[-2:] = [(lo_l, hi_l)] * 2  # y_true and y_pred count over one common range
    sizes = [hi - lo + 1 for lo, hi in bounds]
    total = int(np.prod(sizes, dtype=np.float64))
    biggest = max(max(abs(lo), abs(hi)) for lo, hi in bounds)
    if total > max(4 * n, 1 << 22) or (biggest + 1) * total * 2 >= _SAFE:
        return None  # too wide, or huge ids whose Horner sums could wrap around: code them
    offset = bounds[0][0]
    for (lo, _), size in zip(bounds[1:], sizes[1:], strict=False):
        offset = offset * size + lo
    raw = blocked_count(arrays, sizes, offset, w, total, n).reshape(sizes)
    seen = raw
    if w is not None and bool((w == 0).any()):
        seen = blocked_count(arrays, sizes, offset, None, total, n).reshape(sizes)
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
