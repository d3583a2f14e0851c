"""The counting kernel: numpy (and dask) arrays in, count arrays out; no pandas, no xarray.

Errors are :class:`cvframe.CountsError`; on dask they are raised when the block is computed.

Labels and groups arrive as integer codes; one combined index
:math:`((g_0 \\cdot s_1 + g_1) \\cdot s_2 + \\dots)` is counted by one ``bincount``. Integer
inputs skip the coding step altogether (:func:`fast_confusion`): the index runs over each
array's raw value range, computed block by block so it stays in cache, or found by a
compiled pass (numba, cached on disk) that finds the ranges while it counts: one read of the
inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._core import labels as _labels
from .._core.kernel import compiled, engine
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


def raw_int(a: Any) -> np.ndarray | None:
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


#: Rows of one step of the compiled pass: their cells are computed for all of them at once,
#: then counted. Short steps keep the step's inputs in the L1 cache; a table beyond
#: :data:`_SHORT_TABLE` cells is counted in long steps, whose uninterrupted counting loop
#: overlaps more cache misses in the table (measured on 10^7 rows: 100 classes x 100 folds
#: 1.7x a read of the inputs in long steps, 2.4x in short ones; 10 classes 1.1x in short).
_STEP, _LONG_STEP, _SHORT_TABLE = 128, 1 << 14, 1 << 16

#: Tables of at most this many cells are counted into 4 interleaved copies (summed at the
#: end): consecutive rows that hit one cell then do not wait on each other's increment.
_SPLIT = 1024

#: Most arrays (group arrays, y_true and y_pred) one compiled pass counts; the pass is
#: compiled for 4, 6 and 8 arrays (:data:`_SLOTS`), absent ones taking no work.
MAX_ARRAYS = 8
_SLOTS = (4, 6, 8)


def _count_pass_for(slots: int) -> Callable[..., None]:
    """The counting pass over ``slots`` integer arrays (numba specializes the closure on
    ``slots``: the code of the slots beyond it is left out, and cached per value)."""

    def count(a0, a1, a2, a3, a4, a5, a6, a7, lo, mult, table, w, out, hi, part, cell, carry):  # noqa: E501  # pragma: no cover
        """Count the rows of the integer arrays ``a0 .. a<slots-1>`` into ``out`` and check,
        in the same read of the inputs, that every value lies in its counted range.

        Row ``i`` counts in cell ``sum_k (a_k[i] - lo[k]) * mult[k]`` of the flat table
        ``out`` (``mult[k] == 0``: an absent array, the last one given again), clamped into
        the table: the count is right when every value lies in ``lo[k] .. lo[k] + size[k] -
        1``, which the caller checks against ``hi[k]``, the largest ``a_k[i] - lo[k]`` as an
        unsigned number (a value below ``lo[k]`` wraps to a huge one). ``out`` holds
        ``len(out) // table`` copies of the ``table`` cells (1, or 4 for rows of a small
        table, which take the copies in turn; the caller sums them): float64 sums of the
        weights ``w``, or unweighted uint8 counts whose every 256th count goes to ``carry``
        (same length, int64; it is rarely touched, so the table stays in cache). Weights are
        summed in row order, the sums of every ``part`` rows (a multiple of the step; 0: all rows at
        once) first, then added to ``out``: the order of :func:`blocked_count`'s
        ``bincount`` calls, so both engines give the same float sums.

        Each step of ``len(cell)`` rows first computes the cells of all its rows into
        ``cell`` (a loop without stores to ``out``), then counts them. Narrow ``out`` and
        ``cell`` dtypes keep more of them in cache."""
        copies = len(out) // table
        mu = mult.view(np.uint64)
        m0, m1, m2, m3, m4, m5, m6, m7 = mu[0], mu[1], mu[2], mu[3], mu[4], mu[5], mu[6], mu[7]
        l0, l1, l2, l3, l4, l5, l6, l7 = lo[0], lo[1], lo[2], lo[3], lo[4], lo[5], lo[6], lo[7]
        last = np.uint64(table - 1)
        tstep = np.uint64(table if copies == 4 else 0)
        weighted = len(w) > 0
        step = len(cell)
        sums = np.zeros(table if part else 0, dtype=out.dtype)
        z = np.uint64(0)
        h0 = h1 = h2 = h3 = h4 = h5 = h6 = h7 = z
        n = len(a0)
        for start in range(0, n, step):
            stop = min(start + step, n)
            b0, b1, b2, b3 = a0[start:stop], a1[start:stop], a2[start:stop], a3[start:stop]
            b4, b5, b6, b7 = a4[start:stop], a5[start:stop], a6[start:stop], a7[start:stop]
            m = stop - start
            for j in range(m):
                u0 = np.uint64(np.int64(b0[j]) - l0)
                u1 = np.uint64(np.int64(b1[j]) - l1)
                u2 = np.uint64(np.int64(b2[j]) - l2)
                u3 = np.uint64(np.int64(b3[j]) - l3)
                h0, h1, h2, h3 = max(h0, u0), max(h1, u1), max(h2, u2), max(h3, u3)
                at = u0 * m0 + u1 * m1 + u2 * m2 + u3 * m3
                if slots > 4:
                    u4 = np.uint64(np.int64(b4[j]) - l4)
                    u5 = np.uint64(np.int64(b5[j]) - l5)
                    h4, h5 = max(h4, u4), max(h5, u5)
                    at += u4 * m4 + u5 * m5
                if slots > 6:
                    u6 = np.uint64(np.int64(b6[j]) - l6)
                    u7 = np.uint64(np.int64(b7[j]) - l7)
                    h6, h7 = max(h6, u6), max(h7, u7)
                    at += u6 * m6 + u7 * m7
                cell[j] = min(at, last)  # in the table, even for a value outside the ranges
            if weighted and part:
                wb = w[start:stop]
                for j in range(m):
                    sums[cell[j]] += wb[j]
                if stop % part == 0 or stop == n:
                    for q in range(table):
                        out[q] += sums[q]
                        sums[q] = 0.0
            elif weighted:
                wb = w[start:stop]
                for j in range(m):
                    out[cell[j]] += wb[j]
            else:  # uint8 cells; rows take the copies in turn (copy j % copies)
                for j in range(m):
                    c = cell[j] + np.uint64(j & 3) * tstep
                    v = np.int64(out[c]) + 1
                    out[c] = v
                    if v == 256:
                        carry[c] += 1
        hi[0], hi[1], hi[2], hi[3], hi[4], hi[5], hi[6], hi[7] = h0, h1, h2, h3, h4, h5, h6, h7

    return count


#: The compiled counting passes by number of slots (numba, cached on disk), or False
#: without numba.
_pass_compiled = compiled(lambda jit: {s: jit(_count_pass_for(s)) for s in _SLOTS})


#: Rows sampled (spread over the input) to guess the ranges before the compiled pass.
_SAMPLE = 1 << 13


def _layout(bounds: list[tuple[int, int]], slots: int) -> tuple[list[int], np.ndarray, int]:
    """The sizes of the arrays' ranges, the row-major strides of the ``slots`` slots (the
    absent ones first, stride 0) and the table's cells."""
    sizes = [hi - lo + 1 for lo, hi in bounds]
    mult = np.zeros(8, dtype=np.int64)
    stride = 1
    for k in range(len(sizes) - 1, -1, -1):
        mult[slots - len(sizes) + k], stride = stride, stride * sizes[k]
    return sizes, mult, stride


