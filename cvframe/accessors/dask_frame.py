"""``ddf.cv``: the accessor of a dask predictions frame, the methods of ``df.cv`` that run
lazily or by one reduction of the partitions.

Each method is the very method of :class:`~.frame.CVDataFrameAccessor` (the same signature,
docstring and one call of its module function); on a dask frame the functions run so:

- ``counts`` builds the cube lazily (one ``bincount`` per partition, a tree sum);
- the score metrics, curves, ``interval`` and ``calibration_curve`` reduce the frame to its
  score counts, one pass over the partitions, and read them exactly
  (:func:`cvframe.scores.score_counts`); ``brier``, ``log_loss`` and
  ``brier_decomposition`` to per-group sums.

``compare`` pairs the rows of the models sample by sample and ``plot`` draws from the rows:
not here (``ddf.compute().cv`` has them). The class is registered on
``dask.dataframe.DataFrame`` by dask's public accessor API (:func:`register`), when
``dask.dataframe`` is imported: ``import cvframe`` does not import dask.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import Any

from ._common import Accessor
from .frame import CVDataFrameAccessor

__all__ = ["CVDaskFrameAccessor", "register", "register_when_imported"]

_FRAME = vars(CVDataFrameAccessor)


class CVDaskFrameAccessor(Accessor):
    """Cross-validation metrics of a dask predictions frame, without computing it whole.

    The methods of ``df.cv`` that run lazily or by reduction, each the very method (the
    same call of the same function).
    """

    __slots__ = ()

    counts = _FRAME["counts"]
    auc = _FRAME["auc"]
    auc_methods = _FRAME["auc_methods"]
    auc_tie_bound = _FRAME["auc_tie_bound"]
    average_precision = _FRAME["average_precision"]
    precision_at_k = _FRAME["precision_at_k"]
    r_precision = _FRAME["r_precision"]
    roc = _FRAME["roc"]
    score_rates = _FRAME["score_rates"]
    score_counts = _FRAME["score_counts"]
    break_even_point = _FRAME["break_even_point"]
    brier = _FRAME["brier"]
    brier_decomposition = _FRAME["brier_decomposition"]
    log_loss = _FRAME["log_loss"]
    roc_hull = _FRAME["roc_hull"]
    optimal_operating_point = _FRAME["optimal_operating_point"]
    interval = _FRAME["interval"]
    metric_at_thresholds = _FRAME["metric_at_thresholds"]
    pr_curve = _FRAME["pr_curve"]
    calibration_curve = _FRAME["calibration_curve"]
    multilabel_metrics = _FRAME["multilabel_metrics"]


def register() -> None:
    """Register ``ddf.cv`` with :func:`dask.dataframe.extensions.register_dataframe_accessor`
    (once)."""
    from dask.dataframe import DataFrame
    from dask.dataframe.extensions import register_dataframe_accessor

    if "cv" in vars(DataFrame):
        return
    register_dataframe_accessor("cv")(CVDaskFrameAccessor)


class _Loader(importlib.abc.Loader):
    """``dask.dataframe``'s own loader, then :func:`register` once the module has run."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        register()


class _Finder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: hands ``dask.dataframe``'s spec, found by the other finders,
    a loader that registers ``ddf.cv`` after the module has run; then steps aside."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != "dask.dataframe":
            return None
        sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _Loader(spec.loader)
                return spec
        return None


def register_when_imported() -> None:
    """``ddf.cv`` on every dask DataFrame: registered now when ``dask.dataframe`` is
    imported, else by the import system's finder protocol when it is (so that ``import
    cvframe`` does not import dask)."""
    if "dask.dataframe" in sys.modules:
        register()
    elif not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
