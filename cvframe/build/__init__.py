"""Build counts cubes: from per-sample predictions, from tidy counts, from confusion matrices.

:mod:`._kernel` counts (one ``bincount`` over a combined index of integer codes; numpy/dask
only), :mod:`._lazy` counts dask inputs per partition, :mod:`.predictions` holds
:func:`from_predictions` and :func:`counts_from_frame`, :mod:`.tables` :func:`from_counts`,
:func:`from_confusion` and the cube assemblers, :mod:`.grouped` :func:`from_grouped` (the cube
of a ``GROUP BY`` an engine ran). (``multilabel_metrics``, the metrics of a
multilabel predictions frame, is :func:`cvframe.measure.multilabel_metrics_from_frame`; the
old name still works here, with a FutureWarning.)
"""

from __future__ import annotations

from ..errors import ColumnError
from .grouped import from_grouped
from .multilabel import multilabel_metrics as multilabel_metrics  # deprecated name
from .predictions import FRAME_DIMS, counts_from_frame, from_predictions
from .tables import from_confusion, from_counts

__all__ = [
    "FRAME_DIMS",
    "ColumnError",
    "counts_from_frame",
    "from_confusion",
    "from_counts",
    "from_grouped",
    "from_predictions",
]
