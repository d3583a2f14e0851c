"""What the report's modules share: a cell as a JSON value, the cube's task and positive class."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import xarray as xr

from .. import _labels
from ..schema import CLASS

__all__ = ["binary", "plain", "pos_label"]


def plain(v: Any) -> Any:
    """A table cell as a JSON value: numpy scalars as Python ones, NaN/inf/NA as None.

    >>> import numpy as np
    >>> plain(np.int64(3)), plain(float("nan")), plain(np.float32(0.5))
    (3, None, 0.5)
    """
    v = _labels.plain(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if v is pd.NA or v is pd.NaT:
        return None
    return v


def binary(ds: xr.Dataset) -> bool:
    """Whether the cube is a binary task (one class: the positive one)."""
    return ds.attrs.get("task") == "binary" or ds.sizes.get(CLASS, 1) == 1


def pos_label(ds: xr.Dataset) -> Any:
    """The cube's positive class as its class coordinate holds it (a bool stays a bool)."""
    if "pos_label" not in ds.attrs:
        return None
    return _labels.from_attr(ds.attrs["pos_label"], ds[CLASS].values)
