"""Build counts cubes: from per-sample predictions, from tidy counts, from confusion matrices.

Building from predictions is one pass over the data: the labels, folds and repeats are
turned into integer codes, combined into one index, and counted by a single
:func:`numpy.bincount`. No Python loop runs over folds or classes. Dask inputs (arrays,
Series, DataFrames) give a lazy cube: one ``bincount`` per partition, then a sum.

- :mod:`._kernel` counts (numpy/dask only);
- :mod:`._lazy` the per-partition counts of dask inputs;
- :mod:`.predictions`: :func:`from_predictions`, :func:`counts_from_frame`;
- :mod:`.tables`: :func:`from_counts`, :func:`from_confusion`.
"""

from __future__ import annotations

from .predictions import FRAME_DIMS, ColumnError, counts_from_frame, from_predictions
from .tables import from_confusion, from_counts

__all__ = [
    "FRAME_DIMS",
    "ColumnError",
    "counts_from_frame",
    "from_confusion",
    "from_counts",
    "from_predictions",
]
