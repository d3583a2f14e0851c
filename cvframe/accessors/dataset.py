"""``ds.cv``: the accessor of a counts cube, one call per method to its module function (the
docstrings are the functions', stored by ``python -m cvframe.accessors.generate``)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd
import xarray as xr

from .._core.types import (
    CellMetric,
    Definition,
    Dims,
    FoldMethod,
    How,
    KappaFoldMethod,
    Metric,
    ZeroDivision,
)
from ._common import Accessor, args, documented, lazy
from ._hints import plot_namespaces

if TYPE_CHECKING:
    from .. import multiclass, reduce
else:
    multiclass, reduce = lazy("multiclass", "reduce")
bootstrap, comparison, diagnostics, intervals, repeats, report, scores = lazy(
    "bootstrap", "comparison", "diagnostics", "intervals", "repeats", "report", "scores"
)

__all__ = ["CVDatasetAccessor"]


@xr.register_dataset_accessor("cv")
@documented
class CVDatasetAccessor(Accessor):
    """Cross-validation metrics of a counts cube: ``ds.cv.f_tp_fp()``, ``ds.cv.macro()``, ...

    Every reducing method takes ``dim=`` (default ``"fold"``) and keeps every other dimension.
    """

    __slots__ = ()

    # --- per fold (core) -------------------------------------------------------------------
    def precision(self, *, zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return reduce.precision(self._obj, **args(locals()))

    def recall(self, *, zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return reduce.recall(self._obj, **args(locals()))

    def f(self, beta: float = 1.0, *, zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return reduce.f(self._obj, **args(locals()))

    def accuracy(
        self, how: How = None, dim: Dims = "fold", *, zero_division: ZeroDivision = "warn"
    ) -> xr.DataArray:
        return reduce.accuracy(self._obj, **args(locals()))

    def error_rate(
        self, how: How = None, dim: Dims = "fold", *, zero_division: ZeroDivision = "warn"
    ) -> xr.DataArray:
        return reduce.error_rate(self._obj, **args(locals()))

    def specificity(self, *, zero_division: ZeroDivision = "warn") -> xr.DataArray:
        return reduce.specificity(self._obj, **args(locals()))

    def valid(self) -> xr.DataArray:
        return reduce.valid(self._obj, **args(locals()))

    # --- fold aggregation (core) -----------------------------------------------------------
    def pooled(self, dim: Dims = "fold") -> xr.Dataset:
        return reduce.pooled(self._obj, **args(locals()))

    def aggregate(
        self,
        metric: CellMetric = "f",
        fold_method: FoldMethod = "tp_fp",
        *,
        dim: Dims = "fold",
        beta: float = 1.0,
        skip_undefined: bool = False,
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return reduce.aggregate(self._obj, **args(locals()))

    def f_tp_fp(
        self, beta: float = 1.0, *, dim: Dims = "fold", zero_division: ZeroDivision = "warn"
    ) -> xr.DataArray:
        return reduce.f_tp_fp(self._obj, **args(locals()))

    def f_avg(
        self,
        beta: float = 1.0,
        skip_undefined: bool = False,
        *,
        dim: Dims = "fold",
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return reduce.f_avg(self._obj, **args(locals()))

    def f_pr_re(
        self,
        beta: float = 1.0,
        skip_undefined: bool = False,
        *,
        dim: Dims = "fold",
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return reduce.f_pr_re(self._obj, **args(locals()))

    def f_methods(
        self, beta: float = 1.0, *, dim: Dims = "fold", zero_division: ZeroDivision = "warn"
    ) -> xr.Dataset:
        return reduce.f_methods(self._obj, **args(locals()))

    # --- class averages, multiclass and repeats ------------------------------------------
    def macro(
        self,
        metric: Metric = "f",
        fold_method: FoldMethod = "tp_fp",
        definition: Definition = "mean",
        beta: float = 1.0,
        *,
        dim: Dims = "fold",
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return multiclass.macro(self._obj, **args(locals()))

    def micro(
        self,
        metric: Metric = "f",
        fold_method: FoldMethod = "tp_fp",
        beta: float = 1.0,
        *,
        dim: Dims = "fold",
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return multiclass.micro(self._obj, **args(locals()))

    def weighted(
        self,
        metric: Metric = "f",
        fold_method: FoldMethod = "tp_fp",
        beta: float = 1.0,
        *,
        dim: Dims = "fold",
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return multiclass.weighted(self._obj, **args(locals()))

    def kappa(
        self,
        fold_method: KappaFoldMethod = "tp_fp",
        *,
        dim: Dims = "fold",
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return multiclass.kappa(self._obj, **args(locals()))

    def confusion(self, dim: Dims = "fold") -> xr.DataArray:
        return multiclass.confusion(self._obj, **args(locals()))

    def summary(
        self,
        result: xr.DataArray | xr.Dataset | None = None,
        dim: str = "repeat",
        level: float = 0.95,
        *,
        ddof: int = 1,
        interval: xr.Dataset | None = None,
        ci: float | None = None,
    ) -> xr.Dataset:
        return repeats.summary(self._obj, **args(locals()))

    # --- means of precision and recall, kappa's chance matrix --------------------------------
    def pr_mean(
        self,
        kind: multiclass.PRKind = "harmonic",
        fold_method: FoldMethod = "tp_fp",
        average: multiclass.PRAverage = None,
        *,
        beta: float = 1.0,
        dim: Dims = "fold",
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return multiclass.pr_mean(self._obj, **args(locals()))

    def kappa_expected(self, dim: Dims = "fold") -> xr.DataArray:
        return multiclass.kappa_expected(self._obj, **args(locals()))

    # --- .632 bootstrap ----------------------------------------------------------------------
    def bootstrap_632(
        self, metric: str = "error", plus: bool = False, *, dim: Dims = "fold"
    ) -> xr.DataArray:
        return bootstrap.bootstrap_632(self._obj, **args(locals()))

    # --- cost-sensitive analysis --------------------------------------------------------------
    def expected_cost(
        self,
        cost_matrix: Any = None,
        how: How = None,
        dim: Dims = "fold",
        *,
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return scores.expected_cost(self._obj, **args(locals()))

    # --- diagnostics, report and plots -------------------------------------------------------
    def anomalies(
        self,
        *,
        tolerance: float = 0.05,
        alpha: float = 0.01,
        beta: float = 1.0,
        scores: pd.DataFrame | None = None,
        methods: pd.DataFrame | None = None,
        frame: pd.DataFrame | None = None,
        gap: float = 0.1,
        level: float = 0.95,
        fold_auc: xr.DataArray | None = None,
    ) -> pd.DataFrame:
        return diagnostics.anomalies(self._obj, **args(locals()))

    def report(
        self,
        *,
        scores: pd.DataFrame | None = None,
        format: str = "text",
        title: str | None = None,
        zero_division: ZeroDivision = 0.0,
        beta: float = 1.0,
        tolerance: float = 0.05,
        alpha: float = 0.01,
        plots: bool = True,
        max_fold_rows: int = 40,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> str:
        return report.report(self._obj, **args(locals()))

    # --- paired comparison of models -----------------------------------------------------------
    def compare(
        self,
        metric: str = "f_tp_fp",
        *,
        baseline: Hashable | None = None,
        dim: str = "model",
        test: str = "auto",
        level: float = 0.95,
        n_resamples: int = 2000,
        random_state: int | None = None,
        rope: float = 0.01,
        beta: float = 1.0,
        zero_division: ZeroDivision = "warn",
        average: str | None = "macro",
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        y_pred: str = "y_pred",
        score: str = "score",
        fold: str = "fold",
        repeat: str | None = "repeat",
        sample: str | None = "sample",
        alpha: float | None = None,
    ) -> xr.Dataset:
        return comparison.compare(self._obj, **args(locals()))

    # --- how sure: interval ---)
    def interval(
        self,
        metric: str = "f",
        *,
        fold_method: str | None = None,
        method: str = "auto",
        level: float = 0.95,
        beta: float = 1.0,
        zero_division: ZeroDivision = "warn",
        average: str | None = None,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        n_boot: int = 2000,
        random_state: int | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
        certify: bool = False,
    ) -> xr.Dataset:
        return intervals.interval(self._obj, **args(locals()))

    # --- repeated CV: variance components ---
    def variance_components(
        self,
        metric: str = "f",
        *,
        beta: float = 1.0,
        zero_division: ZeroDivision = "warn",
        dim: str = "fold",
        dim_repeat: str = "repeat",
    ) -> xr.Dataset:
        return repeats.variance_components(self._obj, **args(locals()))

    def fold_composition(self, *, dim: str = "fold") -> xr.Dataset:
        return repeats.fold_composition(self._obj, **args(locals()))

    # --- multilabel ---
    def f_samples(
        self,
        fold_method: reduce.multilabel.MLFoldMethod = "tp_fp",
        dim: Dims = "fold",
        *,
        beta: float = 1.0,
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return reduce.f_samples(self._obj, **args(locals()))

    def jaccard(
        self,
        average: reduce.multilabel.JaccardAverage = "samples",
        fold_method: reduce.multilabel.MLFoldMethod = "tp_fp",
        dim: Dims = "fold",
        *,
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return reduce.jaccard(self._obj, **args(locals()))

    def subset_accuracy(
        self,
        fold_method: reduce.multilabel.MLFoldMethod = "tp_fp",
        dim: Dims = "fold",
        *,
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return reduce.subset_accuracy(self._obj, **args(locals()))

    def hamming_loss(
        self,
        fold_method: reduce.multilabel.MLFoldMethod = "tp_fp",
        dim: Dims = "fold",
        *,
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return reduce.hamming_loss(self._obj, **args(locals()))

    def multilabel_metrics(
        self,
        fold_method: reduce.multilabel.MLFoldMethod = "tp_fp",
        dim: Dims = "fold",
        *,
        beta: float = 1.0,
        zero_division: ZeroDivision = "warn",
    ) -> xr.Dataset:
        return reduce.multilabel_metrics(self._obj, **args(locals()))

    @property
    def plot(self) -> Any:
        """Plots of the cube: ``.folds()``, ``.methods()``, ``.confusion()`` (cvframe.plot)."""
        plotter, _ = plot_namespaces()
        return plotter(self._obj)
