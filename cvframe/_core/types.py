"""Type aliases shared by the public signatures: every option is a ``Literal``."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Literal

#: One dimension name, several, or None.
Dims = str | Iterable[Hashable] | None
#: scikit-learn's ``zero_division``: "warn" (0 with one warning), 0.0, 1.0 or np.nan.
ZeroDivision = Literal["warn"] | float
#: How folds are aggregated (``None`` keeps the fold dimension).
FoldMethod = Literal["tp_fp", "avg", "pr_re", None]
#: Fold aggregations of Cohen's kappa.
KappaFoldMethod = Literal["tp_fp", "avg", None]
#: Metrics that can be averaged over classes (:data:`cvframe.multiclass.METRICS`; literal for
#: the type checker, ``tests/test_metric_registry.py`` checks it against the registry).
Metric = Literal["precision", "recall", "f", "accuracy", "specificity", "jaccard"]
#: Metrics :func:`cvframe.reduce.aggregate` aggregates over folds (the rows of
#: :data:`cvframe.formulas.METRIC_SPECS`).
CellMetric = Literal[
    "precision",
    "recall",
    "f",
    "accuracy",
    "specificity",
    "jaccard",
    "error",
    "mcc",
    "balanced_accuracy",
]
#: The two definitions of macro-F in use.
Definition = Literal["mean", "f_of_means"]
#: Accuracy per fold (None), pooled over folds or averaged over folds.
How = Literal["pooled", "avg", None]
