"""Which aggregation did a tool report, and why do two reported numbers disagree?

A paper's "F1 = 0.873 (10-fold CV)" is one of several numbers the same folds give: the pooled
F (:math:`F_{tp,fp}`), the mean of per-fold F (:math:`F_{avg}`), F of the mean precision and
recall (:math:`F_{pr,re}`), their variants that skip undefined folds, and — for multiclass —
macro, micro and weighted averages of each; per repeat or averaged over repeats.
:func:`explain` computes them all from the folds and says which ones one reported number
matches within the rounding its digits allow, and how far it is from the recommended pooled
aggregation (Forman & Scholz 2010). :func:`reconcile` does it for two numbers at once and
splits the gap between them into additive parts: repeat handling, undefined folds, fold-size
weighting, and the aggregation itself (the fold-to-fold calibration shift for AUC).

Layout: ``_core`` (:func:`explain`, the reported-number parser and the tables of what each
aggregation is and which tools report it), ``_reconcile`` (:func:`reconcile`) and
``_recipes`` (how a recipe is computed).
"""

from __future__ import annotations

from ._core import Explanation, explain
from ._reconcile import Reconciliation, reconcile

__all__ = ["Explanation", "Reconciliation", "explain", "reconcile"]
