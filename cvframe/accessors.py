"""The ``ds.cv`` and ``df.cv`` accessors: one-line facades over the module functions.

Accessors hold no state (``__slots__ = ("_obj",)``), cache nothing and validate nothing in
``__init__``; each method has the explicit signature and the docstring of the function it
delegates to (the function API is the typed API; the accessor is sugar).

The modules delegated to import only numpy, pandas, xarray (and scipy lazily); plotting
(matplotlib/seaborn) is imported on first use of the ``plot`` namespaces.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

import pandas as pd
import xarray as xr

from . import bootstrap, build, diagnostics, multiclass, reduce, report, scores
from ._types import Dims, ZeroDivision

F = TypeVar("F", bound=Callable[..., Any])


def _doc_from(func: Callable[..., Any]) -> Callable[[F], F]:
    """Give the accessor method the docstring of the function it delegates to."""

    def deco(method: F) -> F:
        method.__doc__ = func.__doc__
        functools.update_wrapper(method, func, assigned=("__doc__",), updated=())
        return method

    return deco


@xr.register_dataset_accessor("cv")
class CVDatasetAccessor:
    """Cross-validation metrics of a counts cube: ``ds.cv.f_tp_fp()``, ``ds.cv.macro()``, ...

    Every reducing method takes ``dim=`` (default ``"fold"``) and keeps every other dimension.
    """

    __slots__ = ("_obj",)

    def __init__(self, ds: xr.Dataset) -> None:
        self._obj = ds

    # --- per fold (core) -------------------------------------------------------------------
    @_doc_from(reduce.precision)
    def precision(self, *, zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return reduce.precision(self._obj, zero_division=zero_division)

    @_doc_from(reduce.recall)
    def recall(self, *, zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return reduce.recall(self._obj, zero_division=zero_division)

    @_doc_from(reduce.f)
    def f(self, beta: float = 1.0, *, zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return reduce.f(self._obj, beta=beta, zero_division=zero_division)

    @_doc_from(reduce.accuracy)
    def accuracy(self, how: str | None = None, dim: Dims = "fold", *,
                 zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return reduce.accuracy(self._obj, how=how, dim=dim, zero_division=zero_division)

    @_doc_from(reduce.error_rate)
    def error_rate(self, how: str | None = None, dim: Dims = "fold", *,
                   zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return reduce.error_rate(self._obj, how=how, dim=dim, zero_division=zero_division)

    @_doc_from(reduce.specificity)
    def specificity(self, *, zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return reduce.specificity(self._obj, zero_division=zero_division)

    @_doc_from(reduce.valid)
    def valid(self) -> xr.DataArray:
        return reduce.valid(self._obj)

    # --- fold aggregation (core) -----------------------------------------------------------
    @_doc_from(reduce.pooled)
    def pooled(self, dim: Dims = "fold") -> xr.Dataset:
        return reduce.pooled(self._obj, dim=dim)

    @_doc_from(reduce.f_tp_fp)
    def f_tp_fp(self, beta: float = 1.0, *, dim: Dims = "fold",
                zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return reduce.f_tp_fp(self._obj, dim, beta=beta, zero_division=zero_division)

    @_doc_from(reduce.f_avg)
    def f_avg(self, beta: float = 1.0, skip_undefined: bool = False, *, dim: Dims = "fold",
              zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return reduce.f_avg(self._obj, dim, beta=beta, skip_undefined=skip_undefined,
                            zero_division=zero_division)

    @_doc_from(reduce.f_pr_re)
    def f_pr_re(self, beta: float = 1.0, skip_undefined: bool = False, *, dim: Dims = "fold",
                zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return reduce.f_pr_re(self._obj, dim, beta=beta, skip_undefined=skip_undefined,
                              zero_division=zero_division)

    @_doc_from(reduce.f_methods)
    def f_methods(self, beta: float = 1.0, *, dim: Dims = "fold",
                  zero_division: ZeroDivision = "warn") -> xr.Dataset:
        return reduce.f_methods(self._obj, dim, beta=beta, zero_division=zero_division)

    # --- multiclass and repeats (issue 3: cvframe/multiclass.py) -----------------------------
    @_doc_from(multiclass.macro)
    def macro(self, metric: str = "f", fold_method: str | None = "tp_fp",
              definition: str = "mean", beta: float = 1.0, *, dim: Dims = "fold",
              zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return multiclass.macro(self._obj, metric, fold_method, definition, beta, dim=dim,
                                zero_division=zero_division)

    @_doc_from(multiclass.micro)
    def micro(self, metric: str = "f", fold_method: str | None = "tp_fp", beta: float = 1.0,
              *, dim: Dims = "fold", zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return multiclass.micro(self._obj, metric, fold_method, beta, dim=dim,
                                zero_division=zero_division)

    @_doc_from(multiclass.weighted)
    def weighted(self, metric: str = "f", fold_method: str | None = "tp_fp",
                 beta: float = 1.0, *, dim: Dims = "fold",
                 zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return multiclass.weighted(self._obj, metric, fold_method, beta, dim=dim,
                                   zero_division=zero_division)

    @_doc_from(multiclass.kappa)
    def kappa(self, fold_method: str | None = "tp_fp", *, dim: Dims = "fold",
              zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return multiclass.kappa(self._obj, fold_method, dim=dim, zero_division=zero_division)

    @_doc_from(multiclass.confusion)
    def confusion(self, dim: Dims = "fold") -> xr.DataArray:
        return multiclass.confusion(self._obj, dim)

    @_doc_from(multiclass.summary)
    def summary(self, result: xr.DataArray | xr.Dataset | None = None, dim: str = "repeat",
                ci: float = 0.95) -> xr.Dataset:
        return multiclass.summary(self._obj, result, dim, ci)

    # --- .632 bootstrap (issue 5: cvframe/bootstrap.py) -------------------------------------
    @_doc_from(bootstrap.bootstrap_632)
    def bootstrap_632(self, metric: str = "error", plus: bool = False, *,
                      dim: Dims = "fold") -> xr.DataArray:
        return bootstrap.bootstrap_632(self._obj, metric=metric, plus=plus, dim=dim)

    # --- diagnostics, report and plots (issue 7) --------------------------------------------
    @_doc_from(diagnostics.anomalies)
    def anomalies(self, *, tolerance: float = 0.05, alpha: float = 0.01,
                  beta: float = 1.0) -> pd.DataFrame:
        return diagnostics.anomalies(self._obj, tolerance=tolerance, alpha=alpha, beta=beta)

    @_doc_from(report.report)
    def report(self, *, scores: pd.DataFrame | None = None, format: str = "text",
               zero_division: ZeroDivision = 0.0, beta: float = 1.0, tolerance: float = 0.05,
               alpha: float = 0.01, plots: bool = True, max_fold_rows: int = 40,
               y_true: str = "y_true", fold: str = "fold", repeat: str | None = "repeat",
               score: str = "score") -> str:
        return report.report(self._obj, scores=scores, format=format, zero_division=zero_division,
                      beta=beta, tolerance=tolerance, alpha=alpha, plots=plots,
                      max_fold_rows=max_fold_rows, y_true=y_true, fold=fold, repeat=repeat,
                      score=score)

    @property
    def plot(self) -> Any:
        """Plots of the cube: ``.folds()``, ``.methods()``, ``.confusion()`` (cvframe.plot)."""
        from .plot import DatasetPlotter
        return DatasetPlotter(self._obj)


@pd.api.extensions.register_dataframe_accessor("cv")
class CVDataFrameAccessor:
    """Cross-validation metrics of a predictions frame (one row per tested sample).

    Columns: ``fold``, optional ``repeat``, ``y_true``, ``y_pred`` and scores (``score`` for
    binary, ``score_<label>`` per class); every method takes the column names as arguments.
    """

    __slots__ = ("_obj",)

    def __init__(self, df: pd.DataFrame) -> None:
        self._obj = df

    @_doc_from(build.counts_from_frame)
    def counts(self, labels: Sequence[Hashable] | None = None, pos_label: Hashable | None = None,
               *, y_true: str = "y_true", y_pred: str = "y_pred", fold: str = "fold",
               repeat: str | None = "repeat", sample_weight: str | None = None) -> xr.Dataset:
        return build.counts_from_frame(self._obj, labels=labels, pos_label=pos_label,
                                       y_true=y_true, y_pred=y_pred, fold=fold, repeat=repeat,
                                       sample_weight=sample_weight)

    # --- scores (issue 4: cvframe/scores.py) ------------------------------------------------
    @_doc_from(scores.auc)
    def auc(self, method: str = "avg", undefined: str = "skip", *,
            average: str | None = None, labels: Sequence[Hashable] | None = None,
            pos_label: Hashable | None = None, y_true: str = "y_true", fold: str = "fold",
            repeat: str | None = "repeat", score: str = "score") -> xr.DataArray:
        return scores.auc(self._obj, method, undefined, average=average, labels=labels,
            pos_label=pos_label, y_true=y_true, fold=fold, repeat=repeat, score=score)

    @_doc_from(scores.auc_methods)
    def auc_methods(self, undefined: str = "skip", *, average: str | None = None,
            labels: Sequence[Hashable] | None = None,
            pos_label: Hashable | None = None, y_true: str = "y_true", fold: str = "fold",
            repeat: str | None = "repeat", score: str = "score") -> xr.Dataset:
        return scores.auc_methods(self._obj, undefined, average=average, labels=labels,
            pos_label=pos_label, y_true=y_true, fold=fold, repeat=repeat, score=score)

    @_doc_from(scores.average_precision)
    def average_precision(self, method: str = "avg", undefined: str = "skip", *,
            average: str | None = None, labels: Sequence[Hashable] | None = None,
            pos_label: Hashable | None = None, y_true: str = "y_true", fold: str = "fold",
            repeat: str | None = "repeat", score: str = "score") -> xr.DataArray:
        return scores.average_precision(self._obj, method, undefined, average=average,
            labels=labels, pos_label=pos_label, y_true=y_true, fold=fold, repeat=repeat,
            score=score)

    @_doc_from(scores.precision_at_k)
    def precision_at_k(self, k: int, method: str = "avg", undefined: str = "skip", *,
            average: str | None = None, labels: Sequence[Hashable] | None = None,
            pos_label: Hashable | None = None, y_true: str = "y_true", fold: str = "fold",
            repeat: str | None = "repeat", score: str = "score") -> xr.DataArray:
        return scores.precision_at_k(self._obj, k, method, undefined, average=average,
            labels=labels, pos_label=pos_label, y_true=y_true, fold=fold, repeat=repeat,
            score=score)

    @_doc_from(scores.r_precision)
    def r_precision(self, method: str = "avg", undefined: str = "skip", *,
            average: str | None = None, labels: Sequence[Hashable] | None = None,
            pos_label: Hashable | None = None, y_true: str = "y_true", fold: str = "fold",
            repeat: str | None = "repeat", score: str = "score") -> xr.DataArray:
        return scores.r_precision(self._obj, method, undefined, average=average,
            labels=labels, pos_label=pos_label, y_true=y_true, fold=fold, repeat=repeat,
            score=score)

    @_doc_from(scores.roc)
    def roc(self, undefined: str = "skip", *, labels: Sequence[Hashable] | None = None,
            pos_label: Hashable | None = None, y_true: str = "y_true", fold: str = "fold",
            repeat: str | None = "repeat", score: str = "score") -> pd.DataFrame:
        return scores.roc(self._obj, undefined, labels=labels,
            pos_label=pos_label, y_true=y_true, fold=fold, repeat=repeat, score=score)

    @_doc_from(scores.score_rates)
    def score_rates(self, undefined: str = "skip", *, labels: Sequence[Hashable] | None = None,
            pos_label: Hashable | None = None, y_true: str = "y_true", fold: str = "fold",
            repeat: str | None = "repeat", score: str = "score") -> pd.DataFrame:
        return scores.score_rates(self._obj, undefined, labels=labels,
            pos_label=pos_label, y_true=y_true, fold=fold, repeat=repeat, score=score)

    # --- plots (issue 7) --------------------------------------------------------------------
    @property
    def plot(self) -> Any:
        """Plots of the predictions frame: ``.roc()``, ``.score_rates()`` (cvframe.plot)."""
        from .plot import DataFramePlotter
        return DataFramePlotter(self._obj)
