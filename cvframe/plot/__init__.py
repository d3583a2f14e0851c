"""seaborn plots of cross-validation results; every function returns the Axes or FacetGrid.

The functions draw the tidy frames of :mod:`cvframe.tidy` (and the tables of
:mod:`cvframe.scores` and :mod:`cvframe.simulation`); every number comes from the core, the
plots only reshape and draw. They follow seaborn's conventions: axes-level functions take
``ax=`` and return the Axes; figure-level ones take ``data`` (the cube or frame, or its tidy
frame filtered with pandas), ``hue``/``col``/``row``/``col_wrap``/``height``/``aspect``/
``palette`` and ``**kwargs`` for the seaborn call, and return the FacetGrid; ``classes=``
picks classes. They never call ``plt.show()``; each lays its figure out so that
``g.savefig(path)`` and ``g.figure.savefig(path)`` keep every label inside.
matplotlib and seaborn are imported on first use.

================================  ==========================================================
``folds(ds)``                     every fold's precision, recall and F per class as points,
                                  each fold aggregation as a marked line
``methods(ds)``                   the five F aggregations side by side, with the spread
                                  across repeats
``confusion(ds)``                 the confusion matrix as a heatmap (counts or normalised)
``roc(df)``                       per-fold ROC curves and the merged one
``score_rates(df)``               per-fold FPR and TPR against the score (paper, Figure 3)
``pr_curve(df)``                  per-fold precision-recall curves and the merged one
``calibration(df)``               reliability diagram: folds, pooled curve, band of folds
``cost_roc(df)``                  ROC, convex hull, iso-cost line and optimal point
``f_surface()``                   F over precision x recall or FPR x TPR (paper, Figure 1)
``bias(study)``                   relative bias or std of the five methods (Figures 4-8)
``fold_risk()``                   risk of a fold without positives (Figure 9)
``differences(result)``           paired differences of a model comparison with intervals
``critical_difference(result)``   Friedman mean ranks across data sets, CD diagram
``threshold_band(frame)``         a tuned threshold's cost or metric curve with its band,
                                  the threshold's spread and the corrected score
================================  ==========================================================

The accessors expose the cube and frame plots: ``ds.cv.plot.folds()``,
``ds.cv.plot.methods()``, ``ds.cv.plot.confusion()``, ``df.cv.plot.roc()``,
``df.cv.plot.score_rates()``, ``df.cv.plot.cost_roc()``, ``df.cv.plot.pr_curve()``,
``df.cv.plot.calibration()`` (:mod:`.namespaces`).

One module per family of figures: :mod:`.aggregations` (``folds``, ``methods``),
:mod:`.confusion_matrix`, :mod:`.roc_curves`, :mod:`.rate_curves`, :mod:`.precision_recall`,
:mod:`.reliability` (the curve plots share the figure of :mod:`._facets`), :mod:`.cost`
(``cost_roc``), :mod:`.surface` (``f_surface``), :mod:`.study` (``bias``, ``fold_risk``),
:mod:`.compare` (``differences``, ``critical_difference``), :mod:`.threshold`
(``threshold_band``); :mod:`._style` holds the look
and the layout they share.
"""

from __future__ import annotations

from ..tidy import METHOD_LABELS  # noqa: F401 - the display names, as before
from .aggregations import folds, methods
from .compare import critical_difference, differences
from .confusion_matrix import confusion
from .cost import cost_roc
from .namespaces import DataFramePlotter, DatasetPlotter
from .precision_recall import pr_curve
from .rate_curves import score_rates
from .reliability import calibration
from .roc_curves import roc
from .study import bias, fold_risk
from .surface import f_surface
from .threshold import threshold_band

__all__ = [
    "DataFramePlotter",
    "DatasetPlotter",
    "bias",
    "calibration",
    "confusion",
    "cost_roc",
    "critical_difference",
    "differences",
    "f_surface",
    "fold_risk",
    "folds",
    "methods",
    "pr_curve",
    "roc",
    "score_rates",
    "threshold_band",
]
