"""``df.cv``: the accessor of a predictions frame, one call per method to its module function
(the docstrings are the functions', stored by ``python -m cvframe.accessors.generate``)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd
import xarray as xr

from .._core.types import Dims, ZeroDivision
from ._common import Accessor, args, documented, lazy
from ._hints import plot_namespaces

if TYPE_CHECKING:
    from .. import reduce
build, comparison, intervals, measure, scores = lazy(
    "build", "comparison", "intervals", "measure", "scores"
)

__all__ = ["CVDataFrameAccessor"]


@pd.api.extensions.register_dataframe_accessor("cv")
@documented
class CVDataFrameAccessor(Accessor):
    """Cross-validation metrics of a predictions frame (one row per tested sample).

    Columns: ``fold``, optional ``repeat``, ``y_true``, ``y_pred`` and scores (``score`` for
    binary, ``score_<label>`` per class); every method takes the column names as arguments.
    """

    __slots__ = ()

    def counts(
        self,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        *,
        y_true: str = "y_true",
        y_pred: str = "y_pred",
        fold: str = "fold",
        repeat: str | None = "repeat",
        sample_weight: str | None = None,
        dims: Sequence[str] | None = None,
    ) -> xr.Dataset:
        return build.counts_from_frame(self._obj, **args(locals()))

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

    # --- scores ------------------------------------------------------------------------------
    def auc(
        self,
        method: str = "avg",
        undefined: str = "skip",
        *,
        average: str | None = None,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> xr.DataArray:
        return scores.auc(self._obj, **args(locals()))

    def auc_methods(
        self,
        undefined: str = "skip",
        *,
        average: str | None = None,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> xr.Dataset:
        return scores.auc_methods(self._obj, **args(locals()))

    def average_precision(
        self,
        method: str = "avg",
        undefined: str = "skip",
        *,
        average: str | None = None,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> xr.DataArray:
        return scores.average_precision(self._obj, **args(locals()))

    def precision_at_k(
        self,
        k: int,
        method: str = "avg",
        undefined: str = "skip",
        *,
        average: str | None = None,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> xr.DataArray:
        return scores.precision_at_k(self._obj, **args(locals()))

    def r_precision(
        self,
        method: str = "avg",
        undefined: str = "skip",
        *,
        average: str | None = None,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> xr.DataArray:
        return scores.r_precision(self._obj, **args(locals()))

    def auc_tie_bound(
        self,
        method: str = "merge",
        undefined: str = "skip",
        *,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> xr.DataArray:
        return scores.auc_tie_bound(self._obj, **args(locals()))

    def score_counts(
        self,
        *,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
        digits: int | None = None,
    ) -> pd.DataFrame:
        return scores.score_counts(self._obj, **args(locals()))

    def roc(
        self,
        undefined: str = "skip",
        *,
        auc: bool = False,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> pd.DataFrame:
        return scores.roc(self._obj, **args(locals()))

    def score_rates(
        self,
        undefined: str = "skip",
        *,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> pd.DataFrame:
        return scores.score_rates(self._obj, **args(locals()))

    # --- break-even point over thresholds ----------------------------------------------------
    def break_even_point(
        self,
        method: str = "avg",
        undefined: str = "skip",
        *,
        average: str | None = None,
        return_threshold: bool = False,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> xr.DataArray | xr.Dataset:
        return scores.break_even_point(self._obj, **args(locals()))

    # --- calibration: Brier score, its decomposition, log-loss ------------------------------
    def brier(
        self,
        method: str = "avg",
        undefined: str = "skip",
        *,
        average: str | None = None,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> xr.DataArray:
        return scores.brier(self._obj, **args(locals()))

    def brier_decomposition(
        self,
        method: str = "avg",
        undefined: str = "skip",
        *,
        bins: int | None = 10,
        average: str | None = None,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> xr.Dataset:
        return scores.brier_decomposition(self._obj, **args(locals()))

    def log_loss(
        self,
        method: str = "avg",
        undefined: str = "skip",
        *,
        average: str | None = None,
        eps: float | str = "auto",
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> xr.DataArray:
        return scores.log_loss(self._obj, **args(locals()))

    # --- cost-sensitive ROC -------------------------------------------------------------------
    def roc_hull(
        self,
        method: str | None = None,
        undefined: str = "skip",
        *,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> pd.DataFrame:
        return scores.roc_hull(self._obj, **args(locals()))

    def optimal_operating_point(
        self,
        cost_fp: float = 1.0,
        cost_fn: float = 1.0,
        prevalence: float | None = None,
        method: str = "fold",
        undefined: str = "skip",
        *,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> xr.Dataset:
        return scores.optimal_operating_point(self._obj, **args(locals()))

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

    # --- thresholds and curves ---
    def metric_at_thresholds(
        self,
        metric: str | None = "f",
        thresholds: Sequence[float] | None = None,
        *,
        method: str = "both",
        beta: float = 1.0,
        zero_division: ZeroDivision = "warn",
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> pd.DataFrame:
        return scores.metric_at_thresholds(self._obj, **args(locals()))

    def pr_curve(
        self,
        method: str = "both",
        undefined: str = "skip",
        *,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> pd.DataFrame:
        return scores.pr_curve(self._obj, **args(locals()))

    def calibration_curve(
        self,
        bins: int = 10,
        method: str = "both",
        strategy: str = "uniform",
        *,
        labels: Sequence[Hashable] | None = None,
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        fold: str = "fold",
        repeat: str | None = "repeat",
        score: str = "score",
    ) -> pd.DataFrame:
        return scores.calibration_curve(self._obj, **args(locals()))

    # --- multilabel ---
    def multilabel_metrics(
        self,
        fold_method: reduce.multilabel.MLFoldMethod = "tp_fp",
        dim: Dims = "fold",
        *,
        beta: float = 1.0,
        zero_division: ZeroDivision = "warn",
        labels: Sequence[Hashable] | None = None,
        y_true: str = "y_true",
        y_pred: str = "y_pred",
        fold: str = "fold",
        repeat: str | None = "repeat",
        sample_weight: str | None = None,
        dims: Sequence[str] | None = None,
    ) -> xr.Dataset:
        return measure.multilabel_metrics_from_frame(self._obj, **args(locals()))

    # --- plots -------------------------------------------------------------------------------
    @property
    def plot(self) -> Any:
        """Plots of the predictions frame: ``.roc()``, ``.score_rates()`` (cvframe.plot)."""
        _, plotter = plot_namespaces()
        return plotter(self._obj)
