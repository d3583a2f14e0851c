"""Per-fold metrics and fold aggregations of a counts cube: one engine, many names.

One function, :func:`aggregate`, does every fold aggregation: *pooled* (``"tp_fp"``: sum the
counts along ``dim``, then the formula), *averaged* (``"avg"``: the formula per fold, then the
mean over the real folds) and F of averaged precision and recall (``"pr_re"``). The five
F-measure aggregations of Forman & Scholz (2010, §2.3) -- ``f_tp_fp``, ``f_avg``, ``f_pr_re``
and the ``_skip`` twins of the last two, over the folds where precision and recall are
defined -- are named uses of it, and so are :func:`cvframe.multiclass.macro`, ``micro`` and
``weighted`` and the multilabel metrics of :mod:`.multilabel` (samples-averaged F and
Jaccard, subset accuracy, Hamming loss). A cell whose counts are all 0 or all NaN is not a
fold; every undefined cell has one wording (``UNDEFINED``) and a call emits one warning.

The numbers come from one kernel (:mod:`cvframe._core.kernel`: numba when installed, a numpy
fallback bit for bit the same), run through ``xarray.apply_ufunc`` so dask cubes stay lazy;
this package is the labelled layer: dims, attrs, the ``zero_division`` policy, the warning.
"""

from ..schema import read_counts
from ._engine import (
    F_METHODS,
    FOLD_METHODS,
    METRICS,
    UNDEFINED,
    FoldValues,
    Undefined,
    aggregate_counts,
    check_metric,
    class_mean,
    f_methods_counts,
    fold_dims,
    fold_mean,
    warn,
)
from .cells import accuracy, error_rate, f, precision, recall, specificity, valid
from .fmethods import aggregate, f_avg, f_methods, f_pr_re, f_tp_fp, pooled
from .multilabel import (
    JACCARD_AVERAGES,
    ML_FOLD_METHODS,
    SAMPLE_VARS,
    f_samples,
    hamming_loss,
    jaccard,
    multilabel_metrics,
    subset_accuracy,
)

__all__ = [
    "FOLD_METHODS",
    "F_METHODS",
    "JACCARD_AVERAGES",
    "ML_FOLD_METHODS",
    "SAMPLE_VARS",
    "METRICS",
    "UNDEFINED",
    "FoldValues",
    "Undefined",
    "accuracy",
    "aggregate",
    "aggregate_counts",
    "check_metric",
    "class_mean",
    "error_rate",
    "f",
    "f_avg",
    "f_methods",
    "f_methods_counts",
    "f_pr_re",
    "f_samples",
    "f_tp_fp",
    "fold_dims",
    "fold_mean",
    "hamming_loss",
    "jaccard",
    "multilabel_metrics",
    "pooled",
    "precision",
    "read_counts",
    "recall",
    "specificity",
    "subset_accuracy",
    "valid",
    "warn",
]
