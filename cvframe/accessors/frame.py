"""``df.cv``: the accessor of a predictions frame, one line per method over the module
functions."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd
import xarray as xr

from .. import build, reduce
from .._core.types import ZeroDivision
from ._common import (
    args,
    compare_doc,
    compare_function,
    doc_from,
    doc_later,
    interval_module,
    scores_module,
)
from ._hints import missing, plot_namespaces

__all__ = ["CVDataFrameAccessor"]


# The score metrics load when their method is called (and document it on its first look-up):
# ``import cvframe`` does not pay for them and what they import (``_common.scores_module``).
@pd.api.extensions.register_dataframe_accessor("cv")
class CVDataFrameAccessor:
    """Cross-validation metrics of a predictions frame (one row per tested sample).

    Columns: ``fold``, optional ``repeat``, ``y_true``, ``y_pred`` and scores (``score`` for
    binary, ``score_<label>`` per class); every method takes the column names as arguments.
    """

    __slots__ = ("_obj",)

    def __init__(self, df: pd.DataFrame) -> None:
        self._obj = df

    if not TYPE_CHECKING:  # at run time only: a type checker still flags an unknown name

        def __getattr__(self, name: str) -> Any:  # pred.cv.counts().cv.f_tp_fp()
            raise missing(self, name)

    @doc_from(build.counts_from_frame)
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
    @compare_doc
    def compare(
        self,
        metric: str = "f_tp_fp",
        *,
        baseline: Hashable | None = None,
        dim: str = "model",
        test: str = "auto",
        alpha: float = 0.05,
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
    ) -> xr.Dataset:
        return compare_function()(self._obj, **args(locals()))

    # --- scores ------------------------------------------------------------------------------
    @doc_later(scores_module)
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
        return scores_module().auc(self._obj, **args(locals()))

    @doc_later(scores_module)
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
        return scores_module().auc_methods(self._obj, **args(locals()))

    @doc_later(scores_module)
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
        return scores_module().average_precision(self._obj, **args(locals()))

    @doc_later(scores_module)
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
        return scores_module().precision_at_k(self._obj, **args(locals()))

    @doc_later(scores_module)
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
        return scores_module().r_precision(self._obj, **args(locals()))

    @doc_later(scores_module)
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
        return scores_module().roc(self._obj, **args(locals()))

    @doc_later(scores_module)
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
        return scores_module().score_rates(self._obj, **args(locals()))

    # --- break-even point over thresholds ----------------------------------------------------
    @doc_later(scores_module)
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
        return scores_module().break_even_point(self._obj, **args(locals()))

    # --- calibration: Brier score, its decomposition, log-loss ------------------------------
    @doc_later(scores_module)
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
        return scores_module().brier(self._obj, **args(locals()))

    @doc_later(scores_module)
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
        return scores_module().brier_decomposition(self._obj, **args(locals()))

    @doc_later(scores_module)
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
        return scores_module().log_loss(self._obj, **args(locals()))

    # --- cost-sensitive ROC -------------------------------------------------------------------
    @doc_later(scores_module)
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
        return scores_module().roc_hull(self._obj, **args(locals()))

    @doc_later(scores_module)
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
        return scores_module().optimal_operating_point(self._obj, **args(locals()))

    # --- how sure: interval ---
    @doc_later(interval_module, data=("data",))
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
    ) -> xr.Dataset:
        return interval_module().interval(self._obj, **args(locals()))

    # --- thresholds and curves ---
    @doc_later(scores_module)
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
        return scores_module().metric_at_thresholds(self._obj, **args(locals()))

    @doc_later(scores_module)
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
        return scores_module().pr_curve(self._obj, **args(locals()))

    @doc_later(scores_module)
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
        return scores_module().calibration_curve(self._obj, **args(locals()))

    # --- multilabel ---
    @doc_from(build.multilabel_metrics)
    def multilabel_metrics(
        self,
        fold_method: reduce.multilabel.MLFoldMethod = "tp_fp",
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
        return build.multilabel_metrics(self._obj, **args(locals()))

    # --- plots -------------------------------------------------------------------------------
    @property
    def plot(self) -> Any:
        """Plots of the predictions frame: ``.roc()``, ``.score_rates()`` (cvframe.plot)."""
        _, plotter = plot_namespaces()
        return plotter(self._obj)
