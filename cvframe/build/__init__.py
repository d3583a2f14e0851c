"""Build counts cubes: from per-sample predictions, from tidy counts, from confusion matrices.

:mod:`._kernel` counts (one ``bincount`` over a combined index of integer codes; numpy/dask
only), :mod:`._lazy` counts dask inputs per partition, :mod:`.predictions` holds
:func:`from_predictions` and :func:`counts_from_frame`, :mod:`.tables` :func:`from_counts`,
:func:`from_confusion` and the cube assemblers, :mod:`.multilabel` the multilabel metrics of a
predictions frame.
"""

from __future__ import annotations

from ..errors import ColumnError
from .multilabel import multilabel_metrics
from .predictions import FRAME_DIMS, counts_from_frame, from_predictions
from .tables import from_confusion, from_counts

__all__ = [
    "FRAME_DIMS",
    "ColumnError",
    "counts_from_frame",
    "from_confusion",
    "from_counts",
    "from_predictions",
    "multilabel_metrics",
]
