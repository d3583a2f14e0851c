"""The ``ds.cv`` and ``df.cv`` accessors: one-line facades over the module functions.

Accessors hold no state (``__slots__ = ("_obj",)``), cache nothing and validate nothing in
``__init__``. Each method has its own explicit signature (the data argument is the accessor's
object, the other parameters keep the function's names and defaults) and the function's
docstring rendered for the method: without the ``ds``/``df`` parameter, the parameters in the
method's order. No ``__wrapped__``: ``help`` and ``inspect.signature`` show the method as it
is called. The function API is the typed API; the accessor is sugar.

The modules delegated to import only numpy, pandas, xarray (and scipy lazily); plotting
(matplotlib/seaborn) is imported on first use of the ``plot`` namespaces.

Longer than ~400 lines on purpose: every method spells out its whole signature (never
``*args, **kwargs``) so that ``help``, IDEs and type checkers see the real parameters; each
method is still one call. ``tests/test_parity.py`` keeps the two APIs in step.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

import pandas as pd
import xarray as xr

from . import _docs, bootstrap, build, diagnostics, multiclass, reduce, repeats, report, scores
from ._types import (
    CellMetric,
    Definition,
    Dims,
    FoldMethod,
    How,
    KappaFoldMethod,
    Metric,
    ZeroDivision,
)

F = TypeVar("F", bound=Callable[..., Any])

_SECTION = re.compile(r"^(?P<indent>[ \t]*)Parameters\n(?P=indent)-+\n", re.MULTILINE)


def _in_method_order(text: str, method: Callable[..., Any]) -> str:
    """Reorder the Parameters entries of ``text`` as the parameters of ``method``.

    An entry starts on a line at the section's indent (``name : type`` or ``a, b : type``)
    and runs until the next such line; an entry naming several parameters sits at the first
    of them; entries naming no parameter of the method keep their order at the end. A
    section left empty (the function documented only its data parameter) is removed.
    """
    head = _SECTION.search(text)
    if head is None:
        return text
    indent = head.group("indent")
    lines = text[head.end() :].split("\n")
    end = 0  # the section ends at the first blank line followed by an unindented line
    while end < len(lines) and (
        lines[end].strip() or (end + 1 < len(lines) and lines[end + 1].startswith(indent + " "))
    ):
        end += 1
    if end == 0:  # only the data parameter was documented: no section at all
        return text[: head.start()] + "\n".join(lines[1:])
    entries: list[list[str]] = []
    for line in lines[:end]:
        if line.startswith(indent) and line[len(indent) : len(indent) + 1].strip():
            entries.append([line])
        elif entries:
            entries[-1].append(line)
        else:
            return text
    order = {name: i for i, name in enumerate(inspect.signature(method).parameters)}

    def position(entry: list[str]) -> int:
        names = entry[0].split(" : ")[0].replace("*", "").split(",")
        return min((order.get(n.strip(), len(order)) for n in names), default=len(order))

    entries.sort(key=position)  # stable: ties keep the function's order
    body = [line for entry in entries for line in entry]
    return text[: head.end()] + "\n".join(body + lines[end:])


def _doc_from(func: Callable[..., Any]) -> Callable[[F], F]:
    """Give the accessor method ``func``'s docstring as the method's: no data parameter."""

    def deco(method: F) -> F:
        method.__doc__ = _in_method_order(_docs.accessor_doc(func), method)
        return method

    return deco


def _compare_doc(method: F) -> F:
    """The docstring of :func:`cvframe.compare.compare` for ``ds.cv``/``df.cv``: no ``data``."""
    from .compare import compare

    method.__doc__ = _in_method_order(_docs.accessor_doc(compare, ("data",)), method)
    return method


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
    def accuracy(
        self, how: How = None, dim: Dims = "fold", *, zero_division: ZeroDivision = "warn"
    ) -> xr.DataArray:
        return reduce.accuracy(self._obj, how=how, dim=dim, zero_division=zero_division)

    @_doc_from(reduce.error_rate)
    def error_rate(
        self, how: How = None, dim: Dims = "fold", *, zero_division: ZeroDivision = "warn"
    ) -> xr.DataArray:
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

    @_doc_from(reduce.aggregate)
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
        return reduce.aggregate(
            self._obj,
            metric,
            fold_method,
            dim,
            beta=beta,
            skip_undefined=skip_undefined,
            zero_division=zero_division,
        )

    @_doc_from(reduce.f_tp_fp)
    def f_tp_fp(
        self, beta: float = 1.0, *, dim: Dims = "fold", zero_division: ZeroDivision = "warn"
    ) -> xr.DataArray:
        return reduce.f_tp_fp(self._obj, dim, beta=beta, zero_division=zero_division)

    @_doc_from(reduce.f_avg)
    def f_avg(
        self,
        beta: float = 1.0,
        skip_undefined: bool = False,
        *,
        dim: Dims = "fold",
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return reduce.f_avg(
            self._obj, dim, beta=beta, skip_undefined=skip_undefined, zero_division=zero_division
        )

    @_doc_from(reduce.f_pr_re)
    def f_pr_re(
        self,
        beta: float = 1.0,
        skip_undefined: bool = False,
        *,
        dim: Dims = "fold",
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return reduce.f_pr_re(
            self._obj, dim, beta=beta, skip_undefined=skip_undefined, zero_division=zero_division
        )

    @_doc_from(reduce.f_methods)
    def f_methods(
        self, beta: float = 1.0, *, dim: Dims = "fold", zero_division: ZeroDivision = "warn"
    ) -> xr.Dataset:
        return reduce.f_methods(self._obj, dim, beta=beta, zero_division=zero_division)

    # --- class averages, multiclass and repeats ------------------------------------------
    @_doc_from(multiclass.macro)
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
        return multiclass.macro(
            self._obj, metric, fold_method, definition, beta, dim=dim, zero_division=zero_division
        )

    @_doc_from(multiclass.micro)
    def micro(
        self,
        metric: Metric = "f",
        fold_method: FoldMethod = "tp_fp",
        beta: float = 1.0,
        *,
        dim: Dims = "fold",
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return multiclass.micro(
            self._obj, metric, fold_method, beta, dim=dim, zero_division=zero_division
        )

    @_doc_from(multiclass.weighted)
    def weighted(
        self,
        metric: Metric = "f",
        fold_method: FoldMethod = "tp_fp",
        beta: float = 1.0,
        *,
        dim: Dims = "fold",
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return multiclass.weighted(
            self._obj, metric, fold_method, beta, dim=dim, zero_division=zero_division
        )

    @_doc_from(multiclass.kappa)
    def kappa(
        self,
        fold_method: KappaFoldMethod = "tp_fp",
        *,
        dim: Dims = "fold",
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return multiclass.kappa(self._obj, fold_method, dim=dim, zero_division=zero_division)

    @_doc_from(multiclass.confusion)
    def confusion(self, dim: Dims = "fold") -> xr.DataArray:
        return multiclass.confusion(self._obj, dim)

    @_doc_from(repeats.summary)
    def summary(
        self,
        result: xr.DataArray | xr.Dataset | None = None,
        dim: str = "repeat",
        ci: float = 0.95,
        *,
        ddof: int = 1,
    ) -> xr.Dataset:
        return repeats.summary(self._obj, result, dim, ci, ddof=ddof)

    # --- means of precision and recall, kappa's chance matrix --------------------------------
    @_doc_from(multiclass.pr_mean)
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
        return multiclass.pr_mean(
            self._obj,
            kind,
            fold_method,
            average,
            beta=beta,
            dim=dim,
            zero_division=zero_division,
        )

    @_doc_from(multiclass.kappa_expected)
    def kappa_expected(self, dim: Dims = "fold") -> xr.DataArray:
        return multiclass.kappa_expected(self._obj, dim)

    # --- .632 bootstrap ----------------------------------------------------------------------
    @_doc_from(bootstrap.bootstrap_632)
    def bootstrap_632(
        self, metric: str = "error", plus: bool = False, *, dim: Dims = "fold"
    ) -> xr.DataArray:
        return bootstrap.bootstrap_632(self._obj, metric=metric, plus=plus, dim=dim)

    # --- cost-sensitive analysis --------------------------------------------------------------
    @_doc_from(scores.expected_cost)
    def expected_cost(
        self,
        cost_matrix: Any = None,
        how: How = None,
        dim: Dims = "fold",
        *,
        zero_division: ZeroDivision = "warn",
    ) -> xr.DataArray:
        return scores.expected_cost(self._obj, cost_matrix, how, dim, zero_division=zero_division)

    # --- diagnostics, report and plots -------------------------------------------------------
    @_doc_from(diagnostics.anomalies)
    def anomalies(
        self,
        *,
        tolerance: float = 0.05,
        alpha: float = 0.01,
        beta: float = 1.0,
        scores: pd.DataFrame | None = None,
    ) -> pd.DataFrame:
        return diagnostics.anomalies(
            self._obj, tolerance=tolerance, alpha=alpha, beta=beta, scores=scores
        )

    @_doc_from(report.report)
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
        return report.report(
            self._obj,
            scores=scores,
            format=format,
            title=title,
            zero_division=zero_division,
            beta=beta,
            tolerance=tolerance,
            alpha=alpha,
            plots=plots,
            max_fold_rows=max_fold_rows,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )

    # --- paired comparison of models -----------------------------------------------------------
    @_compare_doc
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
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        y_pred: str = "y_pred",
        score: str = "score",
        fold: str = "fold",
        repeat: str | None = "repeat",
        sample: str | None = "sample",
    ) -> xr.Dataset:
        from .compare import compare  # looked up per call: cvframe.compare may be the function

        return compare(
            self._obj,
            metric,
            baseline=baseline,
            dim=dim,
            test=test,
            alpha=alpha,
            n_resamples=n_resamples,
            random_state=random_state,
            rope=rope,
            beta=beta,
            zero_division=zero_division,
            pos_label=pos_label,
            y_true=y_true,
            y_pred=y_pred,
            score=score,
            fold=fold,
            repeat=repeat,
            sample=sample,
        )

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
        return build.counts_from_frame(
            self._obj,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            y_pred=y_pred,
            fold=fold,
            repeat=repeat,
            sample_weight=sample_weight,
            dims=dims,
        )

    # --- paired comparison of models -----------------------------------------------------------
    @_compare_doc
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
        pos_label: Hashable | None = None,
        y_true: str = "y_true",
        y_pred: str = "y_pred",
        score: str = "score",
        fold: str = "fold",
        repeat: str | None = "repeat",
        sample: str | None = "sample",
    ) -> xr.Dataset:
        from .compare import compare  # looked up per call: cvframe.compare may be the function

        return compare(
            self._obj,
            metric,
            baseline=baseline,
            dim=dim,
            test=test,
            alpha=alpha,
            n_resamples=n_resamples,
            random_state=random_state,
            rope=rope,
            beta=beta,
            zero_division=zero_division,
            pos_label=pos_label,
            y_true=y_true,
            y_pred=y_pred,
            score=score,
            fold=fold,
            repeat=repeat,
            sample=sample,
        )

    # --- scores ------------------------------------------------------------------------------
    @_doc_from(scores.auc)
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
        return scores.auc(
            self._obj,
            method,
            undefined,
            average=average,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )

    @_doc_from(scores.auc_methods)
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
        return scores.auc_methods(
            self._obj,
            undefined,
            average=average,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )

    @_doc_from(scores.average_precision)
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
        return scores.average_precision(
            self._obj,
            method,
            undefined,
            average=average,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )

    @_doc_from(scores.precision_at_k)
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
        return scores.precision_at_k(
            self._obj,
            k,
            method,
            undefined,
            average=average,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )

    @_doc_from(scores.r_precision)
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
        return scores.r_precision(
            self._obj,
            method,
            undefined,
            average=average,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )

    @_doc_from(scores.roc)
    def roc(
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
        return scores.roc(
            self._obj,
            undefined,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )

    @_doc_from(scores.score_rates)
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
        return scores.score_rates(
            self._obj,
            undefined,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )

    # --- break-even point over thresholds ----------------------------------------------------
    @_doc_from(scores.break_even_point)
    def break_even_point(
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
        return scores.break_even_point(
            self._obj,
            method,
            undefined,
            average=average,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )

    # --- calibration: Brier score, its decomposition, log-loss ------------------------------
    @_doc_from(scores.brier)
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
        return scores.brier(
            self._obj,
            method,
            undefined,
            average=average,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )

    @_doc_from(scores.brier_decomposition)
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
        return scores.brier_decomposition(
            self._obj,
            method,
            undefined,
            bins=bins,
            average=average,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )

    @_doc_from(scores.log_loss)
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
        return scores.log_loss(
            self._obj,
            method,
            undefined,
            average=average,
            eps=eps,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )

    # --- cost-sensitive ROC -------------------------------------------------------------------
    @_doc_from(scores.roc_hull)
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
        return scores.roc_hull(
            self._obj,
            method,
            undefined,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )

    @_doc_from(scores.optimal_operating_point)
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
        return scores.optimal_operating_point(
            self._obj,
            cost_fp,
            cost_fn,
            prevalence,
            method,
            undefined,
            labels=labels,
            pos_label=pos_label,
            y_true=y_true,
            fold=fold,
            repeat=repeat,
            score=score,
        )

    # --- plots -------------------------------------------------------------------------------
    @property
    def plot(self) -> Any:
        """Plots of the predictions frame: ``.roc()``, ``.score_rates()`` (cvframe.plot)."""
        from .plot import DataFramePlotter

        return DataFramePlotter(self._obj)
