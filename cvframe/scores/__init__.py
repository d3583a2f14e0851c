"""Score-based metrics under cross-validation: AUC, average precision, precision at k.

``method="avg"`` computes a metric on every fold's test set, then averages the defined folds
(AUC_avg); ``"merge"`` pools the scores of all folds of a repeat (AUC_merge); ``"fold"`` keeps
the per-fold values (Forman & Scholz 2010, §2.4 and §3.2). Every function reads the
predictions frame (``fold``, optional ``repeat``, ``y_true`` and ``score`` or one
``score_<label>`` per class) and returns a DataArray over ``class`` (plus ``repeat``).

Layout: :mod:`._keys` and :mod:`._rank` (the one packed sort), :mod:`._driver` (the one
driver), :mod:`.ranking`, :mod:`.bep`, :mod:`.curves`, :mod:`.thresholds`,
:mod:`.calibration` (over the sums of :mod:`._sums`) and :mod:`.cost`; :mod:`._counted` reads a
score-count table (the ``GROUP BY`` of an engine) as the runs of tied scores it holds, and
:mod:`.counts` reduces a frame to one (:func:`score_counts`) and bounds what binning costs
(:func:`auc_tie_bound`).
"""

from __future__ import annotations

from ._counted import COUNTED as COUNTED  # attrs key: a score-count table's count column
from ._counted import counted_cube as counted_cube  # how intervals count a score table
from ._counted import reduces as reduces  # whether a score metric reduces a dask frame
from ._parsed import ParsedFrame, one_parse, parse
from .bep import break_even_point
from .calibration import brier, brier_decomposition, calibration_curve, log_loss
from .cost import expected_cost, iso_cost_slope, optimal_operating_point, roc_hull
from .counts import auc_tie_bound, score_counts
from .curves import roc, score_rates
from .ranking import AVERAGES as AVERAGES
from .ranking import METHODS as METHODS
from .ranking import UNDEFINED as UNDEFINED
from .ranking import Average as Average
from .ranking import Method as Method
from .ranking import Undefined as Undefined
from .ranking import auc, auc_arrays, auc_methods, average_precision, precision_at_k, r_precision
from .thresholds import metric_at_thresholds, pr_curve

__all__ = [
    "auc",
    "auc_arrays",
    "auc_methods",
    "auc_tie_bound",
    "average_precision",
    "break_even_point",
    "expected_cost",
    "iso_cost_slope",
    "optimal_operating_point",
    "brier",
    "brier_decomposition",
    "calibration_curve",
    "log_loss",
    "metric_at_thresholds",
    "one_parse",
    "parse",
    "ParsedFrame",
    "pr_curve",
    "precision_at_k",
    "r_precision",
    "roc",
    "roc_hull",
    "score_counts",
    "score_rates",
]