def compiled_count(
    arrays: list[np.ndarray], w: np.ndarray | None, n: int
) -> tuple[np.ndarray, list[tuple[int, int]]] | None:
    """Counts over the value ranges of ``arrays`` (groups..., y_true, y_pred; at most
    :data:`MAX_ARRAYS`) in one compiled pass that also checks those ranges, and the ranges.

    The table's ranges are guessed from :data:`_SAMPLE` rows spread over the input (sorted
    repeat and fold columns show their whole range there, shuffled rows every frequent
    value); the pass checks that every value lies in its guessed range, and then the guess
    is the exact ``(min, max)`` of every array (the sampled values are among the data). When
    a value lies outside, the exact ranges are found and the pass runs again over them:
    either way the ranges are the exact ``(min, max)`` of every array (y_true and y_pred: of
    both), as :func:`fast_confusion`'s numpy path finds them. Unweighted rows of a table of
    more than :data:`_SPLIT` cells count in uint8 cells (every 256th count carried to an
    int64 table, which it rarely touches): in random row order more of the table stays in
    cache. None when numba is not installed, there are more than :data:`MAX_ARRAYS` arrays
    or the ranges are wide.
    """
    if len(arrays) > MAX_ARRAYS or n == 0:
        return None
    kernels = _pass_compiled()
    if kernels is False:
        return None
    slots = next(s for s in _SLOTS if s >= len(arrays))
    every = max(1, n // _SAMPLE)
    bounds = _union(*[[(int(a[::every].min()), int(a[::every].max())) for a in arrays]] * 2)
    args = [np.ascontiguousarray(a) for a in arrays]
    pad = slots - len(arrays)
    args = [args[-1]] * pad + args + [args[-1]] * (8 - slots)  # absent: y_pred, stride 0
    weights = np.empty(0) if w is None else np.ascontiguousarray(w, dtype=np.float64)
    hi = np.zeros(8, dtype=np.uint64)
    for _attempt in range(2):
        if _too_wide(bounds, n):
            return None
        sizes, mult, table = _layout(bounds, slots)
        lo = np.zeros(8, dtype=np.int64)
        lo[pad : pad + len(arrays)] = [b[0] for b in bounds]
        lo[:pad] = lo[slots:] = bounds[-1][0]
        copies = 4 if w is None and table <= _SPLIT else 1
        short = table <= _SHORT_TABLE
        kind = np.float64 if w is not None else np.uint8
        out = np.zeros(copies * table, dtype=kind)
        carry = np.zeros(copies * table if w is None else 0, dtype=np.int64)
        cell = np.empty(_STEP if short else _LONG_STEP, np.uint32 if table < 1 << 32 else np.uint64)
        part = BLOCK if w is not None and table <= BLOCK // 4 else 0  # as blocked_count adds
        kernels[slots](*args, lo, mult, table, weights, out, hi, part, cell, carry)
        if all(int(hi[pad + k]) < size for k, size in enumerate(sizes)):
            counts = out if w is not None else carry * 256 + out.astype(np.int64)  # int64 counts
            if copies > 1:
                counts = counts.reshape(copies, table).sum(axis=0)
            return counts.reshape(sizes), bounds
        bounds = _union(*[_ranges(arrays, 0, n)] * 2)  # a value outside: count again
    raise AssertionError("the exact ranges hold every value")  # pragma: no cover


def count_table(
    arrays: list[np.ndarray], w: Any, n: int
) -> tuple[np.ndarray, list[tuple[int, int]]] | None:
    """Counts of integer ``arrays`` (groups..., y_true, y_pred) over their value ranges, and
    the ranges (y_true and y_pred over one common range); None when the ranges are too
    wide to count over.

    Two engines (:func:`cvframe._core.kernel.engine`, the same counts): a compiled pass that
    checks the ranges as it counts (:func:`compiled_count`), and numpy: the ranges block by
    block, then the counts block by block (:func:`blocked_count`).
    """
    got = compiled_count(arrays, w, n) if n and engine(n, "count") == "numba" else None
    if got is not None:
        return got
    bounds = _union(*[_ranges(arrays, 0, n)] * 2)
    if _too_wide(bounds, n):
        return None  # too wide, or huge ids whose Horner sums could wrap around: code them
    return _numpy_count(arrays, bounds, w, n), bounds


def present_values(
    raw: np.ndarray, bounds: list[tuple[int, int]], arrays: list[np.ndarray], w: Any, n: int
) -> tuple[np.ndarray, list[np.ndarray], np.ndarray, np.ndarray]:
    """The counts over the group values that occur (whatever their weight), those values'
    offsets from each group's lowest value, and the offsets of the labels that occur as
    y_true and as y_pred (from the lowest label)."""
    seen = raw
    if w is not None and bool((w == 0).any()):
        seen = _unweighted(arrays, bounds, n)
    c = raw.shape[-1]
    gshape = raw.shape[:-2]
    flat = seen.reshape(-1, c, c)  # one read of the table for the groups, one for the labels
    occupied: np.ndarray = np.asarray(flat.max(axis=(1, 2)) > 0).reshape(gshape)  # >= 0
    pairs = flat.sum(axis=0)
    offsets = []
    for axis in range(len(gshape)):
        others = tuple(i for i in range(len(gshape)) if i != axis)
        present = np.flatnonzero(np.any(occupied, axis=others))
        if len(present) < raw.shape[axis]:  # group values in the range that no row has
            raw = np.take(raw, present, axis=axis)
        offsets.append(present)
    return raw, offsets, np.flatnonzero(pairs.sum(axis=1)), np.flatnonzero(pairs.sum(axis=0))


def fast_confusion(
    groups: list[Any], yt: Any, yp: Any, w: Any, n: int
) -> tuple[np.ndarray, list[np.ndarray], np.ndarray, np.ndarray, int] | None:
    r"""Count integer data in one pass without factorizing anything first.

    The combined index runs over each array's raw value range (Horner form). Returns ``(raw,
    group_values, present_true, present_pred, lo)``: counts over (groups..., true, pred) of
    the group values that occur (whatever their weight), those values, the labels that occur
    and the lowest label. None when an input is not a plain integer array or ranges are wide.
    """
    arrays = [a for a in (raw_int(v) for v in (*groups, yt, yp)) if a is not None]
    if len(arrays) != len(groups) + 2:
        return None
    got = count_table(arrays, w, n)
    if got is None:
        return None
    raw, bounds = got
    raw, offsets, present_t, present_p = present_values(raw, bounds, arrays, w, n)
    lo_l = bounds[-1][0]
    values = [off + lo for off, (lo, _) in zip(offsets, bounds, strict=False)]
    return raw, values, present_t + lo_l, present_p + lo_l, lo_l


def _unweighted(arrays: list[np.ndarray], bounds: list[tuple[int, int]], n: int) -> np.ndarray:
    """Row counts over the exact ``bounds`` (which rows occur, whatever their weight)."""
    got = count_table(arrays, None, n)
    if got is not None and got[1] == bounds:
        return got[0]
    return _numpy_count(arrays, bounds, None, n)


def _numpy_count(arrays: list[np.ndarray], bounds: list[tuple[int, int]], w: Any, n: int) -> Any:
    """Counts over the value ranges ``bounds`` of ``arrays`` (Horner form), by numpy."""
    sizes = [hi - lo + 1 for lo, hi in bounds]
    offset = bounds[0][0]
    for (lo, _), size in zip(bounds[1:], sizes[1:], strict=False):
        offset = offset * size + lo
    total = int(np.prod(sizes, dtype=np.float64))
    return blocked_count(arrays, sizes, offset, w, total, n).reshape(sizes)


def take_labels(raw: np.ndarray, universe: list[Any], lo: int) -> np.ndarray:
    """The (…, true, pred) confusion of ``universe`` from counts over the label range from ``lo``.

    A label outside the observed range gets zero rows and columns. ``raw`` itself when the
    universe is the range, in order.
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
    if at == list(range(size)):  # the universe is the counted range, in order: no copy
        return raw
    padded = np.pad(raw, [(0, 0)] * (raw.ndim - 2) + [(0, 1), (0, 1)])
    return np.ascontiguousarray(padded[..., at, :][..., at])  # sums run as over ``raw``


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
