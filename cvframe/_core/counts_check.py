"""The value checks of the counts: where a cube's numbers are not counts, said in words.

:func:`checked_values` refuses negative, fractional (unweighted), NaN and infinite counts,
:func:`numeric` non-numeric dtypes and unsigned counts above int64, :func:`checked_sum` pooled
sums that overflow int64 and :func:`guard` any other bad cell; on a dask-backed cube each
check runs block by block when the cube is computed. :func:`where_text` names the places and
:func:`is_lazy` tells a dask-backed cube. :mod:`cvframe.schema` reads every count through
these (its :func:`~cvframe.schema.read_counts`), and re-exports ``is_lazy`` and
``where_text``.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import xarray as xr

from ..errors import CountsError, few

__all__ = ["checked_sum", "checked_values", "guard", "is_lazy", "numeric", "where_text"]

_INT64_MAX = np.iinfo(np.int64).max


def is_lazy(obj: Any) -> bool:
    """True when ``obj`` (a DataArray or Dataset) holds dask arrays."""
    if isinstance(obj, xr.Dataset):
        return any(is_lazy(v) for v in obj.data_vars.values())
    return getattr(obj, "chunks", None) is not None


def where_text(mask: Any, show: int = 5) -> str:
    """Describe where a boolean DataArray is True, as "fold=[1, 3], class=['a']"."""
    if not isinstance(mask, xr.DataArray):
        return ""
    mask = mask.load()
    idx = np.argwhere(np.asarray(mask))
    parts = []
    for axis, dim in enumerate(mask.dims):
        coord = mask[dim].values if dim in mask.coords else np.arange(mask.sizes[dim])
        vals = list(dict.fromkeys(coord[i] for i in idx[:, axis]))
        parts.append(f"{dim}={few(vals, show)}")
    return ", ".join(parts)


def _raise_where(values: np.ndarray, bad: np.ndarray, message: str) -> np.ndarray:
    """Block-wise check of a lazy array: raise ``message`` if any ``bad`` cell is in the block."""
    if np.any(bad):
        where = (
            f"{int(np.sum(bad))} cell(s) of one block of the lazy cube (compute it, "
            "ds.compute(), to see which)"
        )
        raise CountsError(message.replace("{where}", where))
    return values


def guard(values: xr.DataArray, bad: xr.DataArray, message: str) -> xr.DataArray:
    """``values``, raising CountsError(``message``) where ``bad`` (at compute time if lazy)."""
    if is_lazy(values) or is_lazy(bad):
        f = functools.partial(_raise_where, message=message)
        return xr.apply_ufunc(f, values, bad, dask="parallelized", output_dtypes=[values.dtype])
    if bool(bad.any()):
        raise CountsError(message.replace("{where}", where_text(bad)))
    return values


def checked_sum(da: xr.DataArray, dims: Sequence[Hashable], name: str) -> xr.DataArray:
    """``da.sum(dims)``; integer sums that would overflow int64 raise CountsError naming ``name``.

    The exact int64 sum is compared with a float64 sum: they differ by about 2^64 where the
    integer sum wrapped around, and by rounding only elsewhere.
    """
    out = da.sum(dims, skipna=False)
    if da.dtype.kind != "i" or not dims:
        return out
    n_terms = int(np.prod([da.sizes[d] for d in dims]))
    if not is_lazy(da):
        arr = np.asarray(da.data)
        if arr.size == 0 or n_terms * max(int(arr.max()), -int(arr.min())) < _INT64_MAX:
            return out
    approx = da.astype("float64").sum(dims, skipna=False)
    bad = abs(out.astype("float64") - approx) > 1e-6 * abs(approx) + 1.0
    msg = (
        f"the sum of {name} over {','.join(map(str, dims))} overflows int64 at {{where}}; "
        "the counts are too large to pool exactly (divide them by a common factor, or "
        "convert the cube to float64 with ds.astype('float64') to accept rounding)."
    )
    return guard(out, bad, msg)


def numeric(da: xr.DataArray, name: str) -> xr.DataArray:
    """``da`` checked to hold numbers (unsigned ones within int64), integers as int64."""
    kind = da.dtype.kind
    if kind not in "iuf":
        raise CountsError(
            f"{name} has dtype {da.dtype}; counts must be integers (int64), or floats for "
            f"weighted cubes. Convert with ds[{name!r}] = ds[{name!r}].astype('int64')."
        )
    wide = kind == "u" and da.dtype.itemsize == 8 and not is_lazy(da) and da.size
    if wide and int(da.max()) > _INT64_MAX:
        raise CountsError(f"{name} has values above 2**63 - 1, too large for int64 counts.")
    return da.astype("int64") if kind in "iu" and da.dtype != np.int64 else da


def _bad_mask(arr: np.ndarray, whole: bool, nan_ok: bool = False) -> np.ndarray | None:
    """Where ``arr`` is not a count (NaN too unless ``nan_ok``); None when every value is one."""
    if arr.dtype.kind in "iu":
        return None if arr.size == 0 or arr.min() >= 0 else arr < 0
    ok = (arr >= 0) & (arr < np.inf)  # False for NaN, -inf, inf and negatives
    if whole:
        ok &= arr == np.floor(np.where(ok, arr, 0))
    if nan_ok:
        ok |= np.isnan(arr)
    return None if ok.all() else ~ok


def _values_message(name: str, arr: np.ndarray, bad: np.ndarray, where: str, weighted: bool) -> str:
    """The message for the values of ``arr`` flagged in ``bad`` (the first kind found)."""
    vals = arr[bad]
    kinds = [
        ("NaN or infinite", ~np.isfinite(vals), "counts must be finite"),
        (
            "negative",
            vals < 0,
            "weighted counts are sums of non-negative sample weights and must be >= 0"
            if weighted
            else "counts must be non-negative integers",
        ),
        (
            "fractional",
            np.isfinite(vals) & (vals != np.round(vals)),
            "counts must be whole numbers (weighted cubes are built with "
            "from_predictions(sample_weight=...), which sets attrs['weighted'] = 'yes')",
        ),
    ]
    for what, sel, fix in kinds:
        if sel.any():
            k = int(sel.sum())
            return (
                f"{name} has {k} {what} value{'s' if k > 1 else ''} at {where} (got "
                f"{few(vals[sel])}); {fix}. Rebuild the cube from predictions, or fix the "
                "listed cells."
            )
    return f"{name} has values that are not counts at {where}."  # pragma: no cover


def _raise_values(
    values: np.ndarray, name: str, whole: bool, weighted: bool, nan_ok: bool
) -> np.ndarray:
    """Block-wise check of a lazy count array."""
    bad = _bad_mask(values, whole, nan_ok)
    if bad is not None:
        where = "one block of the lazy cube (compute it, ds.compute(), to see which cells)"
        raise CountsError(_values_message(name, values, bad, where, weighted))
    return values


def checked_values(
    da: xr.DataArray,
    name: str,
    *,
    whole: bool = True,
    weighted: bool = False,
    nan_ok: bool = False,
) -> xr.DataArray:
    """``da`` (numeric) once its values are checked to be counts.

    Finite (or NaN when ``nan_ok``: padding already checked) and >= 0, and whole numbers
    when ``whole``; one pass over an int64 array (its minimum). A dask-backed ``da`` is
    checked block by block when it is computed.
    """
    if is_lazy(da):
        f = functools.partial(
            _raise_values, name=name, whole=whole, weighted=weighted, nan_ok=nan_ok
        )
        return da.copy(data=da.data.map_blocks(f, dtype=da.dtype))
    arr = np.asarray(da.data)
    bad = _bad_mask(arr, whole, nan_ok)
    if bad is not None:
        mask = da.copy(data=bad)
        raise CountsError(_values_message(name, arr, bad, where_text(mask), weighted))
    return da
