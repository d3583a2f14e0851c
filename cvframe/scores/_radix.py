"""The compiled sort of packed ``uint64`` keys: a least-significant-digit radix sort.

Eight passes of 8-bit digits, their counts taken in one histogram pass over the keys; a pass
is skipped when every key has the same digit there (the high bits of packed scores often
are). Each pass is a stable counting scatter, so the keys come out in ``np.sort``'s order
and a ``carry`` array riding along comes out in ``np.argsort(key, kind="stable")``'s order.
The passes alternate between the keys and a scratch buffer of the same size (``8 n`` bytes;
``n * carry.itemsize`` more with a carry); after an odd number of passes the keys are copied
back, so the sort is in place like ``ndarray.sort``. O(n) per pass, against O(n log n)
comparisons.

Compiled with numba (cached on disk) and only used where :func:`cvframe._core.kernel.engine`
chose the compiled engine; the numpy engine keeps ``ndarray.sort``. Importing this module
does not import numba.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np

from .._core.kernel import compiled

__all__ = ["kernel", "sort", "sort_segments"]

#: Bits per digit and passes for 64-bit keys.
DIGIT_BITS = 8
PASSES = 64 // DIGIT_BITS

#: The compiled ``lsd`` (the sort) and ``scatter`` (grouping) passes, or False without
#: numba.
kernel: Callable[[], Any] = compiled(lambda jit: _compile(jit))


def _compile(jit: Any) -> SimpleNamespace:
    """The compiled passes of :func:`kernel`."""
    radix = 1 << DIGIT_BITS
    mask = np.uint64(radix - 1)
    bits = np.uint64(DIGIT_BITS)

    @jit
    def lsd(key, buf, carry, cbuf, has_carry):  # in place; stable; carry rides along
        n = key.shape[0]
        if n < 2:
            return 0
        hist = np.zeros((PASSES, radix), dtype=np.int64)
        for i in range(n):  # one histogram pass for every digit
            k = key[i]
            for d in range(PASSES):
                hist[d, np.intp((k >> (bits * np.uint64(d))) & mask)] += 1
        pos = np.empty(radix, dtype=np.int64)
        src, dst = key, buf
        csrc, cdst = carry, cbuf
        done = 0
        first = key[0]
        for d in range(PASSES):
            shift = bits * np.uint64(d)
            if hist[d, np.intp((first >> shift) & mask)] == n:
                continue  # every key has this digit: the pass would not move a key
            total = 0
            for b in range(radix):
                pos[b] = total
                total += hist[d, b]
            if has_carry:
                for i in range(n):
                    k = src[i]
                    b = np.intp((k >> shift) & mask)
                    dst[pos[b]] = k
                    cdst[pos[b]] = csrc[i]
                    pos[b] += 1
                csrc, cdst = cdst, csrc
            else:
                for i in range(n):
                    k = src[i]
                    b = np.intp((k >> shift) & mask)
                    dst[pos[b]] = k
                    pos[b] += 1
            src, dst = dst, src
            done += 1
        if done % 2 == 1:  # the sorted keys are in the buffer: copy them back
            key[:] = src
            if has_carry:
                carry[:] = csrc
        return done

    @jit
    def scatter(key, g, bounds, out, carry, cout, has_carry):
        # a stable counting pass by group code: group j to out[bounds[j]:bounds[j + 1]]
        pos = bounds[:-1].copy()
        for i in range(key.shape[0]):
            j = g[i]
            out[pos[j]] = key[i]
            if has_carry:
                cout[pos[j]] = carry[i]
            pos[j] += 1
        return out

    return SimpleNamespace(lsd=lsd, scatter=scatter)


def _none() -> np.ndarray:
    return np.empty(1, dtype=np.uint64)


def sort(key: np.ndarray, carry: np.ndarray | None = None) -> np.ndarray | None:
    """Sort contiguous ``uint64`` keys in place (compiled), like ``key.sort()``; with
    ``carry`` (same length), returns it in the stable order of the keys (a new array,
    ``carry[np.argsort(key, kind="stable")]``)."""
    k = kernel()
    if carry is None:
        k.lsd(key, np.empty_like(key), _none(), _none(), False)
        return None
    out = np.array(carry, order="C")  # a copy: sorted in place with the keys
    k.lsd(key, np.empty_like(key), out, np.empty_like(out), True)
    return out


def sort_segments(
    key: np.ndarray, g: np.ndarray, bounds: np.ndarray, carry: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """``key`` (and ``carry``) grouped by the codes ``g`` (group ``j`` in
    ``bounds[j]:bounds[j + 1]``) by a stable counting pass, and sorted within each group:
    new arrays, in the order of a stable sort by ``(g, key)``. ``key`` (contiguous) is used
    as scratch."""
    k = kernel()
    out = np.empty_like(key)
    has_carry = carry is not None
    if carry is None:
        carry = cout = cbuf = _none()
    else:
        carry = np.ascontiguousarray(carry)
        cout, cbuf = np.empty_like(carry), np.empty_like(carry)
    k.scatter(key, np.ascontiguousarray(g), bounds, out, carry, cout, has_carry)
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        if b - a > 1:  # the keys and the carry's buffer are free: scratch
            k.lsd(out[a:b], key[a:b], cout[a:b], cbuf[a:b], has_carry)
    return out, (cout if has_carry else None)
