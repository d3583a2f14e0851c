"""seaborn plots of cross-validation results; every function returns the Axes or FacetGrid.

The functions draw the tidy frames of :mod:`cvframe.tidy` (and the tables of
:mod:`cvframe.scores` and :mod:`cvframe.simulation`); every number comes from the core, the
plots only reshape and draw. They never call ``plt.show()``: save with
``obj.figure.savefig(path)``. matplotlib and seaborn are imported on first use.

================================  ==========================================================
``folds(ds)``                     every fold's precision, recall and F per class as points,
                                  each fold aggregation as a marked line
``methods(ds)``                   the five F aggregations side by side, with the spread
                                  across repeats
``confusion(ds)``                 the confusion matrix as a heatmap (counts or normalised)
``roc(df)``                       per-fold ROC curves and the merged one
``score_rates(df)``               per-fold FPR and TPR against the score (paper, Figure 3)
``bias(study)``                   relative bias or std of the five methods (Figures 4-8)
``fold_risk()``                   risk of a fold without positives (Figure 9)
================================  ==========================================================

The accessors expose the cube and frame plots: ``ds.cv.plot.folds()``,
``ds.cv.plot.methods()``, ``ds.cv.plot.confusion()``, ``df.cv.plot.roc()``,
``df.cv.plot.score_rates()``.
"""

from __future__ import annotations

from ..tidy import METHOD_LABELS  # noqa: F401 - the display names, as before
from .cube import DatasetPlotter, confusion, folds, methods
from .frame import DataFramePlotter, roc, score_rates
from .study import bias, fold_risk

__all__ = [
    "DataFramePlotter",
    "DatasetPlotter",
    "bias",
    "confusion",
    "fold_risk",
    "folds",
    "methods",
    "roc",
    "score_rates",
]
