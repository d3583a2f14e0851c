"""``cvframe.build.multilabel_metrics``, the earlier name of
:func:`cvframe.measure.multilabel_metrics_from_frame` (it computes metrics, it builds no cube):
it still works, with a FutureWarning, for one release."""

from __future__ import annotations

import warnings
from typing import Any

import xarray as xr

__all__ = ["multilabel_metrics"]


def multilabel_metrics(df: Any, *args: Any, **kwargs: Any) -> xr.Dataset:
    """Deprecated: :func:`cvframe.measure.multilabel_metrics_from_frame`
    (``df.cv.multilabel_metrics()``), which takes the same arguments."""
    warnings.warn(
        "cvframe.build.multilabel_metrics is renamed cvframe.measure.multilabel_metrics_from_frame "
        "(df.cv.multilabel_metrics() is unchanged); the old name goes in the next release.",
        FutureWarning,
        stacklevel=2,
    )
    from ..measure import multilabel_metrics_from_frame

    return multilabel_metrics_from_frame(df, *args, **kwargs)
