"""Lossless persistence of counts cubes (netCDF4 or Zarr).

``ds.to_netcdf(path)`` writes a cube as it is (its attrs are netCDF-safe by construction);
:func:`open_dataset` reads it back into memory with the same values, dtypes, coordinates
and attrs.
"""
from __future__ import annotations

import os
from typing import Any

import xarray as xr

__all__ = ["open_dataset", "prepare_for_write"]


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
    path = os.fspath(path)
    is_zarr = os.path.isdir(path) or path.endswith(".zarr")
    engine = kwargs.pop("engine", "zarr" if is_zarr else None)
    with xr.open_dataset(path, engine=engine, **kwargs) as src:
        ds = src.load()
    ds = prepare_for_write(ds)
    strings = [name for name in ds.variables if ds[name].dtype.kind in "UST"]
    ds = ds.assign_coords({c: ds[c].astype(object) for c in strings if c in ds.coords})
    for name in strings:
        if name not in ds.coords:
            ds[name] = ds[name].astype(object)
    return ds


def prepare_for_write(ds: xr.Dataset) -> xr.Dataset:
    """A copy of ``ds`` without stale encodings (safe to write to netCDF/Zarr)."""
    out = ds.copy()
    for name in out.variables:
        out[name].encoding = {}
    return out
