"""Score-based metrics under cross-validation: AUC, average precision, precision at k.

Two ways of aggregating a ranking metric over the folds of a cross-validation
(Forman & Scholz 2010, §2.4 and §3.2): ``method="avg"`` computes the metric on every fold's
test set, then averages the defined folds (AUC_avg); ``method="merge"`` pools the scores of all
folds of a repeat and computes it once (AUC_merge); ``method="fold"`` keeps the per-fold values.

Every function reads the predictions frame: columns ``fold``, optional ``repeat``,
``y_true`` and either one ``score`` column (binary; higher means more positive) or one
``score_<label>`` column per class (multiclass, one-vs-all). The result is a DataArray over
``class`` (length 1 holding ``pos_label`` for binary tasks) plus ``repeat`` when the frame has a
repeat column; ``fold`` is reduced unless ``method="fold"``.

Layout: :mod:`._rank` (numpy only: packed keys, one sort, ranks and tie runs),
:mod:`._frame` (reading the frame on the package's label policy), :mod:`.ranking` (one driver
for the four metrics), :mod:`.curves` (ROC points and score rates), :mod:`.calibration`
(Brier score, its calibration/refinement decomposition and log-loss: means over samples).
"""

from __future__ import annotations

from .bep import break_even_point
from .calibration import brier, brier_decomposition, log_loss
from .cost import expected_cost, iso_cost_slope, optimal_operating_point, roc_hull
from .curves import roc, score_rates
from .ranking import (
    AVERAGES as AVERAGES,
)
from .ranking import (
    METHODS as METHODS,
)
from .ranking import (
    UNDEFINED as UNDEFINED,
)
from .ranking import (
    Average as Average,
)
from .ranking import (
    Method as Method,
)
from .ranking import (
    Undefined as Undefined,
)
from .ranking import (
    auc,
    auc_methods,
    average_precision,
    precision_at_k,
    r_precision,
)

__all__ = [
    "auc",
    "auc_methods",
    "average_precision",
    "break_even_point",
    "expected_cost",
    "iso_cost_slope",
    "optimal_operating_point",
    "brier",
    "brier_decomposition",
    "log_loss",
    "precision_at_k",
    "r_precision",
    "roc",
    "roc_hull",
    "score_rates",
]
