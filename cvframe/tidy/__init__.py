"""The long (tidy) frames that the plots and the report draw.

Every number a plot or the report shows is computed here, from the core reductions
(:mod:`cvframe.reduce`, :mod:`cvframe.multiclass`, :mod:`cvframe.scores`,
:mod:`cvframe.formulas`); the outer layers only reshape and draw.

================================  ==========================================================
``fold_table(ds)``                every fold's counts, precision, recall, F and validity
``methods_table(ds)``             the five F aggregations per class (and user dim)
``metric_table(ds)``              every count metric of the registry, pooled and fold-averaged
``fold_aggregates(ds)``           the aggregation lines of ``plot.folds``: pooled and
                                  fold-averaged precision and recall, the five F methods
``confusion_table(ds)``           the confusion matrix summed over folds, long, optionally
                                  normalised
``class_averages(ds)``            macro / micro / weighted F, kappa and accuracy of a
                                  multiclass cube (mean over repeats)
``over_repeats(frame, by, cols)`` a per-repeat table as its mean (and sd) over repeats
``all_folds(ds)``                 the folds of every repeat on one ``fold`` dim
``roc_table(df)``                 every fold's and the merged ROC curve with its AUC
``cost_roc_table(df)``            ROC points, convex hull and optimal operating point
``bias_table(study)``             a bias study as a long frame, ``stratified`` as labels
``fold_risk_table(risk)``         the risk of a fold without positives (Figure 9)
``f_surface_table(kind)``         F over precision x recall or FPR x TPR (Figure 1)
================================  ==========================================================

Cells that are not folds (all four counts 0, or all NaN: the padding of ``xr.concat`` of
cubes with different folds, or of repeats with different fold ids) are not rows of these
frames and enter no average.

Layout: ``_common`` (one reading of the cube, one warning per call, the one mean over
repeats), ``cube`` (frames of a counts cube), ``curves`` (frames of a predictions frame with
scores), ``figures`` (bias study, Figure 9, Figure 1).
"""

from __future__ import annotations

from ._common import LINES, METHOD_LABELS, all_folds, extra_dims, over_repeats
from .cube import (
    class_averages,
    confusion_table,
    fold_aggregates,
    fold_table,
    methods_table,
    metric_table,
)
from .curves import PARTS, cost_roc_table, roc_table
from .figures import SURFACE_AXES, bias_table, f_surface_table, fold_risk_table

__all__ = [
    "LINES",
    "METHOD_LABELS",
    "PARTS",
    "SURFACE_AXES",
    "all_folds",
    "bias_table",
    "class_averages",
    "confusion_table",
    "cost_roc_table",
    "extra_dims",
    "f_surface_table",
    "fold_aggregates",
    "fold_risk_table",
    "fold_table",
    "methods_table",
    "metric_table",
    "over_repeats",
    "roc_table",
]
