"""Lossless persistence of counts cubes (netCDF4 or Zarr).

``ds.to_netcdf(path)`` writes a cube as it is (its attrs are netCDF-safe by construction);
:func:`open_dataset` reads it back into memory with the same values, dtypes, coordinates
and attrs.

Booleans: :func:`prepare_for_write` stores boolean coordinates and variables as "yes"/"no"
strings marked with the attr ``cvframe_dtype="bool"``; :func:`open_dataset` turns them back
into booleans, as it does for the "yes"/"no" ``stratified`` coordinate and ``exact`` variable
of bias-study files written by earlier releases. Labels stored in attrs (``pos_label``) are
read with :func:`cvframe._core.labels.from_attr` against the class coordinate, so a bool label
comes back as a bool.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import xarray as xr

__all__ = ["BOOL_MARK", "open_dataset", "prepare_for_write"]

#: The attr (name, value) that marks a "yes"/"no" variable as stored booleans.
BOOL_MARK = ("cvframe_dtype", "bool")

#: Study files of earlier releases: these names held booleans as unmarked "yes"/"no".
_LEGACY_BOOL = ("stratified", "exact")


def open_dataset(path: str | os.PathLike[str], **kwargs: Any) -> xr.Dataset:
    """Open a counts cube written by ``ds.to_netcdf(path)`` or ``ds.to_zarr(path)``.

    The data are loaded into memory and the file is closed. String coordinates come back as
    Python-object arrays (as cvframe builds them), integer counts as int64, and encodings are
    dropped so that writing the cube again cannot round floats into the old integer encoding.

    Parameters
    ----------
    path : str or os.PathLike
        A netCDF4 file or a Zarr store (a directory, or a path ending in ``.zarr``).
    **kwargs
        Passed to :func:`xarray.open_dataset`.

    Returns
    -------
    xarray.Dataset

    Examples
    --------
    >>> import tempfile, os, cvframe
    >>> ds = cvframe.datasets.slides_confusion()
    >>> path = os.path.join(tempfile.mkdtemp(), "cube.nc")
    >>> ds.to_netcdf(path)
    >>> back = cvframe.open_dataset(path)
    >>> back.identical(ds), back.tp.dtype
    (True, dtype('int64'))
    """
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"path must be a file name or path, got {type(path).__name__}.")
    path = os.fsdecode(path)
    is_zarr = os.path.isdir(path) or path.endswith(".zarr")
    engine = kwargs.pop("engine", "zarr" if is_zarr else None)
    if "://" not in path and not os.path.exists(path):
        raise FileNotFoundError(f"path={path!r} does not exist; pass the file ds.to_netcdf wrote.")
    try:
        with xr.open_dataset(path, engine=engine, **kwargs) as src:
            ds = src.load()
    except ValueError as exc:
        if "IO backends" not in str(exc):
            raise
        raise ValueError(
            f"path={path!r} is neither a netCDF4 file nor a Zarr store; open_dataset reads "
            "what ds.to_netcdf(path) or ds.to_zarr(path) wrote (pass engine= to choose the "
            "reader)."
        ) from None
    ds = prepare_for_write(ds)
    ds.attrs = {k: v.item() if isinstance(v, np.generic) else v for k, v in ds.attrs.items()}
    strings = [name for name in ds.variables if ds[name].dtype.kind in "UST"]
    for name in strings:
        ds = _put(ds, name, ds[name].variable.astype(object))
    return _decode_bools(ds)


def _is_yes_no(values: np.ndarray) -> bool:
    return (
        values.dtype.kind in "OUS"
        and values.size > 0
        and all(isinstance(v, str) and v in ("yes", "no") for v in values.ravel().tolist())
    )


def _decode_bools(ds: xr.Dataset) -> xr.Dataset:
    key, mark = BOOL_MARK
    for name in list(ds.variables):
        var = ds[name]
        marked = var.attrs.get(key) == mark
        if not (marked or name in _LEGACY_BOOL) or not _is_yes_no(var.values):
            continue
        attrs = {k: v for k, v in var.attrs.items() if k != key}
        ds = _put(ds, name, xr.Variable(var.dims, var.values == "yes", attrs=attrs))
    return ds


def _put(ds: xr.Dataset, name: Any, var: xr.Variable) -> xr.Dataset:
    """``ds`` with its coordinate or variable ``name`` replaced by ``var``."""
    if name in ds.coords:
        return ds.assign_coords({name: var})
    ds[name] = var
    return ds


def prepare_for_write(ds: xr.Dataset) -> xr.Dataset:
    """A copy of ``ds`` that netCDF/Zarr store without loss.

    Stale encodings are dropped (a float written over a loaded int64 variable could be
    rounded otherwise), and boolean coordinates and variables become "yes"/"no" strings
    marked ``cvframe_dtype="bool"``, which :func:`open_dataset` turns back into booleans.

    >>> import xarray as xr
    >>> st = xr.Dataset({"v": ("stratified", [1.0, 2.0])}, coords={"stratified": [True, False]})
    >>> prepare_for_write(st).stratified.values.tolist()
    ['yes', 'no']
    """
    out = ds.copy()
    key, mark = BOOL_MARK
    for name in list(out.variables):
        var = out[name]
        if var.dtype.kind == "b":
            yes_no = np.where(var.values, "yes", "no").astype(object)
            out = _put(out, name, xr.Variable(var.dims, yes_no, attrs={**var.attrs, key: mark}))
    for name in out.variables:
        out[name].encoding = {}
    return out
